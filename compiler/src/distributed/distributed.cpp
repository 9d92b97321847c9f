/// \file
/// The data-parallel training helpers (distributed/distributed.h): MPI
/// start-up forwarded to the runtime, the fused gradient average and the
/// initial broadcast of parameters.
#include "theano/distributed/distributed.h"

#include <map>

#include "theano/compile/shared.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::distributed {

void init(int* argc, char*** argv) { runtime::mpi_init(argc, argv); }
bool initialized() { return runtime::mpi_initialized(); }
void finalize() { runtime::mpi_finalize(); }
std::int64_t rank() { return runtime::comm_rank(0); }
std::int64_t size() { return runtime::comm_size(0); }
void barrier(Communicator comm) { runtime::comm_barrier(comm.id); }

std::vector<Var> average_gradients(const std::vector<Var>& grads, Communicator comm) {
  // Group by dtype (one allreduce each), keeping the callers' order within a group.
  std::map<DType, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const tensor::TensorType* t = tensor::tensor_type(grads[i]);
    THEANO_USER_CHECK(t && (t->dtype() == DType::Float64 || t->dtype() == DType::Float32), TypeError)
        << "average_gradients: gradient " << i << " (" << grads[i].str()
        << ") must be a float32 or float64 tensor, got type " << grads[i].type()->str();
    groups[t->dtype()].push_back(i);
  }
  std::vector<Var> out(grads.size());
  for (const auto& [dtype, members] : groups) {
    std::vector<Var> flat;
    for (std::size_t i : members) flat.push_back(tensor::flatten(grads[i], 1));
    Var joined = flat.size() == 1 ? flat[0] : tensor::concatenate(flat, 0);
    Var mean = allreduce(joined, ReduceOp::mean, comm);
    Var offset;  // none before the first piece (offset 0)
    for (std::size_t j = 0; j < members.size(); ++j) {
      const Var& g = grads[members[j]];
      const int nd = tensor::tensor_type(g)->ndim();
      Var count = tensor::shape_i(flat[j], 0);
      Var end = j == 0 ? count : tensor::add(offset, count);
      Var piece = tensor::subtensor(mean, {j == 0 ? tensor::slice(0, end) : tensor::slice(offset, end)});
      out[members[j]] = tensor::reshape(piece, tensor::shape(g), nd);
      offset = end;
    }
  }
  return out;
}

void broadcast_parameters(const std::vector<Var>& params, std::int64_t root, Communicator comm) {
  for (const Var& p : params) {
    SharedVariable* s = as_shared(p);
    THEANO_USER_CHECK(s, TypeError) << "broadcast_parameters: " << p.str()
                                    << " is not a shared variable (only shared variables hold parameters)";
    NDArray v = s->get_value(/*borrow=*/false);
    THEANO_USER_CHECK(v.device().is_cpu(), TypeError)
        << "broadcast_parameters: " << p.str() << " lives on a GPU; collectives move host arrays";
    NDArray got = NDArray::empty(runtime::collective_output_shape(runtime::Collective::broadcast, comm.id, v),
                                 v.dtype());
    runtime::run_collective(runtime::Collective::broadcast, comm.id, root, v, got,
                            "broadcast_parameters(" + p.str() + ")");
    s->set_value(got, /*borrow=*/true);
  }
}

}  // namespace theano::distributed

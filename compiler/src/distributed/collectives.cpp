/// \file
/// The collective op (distributed/collectives.h): type checks, perform
/// through runtime::run_collective (the check and the MPI call the
/// generated code makes too), shapes and gradients.
#include "theano/distributed/collectives.h"

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::distributed {

using runtime::Collective;
using tensor::TensorType;

Communicator Communicator::split(std::int64_t color, std::int64_t key) const {
  return {runtime::comm_split(id, color, key)};
}
std::int64_t Communicator::rank() const { return runtime::comm_rank(id); }
std::int64_t Communicator::size() const { return runtime::comm_size(id); }

namespace {
bool no_input(Collective k) { return k == Collective::rank || k == Collective::size; }
}  // namespace

CollectiveOp::CollectiveOp(Collective kind, std::int64_t comm, std::int64_t root)
    : kind_(kind), comm_(comm), root_(kind == Collective::broadcast ? root : 0) {
  THEANO_USER_CHECK(static_cast<std::int64_t>(kind) >= 0 && static_cast<std::int64_t>(kind) <= 6, ValueError)
      << "CollectiveOp: unknown collective kind " << static_cast<std::int64_t>(kind);
  THEANO_USER_CHECK(comm >= 0, ValueError) << "CollectiveOp: communicator numbers are >= 0, got " << comm;
  THEANO_USER_CHECK(root_ >= 0, ValueError) << "broadcast: the root rank must be >= 0, got " << root;
}

std::string_view CollectiveOp::type_name() const {
  switch (kind_) {
    case Collective::allreduce_sum:
    case Collective::allreduce_mean:
    case Collective::allreduce_max:
      return "MpiAllreduce";
    case Collective::broadcast:
      return "MpiBroadcast";
    case Collective::allgather:
      return "MpiAllgather";
    case Collective::rank:
      return "MpiRank";
    case Collective::size:
      return "MpiSize";
  }
  return "MpiCollective";
}

Props CollectiveOp::props() const {
  Props p;
  if (kind_ == Collective::allreduce_sum) p.push_back({"op", std::string("sum")});
  if (kind_ == Collective::allreduce_mean) p.push_back({"op", std::string("mean")});
  if (kind_ == Collective::allreduce_max) p.push_back({"op", std::string("max")});
  p.push_back({"comm", comm_});
  if (kind_ == Collective::broadcast) p.push_back({"root", root_});
  return p;
}

const CollectiveOp* as_collective(const Apply& node) { return dynamic_cast<const CollectiveOp*>(node.op().get()); }

THEANO_REGISTER_OP(CollectiveOp, .kinds = {"MpiAllreduce", "MpiBroadcast", "MpiAllgather", "MpiRank", "MpiSize"},
                   .no_cuda = "MPI exchanges host buffers; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

// Not folded: a collective's value comes from the other processes.
bool CollectiveOp::foldable() const { return false; }

ApplyPtr CollectiveOp::make_node(std::vector<Var> inputs) const {
  if (no_input(kind_)) {
    THEANO_USER_CHECK(inputs.empty(), TypeError) << name() << " takes no input, got " << inputs.size();
    return Apply::create(OpPtr(this), {}, {TensorType::make(DType::Int64, {})->make_variable()});
  }
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  Var x = tensor::as_tensor_variable(inputs[0]);
  const TensorType* t = tensor::tensor_type(x);
  THEANO_USER_CHECK(t && (t->dtype() == DType::Float64 || t->dtype() == DType::Float32), TypeError)
      << runtime::collective_name(kind_) << ": " << x.str()
      << " must be a float32 or float64 tensor (what MPI moves here), got type " << x.type()->str();
  tensor::StaticShape shape = t->shape();
  if (kind_ == Collective::allgather) {
    THEANO_USER_CHECK(t->ndim() >= 1, TypeError)
        << "allgather: " << x.str() << " must have at least one dimension (the ranks' arrays stack along axis 0)";
    shape[0] = std::nullopt;  // the number of ranks is known when the function runs
  }
  Var out = TensorType::make(t->dtype(), std::move(shape))->make_variable();
  return Apply::create(OpPtr(this), {x}, {out});
}

void CollectiveOp::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const std::string what = name();
  if (no_input(kind_)) {
    NDArray out = NDArray::empty({}, DType::Int64);
    runtime::run_collective(kind_, comm_, root_, out, out, what);
    outputs[0] = out;
    return;
  }
  const NDArray& x = inputs[0];
  NDArray out = NDArray::empty(runtime::collective_output_shape(kind_, comm_, x), x.dtype());
  runtime::run_collective(kind_, comm_, root_, x, out, what);
  outputs[0] = out;
}

std::vector<std::vector<Var>> CollectiveOp::infer_shape(const Apply& node,
                                                        const std::vector<std::vector<Var>>& input_shapes) const {
  if (no_input(kind_)) return {{}};
  std::vector<Var> s = input_shapes[0];
  if (kind_ == Collective::allgather) s[0] = tensor::mul(s[0], symbolic_size(Communicator{comm_}));
  return {s};
}

std::vector<Var> CollectiveOp::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  THEANO_USER_CHECK(!no_input(kind_), InternalError) << name() << " has no input to differentiate";
  const Var& x = node.input(0);
  const Var& g = output_grads[0];
  const Communicator comm{comm_};
  switch (kind_) {
    case Collective::allreduce_sum:
      return {allreduce(g, ReduceOp::sum, comm)};
    case Collective::allreduce_mean:
      return {allreduce(g, ReduceOp::mean, comm)};
    case Collective::allreduce_max:
      return {tensor::mul(allreduce(g, ReduceOp::sum, comm), tensor::cast(tensor::eq(x, node.output(0)), tensor::tensor_type(x)->dtype()))};
    case Collective::broadcast:
      return {tensor::switch_(tensor::eq(symbolic_rank(comm), root_), allreduce(g, ReduceOp::sum, comm), tensor::zeros_like(x))};
    case Collective::allgather: {
      Var rows = tensor::shape_i(x, 0);
      Var start = tensor::mul(symbolic_rank(comm), rows);
      return {tensor::subtensor(allreduce(g, ReduceOp::sum, comm), {tensor::slice(start, tensor::add(start, rows))})};
    }
    default:
      break;
  }
  THEANO_USER_CHECK(false, InternalError) << name() << ": no gradient";
  return {};
}

Var allreduce(const Var& x, ReduceOp op, Communicator comm) {
  const Collective k = op == ReduceOp::sum    ? Collective::allreduce_sum
                       : op == ReduceOp::mean ? Collective::allreduce_mean
                                              : Collective::allreduce_max;
  return OpPtr(new CollectiveOp(k, comm.id))->apply1({x});
}

Var broadcast(const Var& x, std::int64_t root, Communicator comm) {
  return OpPtr(new CollectiveOp(Collective::broadcast, comm.id, root))->apply1({x});
}

Var allgather(const Var& x, Communicator comm) {
  return OpPtr(new CollectiveOp(Collective::allgather, comm.id))->apply1({x});
}

Var symbolic_rank(Communicator comm) { return OpPtr(new CollectiveOp(Collective::rank, comm.id))->apply1({}); }

Var symbolic_size(Communicator comm) { return OpPtr(new CollectiveOp(Collective::size, comm.id))->apply1({}); }

}  // namespace theano::distributed

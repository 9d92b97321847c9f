// Lowering of the collective ops (theano/distributed/collectives.h): the
// node sets the output's shape (allgather asks the communicator's size
// first), allocates it, and hands input and output to the host's collective
// callback (TheanoContext::collective), which runs runtime::run_collective:
// the same shape agreement and MPI call perform makes. No per-element work:
// compiled cold.
#include "lowering.h"

#include <theano/distributed/collectives.h>
#include <theano/tensor/type.h>

#include <string>

namespace theano::codegen::lower {

namespace {

using distributed::CollectiveOp;
using runtime::Collective;

std::string call(const NodeLowering& L, Collective kind, std::int64_t comm, std::int64_t root, const std::string& in,
                 const std::string& out) {
  return "if (ctx->collective(ctx->host, " + str(static_cast<std::int64_t>(kind)) + ", " + str(comm) + ", " +
         str(root) + ", " + in + ", " + out + ", " + c_string(L.label) + ") != 0) return THEANO_ERR_HOST;";
}

void lower_collective(NodeLowering& L) {
  const auto& op = static_cast<const CollectiveOp&>(L.op);
  for (int i = 0; i < L.nin(); ++i)
    if (on_gpu(L.node.input(i)))
      refuse(L.node, LoweringReason::Gpu, " (an input in GPU memory: collectives move host arrays)");
  if (on_gpu(L.node.output(0)))
    refuse(L.node, LoweringReason::Gpu, " (an output in GPU memory: collectives move host arrays)");
  L.cold = true;
  CodeWriter& w = L.body;
  const Collective kind = op.kind();
  if (kind == Collective::rank || kind == Collective::size) {
    w.line(L.alloc(0));
    w.line(call(L, kind, op.comm(), 0, "o0", "o0"));
    w.line("return 0;");
    return;
  }
  const int nd = L.in(0).ndim();
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  if (kind == Collective::allgather) {
    w.line("int64_t nranks = 0;");
    w.line("struct TheanoArray q = {(char*)&nranks, 0, " + str(static_cast<std::int64_t>(DType::Int64)) + ", -1};");
    w.line(call(L, Collective::size, op.comm(), 0, "&q", "&q"));
    w.line("if (theano_checked_mul(x0->shape[0], nranks, &o0->shape[0]) != 0) " +
           L.fail_int(kErrValue, "the gathered rows overflow int64: rows per rank ", "x0->shape[0]"));
  }
  w.line(L.alloc(0));
  w.line(call(L, kind, op.comm(), op.root(), "x0", "o0"));
  w.line("return 0;");
}

}  // namespace

void add_distributed_lowerings(LoweringTable& t) { t.add<CollectiveOp>(Target::Cpu, &lower_collective); }

}  // namespace theano::codegen::lower

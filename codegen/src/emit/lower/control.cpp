// Lowerings of the control-flow ops (theano/control/). IfElse: each output
// becomes a view of the branch its condition picks (a copy of the array
// descriptor, so the output shares that input's buffer and owner, as its
// view_map declares). The laziness itself is not here: the source generator
// puts the nodes only one branch needs inside `if` blocks
// (source_generator.cpp, compile/lazy_schedule.h).
#include "lowering.h"

#include <theano/control/ifelse.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {
namespace {

void lower_ifelse(NodeLowering& L) {
  const auto& op = static_cast<const IfElse&>(L.op);
  const int n = op.n_outs();
  if (on_gpu(L.node.input(0))) refuse(L.node, LoweringReason::Gpu, " (a condition in GPU memory)");
  L.cold = true;
  L.body.line("const bool c = *(const " + std::string(c_type(L.in(0).dtype())) + "*)x0->data != 0;");
  for (int k = 0; k < n; ++k)
    L.body.line("*" + L.o(k) + " = c ? *" + L.x(1 + k) + " : *" + L.x(1 + n + k) + ";");
  L.body.line("return 0;");
}

}  // namespace

void add_control_lowerings(LoweringTable& t) { t.add<IfElse>(Target::Cpu, &lower_ifelse); }

}  // namespace theano::codegen::lower

// Lowerings of Join and Split (join.h; see lowering.h for the protocol).
//
// Join (numpy.concatenate along its `axis` prop, already normalized >= 0 by
// make_node): sizes must match exactly off the axis (ShapeError otherwise, as
// perform); the output dtype is the promotion of the inputs' dtypes (safe casts,
// so plain C conversions match perform's assign). Each input is copied into its
// slab of the output with a strided, converting copy (on the GPU, GpuJoin,
// a copy kernel: its inputs have the output's dtype).
//
// Split: the sizes are a run-time integer vector (any integer dtype) of
// `len_splits` entries checked by theano_split_rule (shape_rules.h, as perform):
// negative sizes or an overflowing sum -> ValueError, a sum other than
// x.shape[axis] -> ShapeError; outputs are views of x (declared in view_map).
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/tensor/join.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {
namespace {

void lower_join(NodeLowering& L) {
  const auto& op = static_cast<const tensor::Join&>(L.op);
  CodeWriter& w = L.body;
  const int nd = L.out(0).ndim();
  const int axis = op.axis();
  const std::string as = str(axis);
  const int nin = L.nin();
  // Inputs of the output's dtype are copied by the host (copy_strided): the
  // node function then holds no loop; a conversion copy is a loop of its own.
  bool converts = false;
  for (int i = 0; i < nin; ++i) converts = converts || L.in(i).dtype() != L.out(0).dtype();
  L.cold = !converts || on_gpu(L.node.output(0));
  w.line("int64_t lengths[" + str(nin) + "];");
  for (int i = 0; i < nin; ++i) w.line("lengths[" + str(i) + "] = " + L.x(i) + "->shape[" + as + "];");
  for (int i = 1; i < nin; ++i) {
    const std::string xi = L.x(i), is = str(i);
    for (int d = 0; d < nd; ++d) {
      if (d == axis) continue;
      const std::string ds = str(d);
      w.line("if (" + xi + "->shape[" + ds + "] != x0->shape[" + ds + "]) " +
             L.fail_int2(kErrShape,
                         "all the input array dimensions except for the concatenation axis must match exactly, but "
                         "along dimension " +
                             ds + ", input 0 has size ",
                         "x0->shape[" + ds + "]", " and input " + is + " has size ", xi + "->shape[" + ds + "]"));
    }
  }
  // The sum perform checks too (shape_rules.h): 0-size inputs can be long.
  w.line("int64_t total = 0, bad = 0;");
  w.line("const int rule = theano_join_length(lengths, " + str(nin) + ", &total, &bad);");
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "the joined length: ", "bad"));
  for (int d = 0; d < nd; ++d)
    w.line("o0->shape[" + str(d) + "] = " + (d == axis ? std::string("total") : "x0->shape[" + str(d) + "]") + ";");
  w.line(L.alloc(0));
  w.line("int64_t off = 0;");
  const bool gpu = on_gpu(L.node.output(0));  // GpuJoin: inputs of the output's dtype (gpu_op_inputs)
  const std::string ot = L.out_ctype(0);
  for (int i = 0; i < nin; ++i) {
    const std::string xi = L.x(i), dst = "o0->data + off * o0->strides[" + as + "]";
    if (gpu) {
      emit_gpu_copy(L, L.out(0).dtype(), nd, dst, "o0->strides", xi + "->data", xi + "->strides", xi + "->shape");
    } else if (L.in(i).dtype() == L.out(0).dtype()) {
      w.line(host_copy(dst, "o0->strides", xi + "->data", xi + "->strides", xi + "->shape", str(nd),
                       dtype_size(L.out(0).dtype())) +
             ";");
    } else {
      need_convert_copy(L);
      w.line("theano_convert_copy<" + ot + ", " + L.in_ctype(i) + ">(" + dst + ", o0->strides, " + xi + "->data, " +
             xi + "->strides, " + xi + "->shape, " + str(nd) + ");");
    }
    if (i + 1 < nin) w.line("off += " + xi + "->shape[" + as + "];");
  }
  w.line("return 0;");
}

void lower_split(NodeLowering& L) {
  L.cold = true;
  const auto& op = static_cast<const tensor::Split&>(L.op);
  CodeWriter& w = L.body;
  const int n = op.len_splits();
  const int axis = op.axis();
  const std::string ns = str(n), as = str(axis);
  const int nd = L.in(0).ndim();
  w.line("if (x1->shape[0] != " + ns + ") " +
         L.fail_int(kErrValue, "got ", "x1->shape[0]", " split sizes, expected " + ns));
  w.line("int64_t sz[" + ns + "];");
  w.line("for (int64_t i = 0; i < " + ns + "; ++i) sz[i] = (int64_t)*(const " + L.in_ctype(1) +
         "*)(x1->data + i * x1->strides[0]);");
  // The rule perform runs too (shape_rules.h): sizes >= 0, a checked sum.
  w.line("int64_t bad = 0;");
  w.line("const int rule = theano_split_rule(x0->shape[" + as + "], sz, " + ns + ", &bad);");
  w.line("if (rule == THEANO_RULE_MISMATCH) " + L.fail_int2(kErrShape, "the split sizes sum to ", "bad",
                                                            ", but dimension " + as + " of the input has size ",
                                                            "x0->shape[" + as + "]"));
  w.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", "invalid split sizes: ", "bad"));
  w.line("int64_t off = 0;");
  for (int k = 0; k < n; ++k) {
    const std::string o = L.o(k), ks = str(k);
    w.line(o + "->data = x0->data + off * x0->strides[" + as + "];");
    w.line(o + "->owner = x0->owner;");
    for (int d = 0; d < nd; ++d) {
      const std::string ds = str(d);
      w.line(o + "->shape[" + ds + "] = " + (d == axis ? "sz[" + ks + "]" : "x0->shape[" + ds + "]") + ";");
      w.line(o + "->strides[" + ds + "] = x0->strides[" + ds + "];");
    }
    if (k + 1 < n) w.line("off += sz[" + ks + "];");
  }
  w.line("return 0;");
}

}  // namespace

void add_join_lowerings(LoweringTable& t) {
  t.add<tensor::Join>(Target::Cpu, &lower_join);
  t.add<tensor::Join>(Target::Cuda, &lower_join);  // its GPU form: this code, a copy kernel for a GPU output
  t.add<tensor::Split>(Target::Cpu, &lower_split);
  t.add<tensor::Split>(Target::Cuda, &lower_split);  // its GPU form: this code on device addresses
}

}  // namespace theano::codegen::lower

// GPU lowerings of ARange and Eye: made from host scalars, written by one
// thread an element. The length and shape rules, the start / step reads and
// the element formula are the CPU lowering's (lowering.h: emit_arange,
// arange_code, emit_eye), so the values are perform's: a float range's
// element i is first + i * (second - first), each step rounded separately
// (the unit is compiled without FMA contraction, --fmad=false).
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include "../cuda_unit.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

void lower_gpu_arange(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const DType od = L.out(0).dtype();
  const std::string ot = c_type(od);
  const bool int_path = int_like(L.in(0).dtype()) && int_like(L.in(2).dtype());
  emit_arange(L);
  std::vector<std::pair<std::string, std::string>> support;
  const std::string element = arange_code(L, "i", &support);
  for (const auto& [key, code] : support) L.cuda->need(key, code);
  L.cuda->need_exact_fp();
  // start and step: int64, or doubles; a float output's first two values as doubles.
  cuda::ParamBlock pb;
  const cuda::Param n = pb.int64("n", "n"), o = pb.pointer("o", ot + "*", "o0->data");
  const cuda::Param a0 = int_path ? pb.int64("a0", "a0") : pb.real("a0", "a0");
  const cuda::Param s0 = int_path ? pb.int64("s0", "s0") : pb.real("s0", "s0");
  const bool firsts = !int_path && is_float(od);
  const cuda::Param first = firsts ? pb.real("first_d", "(double)first") : cuda::Param{};
  const cuda::Param second = firsts ? pb.real("second_d", "(double)second") : cuda::Param{};
  cuda::Kernel k(pb, L.fn + "_arange", {n, o, a0, s0});
  if (firsts) {
    k.w.line(pb.read(first));
    k.w.line(pb.read(second));
    k.w.line("const " + ot + " first = (" + ot + ")first_d, second = (" + ot + ")second_d;");
  }
  k.w.line("(void)a0; (void)s0;");
  cuda::grid_stride_loop(k.w, "i", "n");
  k.w.line("o[i] = " + element + ";");
  k.w.close();
  const int kernel = L.cuda->add_kernel(k, L.label, 0, int_like(od) ? "theano_i" : "theano_f");
  CodeWriter& w = L.body;
  w.line("if (n == 0) return 0;");
  pb.declare(w);
  w.line("return " + pb.launch(kernel, "n") + ";");
}

void lower_gpu_eye(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string ot = c_type(L.out(0).dtype());
  emit_eye(L);
  // Element (r, c) of the n x m output is 1 where c == r + k and r in [lo, hi).
  cuda::ParamBlock pb;
  const cuda::Param total = pb.int64("total", "total"), m = pb.int64("m", "m"), k = pb.int64("k", "k");
  const cuda::Param lo = pb.int64("lo", "lo"), hi = pb.int64("hi", "hi"), o = pb.pointer("o", ot + "*", "o0->data");
  cuda::Kernel kernel(pb, L.fn + "_eye", {total, m, k, lo, hi, o});
  cuda::grid_stride_loop(kernel.w, "e", "total");
  kernel.w.line("const int64_t r = e / m, c = e % m;");
  kernel.w.line("o[e] = (" + ot + ")((r >= lo && r < hi && c == r + k) ? 1 : 0);");
  kernel.w.close();
  const int id = L.cuda->add_kernel(kernel, L.label);
  CodeWriter& w = L.body;
  w.line("const int64_t total = n * m;  // an allocated array's size: no overflow");
  w.line("if (total == 0) return 0;");
  pb.declare(w);
  w.line("return " + pb.launch(id, "total") + ";");
}

}  // namespace

void add_gpu_arange_lowerings(LoweringTable& t) {
  t.add<tensor::ARange>(Target::Cuda, &lower_gpu_arange);
  t.add<tensor::Eye>(Target::Cuda, &lower_gpu_eye);
}

}  // namespace theano::codegen::lower

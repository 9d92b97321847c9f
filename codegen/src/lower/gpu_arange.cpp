// GPU lowerings of ARange and Eye: made from host scalars, written by one
// thread an element. The length and shape rules, the start / step reads and
// the element formula are the CPU lowering's (lowering.h: emit_arange,
// arange_code, emit_eye), so the values are perform's: a float range's
// element i is first + i * (second - first), each step rounded separately
// (the unit is compiled without FMA contraction, --fmad=false).
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include "../cuda/cuda_unit.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

std::string grid_loop(const std::string& var, const std::string& count) {
  return "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n"
         "  for (int64_t " +
         var + " = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; " + var + " < " + count + "; " +
         var + " += step)";
}

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
  // p: n, out, a0, s0 (int64, or double bits), first, second (double bits of the output's values).
  const std::string name = L.fn + "_arange";
  std::string k = "extern \"C\" __global__ void " + name + "(const theano_params_6 p) {\n";
  k += "  " + ot + "* o = (" + ot + "*)p.v[1];\n";
  if (int_path) {
    k += "  const int64_t a0 = p.v[2], s0 = p.v[3];\n";
  } else {
    k += "  const double a0 = theano_bits_double(p.v[2]), s0 = theano_bits_double(p.v[3]);\n";
    if (is_float(od))
      k += "  const " + ot + " first = (" + ot + ")theano_bits_double(p.v[4]), second = (" + ot +
           ")theano_bits_double(p.v[5]);\n";
  }
  k += "  (void)a0; (void)s0;\n";
  k += grid_loop("i", "p.v[0]") + " o[i] = " + element + ";\n}\n";
  const int kernel = L.cuda->add_kernel(name, L.label, 6, 0, int_like(od) ? "theano_i" : "theano_f", k);
  CodeWriter& w = L.body;
  w.line("if (n == 0) return 0;");
  w.line("int64_t p[6] = {n, (int64_t)o0->data, 0, 0, 0, 0};");
  if (int_path) {
    w.line("p[2] = a0; p[3] = s0;");
  } else {
    w.line("__builtin_memcpy(&p[2], &a0, 8); __builtin_memcpy(&p[3], &s0, 8);");
    if (is_float(od)) {
      w.line("const double f0 = (double)first, f1 = (double)second;");
      w.line("__builtin_memcpy(&p[4], &f0, 8); __builtin_memcpy(&p[5], &f1, 8);");
    }
  }
  w.line("return ctx->gpu_launch(ctx->host, " + str(kernel) + ", n, p, 6);");
}

void lower_gpu_eye(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string ot = c_type(L.out(0).dtype());
  emit_eye(L);
  // p: n * m, m, k, lo, hi, out. Element (r, c) is 1 where c == r + k and r in [lo, hi).
  const std::string name = L.fn + "_eye";
  std::string k = "extern \"C\" __global__ void " + name + "(const theano_params_6 p) {\n";
  k += "  " + ot + "* o = (" + ot + "*)p.v[5];\n";
  k += grid_loop("e", "p.v[0]") + " {\n";
  k += "    const int64_t r = e / p.v[1], c = e % p.v[1];\n";
  k += "    o[e] = (" + ot + ")((r >= p.v[3] && r < p.v[4] && c == r + p.v[2]) ? 1 : 0);\n  }\n}\n";
  const int kernel = L.cuda->add_kernel(name, L.label, 6, 0, "", k);
  CodeWriter& w = L.body;
  w.line("const int64_t total = n * m;  // an allocated array's size: no overflow");
  w.line("if (total == 0) return 0;");
  w.line("int64_t p[6] = {total, m, k, lo, hi, (int64_t)o0->data};");
  w.line("return ctx->gpu_launch(ctx->host, " + str(kernel) + ", total, p, 6);");
}

}  // namespace

void add_gpu_arange_lowerings(LoweringTable& t) {
  t.add<tensor::ARange>(Target::Cuda, &lower_gpu_arange);
  t.add<tensor::Eye>(Target::Cuda, &lower_gpu_eye);
}

}  // namespace theano::codegen::lower

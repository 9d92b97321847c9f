// GPU lowering of RandomFunction (uniform, normal, binomial, integers): one
// thread an element, the same numbers as the CPU for the same state and
// shape. The host part is the CPU lowering's (random_code.h: the state, the
// size, the parameters' broadcast, the advanced state written to the host,
// the call's Philox key); the kernel draws element i from the counter-based
// streams of theano/runtime/kernels/random_kernels.h, the text perform runs (compiled
// without FMA contraction: --fmad=false on NVRTC, clang's pragma on the
// emulated device), so uniform, integers and binomial are perform's values
// bit for bit and normal agrees to the last ulp of the device's sin / cos /
// log. A normal pair (2j, 2j + 1) shares its two uniforms: each of its two
// threads computes them. The parameters are GPU arrays walked by the
// element's multi-index (stride 0 where broadcast); an element whose
// parameters fail perform's checks records its index on the device (the
// smallest wins), and the host downloads that element's parameters and runs
// the CPU's checks in order on them for perform's message.
#include <theano/runtime/error.h>
#include <theano/tensor/random.h>

#include <algorithm>

#include "../cuda/cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"
#include "random_code.h"

namespace theano::codegen::lower {
namespace {

void lower_gpu_random(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;  // the host side does no per-element work
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const tensor::Distribution dist = op.distribution();
  const int nd = L.out(1).ndim(), ndx = std::max(nd, 1);
  const DType out_dt = L.out(1).dtype();
  const std::string ot = c_type(out_dt), single = out_dt == DType::Float64 ? "0" : "1";
  const auto [t0, t1] = random_param_types(L);
  L.cuda->need("random_kernels", random_kernels_text());
  L.cuda->need_exact_fp();
  emit_random_prefix(L);

  // p: n, shape[ndx], ps0[ndx], ps1[ndx], the parameters' and the sample's
  // addresses, the key, err.
  const int sh = 1, s0 = 1 + ndx, s1 = 1 + 2 * ndx, pa = 1 + 3 * ndx;
  const int np = pa + 6, key = pa + 3, err = pa + 5;
  auto v = [](int i) { return "p.v[" + str(i) + "]"; };
  std::string bad;
  for (const auto& [cond, fail] : random_checks(L)) bad += (bad.empty() ? "" : " || ") + ("(" + cond + ")");
  const std::string name = L.fn + "_sample";
  std::string k = "extern \"C\" __global__ void " + name + "(const theano_params_" + str(np) + " p) {\n";
  k += "  const int64_t n = p.v[0];\n";
  k += "  const uint32_t key[2] = {(uint32_t)" + v(key) + ", (uint32_t)" + v(key + 1) + "};\n";
  k += "  " + ot + "* po = (" + ot + "*)" + v(pa + 2) + ";\n";
  k += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  k += "  for (int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; i < n; i += step) {\n";
  k += "    int64_t r = i, off0 = 0, off1 = 0;\n";
  for (int d = nd - 1; d >= 0; --d) {
    k += "    { const int64_t c = r % " + v(sh + d) + "; r /= " + v(sh + d) + "; off0 += c * " + v(s0 + d) +
         "; off1 += c * " + v(s1 + d) + "; }\n";
  }
  k += "    (void)r;\n";
  k += "    const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)((const char*)" + v(pa) + " + off0);\n";
  k += "    const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)((const char*)" + v(pa + 1) + " + off1);\n";
  if (!bad.empty()) k += "    if (" + bad + ") { atomicMin((long long*)" + v(err) + ", (long long)i); continue; }\n";
  switch (dist) {
    case tensor::Distribution::Uniform:
      k += "    TheanoDenseWords dw;\n    theano_dense_init(&dw, key);\n";
      k += "    po[i] = (" + ot + ")theano_uniform_one(&dw, i, a, b, " + single + ");\n";
      break;
    case tensor::Distribution::Normal:
      k += "    TheanoDenseWords dw;\n    theano_dense_init(&dw, key);\n";
      k += "    double radius = 0, theta = 0;\n";
      k += "    theano_normal_pair(&dw, i & ~(int64_t)1, " + single + ", &radius, &theta);\n";
      k += "    po[i] = (" + ot + ")theano_normal_one(a, b, radius, theta, (i & 1) != 0);\n";
      break;
    case tensor::Distribution::Binomial:
      k += "    TheanoSubStream s;\n    theano_sub_init(&s, key, (uint64_t)i);\n";
      k += "    po[i] = (" + ot + ")theano_binomial_one(&s, a, b);\n";
      break;
    case tensor::Distribution::Integers:
      k += "    TheanoSubStream s;\n    theano_sub_init(&s, key, (uint64_t)i);\n";
      k += "    po[i] = (" + ot + ")theano_integers_one(&s, a, b);\n";
      break;
  }
  k += "  }\n}\n";
  const int kernel = L.cuda->add_kernel(name, L.label, np, 0, "", k);

  std::string declare = "int64_t p[" + str(np) + "];\np[0] = n;\n";
  for (int d = 0; d < ndx; ++d) {
    const std::string ds = str(d);
    declare += "p[" + str(sh + d) + "] = " + (d < nd ? "shape[" + ds + "]" : std::string("1")) + "; p[" +
               str(s0 + d) + "] = " + (d < nd ? "ps0[" + ds + "]" : std::string("0")) + "; p[" + str(s1 + d) +
               "] = " + (d < nd ? "ps1[" + ds + "]" : std::string("0")) + ";\n";
  }
  declare += "p[" + str(pa) + "] = (int64_t)x2->data; p[" + str(pa + 1) + "] = (int64_t)x3->data; p[" + str(pa + 2) +
             "] = (int64_t)o1->data;\n";
  declare += "p[" + str(key) + "] = key[0]; p[" + str(key + 1) + "] = key[1];\n";
  declare += "p[" + str(err) + "] = 0;";
  const std::string launch = "if (int e = ctx->gpu_launch(ctx->host, " + str(kernel) + ", n, p, " + str(np) +
                             ")) return e;";
  if (bad.empty()) {
    L.body.lines(declare);
    L.body.line(launch);
    L.body.line("return 0;");
    return;
  }
  emit_device_check(L, np, err, declare + "\np[" + str(err) + "] = (int64_t)err.data;", launch, [&](CodeWriter& w) {
    // The bad element's parameters, then perform's checks in its order.
    w.line("const int64_t i = first_bad;");
    w.line("int64_t r = i, off0 = 0, off1 = 0;");
    for (int d = nd - 1; d >= 0; --d)
      w.line("{ const int64_t c = r % shape[" + str(d) + "]; r /= shape[" + str(d) + "]; off0 += c * ps0[" + str(d) +
             "]; off1 += c * ps1[" + str(d) + "]; }");
    w.line("(void)r;");
    w.lines(download_element("x2", "off0", L.in_ctype(2), "raw_a"));
    w.lines(download_element("x3", "off1", L.in_ctype(3), "raw_b"));
    w.line("const " + t0 + " a = (" + t0 + ")raw_a;");
    w.line("const " + t1 + " b = (" + t1 + ")raw_b;");
    for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
  });
  L.body.line("return 0;");
}

}  // namespace

void add_gpu_random_lowerings(LoweringTable& t) { t[typeid(tensor::RandomFunction)] = &lower_gpu_random; }

}  // namespace theano::codegen::lower

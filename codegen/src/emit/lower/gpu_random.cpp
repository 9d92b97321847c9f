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

#include "../cuda_unit.h"
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

  std::string bad;
  for (const auto& [cond, fail] : random_checks(L)) bad += (bad.empty() ? "" : " || ") + ("(" + cond + ")");
  // The size, the shape and the parameters' strides (rank at least 1), their
  // and the sample's addresses, the key, the device check's buffer.
  cuda::ParamBlock pb;
  const cuda::Param n = pb.int64("n", "n");
  const cuda::Param shape = pb.array("shape", ndx, [&](int d) { return d < nd ? "shape[" + str(d) + "]" : "1"; });
  const cuda::Param ps0 = pb.array("ps0", ndx, [&](int d) { return d < nd ? "ps0[" + str(d) + "]" : "0"; });
  const cuda::Param ps1 = pb.array("ps1", ndx, [&](int d) { return d < nd ? "ps1[" + str(d) + "]" : "0"; });
  const cuda::Param pa = pb.pointer("pa", "const char*", "x2->data");
  const cuda::Param pbv = pb.pointer("pb", "const char*", "x3->data");
  const cuda::Param po = pb.pointer("po", ot + "*", "o1->data");
  const cuda::Param key = pb.array("key", 2, [](int i) { return "key[" + str(i) + "]"; });
  const cuda::Param err = pb.pointer("err", "long long*", bad.empty() ? "0" : "err.data");
  cuda::Kernel k(pb, L.fn + "_sample", {n, po, pa, pbv});
  CodeWriter& kw = k.w;
  kw.line("const uint32_t key[2] = {(uint32_t)" + pb.at(key, 0) + ", (uint32_t)" + pb.at(key, 1) + "};");
  if (!bad.empty()) kw.line(pb.read(err));
  cuda::grid_stride_loop(kw, "i", "n");
  kw.line("int64_t r = i, off0 = 0, off1 = 0;");
  for (int d = nd - 1; d >= 0; --d) {
    const std::string e = pb.at(shape, d);
    kw.line("{ const int64_t c = r % " + e + "; r /= " + e + "; off0 += c * " + pb.at(ps0, d) + "; off1 += c * " +
            pb.at(ps1, d) + "; }");
  }
  kw.line("(void)r;");
  kw.line("const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)(pa + off0);");
  kw.line("const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)(pb + off1);");
  if (!bad.empty()) kw.line("if (" + bad + ") { atomicMin(err, (long long)i); continue; }");
  switch (dist) {
    case tensor::Distribution::Uniform:
      kw.line("TheanoDenseWords dw;");
      kw.line("theano_dense_init(&dw, key);");
      kw.line("po[i] = (" + ot + ")theano_uniform_one(&dw, i, a, b, " + single + ");");
      break;
    case tensor::Distribution::Normal:
      kw.line("TheanoDenseWords dw;");
      kw.line("theano_dense_init(&dw, key);");
      kw.line("double radius = 0, theta = 0;");
      kw.line("theano_normal_pair(&dw, i & ~(int64_t)1, " + single + ", &radius, &theta);");
      kw.line("po[i] = (" + ot + ")theano_normal_one(a, b, radius, theta, (i & 1) != 0);");
      break;
    case tensor::Distribution::Binomial:
      kw.line("TheanoSubStream s;");
      kw.line("theano_sub_init(&s, key, (uint64_t)i);");
      kw.line("po[i] = (" + ot + ")theano_binomial_one(&s, a, b);");
      break;
    case tensor::Distribution::Integers:
      kw.line("TheanoSubStream s;");
      kw.line("theano_sub_init(&s, key, (uint64_t)i);");
      kw.line("po[i] = (" + ot + ")theano_integers_one(&s, a, b);");
      break;
  }
  kw.close();
  const int kernel = L.cuda->add_kernel(k, L.label);
  auto launch = [&](CodeWriter& w) { w.line("if (int e = " + pb.launch(kernel, "n") + ") return e;"); };
  if (bad.empty()) {
    pb.declare(L.body);
    launch(L.body);
    L.body.line("return 0;");
    return;
  }
  emit_device_check(L, pb, n, err, launch, [&](CodeWriter& w) {
    // The bad element's parameters, then perform's checks in its order.
    w.line("const int64_t i = first_bad;");
    w.line("int64_t r = i, off0 = 0, off1 = 0;");
    for (int d = nd - 1; d >= 0; --d)
      w.line("{ const int64_t c = r % shape[" + str(d) + "]; r /= shape[" + str(d) + "]; off0 += c * ps0[" + str(d) +
             "]; off1 += c * ps1[" + str(d) + "]; }");
    w.line("(void)r;");
    download_element(w, "x2", "off0", L.in_ctype(2), "raw_a");
    download_element(w, "x3", "off1", L.in_ctype(3), "raw_b");
    w.line("const " + t0 + " a = (" + t0 + ")raw_a;");
    w.line("const " + t1 + " b = (" + t1 + ")raw_b;");
    for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
  });
  L.body.line("return 0;");
}

}  // namespace

void add_gpu_random_lowerings(LoweringTable& t) { t.add<tensor::RandomFunction>(Target::Cuda, &lower_gpu_random); }

}  // namespace theano::codegen::lower

// GPU lowering of RandomFunction (uniform, normal, binomial, integers and the
// distributions after them; the row ones, categorical, multinomial and
// permutation, are gpu_random_rows.cpp's): one thread an element, the same
// numbers as the CPU for the same state and shape. The host part is the CPU
// lowering's (random_code.h: the state, the
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
  const tensor::DistributionSpec& rspec =
      tensor::distribution_spec(static_cast<const tensor::RandomFunction&>(L.op).distribution());
  if (rspec.core[0] > 0 || rspec.core[1] > 0) return lower_gpu_random_rows(L);  // a row a thread
  L.cold = true;  // the host side does no per-element work
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const tensor::Distribution dist = op.distribution();
  const int nd = L.out(1).ndim();
  const DType out_dt = L.out(1).dtype();
  const std::string ot = c_type(out_dt), single = out_dt == DType::Float64 ? "0" : "1";
  const auto [t0, t1] = random_param_types(L);
  const int np = op.nparams();
  const bool generic = tensor::distribution_spec(dist).generic;
  L.cuda->need("random_kernels", random_kernels_text());
  if (generic) L.cuda->need("random_distributions", random_distributions_text());
  L.cuda->need_exact_fp();
  emit_random_prefix(L);

  const std::string bad = random_bad_condition(L);
  // The size, the shape and the parameters' strides (rank at least 1), their
  // and the sample's addresses, the key, the device check's buffer.
  cuda::ParamBlock pb;
  const RandomWalkParams walk = random_walk_params(pb, nd, np);
  const cuda::Param n = walk.n, shape = walk.shape;
  const std::vector<cuda::Param>& strides = walk.strides;
  // Parameter k's address (named pa / pb for two).
  std::vector<cuda::Param> addrs;
  for (int k = 0; k < np; ++k) {
    const std::string name = np == 2 ? (k == 0 ? "pa" : "pb") : "pp" + str(k);
    addrs.push_back(pb.pointer(name, "const char*", L.x(2 + k) + "->data"));
  }
  const cuda::Param po = pb.pointer("po", ot + "*", "o1->data");
  const cuda::Param key = pb.array("key", 2, [](int i) { return "key[" + str(i) + "]"; });
  const cuda::Param err = pb.pointer("err", "long long*", bad.empty() ? "0" : "err.data");
  std::vector<cuda::Param> kparams{n, po};
  for (const cuda::Param& a : addrs) kparams.push_back(a);
  cuda::Kernel k(pb, L.fn + "_sample", kparams);
  CodeWriter& kw = k.w;
  kw.line("const uint32_t key[2] = {(uint32_t)" + pb.at(key, 0) + ", (uint32_t)" + pb.at(key, 1) + "};");
  if (!bad.empty()) kw.line(pb.read(err));
  cuda::grid_stride_loop(kw, "i", "n");
  emit_param_offsets(kw, "i", nd, np, [&](int d) { return pb.at(shape, d); },
                     [&](int kk, int d) { return pb.at(strides[static_cast<std::size_t>(kk)], d); });
  if (generic) {
    emit_generic_params(kw, L, [&](int kk) -> std::string { return pb.name(addrs[static_cast<std::size_t>(kk)]) + " + off" + str(kk); });
    kw.line("const char* rv_rule = 0;");
    kw.line("int rv_bad = 0;");
  } else {
    kw.line("const " + t0 + " a = (" + t0 + ")*(const " + L.in_ctype(2) + "*)(" + pb.name(addrs[0]) + " + off0);");
    kw.line("const " + t1 + " b = (" + t1 + ")*(const " + L.in_ctype(3) + "*)(" + pb.name(addrs[1]) + " + off1);");
  }
  if (!bad.empty()) kw.line("if (" + bad + ") { atomicMin(err, (long long)i); continue; }");
  if (generic) {
    kw.line("TheanoSubStream s;");
    kw.line("theano_sub_init(&s, key, (uint64_t)i);");
    kw.line("po[i] = " + generic_store(L, generic_kernel(op) + "(&s, p)") + ";");
  } else switch (dist) {
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
    default:
      THEANO_INTERNAL_CHECK(false) << L.label << ": no sampler";
  }
  kw.close();
  launch_random_kernel(L, pb, k, n, err, !bad.empty(), nd, np, [&](CodeWriter& w) {
    // The bad element's parameters, then perform's checks in its order.
    if (generic) {
      w.line("double p[" + str(np) + "];");
      for (int kk = 0; kk < np; ++kk) {
        const std::string raw = "raw_" + str(kk);
        download_element(w, L.x(2 + kk), "off" + str(kk), L.in_ctype(2 + kk), raw);
        w.line("p[" + str(kk) + "] = (double)" + raw + ";");
      }
      w.line("const char* rv_rule = 0;");
      w.line("int rv_bad = 0;");
    } else {
      download_element(w, "x2", "off0", L.in_ctype(2), "raw_a");
      download_element(w, "x3", "off1", L.in_ctype(3), "raw_b");
      w.line("const " + t0 + " a = (" + t0 + ")raw_a;");
      w.line("const " + t1 + " b = (" + t1 + ")raw_b;");
    }
    for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
  });
}

}  // namespace

RandomWalkParams random_walk_params(cuda::ParamBlock& pb, int nd, int np) {
  const int ndx = std::max(nd, 1);
  RandomWalkParams r;
  r.n = pb.int64("n", "n");
  r.shape = pb.array("shape", ndx, [&](int d) { return d < nd ? "shape[" + str(d) + "]" : "1"; });
  for (int k = 0; k < np; ++k) {
    const std::string ps = "ps" + str(k);
    r.strides.push_back(pb.array(ps, ndx, [&](int d) { return d < nd ? ps + "[" + str(d) + "]" : "0"; }));
  }
  return r;
}

std::string random_bad_condition(const NodeLowering& L) {
  std::string bad;
  for (const auto& [cond, fail] : random_checks(L)) bad += (bad.empty() ? "" : " || ") + ("(" + cond + ")");
  return bad;
}

void launch_random_kernel(NodeLowering& L, cuda::ParamBlock& pb, cuda::Kernel& k, const cuda::Param& n,
                          const cuda::Param& err, bool checked, int nd, int np,
                          const std::function<void(CodeWriter&)>& recheck) {
  const int kernel = L.cuda->add_kernel(k, L.label);
  auto launch = [&](CodeWriter& w) { w.line("if (int e = " + pb.launch(kernel, "n") + ") return e;"); };
  if (!checked) {
    pb.declare(L.body);
    launch(L.body);
  } else {
    emit_device_check(L, pb, n, err, launch, [&](CodeWriter& w) {
      w.line("const int64_t i = first_bad;");
      emit_param_offsets(w, "i", nd, np, [](int d) { return "shape[" + str(d) + "]"; },
                         [](int kk, int d) { return "ps" + str(kk) + "[" + str(d) + "]"; });
      recheck(w);
    });
  }
  L.body.line("return 0;");
}

void add_gpu_random_lowerings(LoweringTable& t) { t.add<tensor::RandomFunction>(Target::Cuda, &lower_gpu_random); }

}  // namespace theano::codegen::lower

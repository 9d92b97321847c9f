// GPU lowering of RandomFunction's row distributions (categorical,
// multinomial, permutation; docs/random.md): one thread a row (a sample
// element of the batch shape) runs the row kernels of
// theano/runtime/kernels/random_discrete.h, the text perform runs, from the
// row's own substream, so through the host-emulated device every row is
// perform's bit for bit. The host part is the CPU lowering's prefix
// (random_code.h: the state, the size, the parameters' broadcast, the
// advanced state, the call's key).
//
// The row rule is split from the message: a thread whose row breaks it (n's
// rule, then categorical's row rule: each weight >= 0 and finite, a positive
// finite sum) records its row on the device (atomicMin: the smallest wins)
// and draws nothing; the host downloads that one row (and its n) and re-runs
// the same rule functions on it for perform's message, which names the row
// and the category (`p[1][2] = -0.5 must be >= 0 and finite`). Permutation
// has no rule. Fisher-Yates is sequential along a row: one thread a row,
// the rows in parallel (a single long permutation runs on one thread).
#include <theano/runtime/error.h>
#include <theano/tensor/random.h>

#include <algorithm>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"
#include "random_code.h"

namespace theano::codegen::lower {

void lower_gpu_random_rows(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;  // the host side does no per-row work
  const auto& op = static_cast<const tensor::RandomFunction&>(L.op);
  const tensor::Distribution dist = op.distribution();
  const tensor::DistributionSpec& spec = tensor::distribution_spec(dist);
  const bool multinomial = dist == tensor::Distribution::Multinomial;
  const bool permutation = dist == tensor::Distribution::Permutation;
  const int nd = L.out(1).ndim() - (spec.sample_core ? 1 : 0);  // the batch rank
  const int np = op.nparams();
  const int wi = multinomial ? 3 : 2;  // the input whose last axis is the row (p, or permutation's x)
  const std::string xw = L.x(wi), last = str(L.in(wi).ndim() - 1);
  const std::string ot = c_type(L.out(1).dtype());
  L.cuda->need("random_kernels", random_kernels_text());
  L.cuda->need("random_distributions", random_distributions_text());
  L.cuda->need_exact_fp();
  emit_random_prefix(L);

  const std::string bad = random_bad_condition(L);
  // The rows, the batch shape, the parameters' batch strides, the row's
  // length and stride, the addresses, the key, the device check's buffer.
  cuda::ParamBlock pb;
  const RandomWalkParams walk = random_walk_params(pb, nd, np);
  const cuda::Param n = walk.n, shape = walk.shape;
  const std::vector<cuda::Param>& strides = walk.strides;
  const cuda::Param rk = pb.int64("rv_k", xw + "->shape[" + last + "]");
  const cuda::Param rs = pb.int64("rv_stride", xw + "->strides[" + last + "]");
  std::vector<cuda::Param> kparams{n, rk, rs, pb.pointer("po", ot + "*", "o1->data")};
  if (multinomial) kparams.push_back(pb.pointer("pn", "const char*", "x2->data"));
  if (!permutation) kparams.push_back(pb.pointer("pw", "const char*", xw + "->data"));
  const cuda::Param key = pb.array("key", 2, [](int i) { return "key[" + str(i) + "]"; });
  const cuda::Param err = pb.pointer("err", "long long*", bad.empty() ? "0" : "err.data");
  cuda::Kernel k(pb, L.fn + "_rows", kparams);
  CodeWriter& kw = k.w;
  kw.line("const uint32_t key[2] = {(uint32_t)" + pb.at(key, 0) + ", (uint32_t)" + pb.at(key, 1) + "};");
  kw.line("(void)rv_stride;");
  if (!bad.empty()) kw.line(pb.read(err));
  cuda::grid_stride_loop(kw, "i", "n");
  // Row i's parameters: its batch multi-index over the shape, C order.
  emit_param_offsets(kw, "i", nd, np, [&](int d) { return pb.at(shape, d); },
                     [&](int kk, int d) { return pb.at(strides[static_cast<std::size_t>(kk)], d); });
  if (multinomial) {
    kw.line("double p[1];");
    kw.line("p[0] = (double)*(const " + L.in_ctype(2) + "*)(pn + off0);");
    kw.line("int rv_bad = 0;");
    kw.line("(void)rv_bad;");
  }
  if (!permutation) {
    kw.line("const char* rv_row = pw + off" + str(multinomial ? 1 : 0) + ";");
    kw.line("int64_t rv_j = 0;");
    kw.line("double rv_v = 0;");
    kw.line("const char* rv_rule = 0;");
    kw.line("if (" + bad + ") { atomicMin(err, (long long)i); continue; }");
  }
  kw.line("TheanoSubStream s;");
  kw.line("theano_sub_init(&s, key, (uint64_t)i);");
  if (permutation) {
    kw.line("theano_rv_permutation(&s, (char*)(po + i * rv_k), rv_k, (int64_t)sizeof(int64_t));");
  } else if (multinomial) {
    const std::string suf = categorical_suffix(L);
    kw.line("TheanoRvMultinomial m;");
    kw.line("theano_rv_multinomial_init_" + suf + "(&m, p[0], rv_row, rv_k, rv_stride);");
    kw.line("for (int64_t j = 0; j < rv_k; ++j) po[i * rv_k + j] = " +
            generic_store(L, "theano_rv_multinomial_next_" + suf + "(&m, &s, rv_row, j, rv_stride)") + ";");
  } else {
    kw.line("po[i] = " +
            generic_store(L, "theano_rv_categorical_" + categorical_suffix(L) + "(&s, rv_row, rv_k, rv_stride)") +
            ";");
  }
  kw.close();
  launch_random_kernel(L, pb, k, n, err, !bad.empty(), nd, np, [&](CodeWriter& w) {
    // The bad row and its n downloaded, then perform's rules in its order.
    if (multinomial) {
      download_element(w, "x2", "off0", L.in_ctype(2), "raw_n");
      w.line("double p[1];");
      w.line("p[0] = (double)raw_n;");
      w.line("int rv_bad = 0;");
      w.line("(void)rv_bad;");
    }
    // The row, C-contiguous on the host.
    const std::string item = "(int64_t)sizeof(" + L.in_ctype(wi) + ")";
    w.line("TheanoArray rv_h;");
    w.line("rv_h.ndim = 1; rv_h.dtype = " + xw + "->dtype; rv_h.owner = -1; rv_h.shape[0] = " + xw + "->shape[" +
           last + "];");
    w.line("if (int e = theano_alloc_checked(ctx, &rv_h, -1, " + item + ", " +
           c_string(L.label + ": the bad row: ") + ", all, " + str(L.nin()) + ")) return e;");
    w.open("if (rv_h.shape[0] > 0)");
    w.line("TheanoArray d = rv_h;");
    w.line("d.data = " + xw + "->data + off" + str(multinomial ? 1 : 0) + ";");
    w.line("d.strides[0] = " + xw + "->strides[" + last + "];");
    w.line("if (int e = ctx->gpu_copy(ctx->host, &rv_h, &d, 1)) return e;");
    w.close();
    w.line("const char* rv_row = rv_h.data;");
    w.line("const int64_t rv_k = rv_h.shape[0], rv_stride = " + item + ";");
    w.line("int64_t rv_j = 0;");
    w.line("double rv_v = 0;");
    w.line("const char* rv_rule = 0;");
    for (const auto& [cond, fail] : random_checks(L)) w.line("if (" + cond + ") " + fail);
    // (Unreachable: the device ran these very rules on these values.)
    w.line(L.fail_int(kErrValue, "the device check found row ", "i", " bad but its rule holds on the host"));
  });
}

}  // namespace theano::codegen::lower

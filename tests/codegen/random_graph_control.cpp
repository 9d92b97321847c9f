// The random-graph generator's steps over control flow and precision
// (random_graph_build.h), added after issue 33's review found what the other
// steps never built: scan with taps and n_steps from the whole int64 range
// (the span of taps wrapped and the compiled loop read outside its
// sequence), chains of ifelse (ifelse_lift duplicated work exponentially),
// and float32 values inside a float64 fused loop (they were not rounded).
#include <theano/control/ifelse.h>
#include <theano/control/scan.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include <theano/theano.hpp>

#include "codegen/random_graph_build.h"

namespace theano::fuzz::detail {

using namespace theano::tensor;

namespace {

/// Sequence taps: ordinary ones, and ones whose span (max - min) or row
/// offsets overflow int64 (the review's reproducers among them).
const std::vector<std::int64_t> kSeqTaps[] = {
    {0},
    {-1, 0},
    {0, 2},
    {-2, 1},
    {1},
    {-3},
    {kMin, 0},
    {kMax},
    {-(std::int64_t{1} << 40), kMax - (std::int64_t{1} << 39)},
    {-(std::int64_t{1} << 59), 8646911284551352328},
    {std::int64_t{1} << 62, -(std::int64_t{1} << 62)},
    {kMin, kMax},
};

/// Recurrent taps: ordinary ones, and ones whose K = -min(taps) overflows or
/// that are not negative.
const std::vector<std::int64_t> kRecTaps[] = {
    {-1}, {-1}, {-2}, {-1, -2}, {-3, -1}, {kMin}, {kMin, -1}, {-(std::int64_t{1} << 62)}, {0}, {kMax},
};

/// a - b and a + b without overflow (the oracle's arithmetic).
std::optional<std::int64_t> fits(__int128 x) {
  if (x < kMin || x > kMax) return std::nullopt;
  return static_cast<std::int64_t>(x);
}

}  // namespace

Entry build_control_step(const Step& s, const std::vector<Entry>& pool) {
  auto pick = [&](std::uint32_t x) -> const Entry& { return pool[x % pool.size()]; };
  const Entry a = pick(s.a), b = pick(s.b);
  const int nd = static_cast<int>(a.shape.size());
  const DType da = dtype_of(a.v);
  const bool af = is_float(da);
  const std::uint32_t q = s.param;
  Entry out;
  out.poison = a.poison;
  try {
    switch (s.kind) {
      case kKindCastF32: {
        // A float32 value inside a float64 loop: fusion puts the casts and
        // the arithmetic in one Composite, which must round where perform
        // does. The rounding error is scaled up so that any tolerance sees it.
        if (da != DType::Float64 || a.fuzzy) break;
        Var x = a.v * 3.0;
        Var r = cast(cast(x, DType::Float32), DType::Float64);
        switch (q % 3) {
          case 0:
            out.v = (r - x) * 1e6 + a.v;
            break;
          case 1: {  // float32 arithmetic in a mixed loop: correctly rounded either way
            Var y = cast(a.v, DType::Float32);
            out.v = cast(y * y + y, DType::Float64) * 1e3 - a.v;
            break;
          }
          default:
            out.v = r * 0.5 - x / 6.0;
            break;
        }
        out.shape = a.shape;
        break;
      }
      case kKindScan: {
        // h_t = tanh(sum of the sequence's tap slices) / 2 + (sum of the
        // recurrent taps) / 4 over the float sequence `a`, n_steps given (a
        // known scalar, maybe INT64_MIN or 2^62) or not.
        if (nd < 1 || !af || a.poison || nd > 3) break;
        for (std::int64_t d : a.shape)
          if (d > kMaxElements) return out;  // a huge empty dimension: rows are not followed
        const std::vector<std::int64_t>& seq_taps = kSeqTaps[q % std::size(kSeqTaps)];
        const std::vector<std::int64_t>& rec_taps = kRecTaps[(q / 16) % std::size(kRecTaps)];
        const bool backwards = (q / 256) % 4 == 0;
        const std::int64_t L = a.shape[0];
        // The initial value: the first row (taps {-1}) or the first K rows.
        __int128 K = 0;
        bool rec_ok = true;
        for (std::int64_t t : rec_taps) {
          if (t >= 0) rec_ok = false;
          K = std::max<__int128>(K, -static_cast<__int128>(t));
        }
        const bool plain = rec_taps.size() == 1 && rec_taps[0] == -1;
        Var init;
        if (plain) {
          if (L < 1) break;
          init = a.v[std::int64_t{0}];
        } else {
          const std::int64_t rows = static_cast<std::int64_t>(std::min<__int128>(K, L));
          if (rows < 1) break;
          init = a.v[slice(Bound(std::int64_t{0}), Bound(rows), Bound())];
          if (rows < K) rec_ok = false;  // too short for its taps: both must refuse it
        }
        std::int64_t lo = seq_taps[0], hi = seq_taps[0];
        for (std::int64_t t : seq_taps) lo = std::min(lo, t), hi = std::max(hi, t);
        const __int128 allowed = static_cast<__int128>(L) - (static_cast<__int128>(hi) - lo);
        ScanArgs args = ScanArgs()
                            .sequences(SeqInfo(a.v, seq_taps))
                            .outputs_info(OutputInfo(init, rec_taps))
                            .go_backwards(backwards);
        __int128 steps = allowed;
        if ((q / 8) % 2) {
          std::vector<const Entry*> ks;
          for (const Entry& e : pool)
            if (e.ival && !e.poison) ks.push_back(&e);
          if (!ks.empty()) {
            const Entry& k = *ks[(q / 1024) % ks.size()];
            args.n_steps(k.v);
            steps = *k.ival;
            if (steps > allowed) steps = -1;  // more than the sequence allows
          }
        }
        const std::size_t ns = seq_taps.size(), nr = rec_taps.size();
        ScanResult r = scan(
            [ns, nr](const std::vector<Var>& in) {
              Var xs = in[0];
              for (std::size_t i = 1; i < ns; ++i) xs = xs + in[i];
              Var hs = in[ns];
              for (std::size_t i = 1; i < nr; ++i) hs = hs + in[ns + i];
              return StepResult{{tanh(xs) * 0.5 + hs * 0.25}};
            },
            args);
        out.v = r.outputs[0];
        const bool bad = !rec_ok || !fits(allowed) || steps < 0;
        out.poison = bad;
        out.shape = a.shape;
        out.shape[0] = bad ? 1 : static_cast<std::int64_t>(steps);
        out.fuzzy = true;  // tanh of sums: the step's order of additions may differ
        break;
      }
      case kKindIfElseChain: {
        // h = ifelse(c_k, h + 1, h * 2), m times: lazy branches whose lifting
        // must not duplicate the chain.
        if (da == DType::Bool || a.fuzzy) break;
        const int m = 1 + static_cast<int>(q % 12);
        Var h = a.v;
        for (int k = 0; k < m; ++k) {
          Var c = (q >> (4 + k)) % 2 ? gt(cast(h, DType::Float64).sum(), 0.0)
                                     : gt(cast(b.v, DType::Float64).sum(), static_cast<double>(k));
          h = ifelse(c, h + 1, h * 2);
        }
        out.v = h;
        out.shape = a.shape;
        out.poison = a.poison || b.poison;
        out.fuzzy = da == DType::Float32;
        break;
      }
      default:
        break;
    }
  } catch (const Error&) {
    out.v = Var();
  }
  return out;
}

}  // namespace theano::fuzz::detail

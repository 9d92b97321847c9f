// One step of the random-graph generator (random_graph_build.h): the op a
// Step kind stands for, applied to two values of the pool, with the result's
// concrete shape followed so that most steps are valid and the deliberately
// wrong ones (poison) are known.
#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gradient.h>
#include <theano/graph/toposort.h>
#include <theano/printing.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <theano/theano.hpp>

#include "codegen/random_graph_build.h"

namespace theano::fuzz::detail {

using namespace theano::tensor;

namespace {

const char* const kUnary[] = {"exp",  "tanh", "sigmoid", "softplus", "sin",  "cos",  "arctan", "log1p", "expm1",
                              "sqrt", "log",  "erf",     "floor",    "ceil", "sign", "neg",    "sqr",   "abs"};
constexpr std::size_t kFirstIntUnary = 15;   // neg, sqr, abs also apply to integers
constexpr std::size_t kFirstStepUnary = 12;  // floor, ceil, sign: discontinuous
const char* const kBinary[] = {"add",      "sub",     "mul",     "maximum", "minimum",
                               "true_div", "arctan2", "int_div", "mod",     "pow"};
const char* const kCompare[] = {"lt", "ge", "eq", "neq"};

/// A result of this nominal shape may be built: empty, small, or with more
/// elements than int64 holds (a checked error for every dtype, nothing
/// allocated). Huge-but-representable is not (for a 1-byte dtype it could be
/// an exabyte allocation).
bool allocatable(const std::vector<std::int64_t>& shape) {
  const auto n = element_count(shape, 1);
  return !n || *n <= kMaxElements;
}

bool declared_one(const Var& v, std::size_t d) {
  const auto& s = tensor_type(v)->shape()[d];
  return s && *s == 1;
}

/// Broadcast shape of a and b under Theano's rule (only declared 1s broadcast);
/// nullopt when they do not broadcast.
std::optional<std::vector<std::int64_t>> broadcast(const Entry& a, const Entry& b) {
  const std::size_t n = std::max(a.shape.size(), b.shape.size());
  std::vector<std::int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t oa = n - a.shape.size(), ob = n - b.shape.size();
    const bool ha = i >= oa, hb = i >= ob;
    const std::int64_t sa = ha ? a.shape[i - oa] : 1, sb = hb ? b.shape[i - ob] : 1;
    const bool one_a = !ha || declared_one(a.v, i - oa), one_b = !hb || declared_one(b.v, i - ob);
    if (one_a)
      out[i] = sb;
    else if (one_b)
      out[i] = sa;
    else if (sa == sb)
      out[i] = sa;
    else
      return std::nullopt;
  }
  return out;
}

std::int64_t py_slice_length(std::int64_t n, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                             std::int64_t step) {
  auto clampi = [&](std::optional<std::int64_t> v, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
    if (!v) return dflt;
    std::int64_t x = *v < 0 ? (*v < -n ? lo : *v + n) : *v;
    return std::clamp(x, lo, hi);
  };
  std::int64_t b, e;
  if (step > 0) {
    b = clampi(start, 0, 0, n);
    e = clampi(stop, n, 0, n);
    return e > b ? (e - b + step - 1) / step : 0;
  }
  b = clampi(start, n - 1, -1, n - 1);
  e = clampi(stop, -1, -1, n - 1);
  if (stop && *stop < -n) e = -1;
  return b > e ? (b - e + (-step) - 1) / (-step) : 0;
}

}  // namespace

Entry build_step(const Step& s, const std::vector<Entry>& pool) {
  if (s.kind >= kKindCastF32) return build_control_step(s, pool);
  auto pick = [&](std::uint32_t x) -> const Entry& { return pool[x % pool.size()]; };
  // The k-th known integer scalar (size inputs, shape_i results).
  auto known = [&](std::uint32_t x) -> const Entry& {
    std::vector<const Entry*> ks;
    for (const Entry& e : pool)
      if (e.ival && !e.poison) ks.push_back(&e);
    return *ks[x % ks.size()];
  };
  // `rank` known scalars, the d-th at known(base + d * stride + s.b): sizes
  // for reshape and alloc.
  auto known_sizes = [&](int rank, std::uint32_t base, std::uint32_t stride) {
    std::vector<const Entry*> r;
    for (int d = 0; d < rank; ++d) r.push_back(&known(base + static_cast<std::uint32_t>(d) * stride + s.b));
    return r;
  };
  const Entry a = pick(s.a), b = pick(s.b);
  const int nd = static_cast<int>(a.shape.size());
  const DType da = dtype_of(a.v), db = dtype_of(b.v);
  const bool af = is_float(da), bf = is_float(db);
  const std::uint32_t q = s.param;
  Entry out;
  out.poison = a.poison;
  try {
    switch (s.kind) {
      case 0:
      case 1:
      case 2: {  // unary elementwise
        const std::size_t k = q % std::size(kUnary);
        if (!af && k < kFirstIntUnary) break;
        if (da == DType::Bool) break;
        if (a.fuzzy && k >= kFirstStepUnary && k < kFirstIntUnary) break;
        out.v = elemwise(kUnary[k], {a.v});
        out.shape = a.shape;
        out.fuzzy = a.fuzzy || (af && da == DType::Float32 && k < kFirstIntUnary);
        break;
      }
      case 3:
      case 4:
      case 5: {  // binary elementwise, broadcasting, mixed dtypes
        const std::size_t k = q % std::size(kBinary);
        if (da == DType::Bool || db == DType::Bool) break;
        if ((a.fuzzy || b.fuzzy) && k >= 7) break;  // int_div, mod, pow: discontinuous
        if (k == 9 && !(af || bf)) break;           // integer pow overflows to garbage
        auto sh = broadcast(a, b);
        if (!sh) {
          if (q % 16 != 0) break;
          out.poison = true;  // a size mismatch: both must refuse it
        }
        out.v = elemwise(kBinary[k], {a.v, b.v});
        out.shape = sh ? *sh : a.shape;
        out.poison = out.poison || a.poison || b.poison;
        out.fuzzy = a.fuzzy || b.fuzzy || (is_float(dtype_of(out.v)) && (da == DType::Float32 || db == DType::Float32));
        break;
      }
      case 6: {  // comparison, then switch
        if (a.fuzzy || b.fuzzy) break;
        auto sh = broadcast(a, b);
        if (!sh) break;
        out.v = switch_(elemwise(kCompare[q % std::size(kCompare)], {a.v, b.v}), a.v, b.v);
        out.shape = *sh;
        out.poison = a.poison || b.poison;
        break;
      }
      case 7: {  // transpose (reversed axes) or a rotation of them
        if (nd < 2) break;
        std::vector<int> order;
        for (int d = 0; d < nd; ++d) order.push_back(q % 2 ? nd - 1 - d : (d + 1) % nd);
        out.v = a.v.dimshuffle(order);
        for (int d : order) out.shape.push_back(a.shape[static_cast<std::size_t>(d)]);
        out.fuzzy = a.fuzzy;
        break;
      }
      case 8: {  // reduction over one axis
        if (nd < 1 || da == DType::Bool) break;
        const int axis = static_cast<int>(q % static_cast<std::uint32_t>(nd));
        out.shape = a.shape;
        out.shape.erase(out.shape.begin() + axis);
        if (!allocatable(out.shape)) break;
        const bool empty_axis = a.shape[static_cast<std::size_t>(axis)] == 0;
        const int which = static_cast<int>((q / 8) % 5);
        if ((which == 1 || which == 4) && empty_axis) out.poison = true;  // max/min of nothing
        if (which == 3 && !af) break;  // prod of integers overflows to garbage either way
        switch (which) {
          case 0:
            out.v = a.v.sum(Axes{axis});
            break;
          case 1:
            out.v = a.v.max(Axes{axis});
            break;
          case 2:
            out.v = a.v.mean(Axes{axis});
            break;
          case 3:
            out.v = prod(a.v, Axes{axis});
            break;
          default:
            out.v = tensor::min(a.v, Axes{axis});
            break;
        }
        out.fuzzy = a.fuzzy || (af && da == DType::Float32) || which == 2 || which == 3;
        break;
      }
      case 9: {  // full reduction
        if (nd < 1 || da == DType::Bool) break;
        if (q % 2) {
          out.v = a.v.sum();
          out.shape = {};
        } else {
          out.shape = a.shape;
          out.shape[0] = 1;
          if (a.shape[0] == 0) out.poison = true;
          if (!allocatable(out.shape)) break;
          out.v = a.v.max(Axes{0}, true);
        }
        out.fuzzy = a.fuzzy || (af && da == DType::Float32);
        break;
      }
      case 10: {  // a basic slice of one axis: start, stop, step (negative too)
        if (nd < 1) break;
        const int axis = static_cast<int>(q % static_cast<std::uint32_t>(nd));
        const std::int64_t steps[] = {-1, 1, 2, -2, 3, -1};
        const std::int64_t step = steps[(q / 4) % std::size(steps)];
        const std::optional<std::int64_t> bounds[] = {std::nullopt, 0, 1, -1, 2, -3, kMax, kMin};
        const auto start = bounds[(q / 32) % std::size(bounds)];
        const auto stop = bounds[(q / 256) % std::size(bounds)];
        std::vector<Index> idx;
        for (int d = 0; d < axis; ++d) idx.push_back(slice());
        auto bound = [](std::optional<std::int64_t> v) { return v ? Bound(*v) : Bound(); };
        idx.push_back(slice(bound(start), bound(stop), Bound(step)));
        out.v = a.v[idx];
        out.shape = a.shape;
        out.shape[static_cast<std::size_t>(axis)] =
            py_slice_length(a.shape[static_cast<std::size_t>(axis)], start, stop, step);
        out.fuzzy = a.fuzzy;
        break;
      }
      case 11: {  // an integer index (out of range on purpose, sometimes)
        if (nd < 1) break;
        const std::int64_t n0 = a.shape[0];
        std::int64_t i;
        if (n0 == 0 || q % 16 == 0) {
          i = q % 32 == 0 ? kMin : n0 + static_cast<std::int64_t>(q % 3);
          out.poison = true;
        } else {
          i = static_cast<std::int64_t>(q % static_cast<std::uint32_t>(n0 > 1000 ? 1000 : n0));
          if (q % 3 == 0) i -= n0;
        }
        out.shape.assign(a.shape.begin() + 1, a.shape.end());
        if (!allocatable(out.shape)) break;
        out.v = a.v[i];
        out.fuzzy = a.fuzzy;
        break;
      }
      case 12: {  // join along an axis (other dims equal), mixed dtypes
        const Entry& c = (b.shape.size() == a.shape.size()) ? b : a;
        if (nd < 1) break;
        const int axis = static_cast<int>(q % static_cast<std::uint32_t>(nd));
        bool ok = true;
        for (int d = 0; d < nd; ++d)
          if (d != axis && a.shape[static_cast<std::size_t>(d)] != c.shape[static_cast<std::size_t>(d)]) ok = false;
        if (!ok) break;
        out.shape = a.shape;
        const __int128 len = static_cast<__int128>(a.shape[static_cast<std::size_t>(axis)]) +
                             c.shape[static_cast<std::size_t>(axis)] * (q % 4 == 0 ? 2 : 1);
        if (len > kMax)
          out.poison = true;
        else
          out.shape[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(len);
        if (!out.poison && !allocatable(out.shape)) break;
        out.v = q % 4 == 0 ? join(axis, {a.v, c.v, c.v}) : join(axis, {a.v, c.v});
        out.poison = out.poison || a.poison || c.poison;
        out.fuzzy = a.fuzzy || c.fuzzy;
        break;
      }
      case 13: {  // reshape: a valid shape, or one built from the size scalars
        const auto n = element_count(a.shape, 1);
        if (!n) break;
        if (q % 3 == 0) {  // symbolic, adversarial
          const int rank = 1 + static_cast<int>((q / 3) % 3);
          std::vector<Var> dims;
          std::vector<std::int64_t> req;
          for (const Entry* k : known_sizes(rank, q / 16, 7)) {
            dims.push_back(k->v);
            req.push_back(*k->ival);
          }
          // The reshape rule: at most one -1, the others >= 0, the product (checked) equal to the size.
          int minus = 0;
          bool bad = false;
          // (the non-zero entries' product must fit, as theano_reshape_rule
          // checks; it stops at the first overflow, so __int128 never wraps)
          __int128 prod_known = 1;
          bool zero = false;
          for (std::int64_t x : req) {
            if (x == -1) {
              ++minus;
            } else if (x < 0) {
              bad = true;
            } else if (x == 0) {
              zero = true;
            } else if (!bad) {
              prod_known *= x;
              if (prod_known > kMax) bad = true;
            }
          }
          if (zero && !bad) prod_known = 0;
          if (minus > 1) bad = true;
          std::vector<std::int64_t> shape = req;
          if (!bad) {
            if (minus == 0)
              bad = prod_known != *n;
            else if (prod_known == 0 || *n % static_cast<std::int64_t>(prod_known) != 0)
              bad = true;
            else
              for (auto& x : shape)
                if (x == -1) x = *n / static_cast<std::int64_t>(prod_known);
          }
          if (!bad && !element_count(shape, 8)) bad = true;
          out.v = reshape(a.v, make_vector(dims, DType::Int64), rank);
          out.poison = bad || a.poison;
          out.shape = bad ? std::vector<std::int64_t>(static_cast<std::size_t>(rank), 1) : shape;
        } else if (q % 3 == 1) {
          out.v = a.v.flatten();
          out.shape = {*n};
        } else {
          // (n / f, f) for a small divisor f, or with a -1.
          std::int64_t f = 1;
          for (std::int64_t c = 2 + static_cast<std::int64_t>(q % 3); c >= 1; --c)
            if (*n % c == 0) {
              f = c;
              break;
            }
          if (*n == 0) f = static_cast<std::int64_t>(q % 3);
          if (*n == 0 && f == 0) {
            out.v = a.v.reshape({0, 0});
            out.shape = {0, 0};
          } else {
            out.v = a.v.reshape({q % 2 ? -1 : *n / f, f});
            out.shape = {*n / f, f};
          }
        }
        out.fuzzy = a.fuzzy;
        break;
      }
      case 14: {  // dot with b, or with a itself (transposed)
        if (!af || nd < 1 || nd > 2) break;
        Entry c = b;
        if (!bf || b.shape.size() < 1 || b.shape.size() > 2 || b.shape[0] != a.shape.back()) {
          c = a;
          if (nd == 2) {
            c.v = a.v.T();
            c.shape = {a.shape[1], a.shape[0]};
          }
        }
        out.shape = a.shape;
        out.shape.pop_back();
        if (c.shape.size() == 2) out.shape.push_back(c.shape[1]);
        if (!allocatable(out.shape)) break;
        out.v = dot(a.v, c.v);
        out.poison = a.poison || c.poison;
        out.fuzzy = true;
        break;
      }
      case 15:
        if (nd == 2 && af) {
          out.v = nnet::softmax(a.v);
          out.shape = a.shape;
          out.fuzzy = true;
        }
        break;
      case 16: {  // cast to any dtype (float -> int through a clip and a NaN mask)
        const DType to = kDTypes[q % std::size(kDTypes)];
        out.shape = a.shape;
        if (af && !is_float(to)) {
          if (a.fuzzy) break;
          Var c = clip(a.v, -100.0, 100.0);
          out.v = cast(switch_(isnan(c), 0.0, c), to);
        } else {
          out.v = cast(a.v, to);
          out.fuzzy = a.fuzzy;
        }
        break;
      }
      case 17: {  // argmax
        if (nd < 1 || a.fuzzy || da == DType::Bool) break;
        const int axis = static_cast<int>(q % static_cast<std::uint32_t>(nd));
        out.shape = a.shape;
        out.shape.erase(out.shape.begin() + axis);
        if (!allocatable(out.shape)) break;
        if (a.shape[static_cast<std::size_t>(axis)] == 0) out.poison = true;
        out.v = argmax(a.v, axis);
        break;
      }
      case 18: {  // advanced indexing with a constant integer vector (negatives too)
        if (nd < 1) break;
        const std::int64_t n0 = a.shape[0];
        const std::int64_t len = 1 + static_cast<std::int64_t>(q % 5);
        std::vector<std::int64_t> idx;
        if (n0 == 0 || n0 > 1000) {
          if (q % 8 != 0) break;
          idx.assign(static_cast<std::size_t>(len), n0 == 0 ? 0 : n0);
          out.poison = true;
        } else {
          for (std::int64_t k = 0; k < len; ++k)
            idx.push_back((static_cast<std::int64_t>(q / 8) + 3 * k) % n0 - (k % 2) * n0);
        }
        out.shape = a.shape;
        out.shape[0] = len;
        if (!allocatable(out.shape)) break;  // perform allocates before it checks the indices
        out.v = a.v[constant(NDArray::from_vector(idx, {len}))];
        out.fuzzy = a.fuzzy;
        break;
      }
      case 19: {  // a new broadcastable axis, then broadcast against b
        if (nd > 2 || da == DType::Bool || db == DType::Bool) break;
        std::vector<int> order{kNewAxis};
        for (int d = 0; d < nd; ++d) order.push_back(d);
        Entry e{a.v.dimshuffle(order), a.shape, a.fuzzy, a.poison, std::nullopt};
        e.shape.insert(e.shape.begin(), 1);
        auto sh = broadcast(e, b);
        if (!sh || !allocatable(*sh)) break;
        out.v = e.v + b.v;
        out.shape = *sh;
        out.poison = a.poison || b.poison;
        out.fuzzy = a.fuzzy || b.fuzzy || (is_float(dtype_of(out.v)) && (da == DType::Float32 || db == DType::Float32));
        break;
      }
      case 20: {  // alloc of a 0-d value to sizes from the size scalars
        if (nd != 0) break;
        const int rank = 1 + static_cast<int>(q % 3);
        std::vector<TensorLike> dims;
        std::vector<std::int64_t> shape;
        for (const Entry* k : known_sizes(rank, q / 4, 5)) {
          dims.emplace_back(k->v);
          shape.push_back(*k->ival);
        }
        if (!allocatable(shape)) break;
        out.poison = a.poison || !element_count(shape, std::max<std::size_t>(1, dtype_size(da)));
        out.v = alloc(a.v, dims);
        out.shape = out.poison ? std::vector<std::int64_t>(static_cast<std::size_t>(rank), 1) : shape;
        out.fuzzy = a.fuzzy;
        break;
      }
      case 21: {  // arange(start, stop, step) of known integer scalars
        const Entry &k0 = known(q), &k1 = known(q / 16 + 1), &k2 = known(q / 256 + 2);
        const __int128 st = *k0.ival, sp = *k1.ival, stp = *k2.ival;
        __int128 len = 0;
        if (stp != 0) {
          len = (sp - st + stp + (stp > 0 ? -1 : 1)) / stp;
          if (len < 0) len = 0;
        }
        if (stp == 0 || len > kMax)
          out.poison = true;
        else if (len > kMaxElements)
          break;
        out.v = arange(k0.v, k1.v, k2.v);
        out.shape = {out.poison ? 1 : static_cast<std::int64_t>(len)};
        break;
      }
      case 22: {  // eye(n, m, k) of known integer scalars
        const Entry &kn = known(q), &km = known(q / 16 + 1);
        const std::int64_t kk = static_cast<std::int64_t>(q % 5) - 2;
        const std::vector<std::int64_t> shape{*kn.ival, *km.ival};
        if (!allocatable(shape)) break;
        out.poison = !element_count(shape);
        out.v = eye(kn.v, TensorLike(km.v), kk, DType::Float64);
        out.shape = out.poison ? std::vector<std::int64_t>{1, 1} : shape;
        break;
      }
      case 23: {  // split of axis 0 by sizes: valid ones, or the size scalars
        if (nd < 1) break;
        const int parts = 2 + static_cast<int>(q % 2);
        std::vector<std::int64_t> sz;
        std::vector<Var> dims;
        const std::int64_t n0 = a.shape[0];
        if (q % 4 < 2 && n0 <= kMaxElements) {
          std::int64_t left = n0;
          for (int k = 0; k < parts; ++k) {
            const std::int64_t x =
                k + 1 == parts ? left : (left ? static_cast<std::int64_t>(q / 8 + k) % (left + 1) : 0);
            sz.push_back(x);
            left -= x;
            dims.push_back(tensor::constant(NDArray::scalar<std::int64_t>(x)));
          }
        } else {
          for (int k = 0; k < parts; ++k) {
            const Entry& e = known(q / 8 + static_cast<std::uint32_t>(k) * 3 + s.b);
            sz.push_back(*e.ival);
            dims.push_back(e.v);
          }
        }
        __int128 total = 0;
        bool bad = false;
        for (std::int64_t x : sz) {
          if (x < 0) bad = true;
          total += x;
        }
        if (total != n0) bad = true;
        std::vector<Var> pieces = split(a.v, make_vector(dims, DType::Int64), parts, 0);
        const std::size_t which = (q / 2) % static_cast<std::size_t>(parts);
        out.v = pieces[which];
        out.shape = a.shape;
        out.shape[0] = bad ? 1 : sz[which];
        out.poison = bad || a.poison;
        out.fuzzy = a.fuzzy;
        break;
      }
      case 24: {  // set_subtensor / inc_subtensor of a slice (inplace under fast_run)
        if (nd < 1 || a.poison) break;
        const std::int64_t steps[] = {1, -1, 2};
        const std::int64_t step = steps[q % 3];
        const std::optional<std::int64_t> start = (q / 4) % 2 ? std::optional<std::int64_t>(1) : std::nullopt;
        Var region = a.v[slice(start ? Bound(*start) : Bound(), Bound(), Bound(step))];
        Entry reg{region, a.shape, a.fuzzy, false, std::nullopt};
        reg.shape[0] = py_slice_length(a.shape[0], start, std::nullopt, step);
        // The value: b when it broadcasts to the region, else a 0-d b.
        if (b.shape.size() > reg.shape.size()) break;
        auto sh = broadcast(reg, b);
        if (!sh || *sh != reg.shape) break;
        out.v = (q / 8) % 2 ? set_subtensor(region, b.v) : inc_subtensor(region, b.v);
        out.shape = a.shape;
        out.poison = b.poison;
        out.fuzzy = a.fuzzy || b.fuzzy;
        break;
      }
      case 25:  // integer arithmetic through a cast
        if (af && !a.fuzzy) {
          Var c = clip(a.v * 3.0, -1e6, 1e6);
          out.v = (cast(switch_(isnan(c), 0.0, c), DType::Int64) % 7 - 2).astype(da);
          out.shape = a.shape;
        }
        break;
      default: {  // shape_i: a size from the data (2^62 from an empty input)
        if (nd < 1 || a.poison) break;
        const int d = static_cast<int>(q % static_cast<std::uint32_t>(nd));
        out.v = shape_i(a.v, d);
        if (dtype_of(out.v) != DType::Int64) out.v = cast(out.v, DType::Int64);
        out.shape = {};
        out.ival = a.shape[static_cast<std::size_t>(d)];
        break;
      }
    }
  } catch (const Error&) {
    out.v = Var();
  }
  return out;
}

}  // namespace theano::fuzz::detail

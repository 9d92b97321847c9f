// The adversarial random-graph generator and differential check (see
// random_graph_gen.h). Shared by codegen_tests and bench/fuzz; no doctest.
#include "codegen/random_graph_gen.h"

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gradient.h>
#include <theano/graph/toposort.h>
#include <theano/printing.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>
#include <theano/theano.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

namespace theano::fuzz {

using namespace theano::tensor;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
/// Larger non-empty results are skipped: the reference would really allocate them.
constexpr std::int64_t kMaxElements = 1 << 15;
constexpr int kKinds = 27;

const DType kDTypes[] = {DType::Float64, DType::Float64, DType::Float32, DType::Int8, DType::Int32,
                         DType::Int64,   DType::Bool,    DType::UInt8};
const char* const kUnary[] = {"exp", "tanh", "sigmoid", "softplus", "sin", "cos", "arctan", "log1p", "expm1",
                              "sqrt", "log", "erf", "floor", "ceil", "sign", "neg", "sqr", "abs"};
constexpr std::size_t kFirstIntUnary = 15;  // neg, sqr, abs also apply to integers
constexpr std::size_t kFirstStepUnary = 12;  // floor, ceil, sign: discontinuous
const char* const kBinary[] = {"add", "sub", "mul", "maximum", "minimum", "true_div", "arctan2", "int_div", "mod", "pow"};
const char* const kCompare[] = {"lt", "ge", "eq", "neq"};
const std::int64_t kSizeValues[] = {0,  1,  2,  3, 4, -1, -2, std::int64_t{1} << 62, (std::int64_t{1} << 62) + 1,
                                    kMax, kMin, std::int64_t{1} << 32, (std::int64_t{1} << 31) - 1,
                                    std::int64_t{1} << 40, 5, 6};
const std::int64_t kHuge[] = {std::int64_t{1} << 62, kMax, std::int64_t{1} << 40, (std::int64_t{1} << 31) + 1};

const char* const kKindNames[kKinds] = {
    "unary", "unary", "unary", "binary", "binary", "binary", "switch", "transpose", "reduce", "reduce_all",
    "slice", "index", "join", "reshape", "dot", "softmax", "cast", "argmax", "advanced_index", "newaxis",
    "alloc", "arange", "eye", "split", "set_inc_subtensor", "int_arith", "shape_i"};

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Element count of `shape`: nullopt when it (or its byte count) does not fit in int64.
std::optional<std::int64_t> element_count(const std::vector<std::int64_t>& shape, std::size_t itemsize = 8) {
  __int128 n = 1;
  bool zero = false;
  for (std::int64_t s : shape) {
    if (s < 0) return std::nullopt;
    if (s == 0) zero = true;
  }
  for (std::int64_t s : shape) {
    n *= s == 0 ? 1 : s;  // strides of the other dimensions must fit even when one is 0
    if (n * static_cast<__int128>(itemsize) > kMax) return std::nullopt;
  }
  return zero ? 0 : static_cast<std::int64_t>(n);
}

/// A result of this nominal shape may be built: empty, small, or with more
/// elements than int64 holds (a checked error for every dtype, nothing
/// allocated). Huge-but-representable is not (for a 1-byte dtype it could be
/// an exabyte allocation).
bool allocatable(const std::vector<std::int64_t>& shape) {
  const auto n = element_count(shape, 1);
  return !n || *n <= kMaxElements;
}

/// One value of the pool: the variable and what the generator knows about it.
struct Entry {
  Var v;
  std::vector<std::int64_t> shape;  ///< its concrete shape (meaningless when poison)
  bool fuzzy = false;   ///< may differ by rounding between linkers (float32, dot, softmax)
  bool poison = false;  ///< computing it raises (a deliberate bad size or index)
  std::optional<std::int64_t> ival;  ///< 0-d int64 with a known value (size inputs, shape_i)
};

DType dtype_of(const Var& v) { return tensor_type(v)->dtype(); }
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
    if (one_a) out[i] = sb;
    else if (one_b) out[i] = sa;
    else if (sa == sb) out[i] = sa;
    else return std::nullopt;
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

struct Built {
  std::vector<Var> inputs;   ///< tensor inputs then size scalars
  std::vector<Var> outputs;  ///< forward outputs, then gradients
  bool any_float32 = false;
  std::vector<bool> fuzzy;   ///< per output
  std::size_t n_grads = 0;   ///< the last outputs that are gradients
};

/// Builds the graph of `p`. Steps that do not type-check, or whose result
/// could not be allocated, are skipped.
Built build(const Program& p, CheckStats* stats = nullptr) {
  Built r;
  std::vector<Entry> pool;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    StaticShape st;
    for (std::size_t d = 0; d < in.shape.size(); ++d)
      st.push_back(in.declared[d] ? Dim(in.shape[d]) : Dim(std::nullopt));
    Var v = tensor::tensor(in.dtype, st, "x" + std::to_string(i));
    r.inputs.push_back(v);
    pool.push_back({v, in.shape, false, false, std::nullopt});
    if (in.dtype == DType::Float32) r.any_float32 = true;
  }
  for (std::size_t i = 0; i < p.sizes.size(); ++i) {
    Var k = tensor::tensor(DType::Int64, {}, "k" + std::to_string(i));
    r.inputs.push_back(k);
    pool.push_back({k, {}, false, false, p.sizes[i]});
  }
  const std::size_t n_inputs = pool.size();
  auto pick = [&](std::uint32_t x) -> const Entry& { return pool[x % pool.size()]; };
  // The k-th known integer scalar (size inputs, shape_i results).
  auto known = [&](std::uint32_t x) -> const Entry& {
    std::vector<const Entry*> ks;
    for (const Entry& e : pool)
      if (e.ival && !e.poison) ks.push_back(&e);
    return *ks[x % ks.size()];
  };

  for (const Step& s : p.steps) {
    const Entry a = pick(s.a), b = pick(s.b);
    const int nd = static_cast<int>(a.shape.size());
    const DType da = dtype_of(a.v), db = dtype_of(b.v);
    const bool af = is_float(da), bf = is_float(db);
    const std::uint32_t q = s.param;
    Entry out;
    out.poison = a.poison;
    try {
      switch (s.kind) {
        case 0: case 1: case 2: {  // unary elementwise
          const std::size_t k = q % std::size(kUnary);
          if (!af && k < kFirstIntUnary) break;
          if (da == DType::Bool) break;
          if (a.fuzzy && k >= kFirstStepUnary && k < kFirstIntUnary) break;
          out.v = elemwise(kUnary[k], {a.v});
          out.shape = a.shape;
          out.fuzzy = a.fuzzy || (af && da == DType::Float32 && k < kFirstIntUnary);
          break;
        }
        case 3: case 4: case 5: {  // binary elementwise, broadcasting, mixed dtypes
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
            case 0: out.v = a.v.sum(Axes{axis}); break;
            case 1: out.v = a.v.max(Axes{axis}); break;
            case 2: out.v = a.v.mean(Axes{axis}); break;
            case 3: out.v = prod(a.v, Axes{axis}); break;
            default: out.v = tensor::min(a.v, Axes{axis}); break;
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
          if (len > kMax) out.poison = true;
          else out.shape[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(len);
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
            for (int d = 0; d < rank; ++d) {
              const Entry& k = known(q / 16 + static_cast<std::uint32_t>(d) * 7 + s.b);
              dims.push_back(k.v);
              req.push_back(*k.ival);
            }
            // The reshape rule: at most one -1, the others >= 0, the product (checked) equal to the size.
            int minus = 0;
            bool bad = false;
            __int128 prod_known = 1;
            for (std::int64_t x : req) {
              if (x == -1) ++minus;
              else if (x < 0) bad = true;
              else {
                prod_known *= x;
                if (prod_known > kMax) bad = true;
              }
            }
            if (minus > 1) bad = true;
            std::vector<std::int64_t> shape = req;
            if (!bad) {
              if (minus == 0) bad = prod_known != *n;
              else if (prod_known == 0 || *n % static_cast<std::int64_t>(prod_known) != 0) bad = true;
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
          for (int d = 0; d < rank; ++d) {
            const Entry& k = known(q / 4 + static_cast<std::uint32_t>(d) * 5 + s.b);
            dims.emplace_back(k.v);
            shape.push_back(*k.ival);
          }
          if (!allocatable(shape)) break;
          out.poison = a.poison || !element_count(shape, std::max<std::size_t>(1, dtype_size(da)));
          out.v = alloc(a.v, dims);
          out.shape = out.poison ? std::vector<std::int64_t>(static_cast<std::size_t>(rank), 1) : shape;
          out.fuzzy = a.fuzzy;
          break;
        }
        case 21: {  // arange(start, stop, step) of known integer scalars
          const Entry& k0 = known(q), &k1 = known(q / 16 + 1), &k2 = known(q / 256 + 2);
          const __int128 st = *k0.ival, sp = *k1.ival, stp = *k2.ival;
          __int128 len = 0;
          if (stp != 0) {
            len = (sp - st + stp + (stp > 0 ? -1 : 1)) / stp;
            if (len < 0) len = 0;
          }
          if (stp == 0 || len > kMax) out.poison = true;
          else if (len > kMaxElements) break;
          out.v = arange(k0.v, k1.v, k2.v);
          out.shape = {out.poison ? 1 : static_cast<std::int64_t>(len)};
          break;
        }
        case 22: {  // eye(n, m, k) of known integer scalars
          const Entry& kn = known(q), &km = known(q / 16 + 1);
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
              const std::int64_t x = k + 1 == parts ? left : (left ? static_cast<std::int64_t>(q / 8 + k) % (left + 1) : 0);
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
    if (!out.v || !tensor_type(out.v) || out.v.ndim() > 3) continue;
    if (!out.poison && static_cast<std::size_t>(out.v.ndim()) != out.shape.size()) continue;  // oracle disagrees
    if (out.poison) out.shape.resize(static_cast<std::size_t>(out.v.ndim()), 1);
    // An empty result with a huge dimension whose strides no longer fit (a
    // cast to a wider dtype, a join): both linkers must refuse it.
    if (!element_count(out.shape, dtype_size(dtype_of(out.v)))) out.poison = true;
    if (dtype_of(out.v) == DType::Float32) r.any_float32 = true;
    if (stats) {
      ++stats->steps_built;
      ++stats->built[std::string(kKindNames[s.kind % kKinds]) + (out.poison ? "(bad)" : "")];
    }
    pool.push_back(std::move(out));
  }
  if (pool.size() == n_inputs) {
    // Nothing was built: the output is the first input doubled.
    Entry e = pool[0];
    if (dtype_of(e.v) == DType::Bool) e.v = cast(e.v, DType::Int8);
    e.v = e.v + e.v;
    pool.push_back(e);
  }
  const Entry& last = pool.back();
  r.outputs.push_back(last.v);
  r.fuzzy.push_back(last.fuzzy);
  if (pool.size() > n_inputs + 2) {
    const Entry& other = pool[n_inputs + p.out_pick % (pool.size() - n_inputs)];
    r.outputs.push_back(other.v);
    r.fuzzy.push_back(other.fuzzy);
  }
  // The gradient graph's intermediates are not followed by the oracle: with a
  // huge (empty) dimension anywhere, a reduction in it could be a terabyte
  // array of zeros (sum over the empty axis of a (2^37, 0) array), so no
  // gradient there.
  bool huge = false;
  for (const Entry& e : pool)
    if (!e.poison)
      for (std::int64_t d : e.shape) huge = huge || d > kMaxElements;
  if (p.grad && !huge) {
    std::vector<Var> terms, wrt;
    for (const Var& o : r.outputs)
      if (is_float(dtype_of(o))) terms.push_back(cast(o, DType::Float64).sum());
    for (std::size_t i = 0; i < p.inputs.size(); ++i)
      if (is_float(p.inputs[i].dtype)) wrt.push_back(r.inputs[i]);
    if (!terms.empty() && !wrt.empty()) {
      try {
        GradOptions go;
        go.disconnected_inputs = DisconnectedInputs::Ignore;
        const std::vector<Var> g = grad(terms.size() == 1 ? terms[0] : add(terms), wrt, go);
        for (const Var& x : g) {
          r.outputs.push_back(x);
          r.fuzzy.push_back(true);
          ++r.n_grads;
        }
      } catch (const Error&) {
      }
    }
  }
  return r;
}

// Input values ---------------------------------------------------------------

NDArray random_values(std::mt19937_64& rng, const InputSpec& in) {
  const auto n = element_count(in.shape, 1);
  NDArray a = NDArray::empty(in.shape, DType::Float64);
  double* p = a.data_as<double>();
  std::uniform_real_distribution<double> u(-2, 2);
  // A quarter of the float inputs hold special values too.
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(), -0.0, 1e308, -1e308, 5e-324, 1e-310, 1e38};
  const bool with_specials = is_float(in.dtype) && rng() % 4 == 0;
  for (std::int64_t k = 0; k < *n; ++k) {
    const std::uint64_t r = rng();
    double x;
    switch (in.dtype) {
      case DType::Float64: case DType::Float32:
        if (with_specials && r % 8 == 1) x = specials[(r / 8) % std::size(specials)];
        else x = r % 16 == 0 ? static_cast<double>(static_cast<std::int64_t>(r % 7) - 3) : u(rng);
        break;
      case DType::Bool: x = static_cast<double>(r % 2); break;
      case DType::UInt8: x = r % 16 == 0 ? 255 : static_cast<double>(r % 8); break;
      default: x = static_cast<double>(static_cast<std::int64_t>(r % 11) - 5);
    }
    p[k] = x;
  }
  NDArray v = a.astype(in.dtype);
  // Integer extremes, exactly (a double cannot hold INT64_MAX).
  if (is_signed_integer(in.dtype))
    for (std::int64_t k = 0; k < *n; ++k) {
      const std::uint64_t r = rng();
      if (r % 12 != 0) continue;
      char* e = static_cast<char*>(v.data()) + k * static_cast<std::int64_t>(dtype_size(in.dtype));
      const bool lo = r % 24 == 0;
      switch (in.dtype) {
        case DType::Int8: *reinterpret_cast<std::int8_t*>(e) = lo ? INT8_MIN : INT8_MAX; break;
        case DType::Int32: *reinterpret_cast<std::int32_t*>(e) = lo ? INT32_MIN : INT32_MAX; break;
        default: *reinterpret_cast<std::int64_t*>(e) = lo ? kMin : kMax; break;
      }
    }
  return v;
}

/// `a` in layout `round`: 0 contiguous, 1 every stride doubled and the last
/// dimension reversed, 2 every dimension reversed (negative strides), 3 the
/// first row repeated by a 0 stride in dimension 0 (other values: a
/// broadcast view). Empty arrays (maybe with a 2^62 dimension) wrap no
/// memory at all.
constexpr int kLayouts = 4;
NDArray in_layout(const NDArray& a, int round) {
  if (a.ndim() == 0 || (round == 0 && a.size() > 0)) return a;
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  if (a.size() == 0) {
    std::vector<std::int64_t> st(static_cast<std::size_t>(a.ndim()),
                                 round == 2 ? -item : round == 3 ? 0 : item * (round + 1));
    return NDArray::from_strided(nullptr, nullptr, a.dtype(), a.shape(), st);
  }
  if (round == 3) {
    NDArray c = a.copy();
    std::vector<std::int64_t> st = c.strides();
    st[0] = 0;
    return NDArray::from_strided(c.owner(), c.data(), a.dtype(), a.shape(), st);
  }
  std::vector<std::int64_t> big = a.shape();
  for (auto& s : big) s = round == 1 ? 2 * s + 1 : s;
  NDArray buf = NDArray::zeros(big, a.dtype());
  std::vector<std::int64_t> strides = buf.strides();
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (round == 1) strides[d] *= 2;
    const bool flip = round == 2 || d + 1 == strides.size();
    if (flip) {
      offset += (a.shape()[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  }
  NDArray v = NDArray::from_strided(buf.owner(), static_cast<char*>(buf.data()) + offset, a.dtype(), a.shape(), strides);
  v.assign(a);
  return v;
}

// Comparison ----------------------------------------------------------------

/// The error's kind: its most derived class among the library's.
std::string error_kind(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const AssertionError&) {
    return "AssertionError";
  } catch (const ShapeError&) {
    return "ShapeError";
  } catch (const ValueError&) {
    return "ValueError";
  } catch (const IndexError&) {
    return "IndexError";
  } catch (const TypeError&) {
    return "TypeError";
  } catch (const InternalError&) {
    return "InternalError";
  } catch (const Error&) {
    return "Error";
  } catch (const std::bad_alloc&) {
    return "bad_alloc";
  } catch (const std::exception&) {
    return "std::exception";
  } catch (...) {
    return "unknown";
  }
}

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "?";
  }
}

/// Runs `f`; nullptr, or the exception it threw.
template <class F>
std::exception_ptr attempt(F&& f) {
  try {
    f();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

/// How closely floats must agree: computed the same way (float64 only),
/// rounded differently (dot, softmax, mean, gradients), or with float32 on
/// the way (float32's precision, whatever the output dtype).
enum class Tolerance { Exact, Fuzzy, Float32 };

/// Whether `out` is computed through a float sum or product (Sum, Prod, Mean:
/// a CAReduce over add or mul of floats; Dot): perform and generated code add
/// in different orders, so partial sums of values near the top of the double
/// range (the generator's +-1e308) can overflow in one order and not in the
/// other (seed 2 graph 40: 1e308 and -1e308 repeated by a 0 stride, summed
/// to -2.65 by perform and to NaN by the generated loop order).
bool sums_floats(const std::vector<Var>& inputs, const Var& out) {
  for (const Apply* node : io_toposort(inputs, {out})) {
    if (dynamic_cast<const tensor::Dot*>(node->op().get())) return true;
    const auto* r = dynamic_cast<const tensor::CAReduce*>(node->op().get());
    if (r && (r->scalar_op() == "add" || r->scalar_op() == "mul") &&
        is_float(tensor::tensor_type(node->output(0))->dtype()))
      return true;
  }
  return false;
}

/// Whether a float input holds a finite value of magnitude >= 1e300.
bool has_huge_values(const std::vector<NDArray>& vals) {
  for (const NDArray& v : vals) {
    if (!is_float(v.dtype()) || v.size() == 0) continue;
    const NDArray d = v.astype(DType::Float64).contiguous();
    for (std::int64_t i = 0; i < d.size(); ++i)
      if (std::isfinite(d.data_as<double>()[i]) && std::abs(d.data_as<double>()[i]) >= 1e300) return true;
  }
  return false;
}

/// "" when `got` matches `want`: same dtype and shape; integers and bools
/// exactly; floats within `tol`, scaled by the largest finite magnitude. With
/// `finite_only`, positions where `want` is not finite are not compared
/// (fast_run's algebra assumes finite values). With `may_overflow` (a sum of
/// values near the double range, see sums_floats), a non-finite value where
/// the other side is finite is accepted.
std::string compare(const NDArray& got, const NDArray& want, Tolerance tol, bool finite_only,
                    bool may_overflow = false) {
  const bool fuzzy = tol != Tolerance::Exact;
  std::ostringstream os;
  if (!got.defined()) return "no output";
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    os << "dtype/shape differ: want " << dtype_name(want.dtype()) << shape_to_string(want.shape()) << " got "
       << dtype_name(got.dtype()) << shape_to_string(got.shape());
    return os.str();
  }
  if (want.size() == 0) return {};
  if (!is_float(want.dtype())) {
    if (array_equal(got, want)) return {};
    os << "values differ: want\n" << want << "\ngot\n" << got;
    return os.str();
  }
  const NDArray g = got.astype(DType::Float64).contiguous(), w = want.astype(DType::Float64).contiguous();
  const double* gp = g.data_as<double>();
  const double* wp = w.data_as<double>();
  double scale = 0;
  for (std::int64_t i = 0; i < w.size(); ++i)
    if (std::isfinite(wp[i])) scale = std::max(scale, std::abs(wp[i]));
  const bool f32 = want.dtype() == DType::Float32 || tol == Tolerance::Float32;
  const double rtol = f32 ? 2e-3 : fuzzy ? 1e-6 : 1e-9;
  const double atol = (f32 ? 2e-4 : fuzzy ? 1e-8 : 1e-11) * std::max(1.0, scale);
  for (std::int64_t i = 0; i < w.size(); ++i) {
    const double x = gp[i], y = wp[i];
    if (std::isnan(y)) {
      if (finite_only || std::isnan(x) || may_overflow) continue;
    } else if (std::isinf(y)) {
      if (finite_only || x == y || may_overflow) continue;
    } else if (std::abs(x - y) <= atol + rtol * std::abs(y)) {
      continue;
    } else if (fuzzy && (std::isinf(x) || std::isnan(x)) && scale > 1e30) {
      continue;  // overflow at the edge of the range: rounding decides
    } else if (may_overflow && !std::isfinite(x)) {
      continue;  // the order of summation decides
    }
    os << "values differ at " << i << " (" << y << " vs " << x << "): want\n" << want << "\ngot\n" << got;
    return os.str();
  }
  return {};
}

}  // namespace

std::uint64_t value_seed(std::uint64_t seed, std::uint64_t index) { return splitmix(seed * 1000003 + index + 17); }

Program random_program(std::uint64_t seed, std::uint64_t index) {
  std::mt19937_64 rng(splitmix(splitmix(seed) ^ (index * 0x2545F4914F6CDD1DULL)));
  Program p;
  // Mostly tiny; an eighth of the programs get sizes past the vector width
  // and the parallel loops' part size (inputs of at most 2 dimensions then).
  const std::int64_t big_sizes[] = {17, 33, 64, 100, 130};
  const bool big = rng() % 8 == 0;
  const std::int64_t n = big ? big_sizes[rng() % std::size(big_sizes)] : 2 + static_cast<std::int64_t>(rng() % 4);
  const int n_inputs = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n_inputs; ++i) {
    InputSpec in;
    // The first input is float (so unary float ops and gradients have something).
    in.dtype = i == 0 ? (rng() % 4 ? DType::Float64 : DType::Float32) : kDTypes[rng() % std::size(kDTypes)];
    const int nd = static_cast<int>(rng() % (big ? 3 : 4));
    const std::int64_t dims[] = {0, 1, n, n, n, n - 1, 1, n + 1, n, 2, 3, n, n, 1, n, n - 1};
    for (int d = 0; d < nd; ++d) in.shape.push_back(dims[rng() % std::size(dims)]);
    if (nd >= 2 && rng() % 6 == 0) {  // an empty array with a huge other dimension
      const std::size_t z = rng() % static_cast<std::size_t>(nd);
      in.shape[z] = 0;
      const std::size_t h = (z + 1) % static_cast<std::size_t>(nd);
      // As large as the dtype allows (the byte strides of the other
      // dimensions must fit in int64): ops that compute in a wider dtype
      // (float64 / int64) must still accept it.
      std::int64_t others = static_cast<std::int64_t>(dtype_size(in.dtype));
      for (std::size_t d = 0; d < in.shape.size(); ++d)
        if (d != z && d != h && in.shape[d] > 0) others *= in.shape[d];
      in.shape[h] = kHuge[rng() % std::size(kHuge)] / others;
    }
    for (int d = 0; d < nd; ++d)
      in.declared.push_back(in.shape[static_cast<std::size_t>(d)] == 1 ? rng() % 3 != 0 : rng() % 5 == 0);
    p.inputs.push_back(std::move(in));
  }
  const int n_sizes = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n_sizes; ++i)
    p.sizes.push_back(rng() % 3 == 0 ? kSizeValues[rng() % std::size(kSizeValues)] : 1 + static_cast<std::int64_t>(rng() % 4));
  const int steps = 1 + static_cast<int>(rng() % 10);
  for (int k = 0; k < steps; ++k)
    p.steps.push_back({static_cast<int>(rng() % kKinds), static_cast<std::uint32_t>(rng()),
                       static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())});
  p.out_pick = static_cast<std::uint32_t>(rng());
  p.fast_run = rng() % 6 == 0;
  p.mutable_mask = static_cast<std::uint32_t>(rng() % 2 ? rng() : 0);
  p.grad = rng() % 5 == 0;
  return p;
}

std::string check(const Program& p, std::uint64_t values_seed, CheckStats* stats) {
  Built b;
  if (stats) {
    ++stats->graphs;
    stats->steps += static_cast<long>(p.steps.size());
  }
  try {
    b = build(p, stats);
  } catch (const std::exception& e) {
    return std::string("building the graph: ") + e.what();
  }
  auto fg = std::make_shared<FunctionGraph>(b.inputs, b.outputs);
  std::unique_ptr<Thunk> cpp;
  try {
    codegen::CompileOptions o;
    o.opt = codegen::OptLevel::O0;
    cpp = codegen::CLinker(o).allow_perform_fallback(false).make_thunk(fg);
  } catch (const std::exception& e) {
    return std::string("compile: ") + e.what();
  }
  auto ref = make_perform_linker()->make_thunk(fg);
  Function fast;
  if (p.fast_run) {
    std::vector<In> ins;
    for (std::size_t i = 0; i < b.inputs.size(); ++i) {
      In in(b.inputs[i]);
      in.mutable_ = i < 32 && (p.mutable_mask >> i) & 1;
      ins.push_back(in);
    }
    try {
      fast = function(ins, {b.outputs.begin(), b.outputs.end()},
                      {.mode = "fast_run", .on_unused_input = OnUnusedInput::Ignore});
    } catch (const std::exception& e) {
      return std::string("function(fast_run): ") + e.what();
    }
  }
  if (stats) {
    stats->fast_run += p.fast_run;
    stats->grads += b.n_grads > 0;
  }
  std::mt19937_64 rng(values_seed);
  std::vector<NDArray> base;
  for (const InputSpec& in : p.inputs) {
    if (!element_count(in.shape, 1) || *element_count(in.shape, 1) == 0)
      base.push_back(NDArray::from_strided(nullptr, nullptr, in.dtype, in.shape,
                                           std::vector<std::int64_t>(in.shape.size(), 0)));
    else
      base.push_back(random_values(rng, in));
  }
  for (std::int64_t k : p.sizes) base.push_back(NDArray::scalar<std::int64_t>(k));
  for (int round = 0; round < kLayouts; ++round) {
    std::vector<NDArray> vals;
    for (const NDArray& x : base) vals.push_back(in_layout(x, round));
    const bool huge = has_huge_values(vals);
    const std::size_t n_out = b.outputs.size();
    std::vector<NDArray> want(n_out), got(n_out);
    const std::exception_ptr ref_err = attempt([&] { ref->run(vals, want); });
    const std::exception_ptr cpp_err = attempt([&] { cpp->run(vals, got); });
    std::ostringstream os;
    os << "(layout " << round << ") ";
    for (const auto* e : {&ref_err, &cpp_err})
      if (*e && error_kind(*e) == "InternalError")
        return os.str() + (e == &ref_err ? "perform" : "generated code") + " raised an InternalError: " + what_of(*e);
    if (ref_err || cpp_err) {
      const std::string rk = ref_err ? error_kind(ref_err) : "no error", ck = cpp_err ? error_kind(cpp_err) : "no error";
      if (rk != ck)
        return os.str() + "perform: " + rk + (ref_err ? " '" + what_of(ref_err) + "'" : "") + "; generated code: " + ck +
               (cpp_err ? " '" + what_of(cpp_err) + "'" : "");
      if (stats) ++stats->errors[rk];
    } else {
      if (stats) {
        ++stats->rounds_compared;
        for (const NDArray& w : want) stats->empty_outputs += w.size() == 0;
      }
      for (std::size_t o = 0; o < n_out; ++o) {
        const Tolerance tol = b.any_float32 ? Tolerance::Float32 : b.fuzzy[o] ? Tolerance::Fuzzy : Tolerance::Exact;
        const bool may_overflow = huge && sums_floats(b.inputs, b.outputs[o]);
        const std::string why = compare(got[o], want[o], tol, false, may_overflow);
        if (!why.empty()) return os.str() + "output " + std::to_string(o) + ": " + why;
      }
    }
    if (!p.fast_run) continue;
    // function(): mutable inputs get their own copies; the others must come back unchanged.
    std::vector<NDArray> args, kept;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const bool mut = i < 32 && (p.mutable_mask >> i) & 1;
      args.push_back(mut && vals[i].size() > 0 ? vals[i].copy() : vals[i]);
      kept.push_back(vals[i].size() > 0 ? vals[i].copy() : vals[i]);
    }
    std::vector<NDArray> f;
    const std::exception_ptr fast_err = attempt([&] { f = fast(args); });
    if (fast_err && error_kind(fast_err) == "InternalError")
      return os.str() + "function(fast_run) raised an InternalError: " + what_of(fast_err);
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const bool mut = i < 32 && (p.mutable_mask >> i) & 1;
      const bool same = is_float(vals[i].dtype()) ? allclose(vals[i], kept[i], 0, 0, true) : array_equal(vals[i], kept[i]);
      if (!mut && vals[i].size() > 0 && !same)
        return os.str() + "function(fast_run) overwrote input " + std::to_string(i) + ", which is not mutable";
    }
    if (ref_err) continue;  // rewrites may drop a check whose result is unused; the values are not held
    if (fast_err) return os.str() + "function(fast_run) raised " + error_kind(fast_err) + " '" + what_of(fast_err) + "'";
    for (std::size_t o = 0; o < n_out; ++o) {
      const std::string why = compare(f[o], want[o], b.any_float32 ? Tolerance::Float32 : Tolerance::Fuzzy, true,
                                      huge && sums_floats(b.inputs, b.outputs[o]));
      if (!why.empty())
        return os.str() + "[fast_run function] output " + std::to_string(o) + ": " + why +
               "\nthe optimized graph:\n" + debugprint(fast);
    }
  }
  return {};
}

Program shrink(const Program& p, std::uint64_t values_seed) {
  return shrink(p, [&](const Program& q) { return !check(q, values_seed).empty(); });
}

void CheckStats::add(const CheckStats& o) {
  graphs += o.graphs;
  steps += o.steps;
  steps_built += o.steps_built;
  for (const auto& [k, n] : o.built) built[k] += n;
  rounds_compared += o.rounds_compared;
  empty_outputs += o.empty_outputs;
  for (const auto& [k, n] : o.errors) errors[k] += n;
  fast_run += o.fast_run;
  grads += o.grads;
}

std::string CheckStats::text() const {
  std::ostringstream os;
  os << graphs << " graphs, " << steps_built << " of " << steps << " steps built; " << fast_run
     << " also through function(fast_run), " << grads << " with a gradient; layouts: " << rounds_compared
     << " compared by value (" << empty_outputs << " empty outputs), errors agreed:";
  if (errors.empty()) os << " none";
  for (const auto& [k, n] : errors) os << " " << k << " " << n;
  os << "\nsteps built by kind (bad: a deliberate error):";
  for (const auto& [k, n] : built) os << " " << k << " " << n;
  return os.str();
}

std::string CheckStats::serialize() const {
  std::ostringstream os;
  os << graphs << ' ' << steps << ' ' << steps_built << ' ' << rounds_compared << ' ' << empty_outputs << ' '
     << fast_run << ' ' << grads << ' ' << built.size();
  for (const auto& [k, n] : built) os << ' ' << k << ' ' << n;
  os << ' ' << errors.size();
  for (const auto& [k, n] : errors) os << ' ' << k << ' ' << n;
  return os.str();
}

CheckStats CheckStats::deserialize(const std::string& line) {
  CheckStats s;
  std::istringstream is(line);
  std::size_t n = 0;
  is >> s.graphs >> s.steps >> s.steps_built >> s.rounds_compared >> s.empty_outputs >> s.fast_run >> s.grads >> n;
  for (std::size_t i = 0; i < n && is; ++i) {
    std::string k;
    long v = 0;
    is >> k >> v;
    s.built[k] += v;
  }
  is >> n;
  for (std::size_t i = 0; i < n && is; ++i) {
    std::string k;
    long v = 0;
    is >> k >> v;
    s.errors[k] += v;
  }
  return s;
}

std::string describe(const Program& p) {
  std::ostringstream os;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    os << "x" << i << ": " << dtype_name(in.dtype) << shape_to_string(in.shape) << " declared (";
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      os << (d ? ", " : "") << (in.declared[d] ? std::to_string(in.shape[d]) : "?");
    os << ")" << (p.fast_run && (p.mutable_mask >> i) & 1 ? " mutable" : "") << "\n";
  }
  for (std::size_t i = 0; i < p.sizes.size(); ++i) os << "k" << i << " = " << p.sizes[i] << "\n";
  os << "fast_run: " << (p.fast_run ? "yes" : "no") << ", grad: " << (p.grad ? "yes" : "no") << "\n";
  try {
    os << debugprint(build(p).outputs);
  } catch (const std::exception& e) {
    os << "(building failed: " << e.what() << ")\n";
  }
  os << "program: " << serialize(p) << "\n";
  return os.str();
}

std::string serialize(const Program& p) {
  std::ostringstream os;
  os << "v1 " << p.inputs.size();
  for (const InputSpec& in : p.inputs) {
    os << ' ' << static_cast<int>(in.dtype) << ' ' << in.shape.size();
    for (std::size_t d = 0; d < in.shape.size(); ++d) os << ' ' << in.shape[d] << ' ' << in.declared[d];
  }
  os << ' ' << p.sizes.size();
  for (std::int64_t k : p.sizes) os << ' ' << k;
  os << ' ' << p.steps.size();
  for (const Step& s : p.steps) os << ' ' << s.kind << ' ' << s.a << ' ' << s.b << ' ' << s.param;
  os << ' ' << p.out_pick << ' ' << p.fast_run << ' ' << p.mutable_mask << ' ' << p.grad;
  return os.str();
}

Program deserialize(const std::string& text) {
  std::istringstream is(text);
  std::string version;
  is >> version;
  THEANO_USER_CHECK(version == "v1", ValueError) << "not a serialized fuzz program: '" << text << "'";
  Program p;
  std::size_t n = 0;
  is >> n;
  for (std::size_t i = 0; i < n; ++i) {
    InputSpec in;
    int dt = 0;
    std::size_t nd = 0;
    is >> dt >> nd;
    in.dtype = static_cast<DType>(dt);
    for (std::size_t d = 0; d < nd; ++d) {
      std::int64_t s = 0;
      bool decl = false;
      is >> s >> decl;
      in.shape.push_back(s);
      in.declared.push_back(decl);
    }
    p.inputs.push_back(std::move(in));
  }
  is >> n;
  p.sizes.resize(n);
  for (auto& k : p.sizes) is >> k;
  is >> n;
  p.steps.resize(n);
  for (Step& s : p.steps) is >> s.kind >> s.a >> s.b >> s.param;
  is >> p.out_pick >> p.fast_run >> p.mutable_mask >> p.grad;
  THEANO_USER_CHECK(!is.fail(), ValueError) << "truncated fuzz program: '" << text << "'";
  return p;
}

}  // namespace theano::fuzz

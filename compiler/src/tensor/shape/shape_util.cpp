/// \file
/// Helpers shared by the shape, creation, join and indexing ops (see
/// shape_util.h): constant reading, folded symbolic integers, slice lengths,
/// broadcast-undoing gradient sums and the strided in-place add.
#include "theano/runtime/kernels/shape_rules.h"
#include "shape_util.h"

#include <complex>
#include <algorithm>
#include <sstream>
#include <type_traits>

#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace theano::tensor::detail {

Var int64_const(std::int64_t v) { return constant(NDArray::scalar<std::int64_t>(v)); }

std::optional<std::int64_t> constant_int(const Var& v) {
  const Constant* c = v ? v.as_constant() : nullptr;
  if (!c) return std::nullopt;
  const NDArray& d = c->data();
  if (d.ndim() != 0 || !(is_integer(d.dtype()) || is_bool(d.dtype()))) return std::nullopt;
  return d.item<std::int64_t>();
}

static const MakeVector* make_vector_op(const Var& v) {
  return v && v.owner() ? dynamic_cast<const MakeVector*>(v.owner()->op().get()) : nullptr;
}

std::optional<std::vector<std::int64_t>> constant_int_vector(const Var& v) {
  if (!v) return std::nullopt;
  if (const Constant* c = v.as_constant()) {
    const NDArray& d = c->data();
    if (d.ndim() != 1 || !is_integer(d.dtype())) return std::nullopt;
    std::vector<std::int64_t> r;
    for (std::int64_t i = 0; i < d.shape()[0]; ++i) r.push_back(d.index(0, i).item<std::int64_t>());
    return r;
  }
  if (make_vector_op(v)) {
    std::vector<std::int64_t> r;
    for (const Var& in : v.owner()->inputs()) {
      auto c = constant_int(in);
      if (!c) return std::nullopt;
      r.push_back(*c);
    }
    return r;
  }
  return std::nullopt;
}

std::optional<std::vector<std::optional<std::int64_t>>> partial_int_vector(const Var& v) {
  if (auto c = constant_int_vector(v)) return std::vector<std::optional<std::int64_t>>(c->begin(), c->end());
  if (make_vector_op(v)) {
    std::vector<std::optional<std::int64_t>> r;
    for (const Var& in : v.owner()->inputs()) r.push_back(constant_int(in));
    return r;
  }
  if (v.owner() && dynamic_cast<const Shape*>(v.owner()->op().get())) {
    const TensorType* t = tensor_type(v.owner()->input(0));
    return std::vector<std::optional<std::int64_t>>(t->shape().begin(), t->shape().end());
  }
  const TensorType* t = tensor_type(v);
  if (t && t->ndim() == 1 && t->shape()[0])
    return std::vector<std::optional<std::int64_t>>(static_cast<std::size_t>(*t->shape()[0]));
  return std::nullopt;
}

Var as_int64(const Var& v) {
  const TensorType* t = tensor_type(v);
  if (t && t->dtype() == DType::Int64) return v;
  if (auto c = constant_int(v)) return int64_const(*c);
  return cast(v, DType::Int64);
}

void check_int_scalar(const Var& v, const std::string& op, const std::string& what) {
  const TensorType* t = tensor_type(v);
  THEANO_USER_CHECK(t && t->ndim() == 0 && is_integer(t->dtype()), TypeError)
      << op << ": " << what << " must be an integer scalar (0-d tensor of an integer dtype), got " << v.str()
      << " of type " << (v ? v.type()->str() : std::string("<null>"));
}

std::string static_shape_str(const StaticShape& s) {
  std::ostringstream os;
  os << "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) os << ", ";
    if (s[i])
      os << *s[i];
    else
      os << "?";
  }
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

// ---- SymInt / SymBool ----------------------------------------------------------

SymInt SymInt::of(const Var& v) {
  if (auto c = constant_int(v)) return SymInt(*c);
  SymInt s;
  s.v_ = as_int64(v);
  return s;
}

Var SymInt::var() const { return c_ ? int64_const(*c_) : v_; }

namespace {
// Constant folding wraps like the int64 arithmetic it stands for (generated
// code is compiled with -fwrapv), without signed-overflow UB here.
std::int64_t wrap_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
std::int64_t wrap_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t wrap_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
}  // namespace

SymInt operator+(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return wrap_add(a.constant(), b.constant());
  if (a.is_constant() && a.constant() == 0) return b;
  if (b.is_constant() && b.constant() == 0) return a;
  return SymInt::of(add(a.var(), b.var()));
}

SymInt operator-(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return wrap_sub(a.constant(), b.constant());
  if (b.is_constant() && b.constant() == 0) return a;
  return SymInt::of(sub(a.var(), b.var()));
}

SymInt operator*(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return wrap_mul(a.constant(), b.constant());
  if (a.is_constant() && a.constant() == 1) return b;
  if (b.is_constant() && b.constant() == 1) return a;
  return SymInt::of(mul(a.var(), b.var()));
}

SymInt floordiv(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) {
    const std::int64_t x = a.constant(), y = b.constant();
    THEANO_INTERNAL_CHECK(y != 0) << "floordiv by zero in a shape computation";
    std::int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  }
  if (b.is_constant() && b.constant() == 1) return a;
  return SymInt::of(int_div(a.var(), b.var()));
}

SymInt min(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return std::min(a.constant(), b.constant());
  return SymInt::of(minimum(a.var(), b.var()));
}

SymInt max(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return std::max(a.constant(), b.constant());
  return SymInt::of(maximum(a.var(), b.var()));
}

SymBool SymBool::of(const Var& v) {
  if (auto c = constant_int(v)) return SymBool(*c != 0);
  SymBool s;
  s.v_ = v;
  return s;
}

SymBool lt(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return a.constant() < b.constant();
  return SymBool::of(tensor::lt(a.var(), b.var()));
}

SymBool gt(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return a.constant() > b.constant();
  return SymBool::of(tensor::gt(a.var(), b.var()));
}

SymBool eq(const SymInt& a, const SymInt& b) {
  if (a.is_constant() && b.is_constant()) return a.constant() == b.constant();
  return SymBool::of(tensor::eq(a.var(), b.var()));
}

SymInt select(const SymBool& c, const SymInt& a, const SymInt& b) {
  if (c.is_constant()) return c.constant() ? a : b;
  if (a.is_constant() && b.is_constant() && a.constant() == b.constant()) return a;
  return SymInt::of(switch_(c.var(), a.var(), b.var()));
}

SymInt slice_length(const SymInt& n, const std::optional<SymInt>& start, const std::optional<SymInt>& stop,
                    const std::optional<SymInt>& step) {
  const SymInt st = step.value_or(SymInt(1));
  if (st.is_constant()) {
    THEANO_USER_CHECK(st.constant() != 0, ValueError) << "slice step cannot be zero";
  }
  // All known: the rule NDArray::slice and generated code run (shape_rules.h).
  if (n.is_constant() && st.is_constant() && (!start || start->is_constant()) && (!stop || stop->is_constant())) {
    std::int64_t b = 0, len = 0;
    const int rule = theano_slice_rule(n.constant(), start.has_value(), start ? start->constant() : 0,
                                       stop.has_value(), stop ? stop->constant() : 0, st.constant(), &b, &len);
    THEANO_USER_CHECK(rule == THEANO_RULE_OK, ValueError) << "slice step " << st.constant() << " is out of range";
    return len;
  }
  auto len_pos = [&] {
    auto clamp = [&](const SymInt& s) { return select(lt(s, 0), max(s + n, 0), min(s, n)); };
    const SymInt lo = start ? clamp(*start) : SymInt(0);
    const SymInt hi = stop ? clamp(*stop) : n;
    const SymInt d = st.is_constant() ? st : max(st, 1);  // a symbolic step may be negative here
    return max(SymInt(0), floordiv(hi - lo + d - 1, d));
  };
  auto len_neg = [&] {
    auto clamp = [&](const SymInt& s) { return select(lt(s, 0), max(s + n, -1), min(s, n - 1)); };
    const SymInt hi = start ? clamp(*start) : n - 1;
    const SymInt lo = stop ? clamp(*stop) : SymInt(-1);
    const SymInt d = st.is_constant() ? SymInt(0) - st : max(SymInt(0) - st, 1);
    return max(SymInt(0), floordiv(hi - lo + d - 1, d));
  };
  if (st.is_constant()) return st.constant() > 0 ? len_pos() : len_neg();
  return select(gt(st, 0), len_pos(), len_neg());
}

// ---- gradients -------------------------------------------------------------------

Var sum_to_like(const Var& g, const Var& like) {
  const TensorType* tg = tensor_type(g);
  const TensorType* tl = tensor_type(like);
  THEANO_INTERNAL_CHECK(tg && tl && tg->ndim() >= tl->ndim())
      << "sum_to_like: gradient " << g.str() << " has lower rank than " << like.str();
  const int lead = tg->ndim() - tl->ndim();
  std::vector<int> keep_axes;
  for (int i = 0; i < tl->ndim(); ++i) {
    const Dim& dl = tl->shape()[static_cast<std::size_t>(i)];
    const Dim& dg = tg->shape()[static_cast<std::size_t>(i + lead)];
    if (dl && *dl == 1 && !(dg && *dg == 1)) keep_axes.push_back(i + lead);
  }
  Var r = g;
  if (!keep_axes.empty()) r = sum(r, Axes(keep_axes), /*keepdims=*/true);
  if (lead > 0) {
    std::vector<int> lead_axes;
    for (int i = 0; i < lead; ++i) lead_axes.push_back(i);
    r = sum(r, Axes(lead_axes), /*keepdims=*/false);
  }
  return r;
}

Var match_static_shape(const Var& g, const Var& like) {
  const TensorType* tg = tensor_type(g);
  const TensorType* tl = tensor_type(like);
  if (!tg || !tl || tg->ndim() != tl->ndim()) return g;
  bool needed = false;
  StaticShape s = tg->shape();
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!s[i] && tl->shape()[i]) {
      s[i] = tl->shape()[i];
      needed = true;
    }
  return needed ? specify_shape(g, s) : g;
}

// ---- NDArray ------------------------------------------------------------------------

void add_into(NDArray dst, const NDArray& src) {
  const NDArray s = (src.dtype() == dst.dtype() ? src : src.astype(dst.dtype())).broadcast_to(dst.shape());
  const int nd = dst.ndim();
  if (dst.size() == 0) return;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(nd), 0);
  const auto& shape = dst.shape();
  const auto& sd = dst.strides();
  const auto& ss = s.strides();
  auto* pd = static_cast<std::byte*>(dst.data());
  const auto* ps = static_cast<const std::byte*>(s.data());
  visit_dtype(dst.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::byte* d = pd;
    const std::byte* q = ps;
    for (;;) {
      T& out = *reinterpret_cast<T*>(d);
      const T& in = *reinterpret_cast<const T*>(q);
      if constexpr (std::is_same_v<T, half>)
        out = half(static_cast<float>(out) + static_cast<float>(in));
      else if constexpr (std::is_same_v<T, bool>)
        out = out || in;
      else if constexpr (std::is_integral_v<T>)  // wraps as numpy does (no signed overflow)
        out = static_cast<T>(static_cast<std::make_unsigned_t<T>>(out) + static_cast<std::make_unsigned_t<T>>(in));
      else
        out = static_cast<T>(out + in);
      int ax = nd - 1;
      for (; ax >= 0; --ax) {
        const auto a = static_cast<std::size_t>(ax);
        if (++idx[a] < shape[a]) {
          d += sd[a];
          q += ss[a];
          break;
        }
        d -= sd[a] * (shape[a] - 1);
        q -= ss[a] * (shape[a] - 1);
        idx[a] = 0;
      }
      if (ax < 0) break;
    }
  });
}

}  // namespace theano::tensor::detail

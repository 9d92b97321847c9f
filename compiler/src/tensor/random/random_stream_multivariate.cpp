/// \file
/// RandomStream's samples with a core axis (theano/tensor/random.h):
/// multinomial and permutation are RandomFunction draws of their own (a
/// sample core axis, kernels in theano/runtime/kernels/random_discrete.h);
/// dirichlet, choice, shuffle and multivariate_normal are graphs of draws and
/// existing ops (softmax of log-gammas, integers / categorical / permutation /
/// Gumbel keys and a gather, normal draws times a factor of cov), so they
/// run wherever those ops run and need no lowering of their own.
/// docs/random.md states each algorithm and its limits.
#include <algorithm>

#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index.h"
#include "theano/tensor/join.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/math.h"
#include "theano/tensor/random.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/sort.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

namespace {

/// The static length of an integer vector (the rank a size gives).
std::int64_t static_length(const Var& v) {
  const Dim d = tensor_type(v)->shape()[0];
  THEANO_INTERNAL_CHECK(d.has_value()) << "a size of unknown length";
  return *d;
}

/// `size` with a trailing axis of length `k` (an int64 scalar; `k_static`
/// when known): the size of a draw whose last axis is a core axis.
RandomSize with_core(const RandomSize& size, const Var& k, const Dim& k_static) {
  if (size.static_shape() && k_static) {
    std::vector<std::int64_t> s = *size.static_shape();
    s.push_back(*k_static);
    return RandomSize(s);
  }
  const Var v = size.as_variable().astype(DType::Int64);
  const std::int64_t m = static_length(v);
  return RandomSize(specify_shape(join(0, {v, stack({k.astype(DType::Int64)})}), StaticShape{Dim(m + 1)}));
}

/// The number of elements of a sample of `size` (none: one) as an int64 scalar.
Var size_count(const RandomSize& size) {
  if (size.is_none()) return constant(NDArray::scalar<std::int64_t>(1));
  if (size.static_shape()) {
    std::int64_t m = 1;
    for (std::int64_t v : *size.static_shape())
      THEANO_USER_CHECK(!__builtin_mul_overflow(m, v, &m), ValueError)
          << "RandomStream: the sample's size overflows int64 (a dimension of " << v << ")";
    return constant(NDArray::scalar<std::int64_t>(m));
  }
  return prod(size.as_variable().astype(DType::Int64), Axes::all(), false, DType::Int64);
}

/// The flat vector `v` reshaped to `size` (none: a 0-d value).
Var to_size(const Var& v, const RandomSize& size) {
  if (size.is_none()) return reshape(v, std::vector<std::int64_t>{});
  if (size.static_shape()) return reshape(v, *size.static_shape());
  const Var s = size.as_variable().astype(DType::Int64);
  return reshape(v, s, static_cast<int>(static_length(s)));
}

/// x[..., j] for a static index j on the last axis.
Var last_axis_at(const Var& x, std::int64_t j) {
  std::vector<Index> idx(static_cast<std::size_t>(x.ndim() - 1), Index(all));
  idx.emplace_back(j);
  return x[idx];
}

}  // namespace

Var RandomStream::loggamma(const RandomSize& size, const TensorLike& alpha, std::optional<DType> dtype) {
  return make_real(Distribution::Loggamma, size, {alpha}, dtype);
}

// dirichlet(alpha) = softmax over the categories of loggamma(alpha): the
// normalised gammas G_j / sum G, computed as exp(log G_j - max) / sum exp(...).
Var RandomStream::dirichlet(const RandomSize& size, const TensorLike& alpha, std::optional<DType> dtype) {
  const Var a = alpha.var();
  THEANO_USER_CHECK(a.ndim() >= 1, ValueError)
      << "RandomStream::dirichlet: alpha (" << a.str()
      << ") must have at least one axis (its last axis holds the categories), got a scalar";
  const RandomSize s = size.is_none() ? size : with_core(size, a.shape()[Index(-1)], tensor_type(a)->shape().back());
  const Var lg = loggamma(s, a, dtype);
  const Var e = exp(lg - max(lg, -1, true));
  return e / sum(e, -1, true);
}

Var RandomStream::multinomial(const RandomSize& size, const TensorLike& n, const TensorLike& p, DType dtype) {
  return make(Distribution::Multinomial, size, {n, p}, dtype);
}

Var RandomStream::permutation(const TensorLike& x) {
  const Var v = x.var();
  if (v.ndim() == 0) {
    const DType d = tensor_type(v)->dtype();
    THEANO_USER_CHECK(is_integer(d) && !is_bool(d), TypeError)
        << "RandomStream::permutation: a scalar x (" << v.str() << ") must be an integer (the range 0..x-1), got "
        << dtype_name(d);
    return make(Distribution::Permutation, {}, {arange(v.astype(DType::Int64), DType::Int64)}, DType::Int64);
  }
  const Var order = make(Distribution::Permutation, {}, {arange(v.shape()[Index(0)], DType::Int64)}, DType::Int64);
  return advanced_subtensor1(v, order);
}

Var RandomStream::shuffle(const TensorLike& x) {
  THEANO_USER_CHECK(x.var().ndim() >= 1, TypeError)
      << "RandomStream::shuffle: x (" << x.var().str() << ") must have at least one axis (a scalar has no order)";
  return permutation(x);
}

Var RandomStream::choice(const RandomSize& size, const TensorLike& a, bool replace, const std::optional<TensorLike>& p) {
  const std::string op = "RandomStream::choice";
  const Var av = a.var();
  THEANO_USER_CHECK(av.ndim() <= 1, ValueError)
      << op << ": a (" << av.str() << ") must be an integer scalar (a range) or a vector, got rank " << av.ndim();
  if (av.ndim() == 0) {
    const DType d = tensor_type(av)->dtype();
    THEANO_USER_CHECK(is_integer(d) && !is_bool(d), TypeError)
        << op << ": a scalar a (" << av.str() << ") must be an integer (the range 0..a-1), got " << dtype_name(d);
  }
  // The population size.
  const Var n = av.ndim() == 0 ? av.astype(DType::Int64) : av.shape()[Index(0)];
  const Var m = size_count(size);
  Var pv;
  if (p) {
    pv = p->var();
    THEANO_USER_CHECK(pv.ndim() == 1, ValueError)
        << op << ": p (" << pv.str() << ") must be a vector (one weight per element of a), got rank " << pv.ndim();
    const Var np = pv.shape()[Index(0)];
    pv = assert_op(pv, {eq(np, n)}, op + ": p must have one weight per element of a, got {} weights for {} elements",
                   {np, n});
  }
  // The picks, flat (m indices into the population).
  Var picks;
  const RandomSize flat(stack({m}));
  if (replace) {
    picks = p ? categorical(flat, pv) : integers(flat, 0, n);
  } else {
    Var order;
    if (p) {
      // Gumbel-top-k: the m largest log p_j + G_j, G_j = -log(-log U_j), are
      // m successive draws without replacement with the weights p.
      // p's rule is categorical's, naming the bad weight as with replacement
      // (RandomFunction{categorical}: p[0][j] = ... must be >= 0 and finite):
      // a one-element categorical draw on p checks it, and the keys depend on
      // its sample through an Assert that always holds (categories are >= 0).
      const DType pd = tensor_type(pv)->dtype();
      const Var pf = pd == DType::Float32 || pd == DType::Float64 ? pv : pv.astype(DType::Float64);
      const Var probe = categorical(RandomSize(), pf);
      const Var w = assert_op(pv, {ge(probe, 0)}, op + ": p checked by its categorical draw");
      const Var u = uniform(RandomSize(stack({n})), 0.0, 1.0, DType::Float64);
      const Var keys = log(w.astype(DType::Float64)) - log(-log(u));
      order = argsort(-keys);
      const Var nonzero = sum(gt(w, 0.0).astype(DType::Int64));
      order = assert_op(order, {le(m, nonzero)},
                        op + ": p has {} positive weights, fewer than the sample's size {}, with replace false",
                        {nonzero, m});
    } else {
      // A prefix of a forward Fisher-Yates shuffle: m distinct uniform picks.
      order = make(Distribution::Permutation, {}, {arange(n, DType::Int64)}, DType::Int64);
    }
    order = assert_op(order, {le(m, n)},
                      op + ": cannot take a sample of {} from a population of {} when replace is false", {m, n});
    picks = order[Index(slice(0, m))];
  }
  const Var chosen = av.ndim() == 0 ? picks : advanced_subtensor1(av, picks);
  return to_size(chosen, size);
}

// mean + L z, L = cholesky(cov) lower, z standard normal of the sample's shape.
Var RandomStream::multivariate_normal(const RandomSize& size, const TensorLike& mean, const TensorLike& cov,
                                      std::string_view method, std::optional<DType> dtype) {
  const std::string op = "RandomStream::multivariate_normal";
  THEANO_USER_CHECK(method == "cholesky" || method == "eigh" || method == "svd", ValueError)
      << op << ": method \"" << method << "\" is not one of \"cholesky\", \"eigh\", \"svd\"";
  const Var mu = mean.var(), c = cov.var();
  THEANO_USER_CHECK(mu.ndim() >= 1, ValueError) << op << ": mean (" << mu.str() << ") must have at least one axis";
  THEANO_USER_CHECK(c.ndim() >= 2, ValueError) << op << ": cov (" << c.str() << ") must have at least two axes";
  const Dim km = tensor_type(mu)->shape().back(), kc = tensor_type(c)->shape().back(),
            kr = tensor_type(c)->shape()[static_cast<std::size_t>(c.ndim() - 2)];
  THEANO_USER_CHECK(!kc || !kr || *kc == *kr, ValueError)
      << op << ": cov (" << c.str() << ") must be square in its last two axes, got " << *kr << " x " << *kc;
  THEANO_USER_CHECK(!km || !kc || *km == *kc, ValueError)
      << op << ": mean has " << *km << " components but cov is " << *kc << " x " << *kc;
  DType d = config().floatX;
  d = promote_types(promote_types(d, tensor_type(mu)->dtype()), tensor_type(c)->dtype());
  const DType out = dtype.value_or(d);
  THEANO_USER_CHECK(is_float(out), TypeError)
      << op << ": dtype " << dtype_name(out) << " is not a floating-point type";
  // F with F F^T = cov (NumPy's three factors; eigh and svd take a
  // semi-definite cov: eigh's rounding-level negative eigenvalues count as 0).
  // A vector of scales (..., k) multiplies F's columns as (..., 1, k).
  const Var cf = c.astype(out);
  auto columns = [](const Var& v) {
    std::vector<int> order;
    for (int a = 0; a + 1 < v.ndim(); ++a) order.push_back(a);
    order.push_back(kNewAxis);
    order.push_back(v.ndim() - 1);
    return dimshuffle(v, order);
  };
  Var L;
  if (method == "cholesky") {
    L = linalg::cholesky(cf);
  } else if (method == "eigh") {
    const auto [w, q] = linalg::eigh(cf);
    L = q * columns(sqrt(maximum(w, 0.0)));
  } else {
    const std::vector<Var> usv = linalg::svd(cf, false);
    L = linalg::matrix_transpose(usv[2]) * columns(sqrt(usv[1]));
  }
  // z: size + (k,), or the broadcast batch shape of mean and cov + (k,).
  Var z;
  if (size.is_none()) {
    const Var like = mu.astype(out) + last_axis_at(c, 0).astype(out);
    const StaticShape& ls = tensor_type(like)->shape();
    const bool known = std::all_of(ls.begin(), ls.end(), [](const Dim& d) { return d.has_value(); });
    std::vector<std::int64_t> st;
    for (const Dim& d : ls) st.push_back(d.value_or(0));
    z = normal(known ? RandomSize(st) : RandomSize(like.shape()), 0.0, 1.0, out);
  } else {
    z = normal(with_core(size, mu.shape()[Index(-1)], km ? km : kc), 0.0, 1.0, out);
  }
  const Var lz = last_axis_at(linalg::matmul(L, shape_padright(z)), 0);
  return (mu.astype(out) + lz).astype(out);
}

}  // namespace theano::tensor

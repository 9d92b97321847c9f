/// \file
/// The elementwise tensor functions users call: one per row of the scalar op
/// table (add ... cast), with NumPy broadcasting and autocast of literals, and
/// the C++ operators on Var that map to them.
///
/// `==` on Var stays identity (Vars are container keys); use `eq` / `neq` for
/// the symbolic comparison. `<`, `<=`, `>`, `>=` are symbolic.
#pragma once

#include "theano/graph/basic.h"
#include "theano/runtime/dtype.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

using TL = const TensorLike&;

// Arithmetic
Var add(TL a, TL b);
Var add(const std::vector<Var>& terms);  ///< n-ary
Var sub(TL a, TL b);
Var mul(TL a, TL b);
Var mul(const std::vector<Var>& factors);  ///< n-ary
Var true_div(TL a, TL b);
Var int_div(TL a, TL b);  ///< floor division, Python's //
Var mod(TL a, TL b);      ///< Python's % (sign of the divisor)
Var pow(TL a, TL b);
Var neg(TL a);
Var reciprocal(TL a);
Var sqr(TL a);
Var sqrt(TL a);
Var abs(TL a);
Var sign(TL a);
Var maximum(TL a, TL b);
Var minimum(TL a, TL b);
// Exponentials and logarithms
Var exp(TL a);
Var exp2(TL a);
Var expm1(TL a);
Var log(TL a);
Var log2(TL a);
Var log10(TL a);
Var log1p(TL a);
// Trigonometric and hyperbolic
Var sin(TL a);
Var cos(TL a);
Var tan(TL a);
Var arcsin(TL a);
Var arccos(TL a);
Var arctan(TL a);
Var arctan2(TL a, TL b);
Var sinh(TL a);
Var cosh(TL a);
Var tanh(TL a);
Var arcsinh(TL a);
Var arccosh(TL a);
Var arctanh(TL a);
// Special functions
Var sigmoid(TL a);
Var softplus(TL a);
/// x / (1 + |x|) (Theano's nnet.softsign); +-1 at +-inf.
Var softsign(TL a);
/// log(1 - exp(a)), accurate for every a <= 0 (NaN above 0).
Var log1mexp(TL a);
Var erf(TL a);
Var erfc(TL a);
Var gammaln(TL a);
/// The regularized lower incomplete gamma function P(a, x) (SciPy's gammainc); a >= 0, x >= 0, else
/// NaN; edges and accuracy in docs/special-functions-b.md. Differentiable in both arguments.
Var gammainc(TL a, TL x);
/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (SciPy's gammaincc).
Var gammaincc(TL a, TL x);
/// Bessel functions of the first kind J_v(x) and modified I_v(x) of real order v (SciPy's j0, j1, jv,
/// i0, i1, iv) and ive(v, x) = I_v(x) e^-|x|. NaN where the real result is undefined (x < 0 with a
/// non-integer v); differentiable in x, not in v. Domain, edges and accuracy: docs/special-functions-b.md.
Var j0(TL x);
Var j1(TL x);
Var jv(TL v, TL x);
Var i0(TL x);
Var i1(TL x);
Var iv(TL v, TL x);
Var ive(TL v, TL x);
/// The modified Bessel function of the second kind K_v(x) (SciPy's kv) and kve(v, x) = K_v(x) e^x, real
/// order v, x >= 0 (NaN below); differentiable in x, not in v.
Var kv(TL v, TL x);
Var kve(TL v, TL x);
/// The regularized incomplete beta function I_x(a, b) (SciPy's betainc); a, b > 0, 0 <= x <= 1, else NaN.
/// Differentiable in a, b and x.
Var betainc(TL a, TL b, TL x);
/// The inverses in x of gammainc and gammaincc (SciPy's gammaincinv, gammainccinv): the x >= 0 with
/// gammainc(a, x) = y (gammaincc(a, x) = y), 0 <= y <= 1, else NaN. Differentiable in a and y.
Var gammaincinv(TL a, TL y);
Var gammainccinv(TL a, TL y);
// Rounding
Var floor(TL a);
Var ceil(TL a);
Var round(TL a);  ///< half to even, as numpy.round
Var trunc(TL a);
// Selection
Var clip(TL x, TL lo, TL hi);
Var switch_(TL cond, TL if_true, TL if_false);  ///< eager elementwise select
Var where(TL cond, TL if_true, TL if_false);    ///< same as switch_
// Comparisons (bool results)
Var lt(TL a, TL b);
Var gt(TL a, TL b);
Var le(TL a, TL b);
Var ge(TL a, TL b);
Var eq(TL a, TL b);
Var neq(TL a, TL b);
Var isnan(TL a);
Var isinf(TL a);
// Logical / bitwise (bool and integer dtypes only)
Var and_(TL a, TL b);
Var or_(TL a, TL b);
Var xor_(TL a, TL b);
Var invert(TL a);
// Conversion and filling
Var cast(TL a, DType dtype);
/// `second(a, b)`: b broadcast to the shape of a (Theano's fill with the args swapped).
Var second(TL a, TL b);
/// `fill(a, value)`: an array shaped like `a` filled with `value`.
Var fill(TL a, TL value);
Var zeros_like(TL a, std::optional<DType> dtype = {});
Var ones_like(TL a, std::optional<DType> dtype = {});
/// Identity (a copy), used by gradients and rewrites.
Var identity(TL a);

}  // namespace theano::tensor

namespace theano {

// Operators on Var, with a Var, a literal or an NDArray on the other side. They
// live in namespace theano, Var's namespace, so argument-dependent lookup finds
// them; at least one side must be a Var.
#define THEANO_DECLARE_BINARY_OPERATOR(op)                         \
  Var operator op(const Var& a, const Var& b);                     \
  Var operator op(const Var& a, const tensor::TensorLike& b);      \
  Var operator op(const tensor::TensorLike& a, const Var& b);
THEANO_DECLARE_BINARY_OPERATOR(+)
THEANO_DECLARE_BINARY_OPERATOR(-)
THEANO_DECLARE_BINARY_OPERATOR(*)
THEANO_DECLARE_BINARY_OPERATOR(/)
THEANO_DECLARE_BINARY_OPERATOR(%)
THEANO_DECLARE_BINARY_OPERATOR(<)
THEANO_DECLARE_BINARY_OPERATOR(>)
THEANO_DECLARE_BINARY_OPERATOR(<=)
THEANO_DECLARE_BINARY_OPERATOR(>=)
THEANO_DECLARE_BINARY_OPERATOR(&)
THEANO_DECLARE_BINARY_OPERATOR(|)
THEANO_DECLARE_BINARY_OPERATOR(^)
#undef THEANO_DECLARE_BINARY_OPERATOR
Var operator-(const Var& a);
Var operator~(const Var& a);

}  // namespace theano

// The scalar op table: one row per elementwise function (docs/adding-an-op.md). Each
// row says how the op types its output, how codegen spells it in C, how to
// compute it (double precision; int64 where exactness matters), and its
// gradient in tensor ops.
#include <cmath>
#include <numbers>

#include "theano/runtime/error.h"
#include "theano/runtime/kernels/scalar_math.h"
#include "theano/runtime/kernels/special_math.h"

#include "theano/runtime/kernels/special_math2.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/special.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

using I = std::int64_t;
using Vs = std::vector<Var>;

// Gradient helpers ---------------------------------------------------------------

/// A zero gradient shaped like `x`, in x's dtype when it is a float (floatX-like
/// float64 otherwise, which the grad driver turns into "no gradient").
Var zero_grad(const Var& x) {
  const DType d = tensor_type(x)->dtype();
  return zeros_like(x, is_float(d) ? d : DType::Float64);
}
Vs zeros_for(const Vs& in) {
  Vs r;
  for (const Var& v : in) r.push_back(zero_grad(v));
  return r;
}

/// The gradient of a Bessel function with respect to its order, which is not implemented (PyTensor's
/// grad_not_implemented): an Assert that fails, naming the op, if this gradient is ever evaluated (the
/// grad driver only builds it into the result when the order is differentiated).
Var order_grad(std::string_view op, const Var& v, const Var& gz) {
  const std::string msg = std::string(op) + ": the gradient with respect to the order v (" + v.str() +
                          ") is not implemented (PyTensor's grad_not_implemented); only x is differentiable";
  return assert_op(zeros_like(gz, tensor_type(gz)->dtype()) + zero_grad(v), {constant(NDArray::scalar(false))}, msg);
}

// Reference implementations ----------------------------------------------------------
// The helpers the C expressions name are the very functions generated code
// calls (theano/runtime/kernels/scalar_math.h): theano_f (double), theano_i
// (int64, NumPy semantics, no undefined behaviour). Where this file once had
// its own formulas (sigmoid, softplus, tanh through std::tanh), it now uses the
// generated code's, which are written to vectorize and agree with libm within
// a few ulp: one formula, so perform, constant folding and generated code agree.

I int_pow(I base, I exp) {
  THEANO_USER_CHECK(exp >= 0, ValueError) << "pow: integers to negative integer powers are not allowed";
  return theano_i::pow(base, exp);  // wraps like C on overflow
}
double round_half_even(double x) { return std::nearbyint(x); }  // default rounding mode: to nearest even

// Constants of the gradients below (namespace scope: the gradients are plain
// function pointers, so their lambdas capture nothing).
// The float column: F32 when the row's C expression also computes in float for
// float32 values, compiled in the prelude's float domain (namespace theano_s),
// where every name it calls is a float function (the float libm forms, the
// float instantiation of theano/runtime/kernels/scalar_math.h); the float
// expression is the row's own. F64: double only (its helper has no float form).
// tests/codegen/test_scalar_float_forms.cpp compiles every F32 row in float.
constexpr bool F32 = true, F64 = false;

constexpr double ln2 = std::numbers::ln2, ln10 = std::numbers::ln10;
constexpr double two_over_sqrt_pi = 2.0 * std::numbers::inv_sqrtpi;
constexpr double sqrt_pi_over_2 = 0.5 / std::numbers::inv_sqrtpi;
constexpr double inv_sqrt_2pi = std::numbers::inv_sqrtpi / std::numbers::sqrt2;

std::vector<ScalarOpInfo> build_table() {
  std::vector<ScalarOpInfo> t;
  auto row = [&t](ScalarOpInfo info) { t.push_back(std::move(info)); };

  // ---- arithmetic
  row({"add", -1, OutRule::Upcast, "({0} + {1})", F32, [](const double* a) { return a[0] + a[1]; },
       [](const I* a) { return static_cast<I>(static_cast<std::uint64_t>(a[0]) + static_cast<std::uint64_t>(a[1])); },
       [](const Vs& in, const Var&, const Var& gz) { return Vs(in.size(), gz); }, true, true});
  row({"sub", 2, OutRule::Upcast, "({0} - {1})", F32, [](const double* a) { return a[0] - a[1]; },
       [](const I* a) { return static_cast<I>(static_cast<std::uint64_t>(a[0]) - static_cast<std::uint64_t>(a[1])); },
       [](const Vs&, const Var&, const Var& gz) { return Vs{gz, -gz}; }});
  row({"mul", -1, OutRule::Upcast, "({0} * {1})", F32, [](const double* a) { return a[0] * a[1]; },
       [](const I* a) { return static_cast<I>(static_cast<std::uint64_t>(a[0]) * static_cast<std::uint64_t>(a[1])); },
       [](const Vs& in, const Var&, const Var& gz) {
         Vs r;
         for (std::size_t i = 0; i < in.size(); ++i) {
           Vs others{gz};
           for (std::size_t j = 0; j < in.size(); ++j)
             if (j != i) others.push_back(in[j]);
           r.push_back(mul(others));
         }
         return r;
       },
       true, true});
  row({"true_div", 2, OutRule::Float, "({0} / {1})", F32, [](const double* a) { return a[0] / a[1]; }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / in[1], -gz * in[0] / sqr(in[1])}; }});
  row({"int_div", 2, OutRule::Upcast, "theano_floor_div({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_floor_div(a[0], a[1]); },
       [](const I* a) { return theano_i::theano_floor_div(a[0], a[1]); },
       [](const Vs& in, const Var&, const Var&) { return zeros_for(in); }});
  row({"mod", 2, OutRule::Upcast, "theano_mod({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_mod(a[0], a[1]); },
       [](const I* a) { return theano_i::theano_mod(a[0], a[1]); },
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz, -gz * int_div(in[0], in[1])}; }});
  row({"pow", 2, OutRule::Upcast, "pow({0}, {1})", F32, [](const double* a) { return std::pow(a[0], a[1]); },
       [](const I* a) { return int_pow(a[0], a[1]); },
       [](const Vs& in, const Var& out, const Var& gz) {
         return Vs{gz * in[1] * pow(in[0], in[1] - 1), gz * out * log(in[0])};
       }});
  row({"neg", 1, OutRule::Upcast, "(-{0})", F32, [](const double* a) { return -a[0]; },
       [](const I* a) { return static_cast<I>(0 - static_cast<std::uint64_t>(a[0])); },
       [](const Vs&, const Var&, const Var& gz) { return Vs{-gz}; }});
  row({"reciprocal", 1, OutRule::Float, "(1 / {0})", F32, [](const double* a) { return 1.0 / a[0]; }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{-gz * sqr(out)}; }});
  row({"sqr", 1, OutRule::Upcast, "({0} * {0})", F32, [](const double* a) { return a[0] * a[0]; },
       [](const I* a) { return static_cast<I>(static_cast<std::uint64_t>(a[0]) * static_cast<std::uint64_t>(a[0])); },
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * 2 * in[0]}; }});
  row({"sqrt", 1, OutRule::Float, "sqrt({0})", F32, [](const double* a) { return std::sqrt(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * 0.5 / out}; }});
  row({"abs", 1, OutRule::Upcast, "fabs({0})", F32, [](const double* a) { return std::fabs(a[0]); },
       [](const I* a) { return theano_i::fabs(a[0]); },
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * sign(in[0])}; }});
  row({"sign", 1, OutRule::Upcast, "theano_sign({0})", F32, [](const double* a) { return theano_f::theano_sign(a[0]); },
       [](const I* a) { return theano_i::theano_sign(a[0]); },
       [](const Vs& in, const Var&, const Var&) { return zeros_for(in); }});
  row({"maximum", 2, OutRule::Upcast, "theano_maximum({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_maximum(a[0], a[1]); },
       [](const I* a) { return theano_i::theano_maximum(a[0], a[1]); },
       [](const Vs& in, const Var& out, const Var& gz) {
         return Vs{gz * cast(eq(out, in[0]), tensor_type(gz)->dtype()), gz * cast(eq(out, in[1]), tensor_type(gz)->dtype())};
       },
       true, true});
  row({"minimum", 2, OutRule::Upcast, "theano_minimum({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_minimum(a[0], a[1]); },
       [](const I* a) { return theano_i::theano_minimum(a[0], a[1]); },
       [](const Vs& in, const Var& out, const Var& gz) {
         return Vs{gz * cast(eq(out, in[0]), tensor_type(gz)->dtype()), gz * cast(eq(out, in[1]), tensor_type(gz)->dtype())};
       },
       true, true});

  // ---- exponentials and logarithms
  row({"exp", 1, OutRule::Float, "exp({0})", F32, [](const double* a) { return std::exp(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * out}; }});
  row({"exp2", 1, OutRule::Float, "exp2({0})", F32, [](const double* a) { return std::exp2(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * out * ln2}; }});
  row({"expm1", 1, OutRule::Float, "expm1({0})", F32, [](const double* a) { return std::expm1(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * (out + 1)}; }});
  row({"log", 1, OutRule::Float, "log({0})", F32, [](const double* a) { return std::log(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / in[0]}; }});
  row({"log2", 1, OutRule::Float, "log2({0})", F32, [](const double* a) { return std::log2(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (in[0] * ln2)}; }});
  row({"log10", 1, OutRule::Float, "log10({0})", F32, [](const double* a) { return std::log10(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (in[0] * ln10)}; }});
  row({"log1p", 1, OutRule::Float, "log1p({0})", F32, [](const double* a) { return std::log1p(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (in[0] + 1)}; }});

  // ---- trigonometric and hyperbolic
  row({"sin", 1, OutRule::Float, "sin({0})", F32, [](const double* a) { return std::sin(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * cos(in[0])}; }});
  row({"cos", 1, OutRule::Float, "cos({0})", F32, [](const double* a) { return std::cos(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{-gz * sin(in[0])}; }});
  row({"tan", 1, OutRule::Float, "tan({0})", F32, [](const double* a) { return std::tan(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * (sqr(out) + 1)}; }});
  row({"arcsin", 1, OutRule::Float, "asin({0})", F32, [](const double* a) { return std::asin(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / sqrt(1 - sqr(in[0]))}; }});
  row({"arccos", 1, OutRule::Float, "acos({0})", F32, [](const double* a) { return std::acos(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{-gz / sqrt(1 - sqr(in[0]))}; }});
  row({"arctan", 1, OutRule::Float, "atan({0})", F32, [](const double* a) { return std::atan(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (sqr(in[0]) + 1)}; }});
  row({"arctan2", 2, OutRule::Float, "atan2({0}, {1})", F32, [](const double* a) { return std::atan2(a[0], a[1]); },
       nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         Var r2 = sqr(in[0]) + sqr(in[1]);
         return Vs{gz * in[1] / r2, -gz * in[0] / r2};
       }});
  row({"sinh", 1, OutRule::Float, "sinh({0})", F32, [](const double* a) { return std::sinh(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * cosh(in[0])}; }});
  row({"cosh", 1, OutRule::Float, "cosh({0})", F32, [](const double* a) { return std::cosh(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * sinh(in[0])}; }});
  row({"tanh", 1, OutRule::Float, "theano_tanh({0})", F32,
       [](const double* a) { return theano_f::theano_tanh(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * (1 - sqr(out))}; }});
  row({"arcsinh", 1, OutRule::Float, "asinh({0})", F32, [](const double* a) { return std::asinh(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / sqrt(sqr(in[0]) + 1)}; }});
  row({"arccosh", 1, OutRule::Float, "acosh({0})", F32, [](const double* a) { return std::acosh(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / sqrt(sqr(in[0]) - 1)}; }});
  row({"arctanh", 1, OutRule::Float, "atanh({0})", F32, [](const double* a) { return std::atanh(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (1 - sqr(in[0]))}; }});

  // ---- special functions
  row({"sigmoid", 1, OutRule::Float, "theano_sigmoid({0})", F32,
       [](const double* a) { return theano_f::theano_sigmoid(a[0]); },
       nullptr, [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * out * (1 - out)}; }});
  row({"softplus", 1, OutRule::Float, "theano_softplus({0})", F32,
       [](const double* a) { return theano_f::theano_softplus(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * sigmoid(in[0])}; }});
  row({"softsign", 1, OutRule::Float, "theano_softsign({0})", F32,
       [](const double* a) { return theano_f::theano_softsign(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / sqr(abs(in[0]) + 1)}; }});
  row({"log1mexp", 1, OutRule::Float, "theano_log1mexp({0})", F32,
       [](const double* a) { return theano_f::theano_log1mexp(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / -expm1(-in[0])}; }});
  row({"erf", 1, OutRule::Float, "erf({0})", F32, [](const double* a) { return std::erf(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * two_over_sqrt_pi * exp(-sqr(in[0]))};
       }});
  row({"erfc", 1, OutRule::Float, "erfc({0})", F32, [](const double* a) { return std::erfc(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         return Vs{-gz * two_over_sqrt_pi * exp(-sqr(in[0]))};
       }});
  row({"gammaln", 1, OutRule::Float, "lgamma({0})", F64, [](const double* a) { return std::lgamma(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * elemwise("psi", {in[0]})}; }});
  row({"psi", 1, OutRule::Float, "theano_digamma({0})", F64,
       [](const double* a) { return theano_f::theano_digamma(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * elemwise("tri_gamma", {in[0]})}; }});

  // ---- rounding (piecewise constant: zero gradient)
  auto zero = [](const Vs& in, const Var&, const Var&) { return zeros_for(in); };
  row({"floor", 1, OutRule::Float, "floor({0})", F32, [](const double* a) { return std::floor(a[0]); }, nullptr, zero});
  row({"ceil", 1, OutRule::Float, "ceil({0})", F32, [](const double* a) { return std::ceil(a[0]); }, nullptr, zero});
  row({"round", 1, OutRule::Float, "nearbyint({0})", F32,
       [](const double* a) { return round_half_even(a[0]); }, nullptr,
       zero});
  row({"trunc", 1, OutRule::Float, "trunc({0})", F32, [](const double* a) { return std::trunc(a[0]); }, nullptr, zero});

  // ---- selection
  row({"clip", 3, OutRule::Upcast, "theano_clip({0}, {1}, {2})", F32,
       [](const double* a) { return theano_f::theano_clip(a[0], a[1], a[2]); },
       [](const I* a) { return theano_i::theano_clip(a[0], a[1], a[2]); },
       [](const Vs& in, const Var&, const Var& gz) {
         const DType d = tensor_type(gz)->dtype();
         return Vs{gz * cast(and_(ge(in[0], in[1]), le(in[0], in[2])), d), gz * cast(lt(in[0], in[1]), d),
                   gz * cast(gt(in[0], in[2]), d)};
       }});
  row({"switch", 3, OutRule::UpcastFrom1, "({0} ? {1} : {2})", F64,
       [](const double* a) { return a[0] != 0 ? a[1] : a[2]; },
       [](const I* a) { return a[0] != 0 ? a[1] : a[2]; },
       [](const Vs& in, const Var&, const Var& gz) {
         Var zero_g = zeros_like(gz);
         return Vs{Var(), switch_(in[0], gz, zero_g), switch_(in[0], zero_g, gz)};
       }});

  // ---- comparisons (bool results: zero gradient)
  row({"lt", 2, OutRule::Bool, "({0} < {1})", F64, [](const double* a) { return double(a[0] < a[1]); },
       [](const I* a) { return I(a[0] < a[1]); }, zero});
  row({"gt", 2, OutRule::Bool, "({0} > {1})", F64, [](const double* a) { return double(a[0] > a[1]); },
       [](const I* a) { return I(a[0] > a[1]); }, zero});
  row({"le", 2, OutRule::Bool, "({0} <= {1})", F64, [](const double* a) { return double(a[0] <= a[1]); },
       [](const I* a) { return I(a[0] <= a[1]); }, zero});
  row({"ge", 2, OutRule::Bool, "({0} >= {1})", F64, [](const double* a) { return double(a[0] >= a[1]); },
       [](const I* a) { return I(a[0] >= a[1]); }, zero});
  row({"eq", 2, OutRule::Bool, "({0} == {1})", F64, [](const double* a) { return double(a[0] == a[1]); },
       [](const I* a) { return I(a[0] == a[1]); }, zero, true});
  row({"neq", 2, OutRule::Bool, "({0} != {1})", F64, [](const double* a) { return double(a[0] != a[1]); },
       [](const I* a) { return I(a[0] != a[1]); }, zero, true});
  row({"isnan", 1, OutRule::Bool, "isnan({0})", F64, [](const double* a) { return double(std::isnan(a[0])); },
       [](const I*) { return I(0); }, zero});
  row({"isinf", 1, OutRule::Bool, "isinf({0})", F64, [](const double* a) { return double(std::isinf(a[0])); },
       [](const I*) { return I(0); }, zero});

  // ---- logical / bitwise (bool and integer only)
  row({"and", 2, OutRule::IntOnly, "((int64_t)({0}) & (int64_t)({1}))", F64,
       [](const double* a) { return double(I(a[0]) & I(a[1])); },
       [](const I* a) { return a[0] & a[1]; }, zero, true, true});
  row({"or", 2, OutRule::IntOnly, "((int64_t)({0}) | (int64_t)({1}))", F64,
       [](const double* a) { return double(I(a[0]) | I(a[1])); },
       [](const I* a) { return a[0] | a[1]; }, zero, true, true});
  row({"xor", 2, OutRule::IntOnly, "((int64_t)({0}) ^ (int64_t)({1}))", F64,
       [](const double* a) { return double(I(a[0]) ^ I(a[1])); },
       [](const I* a) { return a[0] ^ a[1]; }, zero, true, true});
  // invert: bitwise not on integers, logical not on bool (Elemwise special-cases bool).
  row({"invert", 1, OutRule::IntOnly, "(~{0})", F64, [](const double* a) { return double(~I(a[0])); },
       [](const I* a) { return ~a[0]; }, zero});

  // ---- filling and identity
  row({"second", 2, OutRule::SecondInput, "({1})", F32, [](const double* a) { return a[1]; },
       [](const I* a) { return a[1]; }, [](const Vs&, const Var&, const Var& gz) { return Vs{Var(), gz}; }});
  row({"identity", 1, OutRule::Upcast, "({0})", F32,
       [](const double* a) { return a[0]; }, [](const I* a) { return a[0]; },
       [](const Vs&, const Var&, const Var& gz) { return Vs{gz}; }});

  // ---- neural-network activations (Theano's nnet; user functions in nnet.h)
  // relu(x, alpha): at x = 0 the gradient is Theano's, whose relu is 0.5 (1 + alpha) x + 0.5 (1 - alpha) |x|
  // with d|x| = sign(x): 0.5 (1 + alpha) there; alpha's is 0.5 (x - |x|) = min(x, 0).
  row({"relu", 2, OutRule::Float, "theano_relu({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_relu(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var &x = in[0], &alpha = in[1];
         return Vs{gz * switch_(gt(x, 0), 1, switch_(eq(x, 0), (alpha + 1) * 0.5, alpha)),
                   gz * switch_(lt(x, 0), x, 0)};
       }});
  // elu(x, alpha): Theano's switch(x > 0, x, alpha expm1(x)), so x = 0 takes the second branch.
  row({"elu", 2, OutRule::Float, "theano_elu({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_elu(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var &x = in[0], &alpha = in[1];
         return Vs{gz * switch_(gt(x, 0), 1, alpha * exp(x)), gz * switch_(gt(x, 0), 0, expm1(x))};
       }});
  row({"selu", 1, OutRule::Float, "theano_selu({0})", F32, [](const double* a) { return theano_f::theano_selu(a[0]); },
       nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * switch_(gt(in[0], 0), theano_f::theano_selu_scale(),
                                theano_f::theano_selu_scale() * theano_f::theano_selu_alpha() * exp(in[0]))};
       }});
  // hard_sigmoid: clip's gradient (1 on the closed interval) times the slope.
  row({"hard_sigmoid", 1, OutRule::Float, "theano_hard_sigmoid({0})", F32,
       [](const double* a) { return theano_f::theano_hard_sigmoid(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var y = in[0] * 0.2 + 0.5;
         return Vs{gz * switch_(and_(ge(y, 0), le(y, 1)), 0.2, 0)};
       }});
  // ultra_fast_sigmoid: Theano's op has no gradient; this is the derivative of the approximation itself
  // (0.25 dz/dh with h = |x| / 2), so verify_grad holds and a loss using it trains consistently.
  row({"ultra_fast_sigmoid", 1, OutRule::Float, "theano_ultra_fast_sigmoid({0})", F32,
       [](const double* a) { return theano_f::theano_ultra_fast_sigmoid(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var h = abs(in[0]) * 0.5;
         return Vs{gz * switch_(lt(h, 1.7), 0.375 / sqr(h + 1),
                                switch_(lt(h, 3), 0.25 * theano_f::theano_ultra_fast_sigmoid_slope(), 0))};
       }});
  // sigmoid_binary_crossentropy(logits, targets): Theano's gradient override, sigmoid(x) - t and -x.
  row({"sigmoid_binary_crossentropy", 2, OutRule::Float, "theano_sigmoid_binary_crossentropy({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_sigmoid_binary_crossentropy(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * (sigmoid(in[0]) - in[1]), gz * -in[0]};
       }});

  // ---- special functions A (runtime/include/theano/runtime/kernels/special_math.h; their accuracy and
  // edges: docs/special-functions.md). Names and semantics are PyTensor's (scipy.special's).
  row({"erfinv", 1, OutRule::Float, "theano_erfinv({0})", F32,
       [](const double* a) { return theano_f::theano_erfinv(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * sqrt_pi_over_2 * exp(sqr(out))}; }});
  row({"erfcinv", 1, OutRule::Float, "theano_erfcinv({0})", F32,
       [](const double* a) { return theano_f::theano_erfcinv(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{-gz * sqrt_pi_over_2 * exp(sqr(out))}; }});
  row({"erfcx", 1, OutRule::Float, "theano_erfcx({0})", F32,
       [](const double* a) { return theano_f::theano_erfcx(a[0]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) { return Vs{gz * (in[0] * out * 2 - two_over_sqrt_pi)}; }});
  row({"logit", 1, OutRule::Float, "theano_logit({0})", F32,
       [](const double* a) { return theano_f::theano_logit(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz / (in[0] * (1 - in[0]))}; }});
  row({"xlogx", 1, OutRule::Float, "theano_xlogx({0})", F32,
       [](const double* a) { return theano_f::theano_xlogx(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * (log(in[0]) + 1)}; }});
  row({"xlogy0", 2, OutRule::Float, "theano_xlogy0({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_xlogy0(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * log(in[1]), gz * in[0] / in[1]}; }});
  row({"xlog1py", 2, OutRule::Float, "theano_xlog1py({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_xlog1py(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * log1p(in[1]), gz * in[0] / (in[1] + 1)}; }});
  row({"gamma", 1, OutRule::Float, "theano_gamma({0})", F32,
       [](const double* a) { return theano_f::theano_gamma(a[0]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) { return Vs{gz * out * elemwise("psi", {in[0]})}; }});
  row({"tri_gamma", 1, OutRule::Float, "theano_trigamma({0})", F32,
       [](const double* a) { return theano_f::theano_trigamma(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * polygamma(2, in[0])}; }});
  // polygamma(n, x): the order n gets no gradient (PyTensor's grad_undefined).
  row({"polygamma", 2, OutRule::Float, "theano_polygamma({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_polygamma(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) { return Vs{Var(), gz * polygamma(in[0] + 1, in[1])}; }});
  // betaln(a, b): d/da = psi(a) - psi(a + b).
  row({"betaln", 2, OutRule::Float, "theano_betaln({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_betaln(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var both = elemwise("psi", {in[0] + in[1]});
         return Vs{gz * (elemwise("psi", {in[0]}) - both), gz * (elemwise("psi", {in[1]}) - both)};
       }});
  row({"ndtr", 1, OutRule::Float, "theano_ndtr({0})", F32, [](const double* a) { return theano_f::theano_ndtr(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * inv_sqrt_2pi * exp(sqr(in[0]) * -0.5)}; }});
  // log_ndtr' = pdf / ndtr = sqrt(2 / pi) / erfcx(-x / sqrt 2): no underflow, no 0 / 0, for very negative x.
  row({"log_ndtr", 1, OutRule::Float, "theano_log_ndtr({0})", F32,
       [](const double* a) { return theano_f::theano_log_ndtr(a[0]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * (2 * inv_sqrt_2pi) / erfcx(in[0] * -(1 / std::numbers::sqrt2))};
       }});
  row({"ndtri", 1, OutRule::Float, "theano_ndtri({0})", F32,
       [](const double* a) { return theano_f::theano_ndtri(a[0]); }, nullptr,
       [](const Vs&, const Var& out, const Var& gz) { return Vs{gz * (1 / inv_sqrt_2pi) * exp(sqr(out) * 0.5)}; }});

  // ---- special functions B (theano/runtime/kernels/special_math2.h; docs/special-functions-b.md)
  // gammainc(a, x) = P(a, x), gammaincc(a, x) = Q = 1 - P: d/dx is +-x^(a-1) e^-x / Gamma(a) (in logs, as
  // PyTensor), d/da the gammainc_der row (PyTensor's GammaIncGrad; Q's is its negative, GammaInccGrad).
  row({"gammainc", 2, OutRule::Float, "theano_gammainc({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_gammainc(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var dx = exp((in[0] - 1) * log(in[1]) - in[1] - gammaln(in[0]));
         return Vs{gz * elemwise("gammainc_der", {in[0], in[1]}), gz * dx};
       }});
  row({"gammaincc", 2, OutRule::Float, "theano_gammaincc({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_gammaincc(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var dx = exp((in[0] - 1) * log(in[1]) - in[1] - gammaln(in[0]));
         return Vs{-gz * elemwise("gammainc_der", {in[0], in[1]}), -gz * dx};
       }});
  row({"gammainc_der", 2, OutRule::Float, "theano_gammainc_der({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_gammainc_der(a[0], a[1]); }, nullptr, nullptr});
  // Bessel functions of the first kind (SciPy's j0, j1, jv, i0, i1, iv, ive): d/dx by the recurrences
  // (DLMF 10.6.2, 10.29.2), through orders v +- 1 (DLMF 10.6.1 for 0 < v < 1, where v - 1 < 0 has no
  // value here); d/dv is not implemented (PyTensor's grad_not_implemented): order_grad is an Assert that
  // fails, naming the op, when that gradient is evaluated.
  row({"j0", 1, OutRule::Float, "theano_j0({0})", F32, [](const double* a) { return theano_f::theano_j0(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{-gz * elemwise("j1", {in[0]})}; }});
  row({"j1", 1, OutRule::Float, "theano_j1({0})", F32, [](const double* a) { return theano_f::theano_j1(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * (elemwise("j0", {in[0]}) - jv(2.0, in[0])) * 0.5};
       }});
  row({"jv", 2, OutRule::Float, "theano_jv({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_jv(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var &v = in[0], &x = in[1];
         const Var up = elemwise("jv", {v + 1, x});
         const Var dx = switch_(and_(gt(v, 0), lt(v, 1)), v / x * out - up, (elemwise("jv", {v - 1, x}) - up) * 0.5);
         return Vs{order_grad("jv", v, gz), gz * dx};
       }});
  row({"i0", 1, OutRule::Float, "theano_i0({0})", F32, [](const double* a) { return theano_f::theano_i0(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) { return Vs{gz * elemwise("i1", {in[0]})}; }});
  row({"i1", 1, OutRule::Float, "theano_i1({0})", F32, [](const double* a) { return theano_f::theano_i1(a[0]); },
       nullptr, [](const Vs& in, const Var&, const Var& gz) {
         return Vs{gz * (elemwise("i0", {in[0]}) + iv(2.0, in[0])) * 0.5};
       }});
  row({"iv", 2, OutRule::Float, "theano_iv({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_iv(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var &v = in[0], &x = in[1];
         const Var up = elemwise("iv", {v + 1, x});
         const Var dx = switch_(and_(gt(v, 0), lt(v, 1)), v / x * out + up, (elemwise("iv", {v - 1, x}) + up) * 0.5);
         return Vs{order_grad("iv", v, gz), gz * dx};
       }});
  // ive = iv e^-|x|: ive' = (ive(v - 1) + ive(v + 1)) / 2 - sign(x) ive.
  row({"ive", 2, OutRule::Float, "theano_ive({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_ive(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var &v = in[0], &x = in[1];
         const Var up = elemwise("ive", {v + 1, x});
         const Var dx = switch_(and_(gt(v, 0), lt(v, 1)), v / x * out + up, (elemwise("ive", {v - 1, x}) + up) * 0.5);
         return Vs{order_grad("ive", v, gz), gz * (dx - sign(x) * out)};
       }});
  // kv, kve (SciPy's; K_-v = K_v, so v - 1 needs no special case): kv' = -(kv(v - 1) + kv(v + 1)) / 2
  // (DLMF 10.29.2), kve = kv e^x: kve' = kve - (kve(v - 1) + kve(v + 1)) / 2.
  row({"kv", 2, OutRule::Float, "theano_kv({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_kv(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var &v = in[0], &x = in[1];
         return Vs{order_grad("kv", v, gz), gz * (elemwise("kv", {v - 1, x}) + elemwise("kv", {v + 1, x})) * -0.5};
       }});
  row({"kve", 2, OutRule::Float, "theano_kve({0}, {1})", F32,
       [](const double* a) { return theano_f::theano_kve(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var &v = in[0], &x = in[1];
         return Vs{order_grad("kve", v, gz),
                   gz * (out - (elemwise("kve", {v - 1, x}) + elemwise("kve", {v + 1, x})) * 0.5)};
       }});
  // betainc(a, b, x) = I_x(a, b) (SciPy's): d/dx = x^(a-1) (1 - x)^(b-1) / B(a, b) in logs, d/da and d/db
  // the betainc_der_a / betainc_der_b rows (PyTensor's BetaIncGrad: Boik and Robison-Cox's derivatives
  // of the continued fraction).
  row({"betainc", 3, OutRule::Float, "theano_betainc({0}, {1}, {2})", F32,
       [](const double* a) { return theano_f::theano_betainc(a[0], a[1], a[2]); }, nullptr,
       [](const Vs& in, const Var&, const Var& gz) {
         const Var &a = in[0], &b = in[1], &x = in[2];
         const Var dx = exp((a - 1) * log(x) + (b - 1) * log1p(-x) - (gammaln(a) + gammaln(b) - gammaln(a + b)));
         return Vs{gz * elemwise("betainc_der_a", {a, b, x}), gz * elemwise("betainc_der_b", {a, b, x}), gz * dx};
       }});
  row({"betainc_der_a", 3, OutRule::Float, "theano_betainc_der_a({0}, {1}, {2})", F32,
       [](const double* a) { return theano_f::theano_betainc_der_a(a[0], a[1], a[2]); }, nullptr, nullptr});
  row({"betainc_der_b", 3, OutRule::Float, "theano_betainc_der_b({0}, {1}, {2})", F32,
       [](const double* a) { return theano_f::theano_betainc_der_b(a[0], a[1], a[2]); }, nullptr, nullptr});
  // gammaincinv(a, y) / gammainccinv(a, y): x = P^-1(a, y) / Q^-1(a, y). By the implicit function theorem,
  // with p' = x^(a-1) e^-x / Gamma(a) = dP/dx at the result: dx/dy = 1 / p' (-1 / p' for Q), and
  // dx/da = -(dP/da) / p' for both (dQ/da = -dP/da, dQ/dx = -p'). They compute in double for float32 too
  // (F64): their condition number (1/a for small x) would take a float form past float32's accuracy.
  row({"gammaincinv", 2, OutRule::Float, "theano_gammaincinv({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_gammaincinv(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var inv_dx = exp(gammaln(in[0]) + out - (in[0] - 1) * log(out));
         return Vs{-gz * elemwise("gammainc_der", {in[0], out}) * inv_dx, gz * inv_dx};
       }});
  row({"gammainccinv", 2, OutRule::Float, "theano_gammainccinv({0}, {1})", F64,
       [](const double* a) { return theano_f::theano_gammainccinv(a[0], a[1]); }, nullptr,
       [](const Vs& in, const Var& out, const Var& gz) {
         const Var inv_dx = exp(gammaln(in[0]) + out - (in[0] - 1) * log(out));
         return Vs{-gz * elemwise("gammainc_der", {in[0], out}) * inv_dx, -gz * inv_dx};
       }});
  return t;
}

}  // namespace

std::span<const ScalarOpInfo> scalar_op_table() {
  static const std::vector<ScalarOpInfo> table = build_table();
  return table;
}

const ScalarOpInfo& scalar_op_info(std::string_view name) {
  for (const ScalarOpInfo& info : scalar_op_table())
    if (info.name == name) return info;
  std::string known;
  for (const ScalarOpInfo& info : scalar_op_table()) known += (known.empty() ? "" : ", ") + info.name;
  throw ValueError("unknown scalar op '" + std::string(name) + "'; known ops: " + known);
}

}  // namespace theano::tensor

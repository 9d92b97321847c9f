// The elementwise tensor functions and the operators on Var: thin wrappers that
// build Elemwise nodes from rows of the scalar table.
#include "theano/tensor/math.h"

#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

Var ew(std::string_view name, std::initializer_list<const TensorLike*> args) {
  std::vector<Var> in;
  for (const TensorLike* a : args) in.push_back(a->var());
  return elemwise(name, std::move(in));
}

Var nary(std::string_view name, const std::vector<Var>& terms) {
  THEANO_USER_CHECK(!terms.empty(), ValueError) << name << " needs at least one term";
  if (terms.size() == 1) return as_tensor_variable(terms[0]);
  return elemwise(name, terms);
}

}  // namespace

#define THEANO_UNARY(fn, row) \
  Var fn(TL a) { return ew(row, {&a}); }
#define THEANO_BINARY(fn, row) \
  Var fn(TL a, TL b) { return ew(row, {&a, &b}); }

THEANO_BINARY(add, "add")
THEANO_BINARY(sub, "sub")
THEANO_BINARY(mul, "mul")
THEANO_BINARY(true_div, "true_div")
THEANO_BINARY(int_div, "int_div")
THEANO_BINARY(mod, "mod")
THEANO_BINARY(pow, "pow")
THEANO_UNARY(neg, "neg")
THEANO_UNARY(reciprocal, "reciprocal")
THEANO_UNARY(sqr, "sqr")
THEANO_UNARY(sqrt, "sqrt")
THEANO_UNARY(abs, "abs")
THEANO_UNARY(sign, "sign")
THEANO_BINARY(maximum, "maximum")
THEANO_BINARY(minimum, "minimum")
THEANO_UNARY(exp, "exp")
THEANO_UNARY(exp2, "exp2")
THEANO_UNARY(expm1, "expm1")
THEANO_UNARY(log, "log")
THEANO_UNARY(log2, "log2")
THEANO_UNARY(log10, "log10")
THEANO_UNARY(log1p, "log1p")
THEANO_UNARY(sin, "sin")
THEANO_UNARY(cos, "cos")
THEANO_UNARY(tan, "tan")
THEANO_UNARY(arcsin, "arcsin")
THEANO_UNARY(arccos, "arccos")
THEANO_UNARY(arctan, "arctan")
THEANO_BINARY(arctan2, "arctan2")
THEANO_UNARY(sinh, "sinh")
THEANO_UNARY(cosh, "cosh")
THEANO_UNARY(tanh, "tanh")
THEANO_UNARY(arcsinh, "arcsinh")
THEANO_UNARY(arccosh, "arccosh")
THEANO_UNARY(arctanh, "arctanh")
THEANO_UNARY(sigmoid, "sigmoid")
THEANO_UNARY(softplus, "softplus")
THEANO_UNARY(softsign, "softsign")
THEANO_UNARY(log1mexp, "log1mexp")
THEANO_UNARY(erf, "erf")
THEANO_UNARY(erfc, "erfc")
THEANO_UNARY(gammaln, "gammaln")
THEANO_BINARY(gammainc, "gammainc")
THEANO_BINARY(gammaincc, "gammaincc")
THEANO_UNARY(j0, "j0")
THEANO_UNARY(j1, "j1")
THEANO_BINARY(jv, "jv")
THEANO_UNARY(i0, "i0")
THEANO_UNARY(i1, "i1")
THEANO_BINARY(iv, "iv")
THEANO_BINARY(ive, "ive")
THEANO_BINARY(kv, "kv")
THEANO_BINARY(kve, "kve")
THEANO_BINARY(gammaincinv, "gammaincinv")
THEANO_BINARY(gammainccinv, "gammainccinv")
THEANO_UNARY(floor, "floor")
THEANO_UNARY(ceil, "ceil")
THEANO_UNARY(round, "round")
THEANO_UNARY(trunc, "trunc")
THEANO_BINARY(lt, "lt")
THEANO_BINARY(gt, "gt")
THEANO_BINARY(le, "le")
THEANO_BINARY(ge, "ge")
THEANO_BINARY(eq, "eq")
THEANO_BINARY(neq, "neq")
THEANO_UNARY(isnan, "isnan")
THEANO_UNARY(isinf, "isinf")
THEANO_BINARY(and_, "and")
THEANO_BINARY(or_, "or")
THEANO_BINARY(xor_, "xor")
THEANO_UNARY(invert, "invert")
THEANO_BINARY(second, "second")
THEANO_UNARY(identity, "identity")
#undef THEANO_UNARY
#undef THEANO_BINARY

Var add(const std::vector<Var>& terms) { return nary("add", terms); }
Var mul(const std::vector<Var>& factors) { return nary("mul", factors); }

Var clip(TL x, TL lo, TL hi) { return ew("clip", {&x, &lo, &hi}); }
Var switch_(TL cond, TL if_true, TL if_false) { return ew("switch", {&cond, &if_true, &if_false}); }
Var where(TL cond, TL if_true, TL if_false) { return switch_(cond, if_true, if_false); }
Var betainc(TL a, TL b, TL x) { return ew("betainc", {&a, &b, &x}); }

Var cast(TL a, DType dtype) {
  if (tensor_type(a.var())->dtype() == dtype) return a.var();
  return elemwise(scalar_cast_op(dtype), {a.var()});
}

Var fill(TL a, TL value) { return second(a, value); }

Var zeros_like(TL a, std::optional<DType> dtype) {
  const DType d = dtype.value_or(tensor_type(a.var())->dtype());
  return second(a, constant(NDArray::zeros({}, d)));
}

Var ones_like(TL a, std::optional<DType> dtype) {
  const DType d = dtype.value_or(tensor_type(a.var())->dtype());
  return second(a, constant(NDArray::ones({}, d)));
}

}  // namespace theano::tensor

namespace theano {

#define THEANO_DEFINE_BINARY_OPERATOR(op, fn)                                                                   \
  Var operator op(const Var& a, const Var& b) { return tensor::fn(a, b); }                                      \
  Var operator op(const Var& a, const tensor::TensorLike& b) { return tensor::fn(a, b); }                       \
  Var operator op(const tensor::TensorLike& a, const Var& b) { return tensor::fn(a, b); }
THEANO_DEFINE_BINARY_OPERATOR(+, add)
THEANO_DEFINE_BINARY_OPERATOR(-, sub)
THEANO_DEFINE_BINARY_OPERATOR(*, mul)
THEANO_DEFINE_BINARY_OPERATOR(/, true_div)
THEANO_DEFINE_BINARY_OPERATOR(%, mod)
THEANO_DEFINE_BINARY_OPERATOR(<, lt)
THEANO_DEFINE_BINARY_OPERATOR(>, gt)
THEANO_DEFINE_BINARY_OPERATOR(<=, le)
THEANO_DEFINE_BINARY_OPERATOR(>=, ge)
THEANO_DEFINE_BINARY_OPERATOR(&, and_)
THEANO_DEFINE_BINARY_OPERATOR(|, or_)
THEANO_DEFINE_BINARY_OPERATOR(^, xor_)
#undef THEANO_DEFINE_BINARY_OPERATOR

Var operator-(const Var& a) { return tensor::neg(a); }
Var operator~(const Var& a) { return tensor::invert(a); }

}  // namespace theano

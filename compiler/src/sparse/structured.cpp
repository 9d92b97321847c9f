// Theano's structured sparse ops (theano.sparse.basic's structured_monoid):
// an elementwise function of the stored values only, the result sparse with
// the operand's structure. They need no op of their own: the function runs
// on csm_properties(S)'s data, a dense vector, so the tensor ops' kernels and
// gradients serve, and CSM / CSMProperties carry the structured gradient
// back to S's stored values (theano/sparse/ops.h).
#include "theano/runtime/error.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::sparse {

namespace {

/// CSM(format, f(data), indices, indptr, shape) of the sparse operand `s`.
template <class F>
Var on_data(const char* fn, const Var& s, F f) {
  const SparseType* t = sparse_type(s);
  THEANO_USER_CHECK(t, TypeError) << "sparse::" << fn << ": the operand must be a sparse matrix, got "
                                  << (s ? s.str() + " of type " + s.type()->str() : std::string("a null Var"));
  const std::vector<Var> p = csm_properties(s);
  return csm(t->format(), f(p[0]), p[1], p[2], p[3]);
}

/// The scalar operand of a structured binary op (Theano converts it with scalar.as_scalar).
Var scalar_arg(const char* fn, const tensor::TensorLike& y) {
  const tensor::TensorType* t = tensor::tensor_type(y.var());
  THEANO_USER_CHECK(t && t->ndim() == 0, TypeError)
      << "sparse::" << fn << ": the second operand must be a scalar (a 0-d tensor), got " << y.var().str()
      << " of type " << y.var().type()->str();
  return y.var();
}

}  // namespace

#define THEANO_STRUCTURED_UNARY(NAME, TENSOR_FN) \
  Var NAME(const Var& s) { return on_data(#NAME, s, [](const Var& d) { return tensor::TENSOR_FN(d); }); }
#define THEANO_STRUCTURED_BINARY(NAME, TENSOR_FN)                                                \
  Var NAME(const Var& s, const tensor::TensorLike& y) {                                          \
    const Var k = scalar_arg(#NAME, y);                                                          \
    return on_data(#NAME, s, [&](const Var& d) { return tensor::TENSOR_FN(d, k); });             \
  }

THEANO_STRUCTURED_UNARY(structured_sigmoid, sigmoid)
THEANO_STRUCTURED_UNARY(structured_exp, exp)
THEANO_STRUCTURED_UNARY(structured_log, log)
THEANO_STRUCTURED_BINARY(structured_pow, pow)
THEANO_STRUCTURED_BINARY(structured_minimum, minimum)
THEANO_STRUCTURED_BINARY(structured_maximum, maximum)
THEANO_STRUCTURED_BINARY(structured_add, add)

// f(0) = 0: the structured form is the dense function's sparse result.
THEANO_STRUCTURED_UNARY(sin, sin)
THEANO_STRUCTURED_UNARY(tan, tan)
THEANO_STRUCTURED_UNARY(arcsin, arcsin)
THEANO_STRUCTURED_UNARY(arctan, arctan)
THEANO_STRUCTURED_UNARY(sinh, sinh)
THEANO_STRUCTURED_UNARY(arcsinh, arcsinh)
THEANO_STRUCTURED_UNARY(tanh, tanh)
THEANO_STRUCTURED_UNARY(arctanh, arctanh)
THEANO_STRUCTURED_UNARY(sgn, sign)
THEANO_STRUCTURED_UNARY(ceil, ceil)
THEANO_STRUCTURED_UNARY(floor, floor)
THEANO_STRUCTURED_UNARY(trunc, trunc)
THEANO_STRUCTURED_UNARY(log1p, log1p)
THEANO_STRUCTURED_UNARY(expm1, expm1)
THEANO_STRUCTURED_UNARY(sqrt, sqrt)
THEANO_STRUCTURED_UNARY(sqr, sqr)
THEANO_STRUCTURED_UNARY(neg, neg)

#undef THEANO_STRUCTURED_UNARY
#undef THEANO_STRUCTURED_BINARY

}  // namespace theano::sparse

// The sparse operations built from the sparse ops (theano/sparse/ops.h):
// they need no op of their own because their forms over the components are
// already differentiable (CSM / CSMProperties carry the structured
// gradients) and the expansion reaches their kernels.
#include "theano/runtime/error.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::sparse {

namespace {

const SparseType& sparse_arg(const char* fn, const Var& s) {
  const SparseType* t = sparse_type(s);
  THEANO_USER_CHECK(t, TypeError) << "sparse::" << fn << ": the first operand must be a sparse matrix, got " << s.str()
                                  << " of type " << (s ? s.type()->str() : std::string("none"));
  return *t;
}

/// The sparse matrix with `s`'s structure and `values` as its data.
Var with_values(const Var& s, const Var& values) {
  const std::vector<Var> p = csm_properties(s);
  return csm(sparse_type(s)->format(), values, p[1], p[2], p[3]);
}

}  // namespace

Var sampling_dot(const Var& x, const Var& y, const Var& p) {
  sparse_arg("sampling_dot", p);  // (the third operand)
  const Var products = OpPtr(new SampledDotSparse())->apply1({p, x, y});
  return with_values(p, tensor::mul(csm_properties(p)[0], csm_properties(products)[0]));
}

Var add(const Var& x, const Var& y) {
  if (sparse_type(x) && sparse_type(y)) return add_s_s(x, y);
  if (!sparse_type(x) && sparse_type(y)) return add(y, x);  // Theano's add_s_d(y, x)
  sparse_arg("add", x);
  return tensor::add(dense_from_sparse(x), y);
}

Var mul_scalar(const Var& s, const Var& a) {
  const SparseType& t = sparse_arg("mul_scalar", s);
  Var k = tensor::as_tensor_variable(a);
  const tensor::TensorType* tk = tensor::tensor_type(k);
  THEANO_USER_CHECK(tk && tk->ndim() == 0, TypeError)
      << "sparse::mul_scalar: the factor must be a 0-d tensor, got " << k.str() << " of type " << k.type()->str();
  const Var data = csm_properties(s)[0];
  if (!is_float(t.dtype()) && is_float(tk->dtype())) return with_values(s, tensor::mul(data, k));  // upcast
  if (tk->dtype() != t.dtype()) k = tensor::cast(k, t.dtype());
  return with_values(s, tensor::mul(data, k));
}

Var mul(const Var& s, const Var& d) {
  if (sparse_type(s) && sparse_type(d)) return mul_s_s(s, d);
  if (!sparse_type(s) && sparse_type(d)) return mul(d, s);  // Theano's mul_s_d(y, x)
  const SparseType& t = sparse_arg("mul", s);
  Var m = tensor::as_tensor_variable(d);
  const tensor::TensorType* tm = tensor::tensor_type(m);
  THEANO_USER_CHECK(tm && tm->ndim() == 2, TypeError)
      << "sparse::mul: the second operand must be a dense matrix, got " << m.str() << " of type " << m.type()->str();
  // Both operands in their upcast (Theano's mul_s_d), then D's values at S's positions.
  const DType dt = promote_types(t.dtype(), tm->dtype());
  const Var sv = dt == t.dtype() ? s : with_values(s, tensor::cast(csm_properties(s)[0], dt));
  if (dt != tm->dtype()) m = tensor::cast(m, dt);
  const Var at = OpPtr(new GatherSparse())->apply1({sv, m});
  return with_values(sv, tensor::mul(csm_properties(sv)[0], csm_properties(at)[0]));
}

Var sum(const Var& s, std::optional<int> axis) {
  const SparseType& t = sparse_arg("sum", s);
  if (!axis) return tensor::sum(csm_properties(s)[0]);
  THEANO_USER_CHECK(*axis == 0 || *axis == 1 || *axis == -1 || *axis == -2, ValueError)
      << "sparse::sum: axis must be 0 or 1 for a matrix, got " << *axis;
  const bool rows = *axis == 1 || *axis == -1;  // the sum of each row
  const Var m = rows ? s : transpose(s);
  const Var n = tensor::subtensor(csm_properties(m)[3], {1});
  const Var ones = tensor::ones(std::vector<tensor::TensorLike>{n, 1}, t.dtype());
  return tensor::flatten(structured_dot(m, ones), 1);
}

}  // namespace theano::sparse

/// \file
/// `jacobian` and `hessian` for expressions of static length. Theano builds
/// them with scan; theano-cpp has no scan yet, so row i is the gradient seeded
/// with the one-hot vector e_i (`known_grads`) and the rows are stacked. A
/// dynamic length is refused with a clear error rather than unrolled over an
/// evaluated size (a graph must not depend on a value seen once).
#include "theano/gradient.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {
namespace {

/// Rows d expression[i] / d wrt for i < n, stacked on a new axis 0, per wrt.
std::vector<Var> jacobian_rows(const Var& expression, std::int64_t n, const std::vector<Var>& wrt,
                               DisconnectedInputs disconnected_inputs, const char* who) {
  THEANO_USER_CHECK(n > 0, ValueError) << who << ": the expression " << expression.str()
                                       << " has length 0; its Jacobian is empty";
  const tensor::TensorType* t = tensor::tensor_type(expression);
  const DType seed_dtype = is_float(t->dtype()) ? t->dtype() : DType::Float64;
  std::vector<std::vector<Var>> rows(wrt.size());
  for (std::int64_t i = 0; i < n; ++i) {
    NDArray e = NDArray::zeros({n}, seed_dtype);
    NDArray one = e.index(0, i);
    one.fill(1);
    GradOptions opts;
    opts.disconnected_inputs = disconnected_inputs;
    Var seed = tensor::constant(e);
    if (seed_dtype != t->dtype()) seed = tensor::cast(seed, t->dtype());
    opts.known_grads = {{expression, seed}};
    // One warning at most for a disconnected input, not one per row.
    if (i > 0 && disconnected_inputs == DisconnectedInputs::Warn) opts.disconnected_inputs = DisconnectedInputs::Ignore;
    const std::vector<Var> g = grad(Var(), wrt, opts);
    for (std::size_t k = 0; k < wrt.size(); ++k) rows[k].push_back(g[k]);
  }
  std::vector<Var> result;
  for (const auto& r : rows) result.push_back(tensor::stack(r));
  return result;
}

std::int64_t static_length(const Var& v, const char* who, const char* what) {
  const tensor::TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t && t->ndim() == 1, TypeError)
      << who << " expects a 1-dimensional tensor as `" << what << "`, got " << v.str() << " of type "
      << v.type()->str();
  THEANO_USER_CHECK(t->shape()[0].has_value(), ValueError)
      << who << ": the length of `" << what << "` " << v.str() << " (" << t->str()
      << ") is not known statically. theano-cpp has no scan yet, so " << who
      << " needs a static length: declare it with a static shape (e.g. tensor::tensor(DType::Float64, {3})) or "
      << "use tensor::specify_shape";
  return *t->shape()[0];
}

}  // namespace

std::vector<Var> jacobian(const Var& expression, const std::vector<Var>& wrt, DisconnectedInputs disconnected_inputs) {
  THEANO_USER_CHECK(expression, ValueError) << "jacobian: the expression is null";
  const tensor::TensorType* t = tensor::tensor_type(expression);
  THEANO_USER_CHECK(t && t->ndim() <= 1, TypeError)
      << "jacobian expects a 0- or 1-dimensional tensor as `expression`, got " << expression.str() << " of type "
      << expression.type()->str() << "; flatten it first";
  if (t->ndim() == 0) {
    GradOptions opts;
    opts.disconnected_inputs = disconnected_inputs;
    return grad(expression, wrt, opts);
  }
  return jacobian_rows(expression, static_length(expression, "jacobian", "expression"), wrt, disconnected_inputs,
                       "jacobian");
}

Var jacobian(const Var& expression, const Var& wrt, DisconnectedInputs disconnected_inputs) {
  return jacobian(expression, std::vector<Var>{wrt}, disconnected_inputs)[0];
}

std::vector<Var> hessian(const Var& cost, const std::vector<Var>& wrt, DisconnectedInputs disconnected_inputs) {
  THEANO_USER_CHECK(cost, ValueError) << "hessian: the cost is null";
  const tensor::TensorType* t = tensor::tensor_type(cost);
  THEANO_USER_CHECK(t && t->ndim() == 0, TypeError)
      << "hessian: cost must be a scalar (a 0-d tensor), got " << cost.str() << " of type " << cost.type()->str();
  std::vector<Var> result;
  for (const Var& w : wrt) {
    THEANO_USER_CHECK(w, ValueError) << "hessian: a wrt variable is null";
    const std::int64_t n = static_length(w, "hessian", "wrt");
    GradOptions opts;
    opts.disconnected_inputs = disconnected_inputs;
    const Var g = grad(cost, w, opts);
    // The second pass ignores disconnection: a gradient that does not depend
    // on w (a linear cost) has a zero Hessian.
    result.push_back(jacobian_rows(g, n, {w}, DisconnectedInputs::Ignore, "hessian")[0]);
  }
  return result;
}

Var hessian(const Var& cost, const Var& wrt, DisconnectedInputs disconnected_inputs) {
  return hessian(cost, std::vector<Var>{wrt}, disconnected_inputs)[0];
}

}  // namespace theano

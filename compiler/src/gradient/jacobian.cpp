/// \file
/// `jacobian` and `hessian`. For a statically known length of 1 to
/// kMaxUnrolledRows, row i is the gradient seeded with the one-hot vector e_i
/// (`known_grads`) and the rows are stacked (no loop: each row is optimized
/// with the rest). Otherwise (a length known only at run time, 0, or more rows
/// than are worth a graph each), Theano's construction: a scan over
/// i = 0..n-1 whose step is grad(expression[i], wrt) (the forward work it
/// repeats does not depend on i, so scan_pushout computes it once, before the
/// loop). A static length of 0 gives the empty (0, ...) Jacobian directly.
#include <optional>

#include "theano/control/scan.h"
#include "theano/gradient.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano {
namespace {

/// Above this static length the rows are a scan: the graph stays the size of
/// one gradient instead of growing with the length.
constexpr std::int64_t kMaxUnrolledRows = 64;

/// Whether a static length `n` takes the unrolled rows.
bool unrolled(const std::optional<std::int64_t>& n) { return n && *n > 0 && *n <= kMaxUnrolledRows; }

/// Rows d expression[i] / d wrt for i < n, stacked on a new axis 0, per wrt.
std::vector<Var> jacobian_rows(const Var& expression, std::int64_t n, const std::vector<Var>& wrt,
                               DisconnectedInputs disconnected_inputs, const char* who) {
  THEANO_INTERNAL_CHECK(n > 0 && n <= kMaxUnrolledRows) << who << ": " << n << " unrolled Jacobian rows";
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

/// The Jacobian of an expression of static length 0: per wrt, an empty stack
/// (0, *wrt's gradient shape) in the gradient's dtype (from the gradient of
/// the empty expression's sum, which also reports a disconnected wrt).
std::vector<Var> jacobian_empty(const Var& expression, const std::vector<Var>& wrt,
                                DisconnectedInputs disconnected_inputs) {
  GradOptions opts;
  opts.disconnected_inputs = disconnected_inputs;
  const std::vector<Var> g = grad(tensor::sum(expression), wrt, opts);
  std::vector<Var> result;
  for (const Var& gk : g) {
    std::vector<tensor::TensorLike> shape{tensor::TensorLike(std::int64_t{0})};
    for (int d = 0; d < gk.ndim(); ++d) shape.emplace_back(tensor::shape_i(gk, d));
    result.push_back(tensor::zeros(shape, gk.dtype()));
  }
  return result;
}

/// The same rows for a length known only at run time: a scan over the rows.
std::vector<Var> jacobian_scan(const Var& expression, const std::vector<Var>& wrt,
                               DisconnectedInputs disconnected_inputs, const char* who) {
  bool first = true;
  const ScanArgs args = ScanArgs()
                            .sequences(tensor::arange(tensor::shape_i(expression, 0), DType::Int64))
                            .outputs_info(std::vector<OutputInfo>(wrt.size(), OutputInfo::none()))
                            .name(who);
  ScanResult r = scan(
      [&](const std::vector<Var>& a) {
        GradOptions opts;
        // One warning at most for a disconnected input (the step is built once anyway).
        opts.disconnected_inputs = first ? disconnected_inputs : DisconnectedInputs::Ignore;
        first = false;
        return StepResult{grad(tensor::subtensor(expression, {tensor::Index(a[0])}), wrt, opts)};
      },
      args);
  return r.outputs;
}

/// The static length of 1-d `v`, or nullopt when only the run time knows it.
std::optional<std::int64_t> length_of(const Var& v, const char* who, const char* what) {
  const tensor::TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t && t->ndim() == 1, TypeError)
      << who << " expects a 1-dimensional tensor as `" << what << "`, got " << v.str() << " of type "
      << v.type()->str();
  return t->shape()[0];
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
  const auto n = length_of(expression, "jacobian", "expression");
  if (n == 0) return jacobian_empty(expression, wrt, disconnected_inputs);
  if (unrolled(n)) return jacobian_rows(expression, *n, wrt, disconnected_inputs, "jacobian");
  return jacobian_scan(expression, wrt, disconnected_inputs, "jacobian");
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
    const std::optional<std::int64_t> n = length_of(w, "hessian", "wrt");
    GradOptions opts;
    opts.disconnected_inputs = disconnected_inputs;
    const Var g = grad(cost, w, opts);
    // The second pass ignores disconnection: a gradient that does not depend
    // on w (a linear cost) has a zero Hessian.
    if (n == 0) {
      result.push_back(jacobian_empty(g, {w}, DisconnectedInputs::Ignore)[0]);
      continue;
    }
    result.push_back(unrolled(n) ? jacobian_rows(g, *n, {w}, DisconnectedInputs::Ignore, "hessian")[0]
                       : jacobian_scan(g, {w}, DisconnectedInputs::Ignore, "hessian")[0]);
  }
  return result;
}

Var hessian(const Var& cost, const Var& wrt, DisconnectedInputs disconnected_inputs) {
  return hessian(cost, std::vector<Var>{wrt}, disconnected_inputs)[0];
}

}  // namespace theano

/// \file
/// Symbolic differentiation (Theano's `theano.gradient`): `grad` in reverse
/// mode, `Lop`, `Rop`, `jacobian`, `hessian`, and the gradient-check error type.
///
/// How `grad` works: the sources are the cost (seeded with ones) and the
/// `known_grads` entries. It walks the Apply nodes that lie on a path from a
/// `wrt` variable to a source (not walking through `consider_constant`
/// variables, and honouring each op's `connection_pattern`), in reverse
/// topological order, and calls each op's `grad(node, output_grads)`. Output
/// gradients that no path gives (multi-output nodes) are passed as
/// `zeros_like(output)`; a null Var returned by an op means "no gradient flows
/// to that input". Contributions to one variable are summed with `add`. A
/// variable listed in `known_grads` (or the cost) uses the given gradient and
/// ignores contributions from its clients, as in Theano.
///
/// Results: for a float `wrt`, a Var of `wrt`'s type (cast when an op's
/// gradient upcast); for an integer or bool `wrt`, zeros of floatX (Theano's
/// `_float_zeros_like`); for a `wrt` that no gradient reaches, per
/// `disconnected_inputs`: DisconnectedInputError, a warning on stderr and
/// zeros, or silently zeros.
///
/// `jacobian` and `hessian`: with a statically known length each row `i` is
/// the gradient with the seed e_i (`known_grads`), the rows stacked; with a
/// length known only at run time, a scan over the rows (Theano's way,
/// control/scan.h). `Rop` uses the
/// double-Lop trick (PyTensor's fallback): `J v = d/du <J^T u, v>`.
#pragma once

#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

/// `wrt` is not part of the cost's graph (or only feeds non-differentiable
/// ops), with disconnected_inputs = Raise.
class DisconnectedInputError : public ValueError {
 public:
  using ValueError::ValueError;
};

/// A symbolic gradient disagrees with finite differences (testing::verify_grad).
class GradientError : public Error {
 public:
  using Error::Error;
};

enum class DisconnectedInputs { Raise, Warn, Ignore };

struct GradOptions {
  /// Gradients do not flow through these variables into their ancestors.
  std::vector<Var> consider_constant;
  DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise;
  /// (variable, gradient of the cost with respect to it): extra seeds. With a
  /// null cost they are the only seeds.
  std::vector<std::pair<Var, Var>> known_grads;
  /// For a disconnected wrt (when not raising): return a null Var instead of zeros.
  bool null_for_disconnected = false;
};

/// d(cost)/d(wrt). `cost` must be a 0-d tensor (TypeError "cost must be a
/// scalar"), or null when `options.known_grads` gives the seeds.
Var grad(const Var& cost, const Var& wrt, const GradOptions& options = {});
std::vector<Var> grad(const Var& cost, const std::vector<Var>& wrt, const GradOptions& options = {});

/// Left operator (vector-Jacobian product): sum_k eval_points[k]^T d f[k] / d wrt.
/// `eval_points[k]` must have the type of `f[k]`.
std::vector<Var> Lop(const std::vector<Var>& f, const std::vector<Var>& wrt, const std::vector<Var>& eval_points,
                     const GradOptions& options = {});
Var Lop(const Var& f, const Var& wrt, const Var& eval_point, const GradOptions& options = {});

/// Right operator (Jacobian-vector product): for each f[k], sum_j d f[k] / d wrt[j]
/// eval_points[j]. `eval_points[j]` must have the type of `wrt[j]`. Built as
/// Lop(Lop(f, wrt, u), u, eval_points) with a placeholder u.
std::vector<Var> Rop(const std::vector<Var>& f, const std::vector<Var>& wrt, const std::vector<Var>& eval_points);
Var Rop(const Var& f, const Var& wrt, const Var& eval_point);

/// The Jacobian of a vector (or 0-d) `expression`: shape (len(expression),) +
/// shape(wrt). Any length: a static one stacks one gradient per row, one known
/// only at run time scans over the rows (a static length 0 is a ValueError).
Var jacobian(const Var& expression, const Var& wrt,
             DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise);
std::vector<Var> jacobian(const Var& expression, const std::vector<Var>& wrt,
                          DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise);

/// The Hessian of a 0-d `cost` with respect to a vector `wrt` (its length
/// static or known only at run time): jacobian(grad(cost, wrt), wrt).
Var hessian(const Var& cost, const Var& wrt, DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise);
std::vector<Var> hessian(const Var& cost, const std::vector<Var>& wrt,
                         DisconnectedInputs disconnected_inputs = DisconnectedInputs::Raise);

/// Identity in the forward pass; the gradient through it is zero (connected).
Var zero_grad(const Var& x);
/// Identity in the forward pass; no gradient flows through it (disconnected).
Var disconnected_grad(const Var& x);

}  // namespace theano

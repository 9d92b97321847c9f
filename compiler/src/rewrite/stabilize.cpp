/// \file
/// Stabilizations of the algebra family (PyTensor's tensor/rewriting/math.py
/// and nnet rewrites): forms that lose precision or overflow in floating point
/// replaced by equivalent stable ones. They run in the stabilize stage, after
/// canonicalize, so they match the Canonizer's forms (`exp(x) - 1` arrives as
/// `add(exp(x), -1)`, `1 - sigmoid(x)` as `sub(1, sigmoid(x))`).
#include <algorithm>
#include <cmath>

#include "algebra.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

namespace {

bool is_const(const Var& v, double value) {
  std::optional<double> c = scalar_constant_value(v);
  return c && *c == value;
}

}  // namespace

// log(sigmoid(x)) -> -softplus(-x); log(1 - sigmoid(x)), log1p(-sigmoid(x)) -> -softplus(x)
NodeRewriterPtr local_log_sigmoid() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_sigmoid", {"Elemwise:log", "Elemwise:log1p"},
      "log(sigmoid(x)) -> -softplus(-x); log(1 - sigmoid(x)) -> -softplus(x); log1p(-sigmoid(x)) -> -softplus(x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        if (T::is_elemwise(&node, "log1p")) {
          if (Var x = owner_input(owner_input(a, "neg"), "sigmoid")) return fitted_exact(T::neg(T::softplus(x)), node, {a});
          return RewriteResult::fail("input is not -sigmoid(x)");
        }
        // log(sigmoid(-v)) (1 - sigmoid(v) after local_1msigmoid) -> -softplus(v), not -softplus(-(-v)).
        if (Var x = owner_input(a, "sigmoid")) return fitted_exact(T::neg(T::softplus(negated(x))), node, {});
        Var one = owner_input(a, "sub", 0), s = owner_input(a, "sub", 1);
        if (one && is_const(one, 1))
          if (Var x = owner_input(s, "sigmoid")) return fitted_exact(T::neg(T::softplus(x)), node, {one, s});
        return RewriteResult::fail("input is neither sigmoid(x) nor 1 - sigmoid(x)");
      });
  return r;
}

namespace {

/// The exponents of an add tree whose leaves are all exp(x_i) of `dt`: add(exp(a), exp(b), ...) and, as
/// fast_compile leaves it (no Canonizer), nested adds add(add(exp(a), exp(b)), exp(c)). Empty otherwise.
bool collect_exp_terms(const Var& v, DType dt, std::vector<Var>& xs) {
  if (Var x = owner_input(v, "exp")) {
    if (T::tensor_type(x)->dtype() != dt) return false;
    xs.push_back(x);
    return true;
  }
  if (!v.owner() || !T::is_elemwise(v.owner(), "add")) return false;
  for (const Var& in : v.owner()->inputs())
    if (!collect_exp_terms(in, dt, xs)) return false;
  return true;
}

}  // namespace

// log(exp(x) + exp(y)) -> switch(isinf(m), m, m + softplus(-|x - y|)), m = maximum(x, y);
// log(exp(x1) + ... + exp(xn)), n > 2 -> switch(isinf(m), m, m + log(exp(x1 - m) + ... + exp(xn - m))),
// m = maximum(x1, ..., xn)
NodeRewriterPtr local_logaddexp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_logaddexp", {"Elemwise:log"},
      "log(exp(x) + exp(y)) -> switch(isinf(m), m, m + softplus(-|x - y|)), m = maximum(x, y); n > 2 terms "
      "(flat or nested adds) -> switch(isinf(m), m, m + log(sum_i exp(x_i - m))), m = max_i x_i",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        if (!a.owner() || !T::is_elemwise(a.owner(), "add")) return RewriteResult::fail("input is not an add");
        const DType dt = T::tensor_type(node.output(0))->dtype();
        std::vector<Var> xs;
        if (!collect_exp_terms(a, dt, xs) || xs.size() < 2)
          return RewriteResult::fail("the add's terms are not all exp of floats of the output's dtype");
        if (xs.size() == 2) {
          const Var &x = xs[0], &y = xs[1];
          // Where m is infinite, x - y may be NaN (inf - inf) but the sum is m (both -inf: log(0) = -inf).
          Var m = T::maximum(x, y);
          return fitted_exact(T::switch_(T::isinf(m), m, m + T::softplus(T::neg(T::abs(x - y)))), node, {x, y});
        }
        // Already shifted (this rewrite's own output): every exponent is x_i - s for one s.
        const Var s = owner_input(xs[0], "sub", 1);
        if (s && std::all_of(xs.begin(), xs.end(), [&s](const Var& x) { return owner_input(x, "sub", 1) == s; }))
          return RewriteResult::fail("already shifted by its maximum");
        Var m = xs[0];
        for (std::size_t i = 1; i < xs.size(); ++i) m = T::maximum(m, xs[i]);
        std::vector<Var> shifted;
        for (const Var& x : xs) shifted.push_back(T::exp(x - m));
        return fitted_exact(T::switch_(T::isinf(m), m, m + T::log(T::add(shifted))), node, xs);
      });
  return r;
}

// log(1 - exp(x)) (arriving as log1p(-exp(x))), log(-expm1(x)) -> log1mexp(x);
// log(exp(x) - exp(y)) -> switch(y == -inf, x, x + log1mexp(y - x))
NodeRewriterPtr local_log1mexp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log1mexp", {"Elemwise:log", "Elemwise:log1p"},
      "log1p(-exp(x)) -> log1mexp(x); log(-expm1(x)) -> log1mexp(x); log(exp(x) - exp(y)) -> "
      "switch(y == -inf, x, x + log1mexp(y - x))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        const DType dt = T::tensor_type(node.output(0))->dtype();
        auto same_float = [dt](const Var& v) { return T::tensor_type(v)->dtype() == dt; };
        if (T::is_elemwise(&node, "log1p")) {
          const Var x = owner_input(owner_input(a, "neg"), "exp");
          if (!x || !same_float(x)) return RewriteResult::fail("input is not -exp(x) of the output's dtype");
          return fitted_exact(T::log1mexp(x), node, {a});
        }
        if (Var x = owner_input(owner_input(a, "neg"), "expm1"); x && same_float(x))
          return fitted_exact(T::log1mexp(x), node, {a});
        const Var x = owner_input(owner_input(a, "sub", 0), "exp"), y = owner_input(owner_input(a, "sub", 1), "exp");
        if (!x || !y || !same_float(x) || !same_float(y))
          return RewriteResult::fail("input is neither -expm1(x) nor exp(x) - exp(y) of the output's dtype");
        // y = -inf: exp(y) = 0 and the result is x, even where x is -inf too (y - x would be NaN there).
        return fitted_exact(T::switch_(T::eq(y, constant_like(-INFINITY, y)), x, x + T::log1mexp(y - x)), node,
                            {x, y});
      });
  return r;
}

// exp(x) - 1 -> expm1(x); add(exp(x), -1, y...) -> add(expm1(x), y...)
NodeRewriterPtr local_expm1() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_expm1", {"Elemwise:sub", "Elemwise:add"}, "exp(x) - 1 -> expm1(x); exp(x) + (-1) + y -> expm1(x) + y",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (T::is_elemwise(&node, "sub")) {
          Var x = owner_input(node.input(0), "exp");
          if (!x || !is_const(node.input(1), 1)) return RewriteResult::fail("not exp(x) - 1");
          return fitted_exact(T::expm1(x), node, node.inputs());
        }
        std::vector<Var> terms = node.inputs();
        auto e = std::find_if(terms.begin(), terms.end(), [](const Var& v) { return bool(owner_input(v, "exp")); });
        auto m1 = std::find_if(terms.begin(), terms.end(), [](const Var& v) { return is_const(v, -1); });
        if (e == terms.end() || m1 == terms.end()) return RewriteResult::fail("no exp(x) and -1 terms");
        *e = T::expm1(owner_input(*e, "exp"));
        terms.erase(m1);
        return fitted_exact(terms.size() == 1 ? terms[0] : T::add(terms), node, node.inputs());
      });
  return r;
}

// log(sum(exp(x), axes)) -> log(sum(exp(x - m), axes)) + m, m = max(x, axes) (0 where infinite)
NodeRewriterPtr local_log_sum_exp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_sum_exp", {"Elemwise:log"},
      "log(sum(exp(x), axes)) -> log(sum(exp(x - m), axes)) + m, m = max(x, axes), 0 where infinite; keepdims kept",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var s = node.input(0);
        Apply* keepdims = nullptr;  // the DimShuffle a keepdims sum ends with
        if (s.owner() && dynamic_cast<const T::DimShuffle*>(s.owner()->op().get())) {
          keepdims = s.owner();
          s = s.owner()->input(0);
        }
        const auto* red = s.owner() ? dynamic_cast<const T::CAReduce*>(s.owner()->op().get()) : nullptr;
        if (!red || red->scalar_op() != "add" || red->pre()) return RewriteResult::fail("input is not a plain sum");
        const Var x = owner_input(s.owner()->input(0), "exp");
        if (!x) return RewriteResult::fail("the sum is not over exp(x)");
        const DType dt = T::tensor_type(x)->dtype();
        if (!is_float(dt) || T::tensor_type(s)->dtype() != dt || red->axes().empty())
          return RewriteResult::fail("only float sums over some axes that keep their dtype");
        // Already shifted: x - DimShuffle(switch(...)), or x - switch(...) (tensor::logsumexp with keepdims).
        if (Var shift = owner_input(x, "sub", 1)) {
          if (shift.owner() && dynamic_cast<const T::DimShuffle*>(shift.owner()->op().get()))
            shift = shift.owner()->input(0);
          if (owner_input(shift, "switch")) return RewriteResult::fail("already shifted by its maximum");
        }
        Var m = T::max(x, T::Axes(red->axes()));
        m = T::switch_(T::isinf(m), constant_like(0, m), m);
        std::vector<int> order;
        for (int a = 0, k = 0; a < T::tensor_type(x)->ndim(); ++a) {
          const bool reduced = std::find(red->axes().begin(), red->axes().end(), a) != red->axes().end();
          order.push_back(reduced ? T::kNewAxis : k++);
        }
        Var v = T::add(T::log(s.owner()->op()->apply1({T::exp(x - T::dimshuffle(m, order))})), m);
        if (keepdims) v = keepdims->op()->apply1({v});
        return fitted_exact(v, node, {});
      });
  return r;
}

// crossentropy_categorical_1hot(softmax(x), t) -> -sum(switch(t == arange(k), log_softmax(x), 0), 1)
NodeRewriterPtr local_crossentropy_to_log_softmax() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_crossentropy_to_log_softmax", {"CrossentropyCategorical1Hot"},
      "crossentropy_categorical_1hot(softmax(x), t) -> -sum(switch(t[:, None] == arange(k), log_softmax(x), 0), 1), "
      "labels checked by an Assert",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& sm = node.input(0);
        const auto* op = sm.owner() ? dynamic_cast<const N::Softmax*>(sm.owner()->op().get()) : nullptr;
        if (!op || op->axis() != 1) return RewriteResult::fail("coding_dist is not a Softmax over axis 1");
        const Var x = sm.owner()->input(0), t = node.input(1);
        const DType dt = T::tensor_type(x)->dtype();
        Var k = T::shape_i(x, 1);
        Var onehot = T::eq(t.dimshuffle({0, T::kNewAxis}), T::arange(k).dimshuffle({T::kNewAxis, 0}));
        Var zero = T::constant(NDArray::full({1, 1}, 0.0, dt));
        Var y = T::neg(T::sum(T::switch_(onehot, N::log_softmax(x, 1), zero), 1));
        Var zero_label = T::constant(NDArray::full({1}, 0.0, T::tensor_type(t)->dtype()));
        Var valid = T::all_(T::and_(T::ge(t, zero_label), T::lt(t, k)));
        y = T::assert_op(y, {valid}, "local_crossentropy_to_log_softmax: a label is outside [0, k)");
        return fitted_exact(y, node, {});
      });
  return r;
}

}  // namespace theano::rewrite::detail

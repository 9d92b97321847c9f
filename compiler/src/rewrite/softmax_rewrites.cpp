/// \file
/// The softmax family written by hand, recognized as the stable ops
/// (PyTensor's tensor/rewriting/special.py and math.py): exp(x) / sum(exp(x))
/// and its max-shifted form as Softmax, x - logsumexp(x) as LogSoftmax,
/// exp(log_softmax(x)) as Softmax and 1 / (1 + exp(-x)) as sigmoid.
///
/// Why in canonicalize: the patterns must be seen before the stabilize stage
/// rewrites log(sum(exp(x))) into its max-shifted form, and the ops they make
/// are what the later stages (crossentropy, the softmax gradient, GPU) expect.
#include <algorithm>
#include <unordered_set>

#include "algebra.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

namespace {

// The input of a DimShuffle that only puts back reduced axis `axis` (keepdims);
// null otherwise.
Var under_keepdims(const Var& v, int axis) {
  const auto* ds = v && v.owner() ? dynamic_cast<const T::DimShuffle*>(v.owner()->op().get()) : nullptr;
  if (!ds || static_cast<int>(ds->new_order().size()) != ds->input_ndim() + 1) return {};
  for (int i = 0, k = 0; i < static_cast<int>(ds->new_order().size()); ++i) {
    const int want = i == axis ? T::kNewAxis : k++;
    if (ds->new_order()[static_cast<std::size_t>(i)] != want) return {};
  }
  return v.owner()->input(0);
}

// Skips a ZeroGrad or DisconnectedGrad (tensor::logsumexp cuts its shift from the gradient).
Var through_grad_stop(const Var& v) {
  if (v && v.owner() && (v.owner()->op()->type_name() == "ZeroGrad" || v.owner()->op()->type_name() == "DisconnectedGrad"))
    return v.owner()->input(0);
  return v;
}

// x when `e` is exp(x) or exp(x - max(x, axis, keepdims)) (the shift a hand-written softmax uses).
Var softmax_numerator_input(const Var& e, int axis) {
  const Var a = owner_input(e, "exp");
  if (!a) return {};
  if (Var x = owner_input(a, "sub"); x && reduce_input(through_grad_stop(under_keepdims(owner_input(a, "sub", 1), axis)), "maximum", axis) == x)
    return x;
  return a;
}

// x when `l` (the shape of x) is logsumexp of x along `axis` with keepdims, in one of the forms users write:
// log(sum(exp(x), axis, keepdims)) with the DimShuffle under or over the log, or
// tensor::logsumexp(x, axis, keepdims) = log(sum(exp(x - m), axis, keepdims)) + m,
// m = switch(isinf(M), 0, M), M = max(x, axis, keepdims) (under a ZeroGrad until canonicalize removes it).
Var lse_input(const Var& l, int axis) {
  auto log_sum_exp_of = [axis](const Var& lg) -> Var {  // the argument of exp in log(sum(exp(.))), keepdims
    const Var s = owner_input(lg, "log");
    if (!s) return {};
    if (Var summed = reduce_input(under_keepdims(s, axis), "add", axis)) return owner_input(summed, "exp");
    return {};
  };
  if (Var x = log_sum_exp_of(l)) return x;
  if (Var inner = under_keepdims(l, axis))
    if (Var x = owner_input(reduce_input(owner_input(inner, "log"), "add", axis), "exp")) return x;
  if (!l || !l.owner() || !T::is_elemwise(l.owner(), "add") || l.owner()->nin() != 2) return {};
  const Var m = l.owner()->input(1);
  const Var shifted = log_sum_exp_of(l.owner()->input(0));
  const Var x = owner_input(shifted, "sub");
  if (!x || owner_input(shifted, "sub", 1) != m || !owner_input(m, "switch")) return {};
  return reduce_input(under_keepdims(through_grad_stop(m.owner()->input(2)), axis), "maximum", axis) == x ? x : Var();
}

// Whether every value computed between `from` (included) and `stop` (excluded) is used only
// inside that computation or by `user`: rewriting `user` then leaves none of it computed.
bool used_only_by(const FunctionGraph& fg, const Var& from, const Var& stop, const Apply& user) {
  std::vector<Var> values, todo{from};
  std::unordered_set<const Apply*> inside{&user};
  while (!todo.empty()) {
    Var v = todo.back();
    todo.pop_back();
    if (v == stop || !v.owner() || v.is_constant() || !inside.insert(v.owner()).second) continue;
    for (const Var& o : v.owner()->outputs()) values.push_back(o);
    for (const Var& in : v.owner()->inputs()) todo.push_back(in);
  }
  for (const Var& v : values)
    for (const auto& c : fg.clients(v))
      if (c.is_output() || !inside.count(c.node)) return false;
  return true;
}

}  // namespace

// exp(x) / sum(exp(x), axis, keepdims) -> softmax(x, axis); also with x shifted by max(x, axis, keepdims)
NodeRewriterPtr local_softmax_simplifier() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_softmax_simplifier", {"Elemwise:true_div"},
      "exp(x) / sum(exp(x), axis, keepdims) -> softmax(x, axis); exp(x - max(x, axis, keepdims)) / sum(that, axis, "
      "keepdims) -> softmax(x, axis)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var &e = node.input(0), &den = node.input(1);
        const int nd = T::tensor_type(e)->ndim();
        for (int axis = 0; axis < nd; ++axis) {
          if (reduce_input(under_keepdims(den, axis), "add", axis) != e) continue;
          const Var x = softmax_numerator_input(e, axis);
          if (!x || !is_float(T::tensor_type(x)->dtype())) continue;
          return fitted_exact(N::softmax(x, axis), node, {e});
        }
        return RewriteResult::fail("not exp(x) divided by its sum along one axis with keepdims");
      });
  return r;
}

// x - logsumexp(x, axis, keepdims) -> log_softmax(x, axis) when the logsumexp is used only here
// (with other clients it stays computed, and the LogSoftmax would compute it a second time)
NodeRewriterPtr local_log_softmax_from_lse() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_softmax_from_lse", {"Elemwise:sub"},
      "x - log(sum(exp(x), axis, keepdims)) -> log_softmax(x, axis) (also tensor::logsumexp(x, axis, keepdims)); "
      "not when the logsumexp has other clients",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var &x = node.input(0), &l = node.input(1);
        if (!is_float(T::tensor_type(x)->dtype())) return RewriteResult::fail("x is not a float");
        if (!used_only_by(fg, l, x, node)) return RewriteResult::fail("the logsumexp (or a part of it) has other clients");
        for (int axis = 0; axis < T::tensor_type(x)->ndim(); ++axis)
          if (lse_input(l, axis) == x) return fitted_exact(N::log_softmax(x, axis), node, {x});
        return RewriteResult::fail("the subtrahend is not logsumexp(x) along one axis with keepdims");
      });
  return r;
}

// exp(log_softmax(x)) -> softmax(x) when the log_softmax has no other client
// (local_softmax_from_log_softmax makes this form on purpose when it has)
NodeRewriterPtr local_exp_log_softmax() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_exp_log_softmax", {"Elemwise:exp"}, "exp(log_softmax(x)) -> softmax(x) (the log_softmax used only here)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& ls = node.input(0);
        const auto* op = ls.owner() ? dynamic_cast<const N::LogSoftmax*>(ls.owner()->op().get()) : nullptr;
        if (!op) return RewriteResult::fail("input is not a LogSoftmax");
        if (fg.clients(ls).size() != 1) return RewriteResult::fail("the log_softmax has other clients");
        return fitted_exact(N::softmax(ls.owner()->input(0), op->axis()), node, {});
      });
  return r;
}

// 1 / (1 + exp(-x)) -> sigmoid(x); 1 / (1 + exp(x)) -> sigmoid(-x)
NodeRewriterPtr local_sigmoid_from_exp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sigmoid_from_exp", {"Elemwise:reciprocal", "Elemwise:true_div"},
      "1 / (1 + exp(-x)) -> sigmoid(x); 1 / (1 + exp(x)) -> sigmoid(-x) (reciprocal or true_div forms)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var den = node.input(0);
        if (T::is_elemwise(&node, "true_div")) {
          std::optional<double> one = scalar_constant_value(node.input(0));
          if (!one || *one != 1) return RewriteResult::fail("the numerator is not 1");
          den = node.input(1);
        }
        if (!den.owner() || !T::is_elemwise(den.owner(), "add") || den.owner()->nin() != 2)
          return RewriteResult::fail("the denominator is not a binary add");
        for (int k = 0; k < 2; ++k) {
          std::optional<double> one = scalar_constant_value(den.owner()->input(k));
          const Var a = owner_input(den.owner()->input(1 - k), "exp");
          if (!one || *one != 1 || !a) continue;
          if (T::tensor_type(a)->dtype() != T::tensor_type(node.output(0))->dtype()) continue;
          const Var x = owner_input(a, "neg");
          return fitted_exact(x ? T::sigmoid(x) : T::sigmoid(T::neg(a)), node, node.inputs());
        }
        return RewriteResult::fail("the denominator is not 1 + exp(a)");
      });
  return r;
}

}  // namespace theano::rewrite::detail

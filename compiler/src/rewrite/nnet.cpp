/// \file
/// Rewrites of the nnet ops and of Assert.
#include "algebra.h"
#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

// log(softmax(x, axis)) -> log_softmax(x, axis); log(softmax(x)[idx]) -> log_softmax(x)[idx] (any element
// selection: Subtensor, AdvancedSubtensor1, DimShuffle, Reshape commute with the elementwise log)
NodeRewriterPtr local_log_softmax() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_softmax", {"Elemwise:log"},
      "log(softmax(x)) -> log_softmax(x); log(V(softmax(x), ...)) -> V(log_softmax(x), ...) for V a Subtensor, "
      "AdvancedSubtensor1, DimShuffle or Reshape",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& s = node.input(0);
        Apply* select = nullptr;
        Var sm = s;
        if (s.owner()) {
          const std::string_view t = s.owner()->op()->type_name();
          if (t == "Subtensor" || t == "AdvancedSubtensor1" || t == "DimShuffle" || t == "Reshape") {
            select = s.owner();
            sm = s.owner()->input(0);
          }
        }
        const auto* op = sm.owner() ? dynamic_cast<const N::Softmax*>(sm.owner()->op().get()) : nullptr;
        if (!op) return RewriteResult::fail("input is not a Softmax, nor an element selection of one");
        Var v = N::log_softmax(sm.owner()->input(0), op->axis());
        if (select) {
          std::vector<Var> ins = select->inputs();
          ins[0] = v;
          v = select->op()->apply1(ins);
        }
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("type differs");
        return f;
      });
  return r;
}

namespace {

const N::Softmax* softmax_of(const Var& v) {
  return v.owner() ? dynamic_cast<const N::Softmax*>(v.owner()->op().get()) : nullptr;
}

/// The Sum{axis} under `v` = DimShuffle(Sum(...)) or Sum with keepdims; null otherwise.
Var keepdims_sum_input(const Var& v, int axis) {
  Var s = v;
  if (s.owner())
    if (const auto* ds = dynamic_cast<const T::DimShuffle*>(s.owner()->op().get()); ds && !ds->is_transpose())
      s = s.owner()->input(0);
  return reduce_input(s, "add", axis);
}

/// The operands of a binary mul `sm * (a - b)` with sm a Softmax, in both orders: (sm, the sub node).
std::vector<std::pair<Var, Apply*>> softmax_times_sub(const Apply& node) {
  std::vector<std::pair<Var, Apply*>> r;
  if (node.nin() != 2) return r;
  for (int k = 0; k < 2; ++k) {
    const Var& sm = node.input(k);
    const Var& diff = node.input(1 - k);
    if (softmax_of(sm) && diff.owner() && T::is_elemwise(diff.owner(), "sub")) r.emplace_back(sm, diff.owner());
  }
  return r;
}

/// Whether `v` is mul(a, b) of exactly these two, in either order.
bool is_mul_of(const Var& v, const Var& a, const Var& b) {
  if (!v.owner() || !T::is_elemwise(v.owner(), "mul") || v.owner()->nin() != 2) return false;
  const Var &x = v.owner()->input(0), &y = v.owner()->input(1);
  return (x == a && y == b) || (x == b && y == a);
}

}  // namespace

// softmax(x) * (gz - sum(gz * softmax(x), 1, keepdims)) with gz = crossentropy_1hot_grad(g, softmax(x), t)
//   -> (softmax(x) - onehot(t)) * g[:, None]   (no division by softmax[i, t_i], which may underflow to 0)
NodeRewriterPtr local_softmax_crossentropy_grad() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_softmax_crossentropy_grad", {"Elemwise:mul"},
      "sm * (gz - sum(gz * sm, 1, keepdims)), gz = crossentropy_1hot_grad(g, sm, t), sm = softmax(x) -> "
      "(sm - onehot(t)) * g[:, None]",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        for (const auto& [sm, diff] : softmax_times_sub(node)) {
          if (softmax_of(sm)->axis() != 1 || T::tensor_type(sm)->ndim() != 2) continue;
          const Var& gz = diff->input(0);
          if (!gz.owner() || gz.owner()->op()->type_name() != "CrossentropyCategorical1HotGrad") continue;
          const Var &g = gz.owner()->input(0), &coding = gz.owner()->input(1), &t = gz.owner()->input(2);
          if (coding != sm) continue;
          const Var summed = keepdims_sum_input(diff->input(1), 1);
          if (!summed || !is_mul_of(summed, gz, sm)) continue;
          const T::TensorType* st = T::tensor_type(sm);
          Var onehot = T::eq(T::dimshuffle(t, {0, T::kNewAxis}),
                             T::dimshuffle(T::arange(T::shape_i(sm, 1)), {T::kNewAxis, 0}));
          Var v = (sm - T::cast(onehot, st->dtype())) * T::dimshuffle(g, {0, T::kNewAxis});
          Var f = fit_type(v, node.output(0), {sm});
          if (!f) return RewriteResult::fail("the stable form cannot keep the output type");
          return f;
        }
        return RewriteResult::fail("not the softmax gradient of a one-hot crossentropy");
      });
  return r;
}

// sm * (g / sm - sum(g / sm * sm, axis, keepdims)), sm = softmax(x, axis) (the gradient of log(softmax(x)) built
//   by grad) -> g - sm * sum(g, axis, keepdims): no division by sm, which underflows to 0 (0 / 0 = NaN)
NodeRewriterPtr local_log_softmax_grad() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_softmax_grad", {"Elemwise:mul"},
      "sm * (g / sm - sum(g / sm * sm, axis, keepdims)), sm = softmax(x, axis) -> g - sm * sum(g, axis, keepdims)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        for (const auto& [sm, diff] : softmax_times_sub(node)) {
          const N::Softmax* op = softmax_of(sm);
          const Var& q = diff->input(0);
          if (!q.owner() || !T::is_elemwise(q.owner(), "true_div") || q.owner()->input(1) != sm) continue;
          const Var summed = keepdims_sum_input(diff->input(1), op->axis());
          if (!summed || !is_mul_of(summed, q, sm)) continue;
          const Var& g = q.owner()->input(0);
          std::vector<int> order;  // the summed axis put back
          for (int a = 0, j = 0; a < T::tensor_type(sm)->ndim(); ++a) order.push_back(a == op->axis() ? T::kNewAxis : j++);
          Var v = g - sm * T::dimshuffle(T::sum(g, op->axis()), order);
          Var f = fit_type(v, node.output(0), {sm});
          if (!f) return RewriteResult::fail("the stable form cannot keep the output type");
          return f;
        }
        return RewriteResult::fail("not the gradient of log(softmax(x))");
      });
  return r;
}

// softmax(x) next to log_softmax(x) -> exp(log_softmax(x)): one normalization instead of two
NodeRewriterPtr local_softmax_from_log_softmax() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_softmax_from_log_softmax", {"Softmax"}, "softmax(x), log_softmax(x) -> exp(log_softmax(x))",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const int axis = static_cast<const N::Softmax&>(*node.op()).axis();
        for (const Client& c : fg.clients(node.input(0))) {
          if (c.is_output()) continue;
          const auto* ls = dynamic_cast<const N::LogSoftmax*>(c.node->op().get());
          if (!ls || ls->axis() != axis) continue;
          Var f = fit_type(T::exp(c.node->output(0)), node.output(0), {});
          if (!f) return RewriteResult::fail("type differs");
          return f;
        }
        return RewriteResult::fail("no log_softmax of the same input");
      });
  return r;
}

// Assert(x, conditions...) -> x (unsafe: the checks are dropped)
NodeRewriterPtr local_remove_all_assert() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_remove_all_assert", {"Assert"}, "Assert(x, conds...) -> x", [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var f = fit_type(node.input(0), node.output(0), {});
        if (!f) return RewriteResult::fail("type differs");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail

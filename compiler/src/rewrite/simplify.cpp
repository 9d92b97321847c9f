/// \file
/// Canonicalize / specialize simplifications that PyTensor's
/// tensor/rewriting/math.py and basic.py have and the Canonizer does not:
/// negations folded into a product's constant, exp/log inverse pairs,
/// comparisons of a variable with itself, a cast of a lossless cast, Asserts
/// whose conditions are constant true, the gradient stoppers (identities
/// once the gradient is built), a reduction of a reduction, abs merging and
/// trivial arithmetic (0 / x, i % 1, sqrt(sqr(x))).
///
/// Why each checks dtypes: these identities are exact for floats but some fail
/// under integer wrap-around or NaN (`x == x` is false for NaN), and a rewrite
/// that changes a value is a bug, not an optimization.
#include <algorithm>
#include <limits>

#include "algebra.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

DType dtype_of(const Var& v) { return T::tensor_type(v)->dtype(); }

// Whether every value of `from` converts to `to` and back unchanged.
bool lossless(DType from, DType to) {
  if (from == to) return true;
  if (!can_cast(from, to, Casting::Safe)) return false;
  return !((is_integer(from) || is_bool(from)) && is_float(to) && dtype_size(from) >= dtype_size(to));
}

// A constant (under DimShuffles) with no zero element.
bool constant_all_true(const Var& v) {
  Var cur = v;
  while (cur.owner() && dynamic_cast<const T::DimShuffle*>(cur.owner()->op().get())) cur = cur.owner()->input(0);
  const Constant* c = cur.as_constant();
  if (!c || !T::tensor_type(cur)) return false;
  NDArray d = c->data().astype(DType::Float64).contiguous();
  const double* p = d.data_as<double>();
  return std::all_of(p, p + d.size(), [](double e) { return e != 0; });  // NaN counts as true, as in C
}

}  // namespace

// mul(neg(a), neg(b), c...) -> mul(a, b, c...); mul(neg(a), 2, b) -> mul(a, -2, b);
// mul(neg(a), neg(b), neg(c)) -> neg(mul(a, b, c))
NodeRewriterPtr local_mul_neg_const() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_mul_neg_const", {"Elemwise:mul"},
      "mul(-a, -b, ...) -> mul(a, b, ...); mul(-a, k, ...) -> mul(a, -k, ...) for a constant k; an odd number (> 1) "
      "of negations -> neg(mul(...))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (!is_float(dtype_of(node.output(0)))) return RewriteResult::fail("integer product: negation wraps");
        std::vector<Var> factors;
        int negs = 0, constant_at = -1;
        for (const Var& in : node.inputs()) {
          if (Var a = owner_input(in, "neg")) {
            ++negs;
            factors.push_back(a);
            continue;
          }
          if (constant_at < 0 && scalar_constant_value(in)) constant_at = static_cast<int>(factors.size());
          factors.push_back(in);
        }
        if (negs == 0 || (negs == 1 && constant_at < 0)) return RewriteResult::fail("no negation to fold");
        bool negate = negs % 2 == 1;
        if (negate && constant_at >= 0) {
          factors[static_cast<std::size_t>(constant_at)] = T::neg(factors[static_cast<std::size_t>(constant_at)]);
          negate = false;  // the neg of a constant is folded by constant_folding
        }
        Var v = T::mul(factors);
        return fitted_exact(negate ? T::neg(v) : v, node, node.inputs());
      });
  return r;
}

// -(k * x) -> (-k) * x; -(x * y) -> mul(-1, x, y) (the Canonizer then merges -1 with the constants)
//
// PyTensor's local_neg_to_mul rewrites every neg; here only a neg of a product
// (used only by the neg) is rewritten: the stabilize patterns after
// canonicalize match `neg(x)` (exp(-x), sigmoid(-x), softplus(-x)) and a lone
// neg is one node either way; nor a neg inside a sum, whose sign the add
// Canonizer cancels or turns into a sub. Specialize turns a product left with one factor
// back into neg(x) (local_mul_specialize).
NodeRewriterPtr local_neg_to_mul() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_neg_to_mul", {"Elemwise:neg"},
      "-(k * x) -> (-k) * x; -(x * y) -> mul(-1, x, y) (a product used only by the neg; signed or float dtypes)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& m = node.input(0);
        if (!m.owner() || !T::is_elemwise(m.owner(), "mul")) return RewriteResult::fail("input is not a mul");
        if (fg.clients(m).size() != 1) return RewriteResult::fail("the product has other clients");
        for (const Client& c : fg.clients(node.output(0)))
          if (c.node && (T::is_elemwise(c.node, "add") || T::is_elemwise(c.node, "sub") || T::is_elemwise(c.node, "neg")))
            return RewriteResult::fail("inside a sum: the add Canonizer takes the sign (a - -(x*y) -> a + x*y)");
        const DType dt = dtype_of(node.output(0));
        if (dtype_of(m) != dt || !(is_float(dt) || is_signed_integer(dt)))
          return RewriteResult::fail("only signed integer and float products of the output's dtype");
        std::vector<Var> factors{constant_like(-1, node.output(0))};
        for (const Var& in : m.owner()->inputs()) factors.push_back(in);
        return fitted_exact(T::mul(factors), node, m.owner()->inputs());
      });
  return r;
}

// log(exp(x)) -> x; exp(log(x)) -> switch(x >= 0, x, nan); log1p(expm1(x)) -> x;
// expm1(log1p(x)) -> switch(x >= -1, x, nan)
NodeRewriterPtr local_exp_log() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_exp_log", {"Elemwise:log", "Elemwise:exp", "Elemwise:log1p", "Elemwise:expm1"},
      "log(exp(x)) -> x; exp(log(x)) -> switch(x >= 0, x, nan); log1p(expm1(x)) -> x; expm1(log1p(x)) -> "
      "switch(x >= -1, x, nan)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        const bool is_log = T::is_elemwise(&node, "log"), is_log1p = T::is_elemwise(&node, "log1p");
        const bool is_exp = T::is_elemwise(&node, "exp");
        const char* inverse = is_log ? "exp" : is_log1p ? "expm1" : is_exp ? "log" : "log1p";
        const Var x = owner_input(a, inverse);
        if (!x) return RewriteResult::fail(std::string("input is not ") + inverse + "(x)");
        if (!is_float(dtype_of(x)) || dtype_of(x) != dtype_of(node.output(0)))
          return RewriteResult::fail("x is not a float of the output's dtype");
        if (is_log || is_log1p) return fitted_exact(x, node, {a});
        // exp(log(x)) is x only where log is defined; below, log gives NaN.
        const double lower = is_exp ? 0.0 : -1.0;
        Var v = T::switch_(T::ge(x, constant_like(lower, x)), x,
                           constant_like(std::numeric_limits<double>::quiet_NaN(), x));
        return fitted_exact(v, node, {a});
      });
  return r;
}

// lt(x, x), gt(x, x) -> zeros; for non-floats also eq, le, ge -> ones and neq -> zeros
NodeRewriterPtr local_useless_comparison() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_comparison", {"Elemwise:lt", "Elemwise:gt", "Elemwise:le", "Elemwise:ge", "Elemwise:eq",
                                   "Elemwise:neq"},
      "x < x, x > x -> false; for integers and bools also x == x, x <= x, x >= x -> true and x != x -> false "
      "(NaN keeps the float forms)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var &a = node.input(0), &b = node.input(1);
        if (a != b) return RewriteResult::fail("the operands differ");
        const bool strict = T::is_elemwise(&node, "lt") || T::is_elemwise(&node, "gt");
        if (!strict && (is_float(dtype_of(a)) || is_complex(dtype_of(a))))
          return RewriteResult::fail("float operands: NaN compares unequal to itself");
        const bool value = !strict && !T::is_elemwise(&node, "neq");
        return fitted_exact(constant_like(value ? 1.0 : 0.0, node.output(0)), node, {a});
      });
  return r;
}

// cast(cast(x, a), b) -> cast(x, b) when every value of x survives the cast to a
NodeRewriterPtr local_cast_cast() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_cast_cast", {"Elemwise"}, "cast(cast(x, a), b) -> cast(x, b) when x -> a is lossless",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const T::ScalarOp* s = T::elemwise_scalar_op(&node);
        if (!s || s->type_name() != "Cast") return RewriteResult::fail("not a cast");
        const Var& mid = node.input(0);
        const T::ScalarOp* inner = mid.owner() ? T::elemwise_scalar_op(mid.owner()) : nullptr;
        if (!inner || inner->type_name() != "Cast") return RewriteResult::fail("input is not a cast");
        const Var& x = mid.owner()->input(0);
        if (!lossless(dtype_of(x), dtype_of(mid))) return RewriteResult::fail("the inner cast loses values");
        const DType to = dtype_of(node.output(0));
        return fitted_exact(dtype_of(x) == to ? x : T::cast(x, to), node, {mid});
      });
  return r;
}

// Assert(x, true, c...) -> Assert(x, c...); Assert(x, true...) -> x
NodeRewriterPtr local_useless_assert() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_assert", {"Assert"},
      "Assert(x, conds...) drops the conditions that are constants with no zero element; none left -> x",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const int nconds = static_cast<const T::Assert&>(*node.op()).nconditions(node);
        std::vector<Var> keep;
        for (int i = 1; i <= nconds; ++i)
          if (!constant_all_true(node.input(i))) keep.push_back(node.input(i));
        if (static_cast<int>(keep.size()) == nconds) return RewriteResult::fail("no condition is constant true");
        if (keep.empty()) return fitted_exact(node.input(0), node, {});
        keep.insert(keep.begin(), node.input(0));
        // The reported values stay (the message still has their places).
        for (int i = 1 + nconds; i < node.nin(); ++i) keep.push_back(node.input(i));
        return node.op()->apply1(keep);
      });
  return r;
}

// ZeroGrad(x) -> x, DisconnectedGrad(x) -> x: they only matter to grad, which has run
NodeRewriterPtr local_remove_grad_stops() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_remove_grad_stops", {"ZeroGrad", "DisconnectedGrad"}, "zero_grad(x) -> x; disconnected_grad(x) -> x",
      [](FunctionGraph&, Apply& node) -> RewriteResult { return fitted_exact(node.input(0), node, {}); });
  return r;
}

// reduce(reduce(x, a1), a2) -> reduce(x, a1 + a2) for the same plain reduction (sum, prod, max, min, all, any)
NodeRewriterPtr local_reduce_reduce() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_reduce_reduce", {"CAReduce"},
      "reduce(reduce(x, a1), a2) -> reduce(x, a1 and a2 in x's axes) for the same plain reduction and dtypes",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& outer = static_cast<const T::CAReduce&>(*node.op());
        const Var& mid = node.input(0);
        const auto* inner = mid.owner() ? dynamic_cast<const T::CAReduce*>(mid.owner()->op().get()) : nullptr;
        if (!inner || inner->scalar_op() != outer.scalar_op() || inner->pre() || outer.pre())
          return RewriteResult::fail("input is not the same plain reduction");
        if (fg.clients(mid).size() != 1) return RewriteResult::fail("the inner reduction has other clients");
        const Var& x = mid.owner()->input(0);
        const DType xd = dtype_of(x);
        // One accumulation in one dtype: the inner result must not round or wrap on the way.
        if (dtype_of(mid) != xd || dtype_of(node.output(0)) != xd || inner->acc_dtype(xd) != outer.acc_dtype(xd))
          return RewriteResult::fail("the reductions change the dtype");
        std::vector<int> kept;  // x's axes the inner reduction keeps, in order: mid's axis k is x's kept[k]
        for (int a = 0; a < T::tensor_type(x)->ndim(); ++a)
          if (std::find(inner->axes().begin(), inner->axes().end(), a) == inner->axes().end()) kept.push_back(a);
        std::vector<int> axes = inner->axes();
        for (int a : outer.axes()) axes.push_back(kept[static_cast<std::size_t>(a)]);
        std::sort(axes.begin(), axes.end());
        OpPtr merged(new T::CAReduce(outer.scalar_op(), axes));
        return fitted_exact(merged->apply1({x}), node, {});
      });
  return r;
}

// abs(x) * abs(y) -> abs(x * y); abs(x) / abs(y) -> abs(x / y) (floats)
NodeRewriterPtr local_abs_merge() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_abs_merge", {"Elemwise:mul", "Elemwise:true_div"},
      "abs(x) * abs(y) -> abs(x * y); abs(x) / abs(y) -> abs(x / y) (floats)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (!is_float(dtype_of(node.output(0)))) return RewriteResult::fail("integer: the product may wrap");
        std::vector<Var> inner;
        for (const Var& in : node.inputs()) {
          const Var a = owner_input(in, "abs");
          if (!a || dtype_of(a) != dtype_of(node.output(0))) return RewriteResult::fail("not every operand is abs(.)");
          inner.push_back(a);
        }
        const Var v = T::is_elemwise(&node, "mul") ? T::mul(inner) : T::true_div(inner[0], inner[1]);
        return fitted_exact(T::abs(v), node, node.inputs());
      });
  return r;
}

// 0 / x -> 0 (PyTensor's local_zero_div: the NaN of 0 / 0 is not kept); i % 1 -> 0 for integers;
// sqrt(sqr(x)) -> abs(x) (no overflow of the square)
NodeRewriterPtr local_trivial_arith() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_trivial_arith", {"Elemwise:true_div", "Elemwise:int_div", "Elemwise:mod", "Elemwise:sqrt"},
      "0 / x -> zeros; i % 1 -> zeros (integers); sqrt(sqr(x)) -> abs(x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        if (T::is_elemwise(&node, "sqrt")) {
          const Var x = owner_input(node.input(0), "sqr");
          if (!x || dtype_of(x) != dtype_of(out)) return RewriteResult::fail("not sqrt(sqr(x)) of the output's dtype");
          return fitted_exact(T::abs(x), node, {node.input(0)});
        }
        if (T::is_elemwise(&node, "mod")) {
          std::optional<double> d = scalar_constant_value(node.input(1));
          if (!d || *d != 1 || !is_integer(dtype_of(node.input(0))) || !is_integer(dtype_of(node.input(1))))
            return RewriteResult::fail("not an integer modulo 1");
        } else {
          std::optional<double> n = scalar_constant_value(node.input(0));
          if (!n || *n != 0) return RewriteResult::fail("the numerator is not the constant 0");
        }
        return fitted_exact(constant_like(0, out), node, node.inputs());
      });
  return r;
}

}  // namespace theano::rewrite::detail

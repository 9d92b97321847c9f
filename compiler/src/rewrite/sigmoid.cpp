/// \file
/// The sigmoid family of stabilizations (the ideas of PyTensor's
/// local_exp_over_1_plus_exp, local_1msigmoid, local_sigm_times_exp and
/// local_inv_1_plus_exp). A sigmoid written by hand, p = 1 / (1 + exp(-z)),
/// rounds to exactly 1 once z > 37 (0 once z < -745), so 1 - p is 0 and the
/// gradient grad builds from it, which divides by p and 1 - p and multiplies
/// by exp(-z) / (1 + exp(-z))^2, is inf * 0 = NaN there. These rewrites turn
/// every such piece into sigmoids of +-z and distribute the gradient's product
/// over the quotients so that each division by a sigmoid cancels against a
/// factor: the gradient of the logistic cross-entropy becomes
/// c1 * sigmoid(z) - c2 * sigmoid(-z), finite for every z.
///
/// They match the Canonizer's forms (canonicalize.cpp): products as
/// mul(...) / mul(...), 1 - x as sub(1, x). None of them can undo another: each
/// removes an exp, a 1 + exp(x) denominator or a division.
#include <algorithm>
#include <optional>

#include "algebra.h"
#include "theano/graph/equality.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

DType dtype_of(const Var& v) { return T::tensor_type(v)->dtype(); }

/// Whether a = -b: a = neg(b) or b = neg(a).
bool is_negation_of(const Var& a, const Var& b) {
  const Var na = owner_input(a, "neg"), nb = owner_input(b, "neg");
  return (na && na == b) || (nb && nb == a);
}

/// x when v = 1 + exp(x) (either order, x of `dt`); a null Var otherwise.
Var one_plus_exp(const Var& v, DType dt) {
  if (!v.owner() || !T::is_elemwise(v.owner(), "add") || v.owner()->nin() != 2) return {};
  for (int k = 0; k < 2; ++k) {
    const std::optional<double> one = scalar_constant_value(v.owner()->input(k));
    if (!one || *one != 1) continue;
    if (Var x = owner_input(v.owner()->input(1 - k), "exp"); x && dtype_of(x) == dt) return x;
  }
  return {};
}

/// The factors of v: a mul's inputs, or v itself.
std::vector<Var> factors(const Var& v) {
  if (v.owner() && T::is_elemwise(v.owner(), "mul")) return v.owner()->inputs();
  return {v};
}

/// The product of `fs` (constant 1s dropped); the constant 1 when nothing is left.
Var product(const std::vector<Var>& fs, const Var& like) {
  std::vector<Var> keep;
  for (const Var& f : fs) {
    const std::optional<double> c = scalar_constant_value(f);
    if (!(c && *c == 1)) keep.push_back(f);
  }
  if (keep.empty()) return constant_like(1, like);
  return keep.size() == 1 ? keep[0] : T::mul(keep);
}

/// Removes one factor computing what `v` computes (the same Var, or an equal graph not merged yet) from `fs`;
/// whether there was one.
bool remove_one(std::vector<Var>& fs, const Var& v) {
  const auto it = std::find_if(fs.begin(), fs.end(), [&v](const Var& f) { return f == v || equal_computations({f}, {v}); });
  if (it == fs.end()) return false;
  fs.erase(it);
  return true;
}

}  // namespace

Var negated(const Var& x) {
  if (Var v = owner_input(x, "neg")) return v;
  return T::neg(x);
}

// 1 - sigmoid(x) -> sigmoid(-x)
NodeRewriterPtr local_1msigmoid() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_1msigmoid", {"Elemwise:sub"}, "1 - sigmoid(x) -> sigmoid(-x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const std::optional<double> one = scalar_constant_value(node.input(0));
        const Var x = owner_input(node.input(1), "sigmoid");
        if (!one || *one != 1 || !x) return RewriteResult::fail("not 1 - sigmoid(x)");
        if (dtype_of(x) != dtype_of(node.output(0))) return RewriteResult::fail("x is not of the output's dtype");
        return fitted_exact(T::sigmoid(negated(x)), node, node.inputs());
      });
  return r;
}

// n / (d * (1 + exp(x))) -> n * sigmoid(-x) / d; a squared denominator sqr(1 + exp(x)) gives sigmoid(-x) twice
NodeRewriterPtr local_exp_over_1_plus_exp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_exp_over_1_plus_exp", {"Elemwise:true_div"},
      "n / (d * (1 + exp(x))) -> n * sigmoid(-x) / d; n / sqr(1 + exp(x)) -> n * sigmoid(-x) * sigmoid(-x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        const DType dt = dtype_of(out);
        std::vector<Var> num = factors(node.input(0)), rest;
        bool found = false;
        for (const Var& f : factors(node.input(1))) {
          const Var s = owner_input(f, "sqr");
          if (Var x = one_plus_exp(s ? s : f, dt)) {
            const Var sig = T::sigmoid(negated(x));
            num.push_back(sig);
            if (s) num.push_back(sig);
            found = true;
          } else {
            rest.push_back(f);
          }
        }
        if (!found) return RewriteResult::fail("no denominator factor is 1 + exp(x) or its square");
        const Var n = product(num, out);
        return fitted_exact(rest.empty() ? n : T::true_div(n, product(rest, out)), node, node.inputs());
      });
  return r;
}

// exp(x) * sigmoid(-x) * ... -> sigmoid(x) * ...
NodeRewriterPtr local_sigm_times_exp() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sigm_times_exp", {"Elemwise:mul"}, "exp(x) * sigmoid(-x) -> sigmoid(x), among a product's factors",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        std::vector<Var> fs = node.inputs();
        for (std::size_t i = 0; i < fs.size(); ++i) {
          const Var a = owner_input(fs[i], "exp");
          if (!a || dtype_of(a) != dtype_of(node.output(0))) continue;
          for (std::size_t j = 0; j < fs.size(); ++j) {
            const Var b = owner_input(fs[j], "sigmoid");
            if (j == i || !b || !is_negation_of(a, b)) continue;
            fs[j] = T::sigmoid(a);
            fs.erase(fs.begin() + static_cast<std::ptrdiff_t>(i));
            return fitted_exact(product(fs, node.output(0)), node, node.inputs());
          }
        }
        return RewriteResult::fail("no factors exp(x) and sigmoid(-x)");
      });
  return r;
}

// s * t * (a / (s * d) - b / t) -> t * a / d - s * b, for sigmoids s, t: the product distributed over a sum
// of quotients (or one quotient), each division by a sigmoid cancelled against a factor (the sigmoid may be 0,
// as 1 - p is in the gradient of a cross-entropy; s * (a / s) is then 0 * inf). A factor and a denominator
// that are equal graphs not merged yet cancel too.
NodeRewriterPtr local_sigm_quotient_distribute() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sigm_quotient_distribute", {"Elemwise:mul"},
      "s * f * +-(a / (s * d) +- ...) -> +-(f * a / d) +- ... for s = sigmoid(x) a factor of the product "
      "and of a quotient's denominator (one quotient, or sums, differences and negations of quotients)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        const std::vector<Var>& fs = node.inputs();
        for (std::size_t k = 0; k < fs.size(); ++k) {
          Var sum = fs[k];
          bool flip = false;
          if (Var inner = owner_input(sum, "neg")) {
            sum = inner;
            flip = true;
          }
          if (!sum.owner() || dtype_of(sum) != dtype_of(out)) continue;
          std::vector<std::pair<Var, bool>> terms;  // (term, negated)
          if (T::is_elemwise(sum.owner(), "add")) {
            for (const Var& t : sum.owner()->inputs()) terms.emplace_back(t, flip);
          } else if (T::is_elemwise(sum.owner(), "sub")) {
            terms = {{sum.owner()->input(0), flip}, {sum.owner()->input(1), !flip}};
          } else if (T::is_elemwise(sum.owner(), "true_div")) {
            terms = {{sum, flip}};  // one quotient: s * (a / s)
          } else {
            continue;
          }
          std::vector<Var> others(fs.begin(), fs.end());
          others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
          std::vector<Var> rebuilt;
          bool cancelled = false;
          for (auto [t, negative] : terms) {
            if (Var inner = owner_input(t, "neg")) {
              t = inner;
              negative = !negative;
            }
            std::vector<Var> num = others, den;
            bool here = false;
            if (t.owner() && T::is_elemwise(t.owner(), "true_div")) {
              for (const Var& d : factors(t.owner()->input(1))) {
                if (!here && owner_input(d, "sigmoid") && remove_one(num, d)) here = true;
                else den.push_back(d);
              }
            }
            if (here) {
              for (const Var& f : factors(t.owner()->input(0))) num.push_back(f);
            } else {
              num.push_back(t);
              den.clear();
            }
            cancelled = cancelled || here;
            Var v = product(num, out);
            if (!den.empty()) v = T::true_div(v, product(den, out));
            rebuilt.push_back(negative ? T::neg(v) : v);
          }
          if (!cancelled) continue;
          return fitted_exact(rebuilt.size() == 1 ? rebuilt[0] : T::add(rebuilt), node, node.inputs());
        }
        return RewriteResult::fail("no factor is a sum of quotients by a sigmoid that is also a factor");
      });
  return r;
}

}  // namespace theano::rewrite::detail

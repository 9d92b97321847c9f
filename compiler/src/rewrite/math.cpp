/// \file
/// Elementwise algebra rewrites: neg_neg, mul / add / pow specialization,
/// useless elemwise and dimshuffle, log1p and softplus stabilization (the
/// Canonizer and the rest of the algebra family: canonicalize.cpp, algebra.cpp).
#include <cmath>

#include "algebra.h"
#include "rewrites.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

std::optional<double> scalar_constant_value(const Var& v) {
  Var cur = v;
  while (cur.owner() && dynamic_cast<const T::DimShuffle*>(cur.owner()->op().get())) cur = cur.owner()->input(0);
  const Constant* c = cur.as_constant();
  if (!c || !T::tensor_type(cur) || c->data().size() == 0) return std::nullopt;
  NDArray d = c->data().astype(DType::Float64).contiguous();
  const double* p = d.data_as<double>();
  for (std::int64_t i = 1; i < d.size(); ++i)
    if (!(p[i] == p[0])) return std::nullopt;
  return p[0];
}

// Delegates to fit_exact (algebra.cpp): checking only `out.type()->is_super`
// let a dim of static size 1 stand where the output's size is unknown, which
// gave `mul(0, x) -> 0` the shape (1,) instead of x's.
Var fit_type(Var v, const Var& out, const std::vector<Var>& shape_refs) { return fit_exact(std::move(v), out, shape_refs); }

namespace {

RewriteResult fitted(const Var& v, Apply& node, const std::vector<Var>& refs) {
  Var f = fit_type(v, node.output(0), refs);
  if (!f) return RewriteResult::fail("the replacement cannot keep the output type " + node.output(0).type()->str());
  return f;
}

Var scalar_of(double value, const Var& like) {
  return T::constant(T::autocast_scalar(value).astype(T::tensor_type(like)->dtype()));
}

}  // namespace

// neg(neg(x)) -> x
NodeRewriterPtr local_neg_neg() {
  static const NodeRewriterPtr r =
      make_node_rewriter("local_neg_neg", {"Elemwise:neg"}, "neg(neg(x)) -> x", [](FunctionGraph&, Apply& node) {
        const Var& x = node.input(0);
        if (!x.owner() || !T::is_elemwise(x.owner(), "neg")) return RewriteResult::fail("input is not a neg");
        return fitted(x.owner()->input(0), node, {x});
      });
  return r;
}

// mul(x, 1) -> x; mul(x, 0) -> zeros_like; mul(x, -1) -> neg(x); mul(x, x) -> sqr(x);
// mul(-1, 1, x, y) -> mul(-1, x, y). Never adds a node (PyTensor's rule): mul(-1, x, y)
// stays one Mul rather than becoming neg(mul(x, y)); neg only when one factor is left.
NodeRewriterPtr local_mul_specialize() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_mul_specialize", {"Elemwise:mul"},
      "mul(x, 1) -> x; mul(x, 0) -> zeros_like; mul(x, -1) -> neg(x); mul(x, x) -> sqr(x); mul(-1, 1, x, y) -> "
      "mul(-1, x, y) (never more nodes: mul(-1, x, y) stays)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        std::vector<Var> keep;
        bool negate = false;
        int ones = 0, minus_ones = 0;
        for (const Var& in : node.inputs()) {
          std::optional<double> c = scalar_constant_value(in);
          if (c && *c == 0) return fitted(scalar_of(0, out), node, node.inputs());
          if (c && (*c == 1 || *c == -1)) {
            negate ^= (*c == -1);
            ++(*c == 1 ? ones : minus_ones);
            continue;
          }
          keep.push_back(in);
        }
        const bool square = keep.size() == 2 && keep[0] == keep[1] && !negate;
        Var v;
        if (keep.empty()) {
          v = scalar_of(negate ? -1 : 1, out);
        } else if (keep.size() == 1) {
          if (ones + minus_ones == 0) return RewriteResult::fail("a product of one factor");
          // Negate in the output's dtype: -uint8(5) would wrap to 251 before a widening cast.
          const DType odt = T::tensor_type(out)->dtype();
          v = !negate ? keep[0] : T::neg(T::tensor_type(keep[0])->dtype() == odt ? keep[0] : T::cast(keep[0], odt));
        } else if (square) {
          v = T::sqr(keep[0]);
        } else {
          // Two or more factors: the sign stays a factor of the one Mul.
          if (ones == 0 && minus_ones == (negate ? 1 : 0))
            return RewriteResult::fail("no factor is the constant 1 or 0, the -1s are one, and not x*x");
          if (negate) keep.insert(keep.begin(), scalar_of(-1, out));
          v = T::mul(keep);
        }
        return fitted(v, node, node.inputs());
      });
  return r;
}

// add(x, 0) -> x
NodeRewriterPtr local_add_specialize() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_add_specialize", {"Elemwise:add"}, "add(x, 0) -> x", [](FunctionGraph&, Apply& node) -> RewriteResult {
        std::vector<Var> keep;
        for (const Var& in : node.inputs()) {
          std::optional<double> c = scalar_constant_value(in);
          if (!(c && *c == 0)) keep.push_back(in);
        }
        if (keep.size() == node.inputs().size()) return RewriteResult::fail("no term is the constant 0");
        Var v = keep.empty() ? scalar_of(0, node.output(0)) : keep.size() == 1 ? keep[0] : T::add(keep);
        return fitted(v, node, node.inputs());
      });
  return r;
}

namespace {

// s^n for 1 <= n by repeated squaring over scalars: s^5 = s * sqr(sqr(s)) (at most 2 log2(n) products).
Var power_by_squaring(Var base, std::int64_t n) {
  const T::ScalarOpPtr mul = T::scalar_op("mul"), sqr = T::scalar_op("sqr");
  Var result;
  while (n > 0) {
    if (n & 1) result = result ? mul->apply1({result, base}) : base;
    n >>= 1;
    if (n > 0) base = sqr->apply1({base});
  }
  return result;
}

// x^n (integer |n| >= 3) as ONE Elemwise{Composite}: the conversion to the output's dtype, the
// squarings and products, and for n < 0 the reciprocal (PyTensor's local_pow_to_nested_squaring).
// One node, not a chain: fusion inlines it into its neighbours, and no stage in between sees a
// half-built power.
Var integer_power(const Var& x, std::int64_t n, DType odt) {
  const Var s = T::ScalarType::make(T::tensor_type(x)->dtype())->make_variable();
  const Var so = T::tensor_type(x)->dtype() == odt ? s : T::scalar_cast_op(odt)->apply1({s});
  Var v = power_by_squaring(so, n < 0 ? -n : n);
  if (n < 0) v = T::scalar_op("reciprocal")->apply1({v});
  return T::elemwise(T::ScalarOpPtr(new T::Composite({s}, v)), {x});
}

}  // namespace

// pow(x, 0.5) -> sqrt(x); pow(x, -0.5) -> reciprocal(sqrt(x)); pow(x, 0) -> ones_like(x);
// pow(x, 1) -> x; pow(x, -1) -> reciprocal(x); pow(x, 2) -> sqr(x); pow(x, -2) -> reciprocal(sqr(x));
// pow(x, n) for an integer 3 <= |n| <= 512 -> Composite{repeated squaring} (x^3 = x * sqr(x),
// x^4 = sqr(sqr(x)), reciprocal of it for n < 0) in one node (float outputs only for n < 0:
// integers to negative powers are an error)
NodeRewriterPtr local_pow_specialize() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_pow_specialize", {"Elemwise:pow"},
      "pow(x, 0.5) -> sqrt(x); pow(x, -0.5) -> reciprocal(sqrt(x)); pow(x, 0) -> ones_like(x); pow(x, n), integer "
      "1 <= |n| <= 2 -> x, sqr(x), reciprocal of them for n < 0; integer 3 <= |n| <= 512 -> one "
      "Elemwise{Composite} of repeated squaring (x * sqr(x), sqr(sqr(x)), ...), its reciprocal for n < 0 (float "
      "outputs)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var x = node.input(0), e = node.input(1), out = node.output(0);
        std::optional<double> c = scalar_constant_value(e);
        if (!c) return RewriteResult::fail("the exponent is not a constant scalar");
        const DType odt = T::tensor_type(out)->dtype();
        // Products in the output's dtype: an int32 x under a float exponent multiplies as float64, as pow does.
        const Var xo = T::tensor_type(x)->dtype() == odt ? x : T::cast(x, odt);
        Var v;
        if (*c == 0.5) v = T::sqrt(x);
        else if (*c == -0.5) v = T::reciprocal(T::sqrt(x));
        else if (*c == 0) v = scalar_of(1, out);
        else if (std::nearbyint(*c) == *c && std::abs(*c) <= 512) {
          if (*c < 0 && !is_float(odt)) return RewriteResult::fail("an integer to a negative power is an error");
          const auto n = static_cast<std::int64_t>(*c);
          if (n == 1 || n == -1) v = xo;
          else if (n == 2 || n == -2) v = T::sqr(xo);
          else v = integer_power(x, n, odt);
          if (n < 0 && n >= -2) v = T::reciprocal(v);
        } else {
          return RewriteResult::fail("no special form for this exponent");
        }
        return fitted(v, node, {x, e});
      });
  return r;
}

// identity(x) -> x
NodeRewriterPtr local_useless_elemwise() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_elemwise", {"Elemwise:identity"}, "identity(x) -> x",
      [](FunctionGraph&, Apply& node) { return fitted(node.input(0), node, {}); });
  return r;
}

// DimShuffle{0,1,...,n-1}(x) -> x
NodeRewriterPtr local_useless_dimshuffle() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_dimshuffle", {"DimShuffle"}, "DimShuffle{0,1,...,n-1}(x) -> x",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& ds = static_cast<const T::DimShuffle&>(*node.op());
        const auto& order = ds.new_order();
        if (static_cast<int>(order.size()) != ds.input_ndim()) return RewriteResult::fail("changes the rank");
        for (std::size_t i = 0; i < order.size(); ++i)
          if (order[i] != static_cast<int>(i)) return RewriteResult::fail("not the identity order");
        return fitted(node.input(0), node, {});
      });
  return r;
}

// log(add(1, x)) -> log1p(x); log(sub(1, x)) -> log1p(-x)
NodeRewriterPtr local_log1p() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log1p", {"Elemwise:log"}, "log(add(1, x)) -> log1p(x); log(sub(1, x)) -> log1p(-x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        if (a.owner() && T::is_elemwise(a.owner(), "sub")) {
          std::optional<double> c = scalar_constant_value(a.owner()->input(0));
          if (!c || *c != 1) return RewriteResult::fail("not 1 - x");
          return fitted(T::log1p(T::neg(a.owner()->input(1))), node, a.owner()->inputs());
        }
        if (!a.owner() || !T::is_elemwise(a.owner(), "add")) return RewriteResult::fail("input is not an add");
        std::vector<Var> rest;
        bool one = false;
        for (const Var& in : a.owner()->inputs()) {
          std::optional<double> c = scalar_constant_value(in);
          if (!one && c && *c == 1) one = true;
          else rest.push_back(in);
        }
        if (!one || rest.empty()) return RewriteResult::fail("no term is the constant 1");
        return fitted(T::log1p(rest.size() == 1 ? rest[0] : T::add(rest)), node, a.owner()->inputs());
      });
  return r;
}

// log(add(1, exp(x))) -> softplus(x); log1p(exp(x)) -> softplus(x)
NodeRewriterPtr local_softplus() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_softplus", {"Elemwise:log", "Elemwise:log1p"}, "log(1 + exp(x)) -> softplus(x); log1p(exp(x)) -> softplus(x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& a = node.input(0);
        Var e;
        std::vector<Var> refs;
        if (T::is_elemwise(&node, "log1p")) {
          e = a;
        } else {
          if (!a.owner() || !T::is_elemwise(a.owner(), "add") || a.owner()->nin() != 2)
            return RewriteResult::fail("input is not a binary add");
          const Var& l = a.owner()->input(0);
          const Var& rr = a.owner()->input(1);
          std::optional<double> cl = scalar_constant_value(l), cr = scalar_constant_value(rr);
          if (cl && *cl == 1) e = rr;
          else if (cr && *cr == 1) e = l;
          else return RewriteResult::fail("no term is the constant 1");
          refs = a.owner()->inputs();
        }
        if (!e.owner() || !T::is_elemwise(e.owner(), "exp")) return RewriteResult::fail("no exp(x) term");
        return fitted(T::softplus(e.owner()->input(0)), node, refs);
      });
  return r;
}

}  // namespace theano::rewrite::detail

/// \file
/// BLAS rewrites (Theano's `tensor/blas.py`, PyTensor's `tensor/rewriting/blas.py`):
/// `dot` of two float matrices becomes Dot22, and sums of scaled products with
/// a matrix or vector of the result's type become one Gemm / Gemv / Ger call
/// (the GemmOptimizer's patterns): `z*b + a*dot(x, y) -> gemm(z, a, x, y, b)`.
/// Terms with one core are summed first (PyTensor's `_factor_canonicalized`):
/// `z + z + dot(x, y) -> gemm(z, 1, x, y, 2)`, `z + dot(x, y) + dot(x, y) ->
/// gemm(z, 2, x, y, 1)`.
/// `local_usmm` (Theano's) does the same for a sparse product:
/// `a*structured_dot(S, D) + z -> usmm(a, S, D, z)` (after sparse_expand, over
/// SpMM). The inplace stage later lets them overwrite z when that is safe, which
/// turns an update `W <- W - lr*dot(a, b)` into one in-place Gemm.
///
/// All run in the `blas_opt` equilibrium stage at 1.7 (after stabilize, before
/// specialize), tags fast_run + blas. A product used outside the sum's terms is
/// left alone: folding it into one of them would compute it twice.
#include <algorithm>
#include <unordered_set>

#include "rewrites.h"
#include "theano/sparse/components.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

bool is_float(const Var& v) {
  const T::TensorType* t = T::tensor_type(v);
  return t && (t->dtype() == DType::Float64 || t->dtype() == DType::Float32);
}

int ndim_of(const Var& v) {
  const T::TensorType* t = T::tensor_type(v);
  return t ? t->ndim() : -1;
}

/// `v` as a 0-d Var when it broadcasts like a scalar (every dimension of size
/// 1): the 0-d value under a DimShuffle that only adds axes, a constant
/// reshaped, or a DimShuffle dropping the unit axes. Null otherwise.
Var as_scalar(const Var& v) {
  const T::TensorType* t = T::tensor_type(v);
  if (!t) return {};
  if (t->ndim() == 0) return v;
  for (const T::Dim& d : t->shape())
    if (!(d && *d == 1)) return {};
  if (v.owner())
    if (const auto* ds = dynamic_cast<const T::DimShuffle*>(v.owner()->op().get()); ds && ds->input_ndim() == 0)
      return v.owner()->input(0);
  if (const Constant* c = v.as_constant()) return T::constant(c->data().reshape({}));
  return T::dimshuffle(v, {});
}

/// One term of a sum: sign * product(scales) * core.
struct Term {
  Var core;
  std::vector<Var> scales;  // 0-d factors
  bool negative = false;
  Var original;             // the summand as it appears in the graph
  bool subtracted = false;  // the second operand of a sub
  std::vector<Var> chain;   // original ... core: the values peeled through
};

/// Splits `v` into scalar factors and one non-scalar core, peeling neg and mul.
Term parse_term(const Var& v, bool negative) {
  Term t{v, {}, negative, v};
  for (;;) {
    t.chain.push_back(t.core);
    Apply* n = t.core.owner();
    if (n && T::is_elemwise(n, "neg")) {
      t.negative = !t.negative;
      t.core = n->input(0);
      continue;
    }
    if (n && T::is_elemwise(n, "mul")) {
      Var rest;
      std::vector<Var> scales;
      bool ok = true;
      for (const Var& in : n->inputs()) {
        Var s = as_scalar(in);
        if (s && ndim_of(in) == ndim_of(t.core)) {
          scales.push_back(s);
        } else if (!rest) {
          rest = in;
        } else {
          ok = false;  // two non-scalar factors: not a scaled product
          break;
        }
      }
      if (ok && rest) {
        t.scales.insert(t.scales.end(), scales.begin(), scales.end());
        t.core = rest;
        continue;
      }
    }
    return t;
  }
}

/// A sum's terms, flattened through the add / sub nodes of the root's type
/// that only it uses (`(3*dot(x, y) + z) - 0.5*dot(x, y)`, the Canonizer's
/// form, has three), and those nodes (the root first).
struct Sum {
  std::vector<Term> terms;
  std::vector<const Apply*> nodes;
};

void collect_sum(const FunctionGraph& fg, const Apply& n, const Type& type, bool subtracted, Sum& sum) {
  sum.nodes.push_back(&n);
  auto term = [&](const Var& v, bool sub) {
    const Apply* p = v.owner();
    if (p && (T::is_elemwise(p, "add") || T::is_elemwise(p, "sub")) && *v.type() == type && fg.clients(v).size() == 1) {
      collect_sum(fg, *p, type, sub, sum);
      return;
    }
    sum.terms.push_back(parse_term(v, sub));
    sum.terms.back().subtracted = sub;
  };
  if (T::is_elemwise(&n, "add")) {
    for (const Var& in : n.inputs()) term(in, subtracted);
  } else {
    term(n.input(0), subtracted);
    term(n.input(1), !subtracted);
  }
}

Sum parse_sum(const FunctionGraph& fg, const Apply& node) {
  Sum sum;
  collect_sum(fg, node, *node.output(0).type(), false, sum);
  return sum;
}

/// sign * product(scales) as a 0-d Var of `dtype`.
Var coefficient(const Term& t, DType dtype) {
  Var c;
  for (const Var& s : t.scales) c = c ? T::mul({c, s}) : s;
  if (!c) c = T::constant(NDArray::full({}, 1.0, dtype));
  if (t.negative) c = T::neg(c);
  if (T::tensor_type(c)->dtype() != dtype) c = T::cast(c, dtype);
  return c;
}

bool is_op(const Var& v, std::string_view type_name) {
  return v.owner() && v.owner()->op()->type_name() == type_name;
}

/// The column vector x when `v` is DimShuffle{0,x}(x) (axis = 1), the row
/// vector when DimShuffle{x,0}(x) (axis = 0).
Var vector_under(const Var& v, int added_axis) {
  if (!v.owner()) return {};
  const auto* ds = dynamic_cast<const T::DimShuffle*>(v.owner()->op().get());
  if (!ds || ds->input_ndim() != 1) return {};
  const std::vector<int> want = added_axis == 1 ? std::vector<int>{0, T::kNewAxis} : std::vector<int>{T::kNewAxis, 0};
  return ds->new_order() == want ? v.owner()->input(0) : Var();
}

/// Terms of one sum with the same core (PyTensor's `_factor_canonicalized`):
/// `z + z` is one term 2*z, `a*dot(x, y) + b*dot(x, y)` one term (a + b)*dot(x, y).
struct Group {
  Var core;
  std::vector<std::size_t> members;  // indices into the terms, in order of appearance
};

std::vector<Group> group_terms(const std::vector<Term>& terms) {
  std::vector<Group> groups;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& e) { return e.core == terms[i].core; });
    if (g == groups.end()) groups.push_back({terms[i].core, {i}});
    else g->members.push_back(i);
  }
  return groups;
}

/// The sum of the members' coefficients as a 0-d Var of `dtype` (constants fold later).
Var group_coefficient(const Group& g, const std::vector<Term>& terms, DType dtype) {
  Var c;
  for (std::size_t i : g.members) {
    Var k = coefficient(terms[i], dtype);
    c = c ? T::add(c, k) : k;
  }
  return c;
}

bool coefficient_one(const Group& g, const std::vector<Term>& terms) {
  return g.members.size() == 1 && terms[g.members[0]].scales.empty() && !terms[g.members[0]].negative;
}

/// Whether every value the group's terms peel through (their core included)
/// is used only by the sum's nodes and by those terms' own nodes: folding the group
/// into one call then leaves none of them computed (a product used twice in
/// this sum counts once; one used elsewhere would be computed twice).
bool used_only_in_sum(const FunctionGraph& fg, const Sum& sum, const Group& g) {
  const std::vector<Term>& terms = sum.terms;
  std::unordered_set<const Apply*> inside(sum.nodes.begin(), sum.nodes.end());
  for (std::size_t i : g.members)
    for (std::size_t k = 0; k + 1 < terms[i].chain.size(); ++k) inside.insert(terms[i].chain[k].owner());
  for (std::size_t i : g.members)
    for (const Var& v : terms[i].chain)
      for (const Client& c : fg.clients(v))
        if (c.is_output() || !inside.count(c.node)) return false;
  return true;
}

/// Rebuilds the sum of the terms outside the z and dot groups plus `fused`
/// (in the original order of appearance: the fused product takes the place of
/// the first z term).
Var rebuild(const Var& fused, const std::vector<Term>& terms, const Group& z, const Group& dot) {
  auto in = [](const Group& g, std::size_t i) { return std::find(g.members.begin(), g.members.end(), i) != g.members.end(); };
  std::vector<Var> plus, minus;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (in(dot, i) || (in(z, i) && i != z.members[0])) continue;
    if (i == z.members[0]) {
      plus.push_back(fused);
      continue;
    }
    (terms[i].subtracted ? minus : plus).push_back(terms[i].original);
  }
  Var sum = plus.size() == 1 ? plus[0] : T::add(plus);
  for (const Var& m : minus) sum = sum - m;
  return sum;
}

}  // namespace

// dot(x, y) -> dot22(x, y) for matrices of one float dtype
NodeRewriterPtr local_dot_to_dot22() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_dot_to_dot22", {"Dot"}, "dot(x, y) -> dot22(x, y) (float matrices of one dtype)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var &x = node.input(0), &y = node.input(1);
        if (ndim_of(x) != 2 || ndim_of(y) != 2) return RewriteResult::fail("not matrix x matrix");
        if (!is_float(x) || T::tensor_type(x)->dtype() != T::tensor_type(y)->dtype())
          return RewriteResult::fail("not float32/float64 operands of one dtype");
        Var f = fit_type(T::dot22(x, y), node.output(0), {});
        if (!f) return RewriteResult::fail("the Dot22 type differs from the Dot type");
        return f;
      });
  return r;
}

// dot(x, y) -> x * y for matrices whose inner dimension is 1 by type (x's columns, y's rows
// broadcastable): an outer product has no sum, so each element is the product of one pair, the
// value BLAS's gemm gives (alpha 1, beta 0; a zero product keeps its sign, as numpy.outer's,
// where gemm's sum from 0 gave +0). As an elementwise product it joins the fused loop around it
// instead of a gemm call with k = 1 (W11's gradient: a 500 x 500 outer product, 139 us in
// OpenBLAS, then masked in a loop of its own). PyTensor's local_dot_to_mul. In specialize, after
// blas_opt has made its gers (z + a*outer(x, y)).
NodeRewriterPtr local_outer_dot_to_mul() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_outer_dot_to_mul", {"Dot", "Dot22"}, "dot(x, y) -> x * y (matrices, inner dimension 1 by type)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var &x = node.input(0), &y = node.input(1);
        if (ndim_of(x) != 2 || ndim_of(y) != 2) return RewriteResult::fail("not matrix x matrix");
        if (!T::tensor_type(x)->broadcastable()[1] || !T::tensor_type(y)->broadcastable()[0])
          return RewriteResult::fail("the inner dimension is not 1 by type in both");
        Var f = fit_type(T::mul(x, y), node.output(0), {});
        if (!f) return RewriteResult::fail("the product's type differs from the dot's");
        return f;
      });
  return r;
}

// dot(x, y).T -> dot(y.T, x.T) for matrices: the transposes become BLAS flags, and the product can
// then join a gemm (z + dot(x, y).T -> gemm(z, 1, y.T, x.T, 1))
NodeRewriterPtr local_lift_transpose_through_dot() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_lift_transpose_through_dot", {"DimShuffle"}, "dot(x, y).T -> dot(y.T, x.T) (matrices)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& ds = static_cast<const T::DimShuffle&>(*node.op());
        if (ds.new_order() != std::vector<int>{1, 0}) return RewriteResult::fail("not a matrix transpose");
        const Var& p = node.input(0);
        if (!is_op(p, "Dot") && !is_op(p, "Dot22")) return RewriteResult::fail("input is not a Dot");
        if (fg.clients(p).size() != 1) return RewriteResult::fail("the product has other clients");
        const Var &x = p.owner()->input(0), &y = p.owner()->input(1);
        if (ndim_of(x) != 2 || ndim_of(y) != 2) return RewriteResult::fail("not matrix x matrix");
        Var v = p.owner()->op()->apply1({T::dimshuffle(y, {1, 0}), T::dimshuffle(x, {1, 0})});
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("the type differs");
        return f;
      });
  return r;
}

// b*z + a*dot22(x, y) -> gemm(z, a, x, y, b); b*y + a*dot(A, x) -> gemv(y, a, A, x, b);
// z + a*dot22(x[:, None], y[None, :]) -> ger(z, a, x, y)
NodeRewriterPtr local_gemm() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_gemm", {"Elemwise:add", "Elemwise:sub"},
      "b*z + a*dot22(x, y) -> gemm(z, a, x, y, b); b*y + a*dot(A, x) -> gemv(y, a, A, x, b); "
      "z + a*outer(x, y) -> ger(z, a, x, y)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        const T::TensorType* ot = T::tensor_type(out);
        if (!ot || !is_float(out) || (ot->ndim() != 2 && ot->ndim() != 1))
          return RewriteResult::fail("not a float matrix or vector sum");
        const Sum sum = parse_sum(fg, node);
        const std::vector<Term>& terms = sum.terms;
        const std::vector<Group> groups = group_terms(terms);
        const DType odt = ot->dtype();
        for (const Group& dg : groups) {
          const bool dot22 = is_op(dg.core, "Dot22");
          const bool dotv = is_op(dg.core, "Dot") && ot->ndim() == 1;
          if (!dot22 && !dotv) continue;
          if (!used_only_in_sum(fg, sum, dg)) continue;  // folding it would compute the product twice
          if (T::tensor_type(dg.core)->dtype() != odt) continue;
          for (const Group& zg : groups) {
            if (&zg == &dg) continue;
            if (!(*zg.core.type() == *out.type())) continue;  // z must have the result's type (no broadcasting)
            Var alpha = group_coefficient(dg, terms, odt), beta = group_coefficient(zg, terms, odt);
            const Var& x = dg.core.owner()->input(0);
            const Var& y = dg.core.owner()->input(1);
            Var fused;
            if (dot22) {
              Var col = vector_under(x, 1), row = vector_under(y, 0);
              if (col && row && coefficient_one(zg, terms)) fused = T::ger(zg.core, alpha, col, row);
              else fused = T::gemm(zg.core, alpha, x, y, beta);
            } else {
              if (!is_float(x) || !is_float(y) || T::tensor_type(x)->dtype() != odt ||
                  T::tensor_type(y)->dtype() != odt)
                continue;
              if (ndim_of(x) == 2 && ndim_of(y) == 1) fused = T::gemv(zg.core, alpha, x, y, beta);
              else if (ndim_of(x) == 1 && ndim_of(y) == 2) fused = T::gemv(zg.core, alpha, T::dimshuffle(y, {1, 0}), x, beta);
              else continue;
            }
            Var f = fit_type(rebuild(fused, terms, zg, dg), out, {});
            if (!f) continue;
            return f;
          }
        }
        return RewriteResult::fail("no scaled matrix product next to a term of the result's type");
      });
  return r;
}

// a*SpMM(S, D) + z -> Usmm(a, S, D, z) (Theano's local_usmm; z of the result's type, coefficient 1)
NodeRewriterPtr local_usmm() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_usmm", {"Elemwise:add", "Elemwise:sub"}, "a*structured_dot(S, D) + z -> usmm(a, S, D, z)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        const T::TensorType* ot = T::tensor_type(out);
        if (!ot || !is_float(out) || ot->ndim() != 2) return RewriteResult::fail("not a float matrix sum");
        const std::vector<Term> terms = parse_sum(fg, node).terms;
        for (std::size_t d = 0; d < terms.size(); ++d) {
          const Term& dt = terms[d];
          if (!is_op(dt.core, "SpMM") || T::tensor_type(dt.core)->dtype() != ot->dtype()) continue;
          bool shared = false;  // used elsewhere: folding it would compute the product twice
          for (const Var& v : dt.chain) shared = shared || fg.clients(v).size() != 1;
          if (shared) continue;
          for (std::size_t z = 0; z < terms.size(); ++z) {
            const Term& zt = terms[z];
            if (z == d || !zt.scales.empty() || zt.negative || !(*zt.core.type() == *out.type())) continue;
            const Apply& p = *dt.core.owner();
            const auto& spmm = static_cast<const sparse::SpMM&>(*p.op());
            const Var fused = OpPtr(new sparse::Usmm(spmm.format()))
                                  ->apply1({coefficient(dt, ot->dtype()), p.input(0), p.input(1), p.input(2),
                                            p.input(3), p.input(4), zt.core});
            Var f = fit_type(rebuild(fused, terms, Group{zt.core, {z}}, Group{dt.core, {d}}), out, {});
            if (f) return f;
          }
        }
        return RewriteResult::fail("no scaled sparse product next to a matrix of the result's type");
      });
  return r;
}

}  // namespace theano::rewrite::detail

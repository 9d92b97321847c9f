/// \file
/// BLAS rewrites (Theano's `tensor/blas.py`, PyTensor's `tensor/rewriting/blas.py`):
/// `dot` of two float matrices becomes Dot22, and sums of scaled products with
/// a matrix or vector of the result's type become one Gemm / Gemv / Ger call
/// (the GemmOptimizer's patterns): `z*b + a*dot(x, y) -> gemm(z, a, x, y, b)`.
/// `local_usmm` (Theano's) does the same for a sparse product:
/// `a*structured_dot(S, D) + z -> usmm(a, S, D, z)` (after sparse_expand, over
/// SpMM). The inplace stage later lets them overwrite z when that is safe, which
/// turns an update `W <- W - lr*dot(a, b)` into one in-place Gemm.
///
/// All run in the `blas_opt` equilibrium stage at 1.7 (after stabilize, before
/// specialize), tags fast_run + blas. A product feeding several clients is
/// left alone: folding it into one of them would compute it twice.
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

/// The terms of an add / sub node.
std::vector<Term> parse_sum(Apply& node) {
  std::vector<Term> terms;
  if (T::is_elemwise(&node, "add")) {
    for (const Var& in : node.inputs()) terms.push_back(parse_term(in, false));
  } else {
    terms.push_back(parse_term(node.input(0), false));
    terms.push_back(parse_term(node.input(1), true));
    terms.back().subtracted = true;
  }
  return terms;
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

/// Rebuilds the sum of `rest` terms plus `fused` (in the original order of
/// appearance: the fused product takes the place of the accumulated term).
Var rebuild(const Var& fused, const std::vector<Term>& terms, std::size_t z_index, std::size_t dot_index) {
  std::vector<Var> plus, minus;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i == dot_index) continue;
    if (i == z_index) {
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
        const std::vector<Term> terms = parse_sum(node);
        for (std::size_t d = 0; d < terms.size(); ++d) {
          const Term& dt = terms[d];
          const bool dot22 = is_op(dt.core, "Dot22");
          const bool dotv = is_op(dt.core, "Dot") && ot->ndim() == 1;
          if (!dot22 && !dotv) continue;
          bool shared = false;  // used elsewhere: folding it would compute the product twice
          for (const Var& v : dt.chain) shared = shared || fg.clients(v).size() != 1;
          if (shared) continue;
          if (T::tensor_type(dt.core)->dtype() != ot->dtype()) continue;
          for (std::size_t z = 0; z < terms.size(); ++z) {
            if (z == d) continue;
            const Term& zt = terms[z];
            if (!(*zt.core.type() == *out.type())) continue;  // z must have the result's type (no broadcasting)
            const DType dt_ = ot->dtype();
            Var alpha = coefficient(dt, dt_), beta = coefficient(zt, dt_);
            const Var& x = dt.core.owner()->input(0);
            const Var& y = dt.core.owner()->input(1);
            Var fused;
            if (dot22) {
              Var col = vector_under(x, 1), row = vector_under(y, 0);
              const bool beta_one = zt.scales.empty() && !zt.negative;
              if (col && row && beta_one) fused = T::ger(zt.core, alpha, col, row);
              else fused = T::gemm(zt.core, alpha, x, y, beta);
            } else {
              if (!is_float(x) || !is_float(y) || T::tensor_type(x)->dtype() != dt_ ||
                  T::tensor_type(y)->dtype() != dt_)
                continue;
              if (ndim_of(x) == 2 && ndim_of(y) == 1) fused = T::gemv(zt.core, alpha, x, y, beta);
              else if (ndim_of(x) == 1 && ndim_of(y) == 2) fused = T::gemv(zt.core, alpha, T::dimshuffle(y, {1, 0}), x, beta);
              else continue;
            }
            Var f = fit_type(rebuild(fused, terms, z, d), out, {});
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
        const std::vector<Term> terms = parse_sum(node);
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
            Var f = fit_type(rebuild(fused, terms, z, d), out, {});
            if (f) return f;
          }
        }
        return RewriteResult::fail("no scaled sparse product next to a matrix of the result's type");
      });
  return r;
}

void register_blas_inplace_rewrites(SequenceDB& db) {
  auto blas = std::make_shared<EquilibriumDB>("blas_opt");
  db.register_stage("blas_opt", 1.7, blas, {"fast_run", "blas"});
  blas->register_rewrite(local_dot_to_dot22(), {"fast_run", "blas", "dot22"});
  blas->register_rewrite(local_gemm(), {"fast_run", "blas", "gemm"});
  blas->register_rewrite(local_usmm(), {"fast_run", "blas", "usmm"});
  db.equilibrium("canonicalize")
      .register_rewrite(local_lift_transpose_through_dot(), {"fast_run", "canonicalize", "blas"});
  register_inplace_rewrites(db);
}

}  // namespace theano::rewrite::detail

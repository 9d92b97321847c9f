/// \file
/// Algebraic simplifications beside the Canonizer: neg_div_neg, sum of a
/// product by a scalar, fill cut / fill sink, useless arithmetic and casts;
/// and `fit_exact`, the shape-exact type fitting the algebra family shares.
///
/// Float-only algebra stays float-only: where an identity fails under integer
/// wrap-around (`-(-a) != a` for INT_MIN) or truncation the rewrite checks the
/// dtype and says so in its failure reason.
#include <algorithm>

#include "algebra.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

// The static size of `t` at output axis `axis` of a rank-`nd` result (inputs
// of lower rank are left-padded with size-1 dims, as Elemwise does).
T::Dim dim_at(const T::TensorType& t, int axis, int nd) {
  const int i = axis - (nd - t.ndim());
  return i < 0 ? T::Dim{1} : t.shape()[static_cast<std::size_t>(i)];
}
bool is_one(const T::Dim& d) { return d && *d == 1; }

// The first axis where `v` would not have `out`'s run-time size; -1 if none.
int bad_axis(const T::TensorType& vt, const T::TensorType& ot) {
  const int nd = ot.ndim();
  for (int a = 0; a < nd; ++a) {
    const T::Dim od = ot.shape()[static_cast<std::size_t>(a)], vd = dim_at(vt, a, nd);
    if (od ? vd != od : is_one(vd)) return a;
  }
  return -1;
}

bool fits(const Var& v, const T::TensorType& ot) {
  const T::TensorType& vt = *T::tensor_type(v);
  return vt.dtype() == ot.dtype() && vt.ndim() == ot.ndim() && bad_axis(vt, ot) < 0;
}

}  // namespace

Var fit_exact(Var v, const Var& out, const std::vector<Var>& refs) {
  const T::TensorType* ot = T::tensor_type(out);
  if (!ot || !T::tensor_type(v) || T::tensor_type(v)->ndim() > ot->ndim()) return {};
  if (T::tensor_type(v)->dtype() != ot->dtype()) v = T::cast(v, ot->dtype());
  const int nd = ot->ndim();
  for (std::size_t step = 0; step <= refs.size(); ++step) {
    const int a = bad_axis(*T::tensor_type(v), *ot);
    if (a < 0) break;
    const T::Dim od = ot->shape()[static_cast<std::size_t>(a)];
    Var fix;
    for (const Var& r : refs) {
      const T::TensorType* rt = T::tensor_type(r);
      if (!rt || rt->ndim() > nd || r == v) continue;
      const T::Dim rd = dim_at(*rt, a, nd);
      if (od ? rd == od : !is_one(rd)) {
        fix = r;
        break;
      }
    }
    if (!fix) return {};
    v = T::second(fix, v);
  }
  if (T::tensor_type(v)->ndim() < nd) v = T::shape_padleft(v, nd - T::tensor_type(v)->ndim());
  return fits(v, *ot) ? v : Var();
}

RewriteResult fitted_exact(const Var& v, const Apply& node, const std::vector<Var>& refs) {
  Var f = fit_exact(v, node.output(0), refs);
  if (!f) return RewriteResult::fail("the replacement cannot keep the output type " + node.output(0).type()->str());
  return f;
}

Var owner_input(const Var& v, std::string_view scalar, int i) {
  return v && v.owner() && T::is_elemwise(v.owner(), scalar) ? v.owner()->input(i) : Var();
}

Var reduce_input(const Var& v, std::string_view scalar_op, int axis) {
  const auto* red = v && v.owner() ? dynamic_cast<const T::CAReduce*>(v.owner()->op().get()) : nullptr;
  if (!red || red->scalar_op() != scalar_op || red->pre() || red->axes() != std::vector<int>{axis}) return {};
  return v.owner()->input(0);
}

Var constant_like(double value, const Var& like) {
  const T::TensorType& t = *T::tensor_type(like);
  return T::constant(NDArray::full(std::vector<std::int64_t>(static_cast<std::size_t>(t.ndim()), 1), value, t.dtype()));
}

// -(-a / b) -> a / b; -(c / b) -> (-c) / b for a constant c (float numerators)
NodeRewriterPtr local_neg_div_neg() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_neg_div_neg", {"Elemwise:neg"}, "-(-a / b) -> a / b; -(c / b) -> (-c) / b",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& frac = node.input(0);
        if (!frac.owner() || !T::is_elemwise(frac.owner(), "true_div")) return RewriteResult::fail("input is not a true_div");
        if (fg.clients(frac).size() != 1) return RewriteResult::fail("the division has other clients");
        const Var num = frac.owner()->input(0), den = frac.owner()->input(1);
        if (!is_float(T::tensor_type(num)->dtype())) return RewriteResult::fail("integer numerator: negation wraps");
        Var new_num;
        if (num.owner() && T::is_elemwise(num.owner(), "neg")) new_num = num.owner()->input(0);
        else if (num.is_constant()) new_num = T::neg(num);  // folded by constant_folding
        else return RewriteResult::fail("the numerator is neither a neg nor a constant");
        return fitted_exact(T::true_div(new_num, den), node, {num, den});
      });
  return r;
}

namespace {

// `f` (all dims of size 1) keeping only the axes `keep`, composing with the
// DimShuffle that made `f` (s.dimshuffle('x','x') -> s, not a chain of two).
Var drop_axes(const Var& f, const std::vector<int>& keep) {
  const auto* ds = f.owner() ? dynamic_cast<const T::DimShuffle*>(f.owner()->op().get()) : nullptr;
  if (!ds) return T::dimshuffle(f, keep);
  std::vector<int> order;
  for (int k : keep) order.push_back(ds->new_order()[static_cast<std::size_t>(k)]);
  bool identity = static_cast<int>(order.size()) == ds->input_ndim();
  for (std::size_t i = 0; identity && i < order.size(); ++i) identity = order[i] == static_cast<int>(i);
  const Var& inner = f.owner()->input(0);
  return identity ? inner : T::dimshuffle(inner, order);
}

}  // namespace

// sum(s * x) -> s * sum(x) for s broadcast on every axis; sum(-x) -> -sum(x); prod(s * x) -> s^n * prod(x) (floats)
NodeRewriterPtr local_sum_scalar_mul() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sum_scalar_mul", {"CAReduce"},
      "sum(s * x) -> s * sum(x) (s all-broadcastable); sum(-x) -> -sum(x); prod(s * x) -> s^n * prod(x), n the "
      "number of elements each product takes",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& red = static_cast<const T::CAReduce&>(*node.op());
        const bool is_prod = red.scalar_op() == "mul";
        if ((red.scalar_op() != "add" && !is_prod) || red.pre()) return RewriteResult::fail("not a plain Sum or Prod");
        const Var& in = node.input(0);
        const DType dt = T::tensor_type(in)->dtype();
        if (!is_float(dt) || T::tensor_type(node.output(0))->dtype() != dt)
          return RewriteResult::fail("only float sums that keep their dtype");
        Apply* m = in.owner();
        if (m && T::is_elemwise(m, "neg") && !is_prod)
          return fitted_exact(T::neg(node.op()->apply1({m->input(0)})), node, {});
        if (!m || !T::is_elemwise(m, "mul")) return RewriteResult::fail("input is not a mul or neg");
        const int nd = T::tensor_type(in)->ndim();
        std::vector<int> keep;  // axes the sum keeps
        for (int a = 0; a < nd; ++a)
          if (std::find(red.axes().begin(), red.axes().end(), a) == red.axes().end()) keep.push_back(a);
        std::vector<Var> scalars, rest;
        for (const Var& f : m->inputs()) {
          const T::TensorType& ft = *T::tensor_type(f);
          bool all_one = ft.ndim() == nd;
          for (const T::Dim& d : ft.shape()) all_one = all_one && is_one(d);
          if (all_one) scalars.push_back(drop_axes(f, keep));
          else rest.push_back(f);
        }
        if (scalars.empty()) return RewriteResult::fail("no factor is broadcast on every axis");
        if (rest.empty()) return RewriteResult::fail("every factor is a scalar");
        Var x = rest.size() == 1 ? rest[0] : T::mul(rest);
        if (T::tensor_type(x)->dtype() != dt) return RewriteResult::fail("the other factors have another dtype");
        if (is_prod) {  // each scalar appears once per element of a product: s^n
          Var n = T::constant(NDArray::full({}, 1.0, dt));
          for (int a : red.axes()) n = T::mul(n, T::cast(T::shape_i(in, a), dt));
          for (Var& s : scalars) s = T::pow(s, n);
        }
        scalars.push_back(node.op()->apply1({x}));
        return fitted_exact(T::mul(scalars), node, {});
      });
  return r;
}

namespace {

const T::Elemwise* plain_elemwise(const Apply& node) {
  const auto* e = dynamic_cast<const T::Elemwise*>(node.op().get());
  return e && e->inplace_pattern().empty() && node.nout() == 1 ? e : nullptr;
}

bool is_fill(const Var& v) { return v.owner() && T::is_elemwise(v.owner(), "second"); }

}  // namespace

// f(fill(a, b), c) -> f(b, c) when the other inputs already give the output its shape
NodeRewriterPtr local_fill_cut() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_fill_cut", {"Elemwise"}, "f(fill(a, b), c) -> f(b, c) when a adds no dimension",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const T::Elemwise* e = plain_elemwise(node);
        if (!e || T::is_elemwise(&node, "second")) return RewriteResult::fail("not a plain elemwise other than fill");
        std::vector<Var> ins = node.inputs();
        bool cut = false;
        for (std::size_t i = 0; i < ins.size(); ++i) {
          if (!is_fill(ins[i])) continue;
          std::vector<Var> trial = ins;
          trial[i] = ins[i].owner()->input(1);
          if (T::tensor_type(trial[i])->dtype() != T::tensor_type(ins[i])->dtype()) continue;
          Var v = T::elemwise(e->scalar_op(), trial);
          if (!fits(v, *T::tensor_type(node.output(0)))) continue;
          ins = trial;
          cut = true;
        }
        if (!cut) return RewriteResult::fail("every fill gives the output a dimension");
        return fitted_exact(T::elemwise(e->scalar_op(), ins), node, {});
      });
  return r;
}

// f(fill(a, b), c) -> fill(a, f(b, c))
NodeRewriterPtr local_fill_sink() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_fill_sink", {"Elemwise"}, "f(fill(a, b), c) -> fill(a, f(b, c))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const T::Elemwise* e = plain_elemwise(node);
        if (!e || T::is_elemwise(&node, "second")) return RewriteResult::fail("not a plain elemwise other than fill");
        std::vector<Var> ins = node.inputs(), models;
        for (Var& in : ins)
          if (is_fill(in)) {
            models.push_back(in.owner()->input(0));
            in = in.owner()->input(1);
          }
        if (models.empty()) return RewriteResult::fail("no input is a fill");
        Var v = T::elemwise(e->scalar_op(), ins);
        for (const Var& a : models) v = T::second(a, v);
        return fitted_exact(v, node, {});
      });
  return r;
}

// x - 0 -> x; x / 1 -> x; x // 1 -> x (integers)
NodeRewriterPtr local_useless_arith() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_arith", {"Elemwise:sub", "Elemwise:true_div", "Elemwise:int_div"},
      "x - 0 -> x; x / 1 -> x; x // 1 -> x (integer x)", [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var x = node.input(0), y = node.input(1);
        std::optional<double> c = scalar_constant_value(y);
        const double neutral = T::is_elemwise(&node, "sub") ? 0.0 : 1.0;
        if (!c || *c != neutral) return RewriteResult::fail("the right operand is not the neutral constant");
        if (T::is_elemwise(&node, "int_div") && !is_integer(T::tensor_type(x)->dtype()))
          return RewriteResult::fail("x // 1 is floor(x) for floats");
        return fitted_exact(x, node, {y});
      });
  return r;
}

// cast(x, dtype of x) -> x
NodeRewriterPtr local_useless_cast() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_cast", {"Elemwise"}, "cast(x, dtype(x)) -> x", [](FunctionGraph&, Apply& node) -> RewriteResult {
        const T::ScalarOp* s = T::elemwise_scalar_op(&node);
        if (!s || s->type_name() != "Cast") return RewriteResult::fail("not a cast");
        if (T::tensor_type(node.input(0))->dtype() != T::tensor_type(node.output(0))->dtype())
          return RewriteResult::fail("changes the dtype");
        return fitted_exact(node.input(0), node, {});
      });
  return r;
}

}  // namespace theano::rewrite::detail

/// \file
/// Subtensor rewrites (PyTensor's tensor/rewriting/subtensor.py): the full
/// slice `x[:]` that is x, and the serialization of the increments that
/// gradients of indexing produce (`a + inc(zeros, b, i) + inc(zeros, c, j)`
/// becomes a chain of increments into a, which the inplace rewrites can then
/// run without allocating one zero array per index). Registered by shape.cpp.
#include "../tensor/shape/shape_util.h"
#include "rewrites.h"
#include "shape_feature.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

bool is_const(const Var& v, std::int64_t value) {
  auto c = T::detail::constant_int(v);
  return c && *c == value;
}

/// zeros_like(r) = second(r, 0), alloc(0, ...), or a constant of zeros: what
/// the gradients of Subtensor / AdvancedSubtensor1 increment into.
bool is_zeros(const Var& v) {
  auto zero = [](const Var& c) {
    std::optional<double> k = scalar_constant_value(c);
    return k && *k == 0;
  };
  if (zero(v)) return true;
  const Apply* n = v.owner();
  if (!n) return false;
  if (T::is_elemwise(n, "second")) return zero(n->input(1));
  if (n->op()->type_name() == "Alloc") return zero(n->input(0));
  return false;
}

}  // namespace

// IndexExpression(r, x, indices...) -> r: the marker only serves set_subtensor / inc_subtensor
// while the graph is built (subtensor/general_index.cpp).
NodeRewriterPtr local_remove_index_expression() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_remove_index_expression", {"IndexExpression"}, "IndexExpression(r, x, indices...) -> r",
      [](FunctionGraph&, Apply& node) -> RewriteResult { return node.input(0); });
  return r;
}

namespace {

/// v's input when v is a Reshape to one axis (a flatten, C order), else v
/// itself when it is 1-d; null otherwise.
Var unflattened(const Var& v) {
  if (const Apply* n = v.owner(); n && n->op()->type_name() == "Reshape" && T::tensor_type(v)->ndim() == 1)
    return n->input(0);
  return T::tensor_type(v)->ndim() == 1 ? v : Var();
}

}  // namespace

// sum(x[mask]) -> sum(switch(mask, x, 0)) for a mask covering every axis of x: the gather of
// the true positions (Nonzero, then AdvancedSubtensor1 of x flattened) is never built. The
// masked-out elements are selected away, not multiplied, so a NaN or inf there stays out.
NodeRewriterPtr local_sum_of_mask() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sum_of_mask", {"CAReduce"}, "sum(x[mask]) -> sum(switch(mask, x, 0)) (mask of x's shape)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& op = static_cast<const T::CAReduce&>(*node.op());
        if (op.scalar_op() != "add" || op.pre() || node.nin() != 1)
          return RewriteResult::fail("not a plain sum");
        const Apply* gather = node.input(0).owner();
        if (!gather || gather->op()->type_name() != "AdvancedSubtensor1" || T::tensor_type(gather->output(0))->ndim() != 1)
          return RewriteResult::fail("not the sum of a 1-d gather");
        const Apply* row = gather->input(1).owner();
        const auto* sub = row ? dynamic_cast<const T::Subtensor*>(row->op().get()) : nullptr;
        if (!sub || sub->idx_list().size() != 1 || sub->idx_list()[0].is_slice ||
            !sub->idx_list()[0].index.is_constant() || sub->idx_list()[0].index.value != 0)
          return RewriteResult::fail("the index is not row 0 of a Nonzero");
        const Apply* nz = row->input(0).owner();
        if (!nz || nz->op()->type_name() != "Nonzero") return RewriteResult::fail("the index is not row 0 of a Nonzero");
        const Var x = unflattened(gather->input(0)), m = unflattened(nz->input(0));
        if (!x || !m) return RewriteResult::fail("x or the mask is not 1-d or flattened to 1-d");
        const T::TensorType *tx = T::tensor_type(x), *tm = T::tensor_type(m);
        if (tx->ndim() != tm->ndim()) return RewriteResult::fail("the mask does not cover every axis of x");
        // No axis may broadcast in switch: the gather required equal shapes.
        for (int d = 0; d < tx->ndim(); ++d) {
          const T::Dim a = tx->shape()[static_cast<std::size_t>(d)], b = tm->shape()[static_cast<std::size_t>(d)];
          if ((a && *a == 1) != (b && *b == 1)) return RewriteResult::fail("an axis of size 1 in one of them only");
        }
        std::vector<int> axes(static_cast<std::size_t>(tx->ndim()));
        for (int d = 0; d < tx->ndim(); ++d) axes[static_cast<std::size_t>(d)] = d;
        const Var picked = T::switch_(m, x, T::zeros_like(x));
        return OpPtr(new T::CAReduce("add", axes, op.dtype(), op.acc_dtype()))->apply1({picked});
      });
  return r;
}

// x[:, 0:, :shape_i(x, 2):1] -> x (every entry a slice that provably keeps the whole axis)
NodeRewriterPtr local_useless_subtensor() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_subtensor", {"Subtensor"}, "x[:, ..., 0:shape_i(x, d):1] -> x",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& idx = static_cast<const T::Subtensor&>(*node.op()).idx_list();
        const Var& x = node.input(0);
        ShapeFeature& sf = shape_feature(fg);
        int k = 1;
        auto bound = [&](const T::IdxBound& b) -> Var {
          if (b.is_symbolic()) return node.input(k++);
          if (b.is_constant()) return T::detail::int64_const(b.value);
          return Var();
        };
        for (std::size_t d = 0; d < idx.size(); ++d) {
          const T::IdxEntry& e = idx[d];
          if (!e.is_slice) return RewriteResult::fail("entry " + std::to_string(d) + " is an integer index");
          const Var start = bound(e.start), stop = bound(e.stop), step = bound(e.step);
          if (start && !is_const(start, 0)) return RewriteResult::fail("a start that is not 0");
          if (step && !is_const(step, 1)) return RewriteResult::fail("a step that is not 1");
          if (!stop) continue;
          const int di = static_cast<int>(d);
          if (sf.is_dim(stop, x, di)) continue;
          // A constant stop at or past a known size keeps the axis whole.
          auto c = T::detail::constant_int(stop);
          auto n = T::detail::constant_int(sf.canonical((*sf.shape_of(x))[d]));
          if (c && n && *c >= *n) continue;
          return RewriteResult::fail("a stop that is not provably x's dimension");
        }
        Var f = fit_type(x, node.output(0), {});
        if (!f) return RewriteResult::fail("x's type cannot stand for the output's");
        return f;
      });
  return r;
}

// make_vector(a0, ..., an-1)[i] -> ai (i a constant integer)
NodeRewriterPtr local_subtensor_make_vector() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_subtensor_make_vector", {"Subtensor"}, "make_vector(a0, ..., an-1)[i] -> ai",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& idx = static_cast<const T::Subtensor&>(*node.op()).idx_list();
        const Var& v = node.input(0);
        if (!v.owner() || !dynamic_cast<const T::MakeVector*>(v.owner()->op().get()))
          return RewriteResult::fail("input is not a make_vector");
        if (idx.size() != 1 || idx[0].is_slice || !idx[0].index.is_constant())
          return RewriteResult::fail("the index is not one constant integer");
        std::int64_t i = idx[0].index.value;
        const std::int64_t n = v.owner()->nin();
        if (i < 0) i += n;
        if (i < 0 || i >= n) return RewriteResult::fail("the index is out of range (left to fail at run time)");
        Var f = fit_type(v.owner()->input(static_cast<int>(i)), node.output(0), {});
        if (!f) return RewriteResult::fail("the element cannot keep the output type");
        return f;
      });
  return r;
}

// arange(a, b, s)[i] -> a + s * (i < 0 ? i + n : i), n the range's length, after an Assert that
// -n <= i < n; arange(a, b, s)[lo:hi] -> arange(A, B, s) with A, B the elements at the slice's
// clamped bounds. Either way the range itself is never built. Integer ranges only (a float
// range's elements are rounded sums, which a + s * i would not reproduce bit for bit), whose
// length is exact in int64 arithmetic without ARange's own rule: all three bounds constant, or a
// constant start and nonzero step with a >= 0 for s > 0 and a < 0 for s < 0 (arange(n),
// arange(1, n), arange(0, n, 2), arange(-1, b, -1)): then b - a cannot overflow where the range
// is not empty, so nothing ARange would reject (a zero step, more than 2^63 - 1 elements) is
// dropped.
NodeRewriterPtr local_subtensor_of_arange() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_subtensor_of_arange", {"Subtensor"}, "arange(a, b, s)[i] -> a + s*i; arange(a, b, s)[lo:hi] -> arange(..)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        using S = T::detail::SymInt;
        const auto& idx = static_cast<const T::Subtensor&>(*node.op()).idx_list();
        const Var& range = node.input(0);
        const Apply* ar = range.owner();
        const auto* aop = ar ? dynamic_cast<const T::ARange*>(ar->op().get()) : nullptr;
        if (!aop) return RewriteResult::fail("input is not an arange");
        auto int_like = [](const Var& v) {
          const DType d = T::tensor_type(v)->dtype();
          return is_integer(d) || is_bool(d);
        };
        if (!is_integer(aop->dtype()) || !int_like(ar->input(0)) || !int_like(ar->input(1)) || !int_like(ar->input(2)))
          return RewriteResult::fail("not an integer range");
        if (idx.size() != 1) return RewriteResult::fail("not one index entry");
        const S a = S::of(ar->input(0)), b = S::of(ar->input(1)), s = S::of(ar->input(2));
        std::optional<S> len;
        if (const T::Dim d = T::tensor_type(range)->shape()[0]) {
          len = S(*d);
        } else if (a.is_constant() && s.is_constant() && s.constant() != 0 &&
                   (s.constant() > 0) == (a.constant() >= 0)) {
          // ceil((b - a) / s) = -floor((a - b) / s), 0 where the range is empty.
          const bool up = s.constant() > 0;
          len = select(up ? lt(a, b) : lt(b, a), S(0) - floordiv(a - b, s), S(0));
        }
        if (!len) return RewriteResult::fail("the range's length is not provably exact in int64");
        const S n = *len;
        const T::IdxEntry& e = idx[0];
        int k = 1;
        auto bound = [&](const T::IdxBound& bd) -> std::optional<S> {
          if (bd.is_symbolic()) return S::of(node.input(k++));
          if (bd.is_constant()) return S(bd.value);
          return std::nullopt;
        };
        Var out;
        if (!e.is_slice) {
          const S i = *bound(e.index);
          const bool known = i.is_constant() && n.is_constant();
          if (known && (i.constant() < -n.constant() || i.constant() >= n.constant()))
            return RewriteResult::fail("the index is out of range (left to fail at run time)");
          // An element of the range: a + s*i neither overflows nor differs from ARange::perform's.
          out = (a + s * select(lt(i, 0), i + n, i)).var();
          if (!known)
            out = T::assert_op(out, {T::ge(i.var(), (S(0) - n).var()), T::lt(i.var(), n.var())},
                               "Subtensor: index {} is out of bounds for axis 0 with size {} (an arange)",
                               {i.var(), n.var()});
          if (T::tensor_type(out)->dtype() != aop->dtype()) out = T::cast(out, aop->dtype());
        } else {
          if (!e.step.is_none() && !(e.step.is_constant() && e.step.value == 1))
            return RewriteResult::fail("a slice step other than 1");
          const std::optional<S> lo_in = bound(e.start), hi_in = bound(e.stop);
          // Python's clamping of the bounds into [0, n] (theano_slice_rule for step 1).
          auto clamp = [&](const S& x) { return select(lt(x, 0), max(x + n, 0), min(x, n)); };
          const S lo = lo_in ? clamp(*lo_in) : S(0);
          const S hi = max(lo, hi_in ? clamp(*hi_in) : n);
          // A bound below n is an element (its value fits); the bound at n is the range's own
          // stop, from which ARange counts n - lo elements.
          const S start = select(eq(lo, n), b, a + s * lo);
          const S stop = select(eq(hi, n), b, a + s * hi);
          out = T::arange(start.var(), stop.var(), s.var(), aop->dtype());
        }
        Var f = fit_type(out, node.output(0), {});
        if (!f) return RewriteResult::fail("the result cannot keep the output type");
        return f;
      });
  return r;
}

// add(a, inc_subtensor(zeros, b, i), inc_subtensor(zeros, c, j)) -> inc_subtensor(inc_subtensor(a, b, i), c, j)
// (in general add(x, inc(p, b, i), ...) -> inc(add(x, p, ...), b, i), zero terms dropped)
NodeRewriterPtr local_IncSubtensor_serialize() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_IncSubtensor_serialize", {"Elemwise:add"},
      "a + inc(zeros, b, i) + inc(zeros, c, j) -> inc(inc(a, b, i), c, j)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        auto movable = [&](const Var& v) {
          const Apply* n = v.owner();
          if (!n) return false;
          bool inc = false;
          if (const auto* op = dynamic_cast<const T::IncSubtensor*>(n->op().get()))
            inc = !op->set_instead_of_inc() && !op->inplace();
          else if (const auto* aop = dynamic_cast<const T::AdvancedIncSubtensor1*>(n->op().get()))
            inc = !aop->set_instead_of_inc() && !aop->inplace();
          return inc && v.type()->is_super(*out.type()) && fg.clients(v).size() == 1;
        };
        std::vector<Var> terms, zeros;
        std::vector<Apply*> moved;
        for (const Var& in : node.inputs()) {
          if (!movable(in)) {
            terms.push_back(in);
            continue;
          }
          moved.push_back(in.owner());
          const Var& base = in.owner()->input(0);
          (is_zeros(base) ? zeros : terms).push_back(base);
        }
        if (moved.empty()) return RewriteResult::fail("no term is an increment of a subtensor used only here");
        if (terms.empty()) {
          terms.push_back(zeros.front());
          zeros.erase(zeros.begin());
        }
        try {
          Var tip = terms.size() == 1 ? terms[0] : T::add(terms);
          // The dropped zeros still give the sum its shape where no kept term does.
          tip = fit_type(tip, out, zeros);
          if (!tip) return RewriteResult::fail("the sum without its zero terms cannot keep the output type");
          for (Apply* m : moved) {
            std::vector<Var> ins = m->inputs();
            ins[0] = tip;
            tip = m->op()->apply1(std::move(ins));
          }
          Var f = fit_type(tip, out, {});
          if (!f) return RewriteResult::fail("the chain of increments cannot keep the output type");
          return f;
        } catch (const Error& e) {
          return RewriteResult::fail(std::string("the chain cannot be built: ") + e.what());
        }
      });
  return r;
}

}  // namespace theano::rewrite::detail

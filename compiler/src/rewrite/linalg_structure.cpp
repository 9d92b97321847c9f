// Rewrites of the structural matrix ops (theano/tensor/linalg_structure.h).
// canonicalize: the diagonal of a product computed without the product,
// diagonal(alloc_diag(v)) -> v, a diagonal of a transposed tensor or a
// transposed alloc_diag as the op on the untransposed one, and tril/triu of
// tril/triu as one op (or zeros). specialize: each ExtractDiag, AllocDiag,
// Tril and Triu becomes its graph form of existing ops
// (StructuralOp::expanded), whose lowerings and GPU forms generated code
// uses (docs/linalg-structure.md).
#include <algorithm>

#include "rewrites.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace L = theano::tensor::linalg;

namespace {

template <class OpT>
const OpT* op_of(const Var& v) {
  return v && v.owner() ? dynamic_cast<const OpT*>(v.owner()->op().get()) : nullptr;
}

/// The permutation a DimShuffle applies, or nullopt when it adds or drops axes.
std::optional<std::vector<int>> pure_permutation(const Apply& node) {
  const auto* ds = dynamic_cast<const T::DimShuffle*>(node.op().get());
  if (!ds || static_cast<int>(ds->new_order().size()) != ds->input_ndim()) return std::nullopt;
  std::vector<int> seen(ds->new_order().size(), 0);
  for (int a : ds->new_order())
    if (a < 0 || seen[static_cast<std::size_t>(a)]++) return std::nullopt;
  return ds->new_order();
}

Var int64_constant(std::int64_t v) { return T::constant(NDArray::scalar<std::int64_t>(v)); }

}  // namespace

// diagonal(dot(A, B), o) -> sum(A[a:a+k] * B.T[b:b+k], axis=1) for matrices (a = max(-o, 0), b = max(o, 0), k the
// diagonal's length): k * l products instead of n * l * m, when nothing else uses the product.
// trace(dot(A, B)) then becomes sum(A * B.T) through local_reduce_reduce.
NodeRewriterPtr local_diag_of_dot() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_diag_of_dot", {"ExtractDiag"}, "diagonal(dot(A, B), o) -> sum(A[a:a+k] * B.T[b:b+k], axis=1)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& ed = static_cast<const L::ExtractDiag&>(*node.op());
        const Var& p = node.input(0);
        if (!p.owner() || (p.owner()->op()->type_name() != "Dot" && p.owner()->op()->type_name() != "Dot22"))
          return RewriteResult::fail("input is not a Dot");
        if (fg.clients(p).size() != 1) return RewriteResult::fail("the product has other clients (it is computed anyway)");
        const Var &a = p.owner()->input(0), &b = p.owner()->input(1);
        if (T::tensor_type(a)->ndim() != 2 || T::tensor_type(b)->ndim() != 2)
          return RewriteResult::fail("not matrix x matrix");
        if (!is_float(T::tensor_type(p)->dtype())) return RewriteResult::fail("not a float product");
        // Axes (1, 0) read the transpose: its diagonal o is diagonal -o of the product.
        const int o = ed.axis1() == 0 ? ed.offset() : -ed.offset();
        const std::int64_t rows0 = std::max(-o, 0), cols0 = std::max(o, 0);
        const T::Dim sn = T::tensor_type(a)->shape()[0], sm = T::tensor_type(b)->shape()[1];
        Var a_rows = a, b_cols = T::dimshuffle(b, {1, 0});
        if (sn && sm) {  // known sizes: constant slices, none where it is the whole axis
          const std::int64_t k = std::max<std::int64_t>(std::min(*sn - rows0, *sm - cols0), 0);
          if (rows0 != 0 || k != *sn) a_rows = T::subtensor(a_rows, {T::slice(rows0, rows0 + k)});
          if (cols0 != 0 || k != *sm) b_cols = T::subtensor(b_cols, {T::slice(cols0, cols0 + k)});
        } else {
          const Var n = T::shape_i(a, 0), m = T::shape_i(b, 1);
          const Var k = T::maximum(T::minimum(T::sub(n, int64_constant(rows0)), T::sub(m, int64_constant(cols0))),
                                   int64_constant(0));
          a_rows = T::subtensor(a_rows, {T::slice(rows0, T::add(int64_constant(rows0), k))});
          b_cols = T::subtensor(b_cols, {T::slice(cols0, T::add(int64_constant(cols0), k))});
        }
        Var f = fit_type(T::sum(T::mul(a_rows, b_cols), T::Axes(1)), node.output(0), {});
        if (!f) return RewriteResult::fail("the type differs");
        return f;
      });
  return r;
}

// diagonal(alloc_diag(v, o, a1, a2), o, a1, a2) -> v
NodeRewriterPtr local_diag_alloc_diag() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_diag_alloc_diag", {"ExtractDiag"}, "diagonal(alloc_diag(v, o, a1, a2), o, a1, a2) -> v",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& ed = static_cast<const L::ExtractDiag&>(*node.op());
        const auto* ad = op_of<L::AllocDiag>(node.input(0));
        if (!ad) return RewriteResult::fail("input is not an AllocDiag");
        if (ad->offset() != ed.offset() || ad->axis1() != ed.axis1() || ad->axis2() != ed.axis2())
          return RewriteResult::fail("the offsets or the axes differ");
        Var f = fit_type(node.input(0).owner()->input(0), node.output(0), {});
        if (!f) return RewriteResult::fail("the type differs");
        return f;
      });
  return r;
}

// diagonal(x.transpose(p), o, a1, a2) -> diagonal(x, o, p[a1], p[a2]) (its other axes put in p's order);
// alloc_diag(v, o, a1, a2).T -> alloc_diag(v, o, a2, a1) for a vector v
NodeRewriterPtr local_diag_transpose() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_diag_transpose", {"ExtractDiag", "DimShuffle"},
      "diagonal(x.transpose(p), o, a1, a2) -> diagonal(x, o, p[a1], p[a2]); alloc_diag(v, o, a1, a2).T -> "
      "alloc_diag(v, o, a2, a1)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (const auto* ed = dynamic_cast<const L::ExtractDiag*>(node.op().get())) {
          const Var& y = node.input(0);
          if (!y.owner()) return RewriteResult::fail("input is not a DimShuffle");
          const std::optional<std::vector<int>> perm = pure_permutation(*y.owner());
          if (!perm) return RewriteResult::fail("input is not a transpose");
          const Var& x = y.owner()->input(0);
          const int n1 = (*perm)[static_cast<std::size_t>(ed->axis1())];
          const int n2 = (*perm)[static_cast<std::size_t>(ed->axis2())];
          Var d = OpPtr(new L::ExtractDiag(ed->offset(), n1, n2))->apply1({x});
          // The new output's batch axes are x's other axes in increasing order; the old one's in p's order.
          std::vector<int> kept;
          for (std::size_t i = 0; i < perm->size(); ++i)
            if (static_cast<int>(i) != ed->axis1() && static_cast<int>(i) != ed->axis2()) kept.push_back((*perm)[i]);
          std::vector<int> sorted = kept;
          std::sort(sorted.begin(), sorted.end());
          std::vector<int> order;
          for (int a : kept)
            order.push_back(static_cast<int>(std::find(sorted.begin(), sorted.end(), a) - sorted.begin()));
          order.push_back(static_cast<int>(kept.size()));
          if (!std::is_sorted(order.begin(), order.end())) d = T::dimshuffle(d, order);
          Var f = fit_type(d, node.output(0), {});
          if (!f) return RewriteResult::fail("the type differs");
          return f;
        }
        const std::optional<std::vector<int>> perm = pure_permutation(node);
        if (!perm || *perm != std::vector<int>{1, 0}) return RewriteResult::fail("not a matrix transpose");
        const auto* ad = op_of<L::AllocDiag>(node.input(0));
        if (!ad) return RewriteResult::fail("input is not an AllocDiag");
        const Var& v = node.input(0).owner()->input(0);
        Var f = fit_type(OpPtr(new L::AllocDiag(ad->offset(), ad->axis2(), ad->axis1()))->apply1({v}),
                         node.output(0), {});
        if (!f) return RewriteResult::fail("the type differs");
        return f;
      });
  return r;
}

// tril(tril(x, k1), k2) -> tril(x, min(k1, k2)); triu(triu(x, k1), k2) -> triu(x, max(k1, k2));
// tril(triu(x, k1), k2) -> zeros for k2 < k1; triu(tril(x, k1), k2) -> zeros for k2 > k1
NodeRewriterPtr local_tril_triu_merge() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_tril_triu_merge", {"Tril", "Triu"},
      "tril(tril(x, k1), k2) -> tril(x, min(k1, k2)); triu(triu(x, k1), k2) -> triu(x, max(k1, k2)); "
      "tril(triu(x, k1), k2) (k2 < k1) and triu(tril(x, k1), k2) (k2 > k1) -> zeros",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& outer = static_cast<const L::TriangularPart&>(*node.op());
        const auto* inner = op_of<L::TriangularPart>(node.input(0));
        if (!inner) return RewriteResult::fail("input is not a Tril or Triu");
        const Var& x = node.input(0).owner()->input(0);
        Var v;
        if (outer.lower() == inner->lower()) {
          const int k = outer.lower() ? std::min(outer.k(), inner->k()) : std::max(outer.k(), inner->k());
          v = OpPtr(new L::TriangularPart(outer.lower(), k))->apply1({x});
        } else if (outer.lower() ? outer.k() < inner->k() : outer.k() > inner->k()) {
          v = T::zeros_like(x);
        } else {
          return RewriteResult::fail("a band: both parts are needed");
        }
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("the type differs");
        return f;
      });
  return r;
}

// ExtractDiag(x) -> reshape(x)[start::m+1]; AllocDiag(v) -> set_subtensor(zeros[start::n+1], v) reshaped;
// Tril(x) -> switch(arange(m)[None] <= arange(n)[:, None] + k, x, 0) (Triu: >=)
NodeRewriterPtr local_linalg_structure_expand() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_linalg_structure_expand", {"ExtractDiag", "AllocDiag", "Tril", "Triu"},
      "ExtractDiag / AllocDiag / Tril / Triu -> their graph forms of Reshape, Subtensor, IncSubtensor, Alloc, "
      "ARange and a switch",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto* op = dynamic_cast<const L::StructuralOp*>(node.op().get());
        if (!op) return RewriteResult::fail("not a structural op of linalg_structure.h");
        std::vector<Var> inputs;
        for (int i = 0; i < node.nin(); ++i) inputs.push_back(node.input(i));
        Var e = op->expanded(inputs);
        // The op's static shape comes from its input's (a 500 x 500 matrix's
        // diagonal has 500 elements); the graph form may know less (Reshape
        // and Subtensor of static sizes give unknown ones): say it, so the
        // replacement keeps the op's type. Left out, W11's diagonal of a
        // static Cholesky factor stayed an ExtractDiag run by perform, and a
        // function with a perform fallback keeps no function record.
        const auto* et = T::tensor_type(e);
        const auto* ot = T::tensor_type(node.output(0));
        if (et && ot && et->ndim() == ot->ndim() && et->dtype() == ot->dtype() && !(*e.type() == *node.output(0).type()))
          e = T::specify_shape(e, ot->shape());
        Var f = fit_type(e, node.output(0), {});
        if (!f) return RewriteResult::fail("the graph form's type differs from the op's");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail

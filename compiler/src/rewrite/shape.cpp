/// \file
/// Shape promotion and useless shape ops (PyTensor's tensor/rewriting/shape.py):
/// rewrites that compute (through the ShapeFeature, attached on first use)
/// shapes from the feature instead of from the values (`shape(log(x))` never
/// computes the log), the reshape chain, and the removal of reshape / alloc /
/// specify_shape that provably do nothing (where each runs: optdb_layout.cpp).
///
/// Every rewrite here keeps the replaced variable's exact type (through
/// fit_type; it refuses when the type cannot be kept) and applies only when
/// the equality is proven (constants, static shapes, or the same shape
/// expression in the ShapeFeature).
#include "../tensor/shape/shape_util.h"
#include "rewrites.h"
#include "shape_feature.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

RewriteResult fitted(const Var& v, Apply& node) {
  Var f = fit_type(v, node.output(0), {});
  if (!f) return RewriteResult::fail("the replacement " + v.type()->str() + " cannot keep the output type " +
                                     node.output(0).type()->str());
  return f;
}

bool is_shape_i_of(const Var& s, const Var& v, int d) {
  if (!s.owner()) return false;
  const auto* op = dynamic_cast<const T::Shape_i*>(s.owner()->op().get());
  return op && op->i() == d && s.owner()->input(0) == v;
}

}  // namespace

// shape(x) -> make_vector(shape_i(x, 0), ..., shape_i(x, n-1)), each from the ShapeFeature
NodeRewriterPtr local_shape_to_shape_i() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_shape_to_shape_i", {"Shape"}, "shape(x) -> make_vector(shape_i(x, 0), ..., shape_i(x, n-1))",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const std::vector<Var>* s = shape_feature(fg).shape_of(node.input(0));
        if (!s) return RewriteResult::fail("input is not a tensor");
        std::vector<std::int64_t> known;
        for (const Var& d : *s)
          if (auto c = T::detail::constant_int(d)) known.push_back(*c);
        if (known.size() == s->size())
          return fitted(T::constant(NDArray::from_vector(known, {static_cast<std::int64_t>(known.size())})), node);
        return fitted(T::make_vector(*s, DType::Int64), node);
      });
  return r;
}

// shape_i(f(x), i) -> the ShapeFeature's expression of dimension i (over x's shape; a constant when known)
NodeRewriterPtr local_track_shape_i() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_track_shape_i", {"Shape_i"}, "shape_i(f(x), i) -> infer_shape(f)(shape(x))[i]",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const int i = static_cast<const T::Shape_i&>(*node.op()).i();
        const Var& v = node.input(0);
        const std::vector<Var>* s = shape_feature(fg).shape_of(v);
        if (!s) return RewriteResult::fail("input is not a tensor");
        const Var& e = (*s)[static_cast<std::size_t>(i)];
        if (e == node.output(0) || is_shape_i_of(e, v, i))
          return RewriteResult::fail("the dimension is only known as shape_i(x) itself");
        return fitted(e, node);
      });
  return r;
}

// reshape(reshape(x, s1), s2) -> reshape(x, s2)
NodeRewriterPtr local_reshape_chain() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_reshape_chain", {"Reshape"}, "reshape(reshape(x, s1), s2) -> reshape(x, s2)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& inner = node.input(0);
        if (!inner.owner() || !dynamic_cast<const T::Reshape*>(inner.owner()->op().get()))
          return RewriteResult::fail("input is not a reshape");
        Var v;
        try {
          v = node.op()->apply1({inner.owner()->input(0), node.input(1)});
        } catch (const Error& e) {
          return RewriteResult::fail(std::string("reshape(x, s2) cannot be built: ") + e.what());
        }
        return fitted(v, node);
      });
  return r;
}

// reshape(x, s) -> x when s provably equals shape(x) (reshape(x, [-1]) -> x for a vector)
NodeRewriterPtr local_useless_reshape() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_reshape", {"Reshape"}, "reshape(x, shape(x)) -> x",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        const Var& s = node.input(1);
        const int n = static_cast<const T::Reshape&>(*node.op()).ndim();
        if (T::tensor_type(x)->ndim() != n) return RewriteResult::fail("changes the rank");
        ShapeFeature& sf = shape_feature(fg);
        auto consts = T::detail::partial_int_vector(s);
        const Apply* sn = s.owner();
        const bool mv = sn && dynamic_cast<const T::MakeVector*>(sn->op().get());
        const bool sh = sn && dynamic_cast<const T::Shape*>(sn->op().get());
        for (int d = 0; d < n; ++d) {
          const auto du = static_cast<std::size_t>(d);
          if (consts && du < consts->size() && (*consts)[du]) {
            const std::int64_t c = *(*consts)[du];
            if (c == -1 && n == 1) continue;  // a vector keeps its length
            if (c >= 0 && sf.is_dim(T::detail::int64_const(c), x, d)) continue;
            return RewriteResult::fail("entry " + std::to_string(d) + " is not provably x's dimension");
          }
          Var e;
          if (mv) e = sn->input(d);
          else if (sh) e = (*sf.shape_of(sn->input(0)))[du];
          if (!e || !sf.is_dim(e, x, d))
            return RewriteResult::fail("entry " + std::to_string(d) + " is not provably x's dimension");
        }
        return fitted(x, node);
      });
  return r;
}

// alloc(x, s0, ..., sn-1) -> x when x has n dimensions and each si provably equals shape_i(x, i)
NodeRewriterPtr local_useless_alloc() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_alloc", {"Alloc"}, "alloc(x, *shape(x)) -> x", [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Var& x = node.input(0);
        const int n = node.nin() - 1;
        if (T::tensor_type(x)->ndim() != n) return RewriteResult::fail("broadcasts to more dimensions");
        ShapeFeature& sf = shape_feature(fg);
        for (int d = 0; d < n; ++d)
          if (!sf.is_dim(node.input(d + 1), x, d))
            return RewriteResult::fail("size " + std::to_string(d) + " is not provably x's dimension");
        return fitted(x, node);
      });
  return r;
}

// specify_shape(x, s) -> x when every specified size provably equals x's (and x's type already says so)
NodeRewriterPtr local_useless_specify_shape() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_useless_specify_shape", {"SpecifyShape"}, "specify_shape(x, shape(x)) -> x",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const auto& spec = static_cast<const T::SpecifyShape&>(*node.op()).spec();
        const Var& x = node.input(0);
        ShapeFeature& sf = shape_feature(fg);
        int k = 1;
        for (std::size_t d = 0; d < spec.size(); ++d) {
          if (spec[d] == T::SpecifyShape::kUnspecified) continue;
          Var s = spec[d] == T::SpecifyShape::kSymbolic ? node.input(k++) : T::detail::int64_const(spec[d]);
          if (!sf.is_dim(s, x, static_cast<int>(d)))
            return RewriteResult::fail("size " + std::to_string(d) + " is not provably x's dimension");
        }
        return fitted(x, node);
      });
  return r;
}

}  // namespace theano::rewrite::detail

/// \file
/// DimShuffles and Reshapes moved toward the inputs: two DimShuffles in a row
/// become one (gradients and broadcasting produce such chains: `DimShuffle{1}`
/// of `DimShuffle{x,0}` is the identity), and a DimShuffle of an elementwise
/// result (or a Reshape of a unary one) is applied to its inputs instead, so
/// that elementwise ops on both sides of it fuse into one loop
/// (`exp(m).T * n + 1` is one Composite over `m.T` and `n`).
#include "rewrites.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

// DimShuffle{o}(DimShuffle{i}(x)) -> DimShuffle{i[o]}(x); -> x when that is the identity
NodeRewriterPtr local_dimshuffle_merge() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_dimshuffle_merge", {"DimShuffle"}, "DimShuffle{o}(DimShuffle{i}(x)) -> DimShuffle{i[o]}(x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& mid = node.input(0);
        const auto* inner = mid.owner() ? dynamic_cast<const T::DimShuffle*>(mid.owner()->op().get()) : nullptr;
        if (!inner) return RewriteResult::fail("input is not a DimShuffle");
        const auto& outer = static_cast<const T::DimShuffle&>(*node.op());
        const Var& x = mid.owner()->input(0);
        std::vector<int> order;
        for (int e : outer.new_order()) order.push_back(e == T::kNewAxis ? T::kNewAxis : inner->new_order()[static_cast<std::size_t>(e)]);
        bool identity = static_cast<int>(order.size()) == inner->input_ndim();
        for (std::size_t k = 0; identity && k < order.size(); ++k) identity = order[k] == static_cast<int>(k);
        Var v;
        try {
          v = identity ? x : T::dimshuffle(x, order);
        } catch (const Error& e) {
          return RewriteResult::fail(std::string("the merged DimShuffle is invalid: ") + e.what());
        }
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("the merged DimShuffle has another type");
        return f;
      });
  return r;
}

namespace {

// The Elemwise node under `v` when `v` is its only output and is read by one client alone (lifting
// past a node with other clients would compute it twice).
Apply* sole_elemwise(FunctionGraph& fg, const Var& v) {
  Apply* e = v.owner();
  if (!e || !T::elemwise_scalar_op(e) || e->nout() != 1) return nullptr;
  return fg.clients(v).size() == 1 ? e : nullptr;
}

}  // namespace

// DimShuffle{o}(elemwise(a, b, ...)) -> elemwise(DimShuffle{o}(a), DimShuffle{o}(b), ...)
NodeRewriterPtr local_dimshuffle_lift() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_dimshuffle_lift", {"DimShuffle"},
      "DimShuffle{o}(elemwise(a, b...)) -> elemwise(DimShuffle{o}(a), DimShuffle{o}(b)...) (the elemwise result "
      "read only here)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        Apply* e = sole_elemwise(fg, node.input(0));
        if (!e) return RewriteResult::fail("input is not an elementwise result read only here");
        const auto& ds = static_cast<const T::DimShuffle&>(*node.op());
        const int nd = ds.input_ndim();
        std::vector<bool> kept(static_cast<std::size_t>(nd), false);
        for (int a : ds.new_order())
          if (a != T::kNewAxis) kept[static_cast<std::size_t>(a)] = true;
        std::vector<Var> ins;
        for (const Var& in : e->inputs()) {
          const T::TensorType* t = T::tensor_type(in);
          if (!t) return RewriteResult::fail("a non-tensor input");
          Var padded = t->ndim() < nd ? T::shape_padleft(in, nd - t->ndim()) : in;
          // A dropped axis must be of static size 1 in every input, as it is in the output.
          const T::TensorType* pt = T::tensor_type(padded);
          for (int a = 0; a < nd; ++a)
            if (!kept[static_cast<std::size_t>(a)] && pt->shape()[static_cast<std::size_t>(a)] != T::Dim{1})
              return RewriteResult::fail("an input is not of size 1 on a dropped axis");
          ins.push_back(T::dimshuffle(padded, ds.new_order()));
        }
        Var f = fit_type(e->op()->apply1(ins), node.output(0), {});
        if (!f) return RewriteResult::fail("the lifted form has another type");
        return f;
      });
  return r;
}

// Reshape(unary(x), shape) -> unary(Reshape(x, shape))
NodeRewriterPtr local_reshape_lift() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_reshape_lift", {"Reshape"}, "Reshape(unary(x), s) -> unary(Reshape(x, s)) (the unary result read only here)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        Apply* e = sole_elemwise(fg, node.input(0));
        if (!e || e->nin() != 1) return RewriteResult::fail("input is not a unary elementwise result read only here");
        std::vector<Var> ins = node.inputs();
        ins[0] = e->input(0);
        Var f = fit_type(e->op()->apply1({node.op()->apply1(ins)}), node.output(0), {});
        if (!f) return RewriteResult::fail("the lifted form has another type");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail

/// \file
/// local_dimshuffle_lift's merging half: two DimShuffles in a row become one
/// (gradients and broadcasting produce such chains: `DimShuffle{1}` of
/// `DimShuffle{x,0}` is the identity).
#include "rewrites.h"
#include "theano/tensor/elemwise.h"

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

}  // namespace theano::rewrite::detail

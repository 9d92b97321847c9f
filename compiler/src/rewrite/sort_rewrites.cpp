/// \file
/// Sort rewrites: the few largest or smallest values of a sort, `sort(x)[-k:]`
/// and `sort(x)[:k]` along the sort's axis, become a top-k (ArgTopKOp's
/// partial selection, O(n log k), and a gather) instead of a full sort of
/// every line. docs/array-ops.md, "Top-k".
#include "../tensor/shape/shape_util.h"
#include "rewrites.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/sort.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

// sort(x, a)[..., -k:] -> flip(topk(x, k, a)) and sort(x, a)[..., :k] -> topk(x, -k, a), k a constant
// no larger than the axis's static length (a Python slice past the length would take fewer), the sort
// used by nothing else. Equal values are indistinguishable, so the values are the same, NaN last.
NodeRewriterPtr local_sort_slice_to_topk() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sort_slice_to_topk", {"Subtensor"},
      "sort(x)[..., -k:] -> flip(topk(x, k)); sort(x)[..., :k] -> topk(x, -k) (k <= the static length)",
      [](FunctionGraph& fg, Apply& node) -> RewriteResult {
        const Apply* s = node.input(0).owner();
        const auto* sort = s ? dynamic_cast<const T::SortOp*>(s->op().get()) : nullptr;
        if (!sort) return RewriteResult::fail("not a slice of a sort");
        if (fg.clients(node.input(0)).size() != 1) return RewriteResult::fail("the sort has other clients");
        const int a = sort->axis();
        const auto& idx = static_cast<const T::Subtensor&>(*node.op()).idx_list();
        if (static_cast<int>(idx.size()) <= a) return RewriteResult::fail("the sort's axis is not sliced");
        for (std::size_t d = 0; d < idx.size(); ++d) {
          if (static_cast<int>(d) == a) continue;
          const T::IdxEntry& e = idx[d];
          if (!e.is_slice || !e.start.is_none() || !e.stop.is_none() || !e.step.is_none())
            return RewriteResult::fail("another axis is not whole");
        }
        const T::IdxEntry& e = idx[static_cast<std::size_t>(a)];
        if (!e.is_slice || !(e.step.is_none() || (e.step.is_constant() && e.step.value == 1)))
          return RewriteResult::fail("the sort's axis is not a unit-step slice");
        const Var& x = s->input(0);
        const T::Dim n = T::tensor_type(x)->shape()[static_cast<std::size_t>(a)];
        if (!n) return RewriteResult::fail("the axis's length is not static");
        std::int64_t kth = 0;
        if (e.start.is_constant() && e.start.value < 0 && e.stop.is_none())
          kth = -e.start.value;  // the last k
        else if ((e.start.is_none() || (e.start.is_constant() && e.start.value == 0)) && e.stop.is_constant() &&
                 e.stop.value > 0)
          kth = -e.stop.value;  // the first k
        else
          return RewriteResult::fail("not [-k:] or [:k] with a constant k");
        if ((kth < 0 ? -kth : kth) > *n) return RewriteResult::fail("k exceeds the axis's length");
        const Var top = T::topk(x, kth, a);
        return kth > 0 ? T::flip(top, T::Axes(a)) : top;
      });
  return r;
}

}  // namespace theano::rewrite::detail

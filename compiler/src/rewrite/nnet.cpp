/// \file
/// Rewrites of the nnet ops and of Assert.
#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/nnet.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace N = theano::tensor::nnet;

// log(softmax(x, axis)) -> log_softmax(x, axis)
NodeRewriterPtr local_log_softmax() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_log_softmax", {"Elemwise:log"}, "log(softmax(x)) -> log_softmax(x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var& s = node.input(0);
        const auto* sm = s.owner() ? dynamic_cast<const N::Softmax*>(s.owner()->op().get()) : nullptr;
        if (!sm) return RewriteResult::fail("input is not a Softmax");
        Var v = N::log_softmax(s.owner()->input(0), sm->axis());
        Var f = fit_type(v, node.output(0), {});
        if (!f) return RewriteResult::fail("type differs");
        return f;
      });
  return r;
}

// Assert(x, conditions...) -> x (unsafe: the checks are dropped)
NodeRewriterPtr local_remove_all_assert() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_remove_all_assert", {"Assert"}, "Assert(x, conds...) -> x", [](FunctionGraph&, Apply& node) -> RewriteResult {
        Var f = fit_type(node.input(0), node.output(0), {});
        if (!f) return RewriteResult::fail("type differs");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail

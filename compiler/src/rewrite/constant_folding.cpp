/// \file
/// Constant folding through `perform`.
///
/// Every node whose inputs are all constants is evaluated once at compile time
/// and replaced by Constants of its outputs' types, except: ops without
/// `perform`, ops that destroy an input, and ops that say they are not
/// `foldable()` (random ops: their value must change between calls;
/// collectives: their value comes from the other processes; Alloc, whose
/// output can be far larger than its inputs; the GPU forms of these). A node
/// whose `perform` raises (a failing Assert on constants) is left alone so
/// the error happens at run time, as written.
#include <string_view>

#include "rewrites.h"
#include "theano/graph/type.h"

namespace theano::rewrite::detail {

// op(c1, c2, ...) -> Constant(op.perform(c1, c2, ...))
NodeRewriterPtr constant_folding() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "constant_folding", {}, "op(c1, c2, ...) -> Constant(perform(c1, c2, ...))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (node.nin() == 0) return RewriteResult::fail("no inputs");
        std::vector<NDArray> args;
        for (const Var& in : node.inputs()) {
          const Constant* c = in.as_constant();
          if (!c) return RewriteResult::fail("input " + in.str() + " is not a constant");
          args.push_back(c->data());
        }
        const Op& op = *node.op();
        std::string_view kind = op.type_name();
        if (!op.has_perform()) return RewriteResult::fail("op has no perform");
        if (!op.destroy_map().empty()) return RewriteResult::fail("op destroys an input");
        if (!op.foldable()) return RewriteResult::fail(std::string(kind) + " is not folded");
        std::vector<NDArray> outs(static_cast<std::size_t>(node.nout()));
        std::vector<Var> repl;
        try {
          op.perform(node, args, outs);
          for (int i = 0; i < node.nout(); ++i) {
            NDArray v = outs[static_cast<std::size_t>(i)];
            for (const NDArray& a : args)
              if (v.shares_buffer(a)) v = v.copy();
            repl.push_back(node.output(i).type()->make_constant(v));
          }
        } catch (const Error& e) {
          return RewriteResult::fail(std::string("perform raised: ") + e.what());
        }
        return repl;
      });
  return r;
}

}  // namespace theano::rewrite::detail

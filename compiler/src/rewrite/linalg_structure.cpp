// Rewrites of the structural matrix ops (theano/tensor/linalg_structure.h):
// at specialize each ExtractDiag, AllocDiag, Tril and Triu becomes its graph
// form of existing ops (StructuralOp::expanded), whose lowerings and GPU forms
// generated code uses (docs/linalg-structure.md).
#include "rewrites.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;
namespace L = theano::tensor::linalg;

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
        Var f = fit_type(op->expanded(inputs), node.output(0), {});
        if (!f) return RewriteResult::fail("the graph form's type differs from the op's");
        return f;
      });
  return r;
}

}  // namespace theano::rewrite::detail

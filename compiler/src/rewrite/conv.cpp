/// \file
/// The convolution rewrites (Theano's tensor/nnet/opt.py): each abstract conv
/// op (AbstractConv2d / 3d and their gradients, theano/tensor/conv.h) is
/// replaced by its implementation, CorrMM / Corr3dMM and their gradients (the
/// im2col + gemm kernels of theano/runtime/kernels/conv.h), and an abstract op
/// that survives the optimizer is an error naming it (local_abstractconv_check),
/// as in Theano: it means no implementation was chosen.
///
/// CorrMM correlates; a true convolution (filter_flip) is a correlation with
/// the filters reversed along their spatial axes, a view (Subtensor with step
/// -1) on the filters going in or, for the weights' gradient, on the result.
#include <string>

#include "rewrites.h"
#include "theano/runtime/error.h"
#include "theano/tensor/conv.h"
#include "theano/tensor/index.h"
#include "theano/tensor/subtensor.h"

namespace theano::rewrite::detail {

namespace N = theano::tensor::nnet;
namespace T = theano::tensor;

namespace {

const std::vector<std::string> kAbstractKinds = {"AbstractConv2d", "AbstractConv2d_gradWeights",
                                                  "AbstractConv2d_gradInputs", "AbstractConv3d",
                                                  "AbstractConv3d_gradWeights", "AbstractConv3d_gradInputs"};

// w[:, :, ::-1, ::-1] (::-1 on every spatial axis).
Var flipped(const Var& w, int convdim) {
  std::vector<T::Index> idx{T::Index(T::all), T::Index(T::all)};
  for (int d = 0; d < convdim; ++d) idx.emplace_back(T::slice(T::none, T::none, -1));
  return T::subtensor(w, idx);
}

}  // namespace

// AbstractConv*(x, w, ...) -> CorrMM*(x, w[..., ::-1, ::-1], ...) (filter_flip), CorrMM*(x, w, ...) otherwise;
// AbstractConv*_gradWeights(x, top, shape) -> CorrMM*_gradWeights(x, top, shape)[..., ::-1, ::-1] (filter_flip)
NodeRewriterPtr local_abstractconv_corrmm() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_abstractconv_corrmm", kAbstractKinds,
      "AbstractConv(x, w) -> CorrMM(x, flip(w)); AbstractConv_gradInputs(w, top, s) -> CorrMM_gradInputs(flip(w), "
      "top, s); AbstractConv_gradWeights(x, top, s) -> flip(CorrMM_gradWeights(x, top, s)) (flip: filter_flip)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& op = static_cast<const N::ConvBase&>(*node.op());
        const int n = op.convdim();
        const OpPtr impl(new N::CorrMM(op.direction(), n, op.border_mode(), op.subsample(), op.filter_dilation(),
                                       op.num_groups(), op.imshp(), op.kshp()));
        std::vector<Var> in(node.inputs().begin(), node.inputs().end());
        const bool flip = op.filter_flip();
        if (flip && op.direction() == N::ConvDirection::Forward) in[1] = flipped(in[1], n);
        if (flip && op.direction() == N::ConvDirection::GradInputs) in[0] = flipped(in[0], n);
        Var out = impl->apply1(in);
        if (flip && op.direction() == N::ConvDirection::GradWeights) out = flipped(out, n);
        // The implementation may know more static sizes than the abstract op did (a shape input
        // folded to a constant since): a true size, kept; a less precise type is fitted.
        if (node.output(0).type()->is_super(*out.type())) return out;
        Var f = fit_type(out, node.output(0), {});
        if (!f)
          return RewriteResult::fail("the CorrMM output's type " + out.type()->str() + " differs from the abstract op's " +
                                     node.output(0).type()->str());
        return f;
      });
  return r;
}

// An abstract conv op left after optimization -> error naming the node
NodeRewriterPtr local_abstractconv_check() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_abstractconv_check", kAbstractKinds, "AbstractConv* left after optimization -> error",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        std::string outs;
        for (const Var& o : node.outputs()) outs += (outs.empty() ? "" : ", ") + o.str();
        throw MethodNotDefined(std::string(node.op()->name()) + " computing " + outs +
                           " is still in the graph after optimization: no convolution implementation replaced it "
                           "(was local_abstractconv_corrmm excluded? enable it, or run in a mode whose "
                           "optimizer keeps it, or compile with mode 'unoptimized' to run the abstract op's "
                           "reference perform)");
      });
  return r;
}

}  // namespace theano::rewrite::detail

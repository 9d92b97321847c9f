// gemm_scaled_copy: a Gemm left out of place (its Z may not be overwritten:
// a protected input, or a value read after it) with a constant beta other than
// 0 and 1 scales Z into a fresh buffer and accumulates there:
//
//   Gemm{no_inplace}(Z, alpha, X, Y, beta)
//   ==>  Gemm{inplace}(Elemwise{mul}(beta, Z), alpha, X, Y, 1)
//
// Why: the out-of-place form copies Z, then BLAS multiplies the copy by beta
// in place before its product (OpenBLAS's beta pass, skipped only for beta 1):
// two passes over an m x n matrix where one (the scaled copy, a parallel
// loop) does. Same bits: BLAS also computes beta * z first, then adds alpha
// times the product. W7 (`0.5*dot(A, B) + 0.25*Z`, 2000 x 2000) is the case.
// beta 0 is left: Z is not read then (the BLAS rule), while 0 * Z would turn
// its NaNs and infinities into NaN. A beta known only at run time is left for
// the same reason.
//
// It runs after the BLAS inplace stage, which makes every Gemm that may
// overwrite its Z do so, and with a GPU context not at all (optdb_layout.cpp:
// tag host_only; cuBLAS has no separate beta pass).
#include "rewrites.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

// beta's value when it is a constant; nullopt otherwise.
std::optional<double> constant_beta(const Apply& gemm) {
  const Constant* c = gemm.input(4).as_constant();
  if (!c || c->data().size() != 1) return std::nullopt;
  return c->data().item<double>();
}

}  // namespace

GraphRewriterPtr gemm_scaled_copy() {
  static const GraphRewriterPtr r =
      make_graph_rewriter("gemm_scaled_copy", [](FunctionGraph& fg, RewriteStats& stats) {
        // Replacing a Gemm with an inplace one needs the DestroyHandler (add_destroy_handler's stage).
        if (!fg.find_feature<DestroyHandler>()) return false;
        std::vector<ApplyPtr> gemms;  // held: a replaced node leaves the graph
        for (Apply* node : fg.toposort())
          if (const auto* g = dynamic_cast<const T::Gemm*>(node->op().get()); g && !g->inplace())
            gemms.emplace_back(node);
        bool changed = false;
        for (const ApplyPtr& node : gemms) {
          auto& entry = stats.entries["gemm_scaled_copy"];
          ++entry.tried;
          const std::optional<double> beta = constant_beta(*node);
          if (!beta || *beta == 0.0 || *beta == 1.0) continue;
          const Var& z = node->input(0);
          const DType dz = T::tensor_type(z)->dtype();
          // beta in Z's dtype, as BLAS converts it (float32: sgemm's float beta).
          const Var scale = T::constant(NDArray::full({1, 1}, *beta, dz));
          const Var scaled = T::mul(scale, z);
          const Var one = T::constant(NDArray::full({}, 1.0, T::tensor_type(node->input(4))->dtype()));
          const ApplyPtr fresh =
              OpPtr(new T::Gemm(true))->make_node({scaled, node->input(1), node->input(2), node->input(3), one});
          Var out = fresh->output(0);
          if (!node->output(0).name().empty()) out->set_name(node->output(0).name());
          out->set_creation_site(node->output(0)->creation_site());
          fg.replace_all_validate({{node->output(0), out}}, "gemm_scaled_copy");
          ++entry.applied;
          changed = true;
        }
        return changed;
      });
  return r;
}

}  // namespace theano::rewrite::detail

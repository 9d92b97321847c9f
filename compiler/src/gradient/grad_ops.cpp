/// \file
/// `ZeroGrad` and `DisconnectedGrad` (Theano's zero_grad / disconnected_grad):
/// identities in the forward pass (views of their input) that stop gradients.
/// ZeroGrad reports a zero gradient (the input stays connected);
/// DisconnectedGrad reports none (connection_pattern false), so a wrt reached
/// only through it is disconnected.
#include "theano/gradient.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {
namespace {

// A template, so the two ops are different classes (Op equality compares
// classes and props).
template <bool kDisconnected>
class GradStop final : public Op {
 public:
  std::string_view type_name() const override { return disconnected_ ? "DisconnectedGrad" : "ZeroGrad"; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    THEANO_USER_CHECK(inputs.size() == 1 && inputs[0], TypeError) << type_name() << " takes exactly one input";
    Var out = inputs[0].type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {out});
  }
  bool has_perform() const override { return true; }
  void perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    outputs[0] = inputs[0];
  }
  std::vector<std::vector<Var>> infer_shape(const Apply&,
                                            const std::vector<std::vector<Var>>& input_shapes) const override {
    return {input_shapes.at(0)};
  }
  std::vector<Var> grad(const Apply& node, const std::vector<Var>&) const override {
    if (disconnected_) return {Var()};
    return {tensor::zeros_like(node.input(0))};
  }
  std::vector<std::vector<bool>> connection_pattern(const Apply&) const override { return {{!disconnected_}}; }
  ViewMap view_map() const override { return {{0, {0}}}; }

 private:
  static constexpr bool disconnected_ = kDisconnected;
};

constexpr std::string_view kGradMarker =
    "a gradient marker removed by local_remove_grad_stops; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)";
THEANO_REGISTER_OP(GradStop<false>, .kinds = {"ZeroGrad"}, .no_cuda = kGradMarker);
THEANO_REGISTER_OP(GradStop<true>, .kinds = {"DisconnectedGrad"}, .no_cuda = kGradMarker);

}  // namespace

Var zero_grad(const Var& x) { return OpPtr(new GradStop<false>())->apply1({x}); }
Var disconnected_grad(const Var& x) { return OpPtr(new GradStop<true>())->apply1({x}); }

}  // namespace theano

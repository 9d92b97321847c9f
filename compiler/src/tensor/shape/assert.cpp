/// \file
/// `Assert`: value passed through (a view) once scalar conditions hold; raises
/// AssertionError with the user's message otherwise.
#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/basic_ops.h"

namespace theano::tensor {

std::string Assert::name() const { return "Assert{msg='" + msg_ + "'}"; }

THEANO_REGISTER_OP(
    Assert,
    .no_cuda = "its conditions are read on the host; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr Assert::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << name() << " needs a value input";
  std::vector<Var> ins;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Var v = as_tensor_variable(inputs[i]);
    if (i > 0) {
      THEANO_USER_CHECK(tensor_type(v)->ndim() == 0, TypeError)
          << name() << ": condition " << i - 1 << " (" << v.str() << ") must be a scalar (0-d), got type "
          << v.type()->str();
    }
    ins.push_back(v);
  }
  Var o = ins[0].type()->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void Assert::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (!inputs[i].item<bool>()) throw AssertionError(msg_);
  outputs[0] = inputs[0];
}

std::vector<std::vector<Var>> Assert::infer_shape(const Apply&, const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> Assert::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  r[0] = output_grads[0];
  return r;
}

std::vector<std::vector<bool>> Assert::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  return r;
}

Var assert_op(const Var& x, const std::vector<Var>& conditions, std::string message) {
  std::vector<Var> ins{as_tensor_variable(x)};
  ins.insert(ins.end(), conditions.begin(), conditions.end());
  return OpPtr(new Assert(std::move(message)))->apply1(std::move(ins));
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::Assert::view_map() const { return {{0, {0}}}; }

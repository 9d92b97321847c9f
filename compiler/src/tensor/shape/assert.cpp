/// \file
/// `Assert`: value passed through (a view) once scalar conditions hold; raises
/// AssertionError with the user's message otherwise, the reported integer
/// values written into its "{}" places.
#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/basic_ops.h"

namespace theano::tensor {

namespace {
constexpr int kMaxAssertValues = 3;  // NodeLowering::fail_int3 reports three integers
}

std::vector<std::string> assert_message_pieces(const std::string& msg, int nvalues) {
  std::vector<std::string> pieces;
  if (nvalues == 0) return {msg};
  std::size_t start = 0;
  for (std::size_t at = msg.find("{}"); at != std::string::npos; at = msg.find("{}", start)) {
    pieces.push_back(msg.substr(start, at - start));
    start = at + 2;
  }
  pieces.push_back(msg.substr(start));
  return pieces;
}

Assert::Assert(std::string msg, int nvalues) : msg_(std::move(msg)), nvalues_(nvalues) {
  THEANO_USER_CHECK(nvalues_ >= 0 && nvalues_ <= kMaxAssertValues, TypeError)
      << "Assert{msg='" << msg_ << "'}: reports 0 to " << kMaxAssertValues << " values, got " << nvalues_;
  const std::size_t places = assert_message_pieces(msg_, nvalues_).size() - 1;
  THEANO_USER_CHECK(nvalues_ == 0 || places == static_cast<std::size_t>(nvalues_), TypeError)
      << "Assert{msg='" << msg_ << "'}: the message has " << places << " \"{}\" places for " << nvalues_
      << " reported values";
}

std::string Assert::name() const { return "Assert{msg='" + msg_ + "'}"; }

THEANO_REGISTER_OP(
    Assert,
    .no_cuda = "its conditions are read on the host; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr Assert::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << name() << " needs a value input";
  THEANO_USER_CHECK(inputs.size() >= 1 + static_cast<std::size_t>(nvalues_), TypeError)
      << name() << " needs a value input and " << nvalues_ << " reported values, got " << inputs.size() << " inputs";
  const std::size_t first_value = inputs.size() - static_cast<std::size_t>(nvalues_);
  std::vector<Var> ins;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Var v = as_tensor_variable(inputs[i]);
    if (i > 0 && i < first_value) {
      THEANO_USER_CHECK(tensor_type(v)->ndim() == 0, TypeError)
          << name() << ": condition " << i - 1 << " (" << v.str() << ") must be a scalar (0-d), got type "
          << v.type()->str();
    } else if (i >= first_value) {
      const DType d = tensor_type(v)->dtype();
      THEANO_USER_CHECK(tensor_type(v)->ndim() == 0 && is_integer(d), TypeError)
          << name() << ": reported value " << i - first_value << " (" << v.str()
          << ") must be an integer scalar (0-d), got type " << v.type()->str();
    }
    ins.push_back(v);
  }
  Var o = ins[0].type()->make_variable();
  return Apply::create(OpPtr(this), std::move(ins), {o});
}

void Assert::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const std::size_t first_value = inputs.size() - static_cast<std::size_t>(nvalues_);
  for (std::size_t i = 1; i < first_value; ++i) {
    if (inputs[i].item<bool>()) continue;
    const std::vector<std::string> pieces = assert_message_pieces(msg_, nvalues_);
    std::string text = pieces[0];
    for (std::size_t k = 1; k < pieces.size(); ++k)
      text += std::to_string(inputs[first_value + k - 1].item<std::int64_t>()) + pieces[k];
    throw AssertionError(text);
  }
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

Var assert_op(const Var& x, const std::vector<Var>& conditions, std::string message, const std::vector<Var>& values) {
  std::vector<Var> ins{as_tensor_variable(x)};
  ins.insert(ins.end(), conditions.begin(), conditions.end());
  ins.insert(ins.end(), values.begin(), values.end());
  return OpPtr(new Assert(std::move(message), static_cast<int>(values.size())))->apply1(std::move(ins));
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::Assert::view_map() const { return {{0, {0}}}; }

/// \file
/// `theano::testing::check_infer_shape` (see testing.h): each output owner's
/// `infer_shape`, fed `shape_i(input, d)` scalars (constants where the static
/// shape knows the size, Shape_i nodes elsewhere), against the shapes that
/// `perform` produces.
#include <sstream>
#include <unordered_set>

#include "theano/compile/function.h"
#include "theano/graph/traversal.h"
#include "theano/testing.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::testing {

void check_infer_shape(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                       const std::vector<NDArray>& values) {
  std::vector<Var> shape_vars;
  std::vector<std::size_t> first;  // per output: index of its first dimension in shape_vars
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const Var& out = outputs[k];
    THEANO_USER_CHECK(out, ValueError) << "check_infer_shape: output " << k << " is a null Var";
    const Apply* node = out.owner();
    THEANO_USER_CHECK(node, ValueError) << "check_infer_shape: output " << k << " (" << out.str()
                                        << ") has no owner; pass the outputs of the op under test";
    const tensor::TensorType* tout = tensor::tensor_type(out);
    THEANO_USER_CHECK(tout, TypeError) << "check_infer_shape: output " << k << " (" << out.str()
                                       << ") is not a tensor";
    std::vector<std::vector<Var>> input_shapes;
    for (const Var& in : node->inputs()) {
      std::vector<Var> dims;
      if (const tensor::TensorType* t = tensor::tensor_type(in))
        for (int d = 0; d < t->ndim(); ++d) dims.push_back(tensor::shape_i(in, d));
      input_shapes.push_back(std::move(dims));
    }
    const std::string op = node->op()->name();
    const auto shapes = node->op()->infer_shape(*node, input_shapes);
    THEANO_USER_CHECK(static_cast<int>(shapes.size()) == node->nout(), ShapeError)
        << "check_infer_shape: " << op << ".infer_shape returned shapes for " << shapes.size()
        << " outputs, but the node has " << node->nout();
    const auto& dims = shapes[static_cast<std::size_t>(*out.index())];
    THEANO_USER_CHECK(static_cast<int>(dims.size()) == tout->ndim(), ShapeError)
        << "check_infer_shape: " << op << ".infer_shape returned " << dims.size() << " dimensions for output "
        << *out.index() << " of type " << tout->str();
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const tensor::TensorType* td = tensor::tensor_type(dims[d]);
      THEANO_USER_CHECK(td && td->ndim() == 0 && (is_integer(td->dtype())), TypeError)
          << "check_infer_shape: " << op << ".infer_shape returned "
          << (dims[d] ? dims[d].str() + " of type " + dims[d].type()->str() : std::string("a null Var"))
          << " for dimension " << d << " of output " << *out.index() << "; expected an integer scalar";
    }
    std::unordered_set<const Variable*> own;
    for (int j = 0; j < node->nout(); ++j) own.insert(node->output(j).get());
    for (const Var& a : ancestors(dims))
      THEANO_USER_CHECK(!own.count(a.get()), ValueError)
          << "check_infer_shape: " << op << ".infer_shape computes the shape from the node's own output "
          << a.str() << "; it must use only the input shapes (and inputs)";
    first.push_back(shape_vars.size());
    shape_vars.insert(shape_vars.end(), dims.begin(), dims.end());
  }

  std::vector<In> ins(inputs.begin(), inputs.end());
  FunctionOptions opts;
  opts.on_unused_input = OnUnusedInput::Ignore;
  std::vector<Out> outs(outputs.begin(), outputs.end());
  const std::vector<NDArray> actual = function(ins, outs, opts)(values);
  std::vector<Out> souts(shape_vars.begin(), shape_vars.end());
  const std::vector<NDArray> inferred = shape_vars.empty() ? std::vector<NDArray>{} : function(ins, souts, opts)(values);
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::vector<std::int64_t> got;
    const std::size_t nd = static_cast<std::size_t>(tensor::tensor_type(outputs[k])->ndim());
    for (std::size_t d = 0; d < nd; ++d) got.push_back(inferred[first[k] + d].item<std::int64_t>());
    THEANO_USER_CHECK(got == actual[k].shape(), ShapeError)
        << "check_infer_shape: " << outputs[k].owner()->op()->name() << ".infer_shape gives "
        << shape_to_string(got) << " for output " << k << " (" << outputs[k].str() << "), but perform produced "
        << shape_to_string(actual[k].shape());
  }
}

}  // namespace theano::testing

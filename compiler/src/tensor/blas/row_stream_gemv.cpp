// RowStreamGemv: z = dot(X, w), r = fn(z, e...) and g = beta*y +
// alpha*dot(X^T, r), the two products of a linear model's step, for one
// pass over X's rows in generated code (codegen/src/emit/lower/
// row_stream_gemv.cpp). perform is the reference: the two BLAS products one
// after the other, fn by Elemwise.
#include "blas_kernels.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/row_stream_gemv_rules.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

THEANO_REGISTER_OP(RowStreamGemv, .no_grad = "made after the gradients, by the stream_gemv rewrite",
                   .no_cuda = "stream_gemv runs only without a GPU context: on the GPU, Dot and Gemv use cuBLAS");

namespace {

constexpr int kFixedInputs = 5;  // X, w, y, alpha, beta; then fn's other inputs

// fn over (z, e...) as an Elemwise node on `z` and the node's e inputs.
ApplyPtr fn_node(const ScalarOpPtr& fn, const Var& z, const std::vector<Var>& inputs) {
  std::vector<Var> args{z};
  args.insert(args.end(), inputs.begin() + kFixedInputs, inputs.end());
  return OpPtr(new Elemwise(fn))->make_node(std::move(args));
}

}  // namespace

ApplyPtr RowStreamGemv::make_node(std::vector<Var> inputs) const {
  const std::string n = "RowStreamGemv";
  THEANO_USER_CHECK(fn_ != nullptr && fn_->nout() == 1, TypeError)
      << n << ": fn must be a scalar function with one output";
  THEANO_USER_CHECK(inputs.size() == static_cast<std::size_t>(kFixedInputs + fn_->nin() - 1), TypeError)
      << n << " takes 5 inputs (X, w, y, alpha, beta) and one more for each of fn's inputs after the first ("
      << fn_->nin() - 1 << "), got " << inputs.size();
  for (Var& v : inputs) v = as_tensor_variable(v);
  const Var &x = inputs[0], &w = inputs[1], &y = inputs[2];
  const TensorType& tx = blas_detail::check_blas_operand(n.c_str(), "X", x, 2, std::nullopt);
  const TensorType& tw = blas_detail::check_blas_operand(n.c_str(), "w", w, 1, tx.dtype());
  const TensorType& ty = blas_detail::check_blas_operand(n.c_str(), "y", y, 1, tx.dtype());
  blas_detail::check_blas_scalar(n.c_str(), "alpha", inputs[3]);
  blas_detail::check_blas_scalar(n.c_str(), "beta", inputs[4]);
  blas_detail::check_static_alignment(n.c_str(), x, w);
  blas_detail::check_static_dim(n.c_str(), tx.shape()[1], ty.shape()[0], x, y, "the columns of X and the length of y");
  for (std::size_t i = kFixedInputs; i < inputs.size(); ++i) {
    const TensorType* te = tensor_type(inputs[i]);
    THEANO_USER_CHECK(te && te->ndim() == 1, TypeError)
        << n << ": input " << i << " of fn (" << inputs[i].str() << ") must be a vector, got "
        << inputs[i].type()->str();
  }
  Var z = TensorType::make(tx.dtype(), {tx.shape()[0]})->make_variable();
  // fn's value over (z, e...) must have X's dtype and z's shape: the products' operand.
  const ApplyPtr f = fn_node(fn_, z, inputs);
  const TensorType& tf = *tensor_type(f->output(0));
  THEANO_USER_CHECK(tf.dtype() == tx.dtype(), TypeError)
      << n << ": fn's value has dtype " << dtype_name(tf.dtype()) << ", X has " << dtype_name(tx.dtype());
  THEANO_USER_CHECK(tf.broadcastable() == tensor_type(z)->broadcastable(), TypeError)
      << n << ": fn's value must have z's shape (one value a row of X)";
  Var g = TensorType::make(tx.dtype(), {blas_detail::merge_dim(blas_detail::merge_dim(tx.shape()[1], tw.shape()[0]),
                                                               ty.shape()[0])})
              ->make_variable();
  Var r = TensorType::make(tx.dtype(), {tx.shape()[0]})->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {z, g, r});
}

void RowStreamGemv::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  auto declared_one = [&](std::size_t i) -> bool {  // bool: not a reference into a temporary vector<bool>
    return tensor_type(node.input(static_cast<int>(i)))->broadcastable()[0];
  };
  const NDArray &x = inputs[0], &w = inputs[1], &y = inputs[2];
  const double alpha = inputs[3].item<double>(), beta = inputs[4].item<double>();
  // The rules and words of row_stream_gemv_rules.h, as the generated code checks them.
  const std::int64_t m = x.shape()[0], n = x.shape()[1];
  THEANO_USER_CHECK(theano_rsg_length_ok(n, w.shape()[0]), ShapeError)
      << "RowStreamGemv: " << THEANO_RSG_W_TEXT1 << n << THEANO_RSG_W_TEXT2 << w.shape()[0] << THEANO_RSG_W_TEXT3;
  THEANO_USER_CHECK(theano_rsg_length_ok(n, y.shape()[0]), ShapeError)
      << "RowStreamGemv: " << THEANO_RSG_Y_TEXT1 << y.shape()[0] << THEANO_RSG_Y_TEXT2 << n << THEANO_RSG_Y_TEXT3;
  for (std::size_t i = kFixedInputs; i < inputs.size(); ++i)
    THEANO_USER_CHECK(theano_rsg_rows_ok(m, inputs[i].shape()[0], declared_one(i)), ShapeError)
        << "RowStreamGemv: " << THEANO_RSG_E_TEXT1 << i << THEANO_RSG_E_TEXT2 << inputs[i].shape()[0]
        << THEANO_RSG_E_TEXT3 << m << THEANO_RSG_E_TEXT4;
  NDArray z = NDArray::empty({x.shape()[0]}, x.dtype());
  blas_detail::gemv(x, w, z, 1.0, 0.0);
  // fn over (z, e...), as the Elemwise nodes it replaces computed it.
  std::vector<Var> in_vars(node.inputs().begin(), node.inputs().end());
  const ApplyPtr f = fn_node(fn_, node.output(0), in_vars);
  std::vector<NDArray> f_in{z};
  f_in.insert(f_in.end(), inputs.begin() + kFixedInputs, inputs.end());
  std::vector<NDArray> f_out(1);
  f->op()->perform(*f, f_in, f_out);
  NDArray g = beta == 0 ? NDArray::empty(y.shape(), y.dtype()) : y.copy();
  blas_detail::gemv(x.transpose(), f_out[0], g, alpha, beta);
  outputs[0] = z;
  outputs[1] = g;
  outputs[2] = f_out[0];
}

std::vector<std::vector<Var>> RowStreamGemv::infer_shape(const Apply&,
                                                         const std::vector<std::vector<Var>>& input_shapes) const {
  return {{input_shapes[0][0]}, {input_shapes[0][1]}, {input_shapes[0][0]}};
}

}  // namespace theano::tensor

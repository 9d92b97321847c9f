// Theano's nnet activations (relu, elu, selu, hard_sigmoid, ultra_fast_sigmoid)
// and sigmoid_binary_crossentropy: each builds one Elemwise node of its
// scalar-table row (compiler/src/tensor/scalar/scalar_table.cpp), so fusion,
// the generated C++ and CUDA loops, constant folding and the gradient all come
// from that row; the formulas are theano/runtime/kernels/scalar_math.h's.
#include "theano/tensor/elemwise.h"
#include "theano/tensor/nnet.h"

namespace theano::tensor::nnet {

Var relu(const TensorLike& x, const TensorLike& alpha) { return elemwise("relu", {x.var(), alpha.var()}); }
Var elu(const TensorLike& x, const TensorLike& alpha) { return elemwise("elu", {x.var(), alpha.var()}); }
Var selu(const TensorLike& x) { return elemwise("selu", {x.var()}); }
Var hard_sigmoid(const TensorLike& x) { return elemwise("hard_sigmoid", {x.var()}); }
Var ultra_fast_sigmoid(const TensorLike& x) { return elemwise("ultra_fast_sigmoid", {x.var()}); }
Var sigmoid_binary_crossentropy(const TensorLike& output_logits, const TensorLike& target) {
  return elemwise("sigmoid_binary_crossentropy", {output_logits.var(), target.var()});
}

}  // namespace theano::tensor::nnet

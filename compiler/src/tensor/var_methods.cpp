// Var's tensor sugar for the elementwise layer (ndim, T, transpose, dimshuffle,
// astype). The other methods are defined beside the ops they build.
#include "theano/graph/basic.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {

int Var::ndim() const {
  const tensor::TensorType* t = tensor::tensor_type(*this);
  THEANO_USER_CHECK(t, TypeError) << "ndim(): " << str() << " is not a tensor (type "
                                  << (*this ? type()->str() : std::string("none")) << ")";
  return t->ndim();
}

Var Var::T() const { return tensor::transpose(*this); }
Var Var::transpose(std::vector<int> axes) const { return tensor::transpose(*this, std::move(axes)); }
Var Var::dimshuffle(std::vector<int> order) const { return tensor::dimshuffle(*this, std::move(order)); }
Var Var::astype(DType dtype) const { return tensor::cast(*this, dtype); }

}  // namespace theano

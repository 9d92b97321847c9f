// Var's tensor sugar for the elementwise layer (ndim, dtype, broadcastable, T,
// transpose, dimshuffle, astype). The other methods are defined beside the ops they build.
#include "theano/graph/basic.h"
#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {

namespace {
/// The TensorType of `v`, or TypeError naming `v` and the property asked for.
const tensor::TensorType& tensor_type_for(const Var& v, const char* what) {
  const tensor::TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t, TypeError) << what << "(): " << v.str() << " is not a tensor (type "
                                  << (v ? v.type()->str() : std::string("none")) << ")";
  return *t;
}
}  // namespace

int Var::ndim() const { return tensor_type_for(*this, "ndim").ndim(); }
DType Var::dtype() const { return tensor_type_for(*this, "dtype").dtype(); }
std::vector<bool> Var::broadcastable() const { return tensor_type_for(*this, "broadcastable").broadcastable(); }

Var Var::T() const { return tensor::transpose(*this); }
Var Var::transpose(std::vector<int> axes) const { return tensor::transpose(*this, std::move(axes)); }
Var Var::dimshuffle(std::vector<int> order) const { return tensor::dimshuffle(*this, std::move(order)); }
Var Var::astype(DType dtype) const { return tensor::cast(*this, dtype); }

}  // namespace theano

/// \file
/// The Var sugar of the shape and indexing domain (declared in graph/basic.h):
/// `x.shape()`, `x.reshape(...)`, `x.flatten(n)` and `x[...]`.
#include "theano/graph/basic.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano {

Var Var::shape() const { return tensor::shape(*this); }

Var Var::reshape(std::vector<std::int64_t> shape) const { return tensor::reshape(*this, shape); }

Var Var::flatten(int ndim) const { return tensor::flatten(*this, ndim); }

Var Var::operator[](const tensor::Index& index) const { return tensor::subtensor(*this, {index}); }

Var Var::operator[](const std::vector<tensor::Index>& indices) const { return tensor::subtensor(*this, indices); }

Var Var::operator[](std::initializer_list<tensor::Index> indices) const {
  return tensor::subtensor(*this, std::vector<tensor::Index>(indices));
}

}  // namespace theano

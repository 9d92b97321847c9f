// Var's reduction sugar (x.sum(), x.max(1), x.mean({0, 1}, true), ...), defined
// beside the reductions they build.
#include "theano/graph/basic.h"
#include "theano/tensor/reduction.h"

namespace theano {

Var Var::sum() const { return tensor::sum(*this); }
Var Var::sum(const tensor::Axes& axis, bool keepdims) const { return tensor::sum(*this, axis, keepdims); }
Var Var::prod(const tensor::Axes& axis, bool keepdims) const { return tensor::prod(*this, axis, keepdims); }
Var Var::max(const tensor::Axes& axis, bool keepdims) const { return tensor::max(*this, axis, keepdims); }
Var Var::min(const tensor::Axes& axis, bool keepdims) const { return tensor::min(*this, axis, keepdims); }
Var Var::mean() const { return tensor::mean(*this); }
Var Var::mean(const tensor::Axes& axis, bool keepdims) const { return tensor::mean(*this, axis, keepdims); }

}  // namespace theano

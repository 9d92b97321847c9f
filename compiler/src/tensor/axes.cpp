// Axes::resolve: normalizing Theano's axis argument.
#include "theano/tensor/axes.h"

#include <algorithm>

#include "theano/runtime/error.h"

namespace theano::tensor {

std::vector<int> Axes::resolve(int ndim, const std::string& what) const {
  std::vector<int> r;
  if (!axes) {
    for (int a = 0; a < ndim; ++a) r.push_back(a);
    return r;
  }
  for (int a : *axes) {
    THEANO_USER_CHECK(a >= -ndim && a < ndim, ValueError)
        << what << ": axis " << a << " is out of range for a " << ndim << "-d tensor (valid: " << -ndim << " to "
        << ndim - 1 << ")";
    const int n = a < 0 ? a + ndim : a;
    THEANO_USER_CHECK(std::find(r.begin(), r.end(), n) == r.end(), ValueError)
        << what << ": axis " << a << " is repeated";
    r.push_back(n);
  }
  std::sort(r.begin(), r.end());
  return r;
}

}  // namespace theano::tensor

// Build-time benchmark, the one-function program: the smallest useful theano
// program (the tutorial's first step), `x * 2.0` compiled and called through
// the umbrella header.
#include <theano/theano.hpp>

int main() {
  namespace T = theano::tensor;
  auto x = T::dvector("x");
  theano::Function f = theano::function({x}, {x * 2.0});
  std::vector<theano::NDArray> r = f({theano::NDArray::from_vector(std::vector<double>{1, 2, 3}, {3})});
  return r[0].at<double>({2}) == 6.0 ? 0 : 1;
}

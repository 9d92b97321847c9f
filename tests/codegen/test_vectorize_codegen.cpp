// vectorize / blockwise (theano/tensor/vectorize.h) through the generated
// code: the Scan map over the merged batch axis, compiled with no perform
// fallback, agrees with perform on contiguous and strided inputs.
#include <doctest/doctest.h>

#include <theano/tensor/vectorize.h>
#include <theano/theano.hpp>

#include "lowering_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_CASE("vectorize and blockwise: generated code agrees with perform") {
  std::mt19937_64 rng(39);
  const Var A = any_tensor(DType::Float64, 3, "A"), x = any_tensor(DType::Float64, 2, "x");
  const auto fn = [](const std::vector<Var>& in) { return std::vector<Var>{dot(in[0], in[1]) + 1.0, max(in[1])}; };
  const std::vector<Var> out = vectorize(fn, {A, x}, "(m,n),(n)->(m),()");
  check_lowering({A, x}, out,
                 {random_array(rng, {4, 3, 5}, DType::Float64, -1, 1), random_array(rng, {4, 5}, DType::Float64, -1, 1)});
  const Var a = dmatrix("a"), b = dmatrix("b");
  check_lowering({A}, blockwise(dot(a, b).owner()->op(), {A, A.dimshuffle({0, 2, 1})}, "(m,k),(k,n)->(m,n)"),
                 {random_array(rng, {2, 3, 4}, DType::Float64, -1, 1)});
}

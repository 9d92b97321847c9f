// ArgTopKOp (theano/tensor/sort.h): the partial selection of kernels/topk.h
// through the generic LinesResized lowering, against perform and against
// the indices a stable argsort gives (ties, NaN, every dtype family, any
// axis, strided input), and the error for a line shorter than |kth|.
#include <doctest/doctest.h>

#include <theano/theano.hpp>

#include <limits>

#include "lowering_test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

TEST_CASE("ArgTopKOp: generated code agrees with perform and with a stable argsort, ties and NaN included") {
  std::mt19937_64 rng(7);
  const Var x = any_tensor(DType::Float64, 3, "x");
  // Few distinct values (many ties) and NaNs.
  NDArray xv = random_array(rng, {3, 9, 6}, DType::Float64, -3, 3);
  for (std::int64_t e = 0; e < xv.size(); e += 7) xv.data_as<double>()[e] = std::numeric_limits<double>::quiet_NaN();
  for (const int axis : {0, 1, 2})
    for (const std::int64_t kth : {1, 2, -1, -3}) {
      CAPTURE(axis);
      CAPTURE(kth);
      const Var got = OpPtr(new ArgTopKOp(axis, kth))->apply1({x});
      const std::int64_t k = kth < 0 ? -kth : kth;
      const Var order = argsort(x, axis, "stable");
      std::vector<Index> idx(static_cast<std::size_t>(axis), Index(all));
      idx.emplace_back(kth > 0 ? slice(-1, -1 - k, -1) : slice(none, k));
      const Var want = order[idx];
      check_lowering({x}, {got, want}, {xv});
      const std::vector<NDArray> r = function({x}, {got, want})({xv});
      CHECK(array_equal(r[0], r[1]));
    }
  const Var i = any_tensor(DType::Int32, 2, "i");
  check_lowering({i}, {OpPtr(new ArgTopKOp(1, 3))->apply1({i}), OpPtr(new ArgTopKOp(0, -2))->apply1({i})},
                 {random_array(rng, {4, 5}, DType::Int32, -2, 2)});
  check_error<ValueError>({x}, {OpPtr(new ArgTopKOp(2, 7))->apply1({x})}, {xv}, "ArgTopKOp",
                          "has length 6, fewer than the 7");
}

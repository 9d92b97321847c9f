// The gemm_scaled_copy rewrite's graph compiled (Clang, the C++ linker): W7's
// `0.25*z + 0.5*dot(x, y)` runs as a scaled copy of z (an elementwise loop)
// and an in-place gemm with beta 1, and gives the bits of the out-of-place
// Gemm (copy, then BLAS's beta pass) in both dtypes, for a contiguous z and a
// transposed one, at a size the host's gemm takes in parts and one it takes
// whole; z stays as it was.
#include <doctest/doctest.h>

#include <theano/theano.hpp>

#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

TEST_SUITE("lower blas") {
  TEST_CASE("gemm_scaled_copy compiled: W7's product on a scaled copy of z, the out-of-place Gemm's bits") {
    std::mt19937_64 rng(11);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      auto k = [dt](double v) { return T::constant(NDArray::full({}, v, dt)); };
      Var x = T::matrix("x", dt), y = T::matrix("y", dt), z = T::matrix("z", dt);
      Var out = k(0.25) * z + k(0.5) * T::dot(x, y);
      Function f = function({x, y, z}, {out});
      FunctionOptions off;
      off.optimizer_excluding = {"gemm_scaled_copy"};
      Function g = function({x, y, z}, {out}, off);
      CHECK(nodes_named(f.fgraph(), "Gemm{inplace}") == 1);
      CHECK(nodes_named(f.fgraph(), "Gemm{no_inplace}") == 0);
      CHECK(nodes_named(g.fgraph(), "Gemm{no_inplace}") == 1);
      // 23 x 17 by 17 x 31: whole; 150 x 130 by 130 x 160 (3.1e6 multiply-adds): in parts on the loop threads.
      for (const auto& s : std::vector<std::vector<std::int64_t>>{{23, 17, 31}, {150, 130, 160}}) {
        CAPTURE(s[0]);
        const NDArray xv = random_array(rng, {s[0], s[1]}, dt, -1, 1), yv = random_array(rng, {s[1], s[2]}, dt, -1, 1);
        for (const NDArray& zv : {random_array(rng, {s[0], s[2]}, dt, -1, 1),
                                  random_array(rng, {s[2], s[0]}, dt, -1, 1).transpose()}) {
          const NDArray z0 = zv.copy();
          const NDArray got = f({xv, yv, zv})[0];
          CHECK(same_bits(got, g({xv, yv, zv})[0]));
          CHECK(same_bits(zv, z0));
        }
      }
    }
  }
}

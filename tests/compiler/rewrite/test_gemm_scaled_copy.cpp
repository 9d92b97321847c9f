// gemm_scaled_copy (rewrite/gemm_scaled_copy.cpp): a Gemm left out of place
// with a constant beta other than 0 and 1 becomes an in-place Gemm on beta * Z,
// as graph text before and after; the function (perform in this suite; the
// generated code in tests/codegen/test_gemm_scaled_copy.cpp) gives the bits
// the out-of-place form gives and leaves Z alone; and the Gemms it must leave.
#include <cmath>
#include <limits>

#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

Var k(double v, DType dt, std::vector<std::int64_t> shape = {}) { return T::constant(NDArray::full(shape, v, dt)); }

// `outs` optimized as function() would (fast_run, the inplace stages too), without the fusion,
// is `expected`.
void check_graph(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected,
                 const std::vector<std::string>& excluding = {"fusion"}) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding(excluding));
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same) std::cerr << "Output:\n" << debugprint(fg) << "Expected:\n" << debugprint(expected);
  CHECK(same);
}

NDArray values(std::int64_t r, std::int64_t c, int salt, DType dt) {
  NDArray a = NDArray::empty({r, c}, DType::Float64);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = 0.37 * static_cast<double>((i * 13 + salt) % 17) - 2.9;
  return a.astype(dt);
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("gemm_scaled_copy: 0.25*z + 0.5*dot(x, y) with z an input -> Gemm{inplace}(0.25 * z, 0.5, x, y, 1)") {
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var x = T::matrix("x", dt), y = T::matrix("y", dt), z = T::matrix("z", dt);
      Var out = k(0.25, dt) * z + k(0.5, dt) * T::dot(x, y);
      Var scaled = T::mul(k(0.25, dt, {1, 1}), z);
      Var want = OpPtr(new T::Gemm(true))->make_node({scaled, k(0.5, dt), x, y, k(1, dt)})->output(0);
      check_graph({x, y, z}, {out}, {want});
      // Left out on request, and without the inplace stages: the Gemm copies z.
      const Var plain = T::gemm(z, k(0.5, dt), x, y, k(0.25, dt));
      check_graph({x, y, z}, {out}, {plain}, {"fusion", "gemm_scaled_copy"});
      check_graph({x, y, z}, {out}, {plain}, {"fusion", "inplace"});

      // Run (perform): the bits of the out-of-place Gemm (BLAS scales by beta first too), z untouched,
      // for a z that is a transposed view as well.
      const NDArray xv = values(7, 5, 1, dt), yv = values(5, 9, 2, dt);
      for (const NDArray& zv : {values(7, 9, 3, dt), values(9, 7, 3, dt).transpose()}) {
        const NDArray z0 = zv.copy();
        FunctionOptions off;
        off.optimizer_excluding = {"gemm_scaled_copy"};
        const NDArray got = function({x, y, z}, {out})({xv, yv, zv})[0];
        const NDArray ref = function({x, y, z}, {out}, off)({xv, yv, zv})[0];
        CHECK(same_bits(got, ref));
        CHECK(same_bits(zv, z0));
        FunctionOptions raw;
        raw.mode = "unoptimized";
        const NDArray want_v = function({x, y, z}, {out}, raw)({xv, yv, zv})[0];
        CHECK(close_enough(got, want_v));
      }
    }
  }

  TEST_CASE("gemm_scaled_copy: a z read after the Gemm is copied scaled, not overwritten") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y"), a = T::dmatrix("a");
    Var z = T::exp(a);  // overwritable, but the second output reads it later
    Var g = T::gemm(z, k(0.5, DType::Float64), x, y, k(-2, DType::Float64));
    Var later = T::gemm(z, k(1, DType::Float64), g, g, k(1, DType::Float64));
    Function f = function({x, y, a}, {g, later});
    // g may not overwrite z (the second Gemm reads it after): g scales a copy; the second overwrites z.
    CHECK(nodes_named(f.fgraph(), "Gemm{inplace}") == 2);
    CHECK(nodes_named(f.fgraph(), "Elemwise{mul,no_inplace}") == 1);
    const NDArray xv = values(4, 3, 1, DType::Float64), yv = values(3, 4, 2, DType::Float64);
    const NDArray av = values(4, 4, 5, DType::Float64);
    FunctionOptions raw;
    raw.mode = "unoptimized";
    const auto got = f({xv, yv, av});
    const auto want = function({x, y, a}, {g, later}, raw)({xv, yv, av});
    CHECK(close_enough(got[0], want[0]));
    CHECK(close_enough(got[1], want[1]));
  }

  TEST_CASE("gemm_scaled_copy: leaves beta 1, beta 0, a beta known at run time and a Gemm already in place") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y"), z = T::dmatrix("z"), b = T::dscalar("b");
    const Var one = k(1, DType::Float64), half = k(0.5, DType::Float64);
    // beta 1: the copy is all there is (BLAS has no beta pass then).
    check_graph({x, y, z}, {T::gemm(z, half, x, y, one)}, {T::gemm(z, half, x, y, one)});
    // beta at run time: it may be 0, where z's values must not be read.
    check_graph({x, y, z, b}, {T::gemm(z, half, x, y, b)}, {T::gemm(z, half, x, y, b)});
    // beta 0: z is not read (0 * NaN would be NaN).
    const Var zero = k(0, DType::Float64);
    check_graph({x, y, z}, {T::gemm(z, half, x, y, zero)}, {T::gemm(z, half, x, y, zero)});
    const NDArray xv = values(3, 2, 1, DType::Float64), yv = values(2, 3, 2, DType::Float64);
    NDArray zv = NDArray::full({3, 3}, std::numeric_limits<double>::quiet_NaN(), DType::Float64);
    const NDArray got = function({x, y, z}, {T::gemm(z, half, x, y, zero)})({xv, yv, zv})[0];
    for (std::int64_t i = 0; i < got.size(); ++i) CHECK(std::isfinite(got.data_as<double>()[i]));

    // An updated shared matrix (W7s): Gemm in place on it, beta kept, no scaled copy.
    Var Z = shared(values(3, 3, 4, DType::Float64), "Z");
    FunctionOptions o;
    o.updates = {{Z, 0.25 * Z + 0.5 * T::dot(x, y)}};
    Function f = function({x, y}, {}, o);
    CHECK(nodes_named(f.fgraph(), "Gemm{inplace}") == 1);
    CHECK(nodes_of_type(f.fgraph(), "Elemwise") == 0);
  }
}

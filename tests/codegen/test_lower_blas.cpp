// Lowerings of the BLAS ops (codegen/src/emit/lower/blas.cpp): Dot, Dot22, Gemm,
// Gemv and Ger, against perform; float layouts BLAS can read go to OpenBLAS,
// the others (and integer dtypes) to plain loops.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/blas_layout.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

/// Values for dtype `dt`: positive floats (float32 sums then stay within
/// rounding of each other), small signed integers.
NDArray values(std::mt19937_64& rng, std::vector<std::int64_t> shape, DType dt) {
  if (is_float(dt)) return random_array(rng, std::move(shape), dt, 0.5, 1.5);
  if (dt == DType::Bool) return random_array(rng, std::move(shape), dt, 0, 2);
  if (dt == DType::UInt8) return random_array(rng, std::move(shape), dt, 0, 100);
  return random_array(rng, std::move(shape), dt, -100, 100);
}

NDArray dscal(double v) { return NDArray::scalar<double>(v); }

}  // namespace

TEST_SUITE("lower blas") {
  TEST_CASE("the BLAS layout rule (blas_layout.h, perform's and generated code's): in place, transposed, copy, too big") {
    int t = 0, ld = 0, inc = 0;
    std::int64_t bad = 0;
    // Row-major 3 x 4 float64, a 3 x 4 view of a 3 x 10 array, its transpose.
    CHECK(theano_blas_matrix_rule(3, 4, 32, 8, 8, &t, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK((t == THEANO_BLAS_NO_TRANS && ld == 4));
    CHECK(theano_blas_matrix_rule(3, 4, 80, 8, 8, &t, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK((t == THEANO_BLAS_NO_TRANS && ld == 10));
    CHECK(theano_blas_matrix_rule(4, 3, 8, 32, 8, &t, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK((t == THEANO_BLAS_TRANS && ld == 4));
    // A size-1 dimension's stride does not matter; ld is at least 1.
    CHECK(theano_blas_matrix_rule(1, 5, -8, 4, 4, &t, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK((t == THEANO_BLAS_NO_TRANS && ld == 5));
    CHECK(theano_blas_matrix_rule(1, 0, 0, 0, 4, &t, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK(ld == 1);
    // Negative, zero, overlapping, non-unit and misaligned strides: a copy.
    CHECK(theano_blas_matrix_rule(3, 4, -32, 8, 8, &t, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_matrix_rule(3, 4, 0, 8, 8, &t, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_matrix_rule(3, 4, 16, 8, 8, &t, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_matrix_rule(3, 4, 64, 16, 8, &t, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_matrix_rule(3, 4, 36, 9, 8, &t, &ld, &bad) == THEANO_BLAS_COPY);
    // Past the 32-bit interface: a size or a leading dimension, named in *bad.
    const std::int64_t big = std::int64_t{1} << 31;
    CHECK(theano_blas_matrix_rule(big, 4, 32, 8, 8, &t, &ld, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    CHECK(theano_blas_matrix_rule(3, big, 0, 8, 8, &t, &ld, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    CHECK(theano_blas_matrix_rule(3, 4, big * 8, 8, 8, &t, &ld, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    CHECK(theano_blas_matrix_rule(4, 3, 8, big * 8, 8, &t, &ld, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    // Vectors: a positive increment; length <= 1 reads with increment 1.
    CHECK(theano_blas_vector_rule(5, 24, 8, &inc, &bad) == THEANO_BLAS_DIRECT);
    CHECK(inc == 3);
    CHECK(theano_blas_vector_rule(1, -8, 8, &inc, &bad) == THEANO_BLAS_DIRECT);
    CHECK(inc == 1);
    CHECK(theano_blas_vector_rule(5, -8, 8, &inc, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_vector_rule(5, 0, 8, &inc, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_vector_rule(5, 12, 8, &inc, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_vector_rule(5, big * 4, 4, &inc, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    CHECK(theano_blas_vector_rule(big, 4, 4, &inc, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
  }

  TEST_CASE("the row-major rule (perform's outputs written in place) and a contiguous array's leading dimension") {
    int ld = 0;
    std::int64_t bad = 0;
    // In place: row-major, a view of wider rows, a size-1 dimension's stride ignored.
    CHECK(theano_blas_row_major_rule(3, 4, 32, 8, 8, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK(ld == 4);
    CHECK(theano_blas_row_major_rule(3, 4, 80, 8, 8, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK(ld == 10);
    CHECK(theano_blas_row_major_rule(1, 5, -8, 4, 4, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK(ld == 5);
    CHECK(theano_blas_row_major_rule(4, 1, 8, 0, 8, &ld, &bad) == THEANO_BLAS_DIRECT);
    CHECK(ld == 1);
    // A column-major output (which the matrix rule reads transposed), rows
    // that overlap, negative or misaligned strides: a temporary.
    CHECK(theano_blas_row_major_rule(4, 3, 8, 32, 8, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_row_major_rule(3, 4, 16, 8, 8, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_row_major_rule(3, 4, -32, 8, 8, &ld, &bad) == THEANO_BLAS_COPY);
    CHECK(theano_blas_row_major_rule(3, 4, 36, 9, 8, &ld, &bad) == THEANO_BLAS_COPY);
    // A row-major output whose leading dimension is past the 32-bit interface.
    const std::int64_t big = std::int64_t{1} << 31;
    CHECK(theano_blas_row_major_rule(3, 4, big * 8, 8, 8, &ld, &bad) == THEANO_BLAS_TOO_BIG);
    CHECK(bad == big);
    CHECK(theano_blas_contiguous_ld(0) == 1);
    CHECK(theano_blas_contiguous_ld(1) == 1);
    CHECK(theano_blas_contiguous_ld(7) == 7);
  }

  TEST_CASE("Dot: vector.vector, matrix.vector, vector.matrix, matrix.matrix in every dtype") {
    std::mt19937_64 rng(1);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::Int8, DType::Int64, DType::Bool}) {
      CAPTURE(dtype_name(dt));
      Var v = tensor::tensor(dt, {std::nullopt}, "v"), w = tensor::tensor(dt, {std::nullopt}, "w");
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");
      Var b = tensor::tensor(dt, {std::nullopt, std::nullopt}, "b");
      std::vector<Var> outs{dot(v, w), dot(a, w), dot(v, b), dot(a, b)};
      // (m, k, n): a is m x k, b is k x n, v has k elements, w has k elements.
      for (const auto& s : std::vector<std::vector<std::int64_t>>{
               {3, 4, 5}, {1, 1, 1}, {7, 1, 2}, {1, 6, 1}, {0, 3, 2}, {2, 0, 3}, {3, 2, 0}, {17, 23, 9}}) {
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        check_lowering({v, w, a, b}, outs,
                       {values(rng, {s[1]}, dt), values(rng, {s[1]}, dt), values(rng, {s[0], s[1]}, dt),
                        values(rng, {s[1], s[2]}, dt)});
      }
    }
  }

  TEST_CASE("Dot: mixed dtypes promote like perform") {
    std::mt19937_64 rng(2);
    const std::vector<std::pair<DType, DType>> pairs{{DType::Int32, DType::Float64}, {DType::Float32, DType::Float64},
                                                     {DType::UInt8, DType::Int8},    {DType::Int16, DType::Float32},
                                                     {DType::Bool, DType::Int32},    {DType::Bool, DType::Float32}};
    for (const auto& [dx, dy] : pairs) {
      CAPTURE(dtype_name(dx));
      CAPTURE(dtype_name(dy));
      Var a = tensor::tensor(dx, {std::nullopt, std::nullopt}, "a");
      Var v = tensor::tensor(dx, {std::nullopt}, "v");
      Var b = tensor::tensor(dy, {std::nullopt, std::nullopt}, "b");
      Var w = tensor::tensor(dy, {std::nullopt}, "w");
      check_lowering({a, v, b, w}, {dot(a, b), dot(v, w), dot(a, w), dot(v, b), dot(b, a)},
                     {values(rng, {4, 4}, dx), values(rng, {4}, dx), values(rng, {4, 4}, dy), values(rng, {4}, dy)});
    }
  }

  TEST_CASE("Dot: integer products wrap exactly like perform") {
    std::mt19937_64 rng(3);
    for (DType dt : {DType::Int8, DType::Int16, DType::Int32, DType::UInt8}) {
      CAPTURE(dtype_name(dt));
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");
      Var b = tensor::tensor(dt, {std::nullopt, std::nullopt}, "b");
      const double hi = dt == DType::Int32 ? 2e9 : dt == DType::Int16 ? 30000 : 120;
      check_lowering({a, b}, {dot(a, b)},
                     {random_array(rng, {5, 30}, dt, dt == DType::UInt8 ? 0 : -hi, hi),
                      random_array(rng, {30, 6}, dt, dt == DType::UInt8 ? 0 : -hi, hi)});
    }
  }

  TEST_CASE("Dot: transposed and sliced operands reach BLAS with transpose flags and leading dimensions") {
    std::mt19937_64 rng(4);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      // Non-square shapes, so a wrong transpose flag or leading dimension shows.
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");  // 6 x 4
      Var b = tensor::tensor(dt, {std::nullopt, std::nullopt}, "b");  // 6 x 5
      Var c = tensor::tensor(dt, {std::nullopt, std::nullopt}, "c");  // 5 x 4
      Var v = tensor::tensor(dt, {std::nullopt}, "v");                // 6
      Var at = transpose(a), bt = transpose(b), ct = transpose(c);
      Var as = a[{all, slice(1, 3)}];       // unit inner stride, lda > k
      Var ar = a[{slice(none, none, 2)}];   // every other row: lda = 2 * k
      std::vector<Var> outs{dot(at, b),
                            dot(bt, a),
                            dot(c, at),
                            dot(ct, bt),
                            dot(as, c[{slice(none, 2)}]),
                            dot(ar, ct),
                            dot(at, v),
                            dot(v, b),
                            dot(c, v[{slice(none, 4)}]),
                            dot(a[{all, 2}], b),
                            dot(a[{all, slice(none, none, 2)}], bt[{slice(none, none, 3)}])};
      check_lowering({a, b, c, v}, outs,
                     {values(rng, {6, 4}, dt), values(rng, {6, 5}, dt), values(rng, {5, 4}, dt), values(rng, {6}, dt)});
      const std::string src =
          codegen::CLinker::generate_source(FunctionGraph({a, b, c, v}, outs), {}, false);
      // The host's BLAS calls (blas_calls.h), which take OpenBLAS where the
      // layout rule allows.
      CHECK(src.find(dt == DType::Float64 ? "ctx->kernels->blas_gemm_f64(" : "ctx->kernels->blas_gemm_f32(") !=
            std::string::npos);
      CHECK(src.find(dt == DType::Float64 ? "ctx->kernels->blas_gemv_f64(" : "ctx->kernels->blas_gemv_f32(") !=
            std::string::npos);
    }
  }

  TEST_CASE("Dot22 and Dot of 300x300 float64 matrices run OpenBLAS dgemm from generated code") {
    std::mt19937_64 rng(5);
    Var a = dmatrix("a"), b = dmatrix("b");
    std::vector<Var> outs{dot22(a, b), dot(a, b)};
    FunctionGraph fg({a, b}, outs);
    const std::string src = codegen::CLinker::generate_source(fg, {}, false);
    CHECK(src.find("ctx->kernels->blas_gemm_f64(") != std::string::npos);
    CHECK(src.find("ctx->perform") == std::string::npos);
    check_lowering(
        {a, b}, outs,
        {random_array(rng, {300, 300}, DType::Float64, -1, 1), random_array(rng, {300, 300}, DType::Float64, -1, 1)},
        1e-9);
    Var f = fmatrix("f"), g = fmatrix("g");
    const std::string fsrc = codegen::CLinker::generate_source(FunctionGraph({f, g}, {dot22(f, g)}), {}, false);
    CHECK(fsrc.find("ctx->kernels->blas_gemm_f32(") != std::string::npos);
  }

  TEST_CASE("Dot22: float32 and float64, empty dimensions, non-BLAS layouts") {
    std::mt19937_64 rng(6);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");
      Var b = tensor::tensor(dt, {std::nullopt, std::nullopt}, "b");
      for (const auto& s : std::vector<std::vector<std::int64_t>>{{3, 4, 5}, {1, 1, 1}, {0, 2, 3}, {2, 0, 3}, {4, 3, 0},
                                                                   {33, 17, 21}}) {
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        check_lowering({a, b}, {dot22(a, b), dot22(transpose(b), transpose(a))},
                       {values(rng, {s[0], s[1]}, dt), values(rng, {s[1], s[2]}, dt)});
      }
    }
  }

  TEST_CASE("Gemm: inplace or not, alpha and beta of several dtypes, the special cases") {
    std::mt19937_64 rng(7);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var z = tensor::tensor(dt, {std::nullopt, std::nullopt}, "z");
      Var x = tensor::tensor(dt, {std::nullopt, std::nullopt}, "x");
      Var y = tensor::tensor(dt, {std::nullopt, std::nullopt}, "y");
      Var al = dscalar("alpha");
      Var be = fscalar("beta");
      Var bi = lscalar("bi");
      for (bool inplace : {false, true}) {
        CAPTURE(inplace);
        OpPtr op(new Gemm(inplace));
        for (const auto& ab : std::vector<std::pair<double, double>>{{1, 0}, {0.5, 2}, {-1.5, 1}, {0, 1.5}, {2, -0.5}}) {
          CAPTURE(ab.first);
          CAPTURE(ab.second);
          for (const auto& s : std::vector<std::vector<std::int64_t>>{{3, 4, 5}, {1, 1, 1}, {0, 2, 3}, {2, 0, 3},
                                                                       {4, 3, 0}, {19, 11, 7}}) {
            CAPTURE(s[0]);
            CAPTURE(s[1]);
            CAPTURE(s[2]);
            check_lowering({z, al, x, y, be}, {op->apply1({z, al, x, y, be})},
                           {values(rng, {s[0], s[2]}, dt), dscal(ab.first), values(rng, {s[0], s[1]}, dt),
                            values(rng, {s[1], s[2]}, dt), NDArray::scalar<float>(static_cast<float>(ab.second))},
                           dt == DType::Float32 ? 1e-4 : 0);
          }
        }
        // An integer beta; transposed operands and a transposed (column-major) Z.
        check_lowering(
            {z, al, x, y, bi}, {op->apply1({transpose(z), al, transpose(x), y, bi})},
            {values(rng, {5, 4}, dt), dscal(0.25), values(rng, {3, 4}, dt), values(rng, {3, 5}, dt), test::i64(3)},
            dt == DType::Float32 ? 1e-4 : 0);
        // beta == 0 does not read Z (NaN there stays out of the result).
        NDArray znan = NDArray::full({3, 2}, std::numeric_limits<double>::quiet_NaN(), dt);
        check_lowering(
            {z, al, x, y, be}, {op->apply1({z, al, x, y, be})},
            {znan, dscal(2), values(rng, {3, 4}, dt), values(rng, {4, 2}, dt), NDArray::scalar<float>(0.0f)});
      }
      // The non-inplace Gemm from gemm(), next to other uses of Z.
      check_lowering({z, al, x, y, be}, {gemm(z, al, x, y, be), z * 2.0},
                     {values(rng, {4, 4}, dt), dscal(1.5), values(rng, {4, 4}, dt), values(rng, {4, 4}, dt),
                      NDArray::scalar<float>(0.5f)},
                     dt == DType::Float32 ? 1e-4 : 0);
    }
  }

  TEST_CASE("Gemm{inplace} with X a view of Z copies X first") {
    std::mt19937_64 rng(8);
    Var z = dmatrix("z"), y = dmatrix("y");
    Var al = dscalar("alpha"), be = dscalar("beta");
    Var out = OpPtr(new Gemm(true))->apply1({z, al, transpose(z), y, be});
    check_lowering({z, al, y, be}, {out},
                   {values(rng, {4, 4}, DType::Float64), dscal(0.5), values(rng, {4, 4}, DType::Float64), dscal(2)});
  }

  TEST_CASE("Gemv: inplace or not, transposed A, alpha and beta special cases") {
    std::mt19937_64 rng(9);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var y = tensor::tensor(dt, {std::nullopt}, "y");
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");
      Var x = tensor::tensor(dt, {std::nullopt}, "x");
      Var al = dscalar("alpha"), be = dscalar("beta");
      for (bool inplace : {false, true}) {
        CAPTURE(inplace);
        OpPtr op(new Gemv(inplace));
        for (const auto& ab : std::vector<std::pair<double, double>>{{1, 0}, {0.5, 2}, {0, 1.5}, {-2, 0.5}}) {
          CAPTURE(ab.first);
          CAPTURE(ab.second);
          for (const auto& s : std::vector<std::vector<std::int64_t>>{{3, 4}, {1, 1}, {0, 3}, {3, 0}, {21, 13}}) {
            CAPTURE(s[0]);
            CAPTURE(s[1]);
            check_lowering({y, al, a, x, be}, {op->apply1({y, al, a, x, be})},
                           {values(rng, {s[0]}, dt), dscal(ab.first), values(rng, {s[0], s[1]}, dt),
                            values(rng, {s[1]}, dt), dscal(ab.second)},
                           dt == DType::Float32 ? 1e-4 : 0);
            check_lowering({y, al, a, x, be}, {op->apply1({y, al, transpose(a), x, be})},
                           {values(rng, {s[1]}, dt), dscal(ab.first), values(rng, {s[0], s[1]}, dt),
                            values(rng, {s[0]}, dt), dscal(ab.second)},
                           dt == DType::Float32 ? 1e-4 : 0);
          }
        }
        NDArray ynan = NDArray::full({3}, std::numeric_limits<double>::quiet_NaN(), dt);
        check_lowering({y, al, a, x, be}, {op->apply1({y, al, a, x, be})},
                       {ynan, dscal(1), values(rng, {3, 2}, dt), values(rng, {2}, dt), dscal(0)});
      }
      check_lowering({y, al, a, x, be}, {gemv(y, al, a, x, be), y + 1.0},
                     {values(rng, {5}, dt), dscal(1), values(rng, {5, 5}, dt), values(rng, {5}, dt), dscal(1)},
                     dt == DType::Float32 ? 1e-4 : 0);
    }
    // x a view of the destroyed y.
    Var y = dvector("y"), a = dmatrix("a");
    Var al = dscalar("alpha"), be = dscalar("beta");
    check_lowering({y, al, a, be}, {OpPtr(new Gemv(true))->apply1({y, al, a, y, be})},
                   {values(rng, {4}, DType::Float64), dscal(1), values(rng, {4, 4}, DType::Float64), dscal(1)});
  }

  TEST_CASE("Ger: destructive or not, transposed A, alpha of several dtypes") {
    std::mt19937_64 rng(10);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var a = tensor::tensor(dt, {std::nullopt, std::nullopt}, "a");
      Var x = tensor::tensor(dt, {std::nullopt}, "x");
      Var y = tensor::tensor(dt, {std::nullopt}, "y");
      Var al = dscalar("alpha");
      Var ai = iscalar("ai");
      for (bool destructive : {false, true}) {
        CAPTURE(destructive);
        OpPtr op(new Ger(destructive));
        for (double alpha : {1.0, -0.5, 0.0}) {
          CAPTURE(alpha);
          for (const auto& s : std::vector<std::vector<std::int64_t>>{{3, 4}, {1, 1}, {0, 3}, {3, 0}, {16, 9}}) {
            CAPTURE(s[0]);
            CAPTURE(s[1]);
            check_lowering(
                {a, al, x, y}, {op->apply1({a, al, x, y})},
                {values(rng, {s[0], s[1]}, dt), dscal(alpha), values(rng, {s[0]}, dt), values(rng, {s[1]}, dt)},
                dt == DType::Float32 ? 1e-4 : 0);
            // A transposed (column-major) A.
            check_lowering(
                {a, al, x, y}, {op->apply1({transpose(a), al, x, y})},
                {values(rng, {s[1], s[0]}, dt), dscal(alpha), values(rng, {s[0]}, dt), values(rng, {s[1]}, dt)},
                dt == DType::Float32 ? 1e-4 : 0);
          }
        }
        check_lowering(
            {a, ai, x, y}, {op->apply1({a, ai, x, y})},
            {values(rng, {3, 2}, dt), NDArray::scalar<std::int32_t>(-2), values(rng, {3}, dt), values(rng, {2}, dt)},
            dt == DType::Float32 ? 1e-4 : 0);
      }
      check_lowering({a, al, x, y}, {ger(a, al, x, y), a * 3.0},
                     {values(rng, {4, 3}, dt), dscal(2), values(rng, {4}, dt), values(rng, {3}, dt)});
    }
    // y a view of the destroyed A (its first row, updated before the others).
    Var a = dmatrix("a"), x = dvector("x");
    Var al = dscalar("alpha");
    check_lowering({a, al, x}, {OpPtr(new Ger(true))->apply1({a, al, x, a[0]})},
                   {values(rng, {3, 3}, DType::Float64), dscal(1), values(rng, {3}, DType::Float64)});
  }

  TEST_CASE("BLAS ops: size mismatches are ShapeErrors naming the op") {
    Var v = dvector("v"), w = dvector("w"), a = dmatrix("a"), b = dmatrix("b");
    Var vi = ivector("vi"), ai = imatrix("ai");
    check_error<ShapeError>({v, w}, {dot(v, w)}, {NDArray::zeros({3}), NDArray::zeros({4})}, "Dot");
    check_error<ShapeError>({a, w}, {dot(a, w)}, {NDArray::zeros({2, 3}), NDArray::zeros({2})}, "Dot");
    check_error<ShapeError>({v, b}, {dot(v, b)}, {NDArray::zeros({3}), NDArray::zeros({2, 3})}, "Dot");
    check_error<ShapeError>({a, b}, {dot(a, b)}, {NDArray::zeros({2, 3}), NDArray::zeros({2, 3})}, "Dot");
    check_error<ShapeError>({ai, vi}, {dot(ai, vi)},
                            {NDArray::zeros({2, 3}, DType::Int32), NDArray::zeros({4}, DType::Int32)}, "Dot");
    check_error<ShapeError>({a, b}, {dot22(a, b)}, {NDArray::zeros({2, 3}), NDArray::zeros({4, 2})}, "Dot22");
    Var z = dmatrix("z");
    Var al = dscalar("alpha"), be = dscalar("beta");
    for (bool inplace : {false, true}) {
      CAPTURE(inplace);
      OpPtr gm(new Gemm(inplace));
      check_error<ShapeError>({z, al, a, b, be}, {gm->apply1({z, al, a, b, be})},
                              {NDArray::zeros({2, 2}), dscal(1), NDArray::zeros({2, 3}), NDArray::zeros({2, 2}),
                               dscal(1)},
                              "Gemm");
      check_error<ShapeError>({z, al, a, b, be}, {gm->apply1({z, al, a, b, be})},
                              {NDArray::zeros({3, 2}), dscal(1), NDArray::zeros({2, 3}), NDArray::zeros({3, 2}),
                               dscal(1)},
                              "Gemm");
      OpPtr gv(new Gemv(inplace));
      check_error<ShapeError>({v, al, a, w, be}, {gv->apply1({v, al, a, w, be})},
                              {NDArray::zeros({2}), dscal(1), NDArray::zeros({2, 3}), NDArray::zeros({2}), dscal(1)},
                              "Gemv");
      check_error<ShapeError>({v, al, a, w, be}, {gv->apply1({v, al, a, w, be})},
                              {NDArray::zeros({3}), dscal(1), NDArray::zeros({2, 3}), NDArray::zeros({3}), dscal(1)},
                              "Gemv");
      OpPtr gr(new Ger(inplace));
      check_error<ShapeError>({a, al, v, w}, {gr->apply1({a, al, v, w})},
                              {NDArray::zeros({2, 3}), dscal(1), NDArray::zeros({3}), NDArray::zeros({3})}, "Ger");
      check_error<ShapeError>({a, al, v, w}, {gr->apply1({a, al, v, w})},
                              {NDArray::zeros({2, 3}), dscal(1), NDArray::zeros({2}), NDArray::zeros({2})}, "Ger");
    }
  }
}

// The C++ lowering of the LAPACK-backed ops (emit/lower/linalg.cpp): generated
// code against perform for every op, float64 and float32, batched (broadcast
// batch dims too), vector and matrix right-hand sides, strided inputs
// (check_sets runs non-contiguous copies), 0-size matrices and batches; both
// run the host's build of kernels/linalg.h (generated code through
// host_kernels.h's table), so they agree bit for bit. The errors (not positive
// definite, singular, NaN, non-square, mismatched shapes) are the same kind
// from both, naming the op.
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/type.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../compiler/tensor/linalg_test_util.h"
#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;
namespace LA = theano::tensor::linalg;

TEST_SUITE("lower linalg") {
  TEST_CASE("LAPACK-backed ops: generated code equals perform, batched, float64 and float32, 0-size") {
    std::mt19937_64 rng(21);
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      const Var a = any_tensor(dt, 3, "a"), b = any_tensor(dt, 2, "b"), v = any_tensor(dt, 1, "v");
      const Var r = any_tensor(dt, 3, "r");
      std::vector<Var> outs{LA::cholesky(a), LA::cholesky(a, false), LA::solve_triangular(a, b, true),
                            LA::solve_triangular(a, v, false, 1, true), LA::cho_solve({LA::cholesky(a), true}, b),
                            LA::solve(a, b), LA::solve(a, v, "sym", true), LA::solve(a, b, "pos"), LA::inv(a),
                            LA::det(a), LA::slogdet(a).first, LA::slogdet(a).second, LA::eigh(a).first,
                            LA::eigh(a, "U").second, LA::eigvalsh(a), LA::lu_factor(a).first,
                            LA::lu_factor(a).second, LA::pivot_to_permutation(LA::lu_factor(a).second, true),
                            OpPtr(new LA::CholeskyGrad(true))->apply1({LA::cholesky(a), a}),
                            OpPtr(new LA::CholeskyGrad(false))->apply1({LA::cholesky(a, false), LA::inv(a)})};
      for (bool full : {false, true})
        for (const Var& o : LA::svd(r, full)) outs.push_back(o);
      outs.push_back(LA::svdvals(r));
      outs.push_back(LA::pinv(r));
      for (const char* mode : {"reduced", "complete", "r"})
        for (const Var& o : LA::qr(r, mode)) outs.push_back(o);
      std::vector<std::vector<NDArray>> sets;
      for (auto [batch, n, m, k] : std::vector<std::array<std::int64_t, 4>>{{3, 4, 5, 3}, {1, 1, 2, 6}, {2, 0, 0, 3}, {0, 3, 4, 2}}) {
        sets.push_back({latest::spd(rng, {batch, n, n}).astype(dt), latest::uniform(rng, {n, 2}).astype(dt),
                        latest::uniform(rng, {n}).astype(dt), latest::uniform(rng, {batch, m, k}).astype(dt)});
      }
      // Bit for bit: generated code calls the host's build of the kernels perform runs
      // (host_kernels.h), the same text compiled by the same compiler, and the same LAPACK calls.
      check_sets({a, b, v, r}, outs, sets, Agreement{.bitwise = true});
    }
  }

  TEST_CASE("LAPACK-backed ops: the unit calls the host's build of kernels/linalg.h, no perform fallback") {
    // host_kernels.h: the rule, the workspace query and the run through
    // ctx->kernels; the unit embeds linalg_call.h (the call record) only.
    const Var x = matrix("x", DType::Float32);
    const std::string src = codegen::CLinker::generate_source(FunctionGraph({x}, {LA::cholesky(x)}), {}, false);
    CHECK(src.find("ctx->kernels->la_rule(&c)") != std::string::npos);
    CHECK(src.find("ctx->kernels->la_work_f32(&c, &wbytes)") != std::string::npos);
    CHECK(src.find("ctx->kernels->la_run_f32(&c)") != std::string::npos);
    CHECK(src.find("typedef struct TheanoLaCall") != std::string::npos);
    CHECK(src.find("THEANO_LA_KERNELS(") == std::string::npos);
    CHECK(src.find("THEANO_LA_EXPM_KERNELS(") == std::string::npos);
  }

  TEST_CASE("LAPACK-backed ops: errors from generated code name the op, the matrix and LAPACK's info") {
    const Var a = any_tensor(DType::Float64, 2, "a"), b = any_tensor(DType::Float64, 2, "b");
    const Var t = any_tensor(DType::Float64, 3, "t");
    const NDArray bad = NDArray::from_list<double>({1, 2, 0, 2, 1, 0, 0, 0, 1}, {3, 3});
    check_error<ValueError>({a}, {LA::cholesky(a)}, {bad}, "Cholesky",
                            "the matrix (input 0) is not positive definite: leading minor 2");
    NDArray both = NDArray::zeros({2, 3, 3});
    both.index(0, 0).assign(NDArray::from_vector(latest::identity(3), {3, 3}));
    both.index(0, 1).assign(bad);
    check_error<ValueError>({t}, {LA::cholesky(t)}, {both}, "Cholesky", "(batch entry 1)");
    const NDArray sing = NDArray::from_list<double>({1, 2, 2, 4}, {2, 2});
    check_error<ValueError>({a}, {LA::inv(a)}, {sing}, "MatrixInverse", "is singular");
    check_error<ValueError>({a, b}, {LA::solve(a, b)}, {sing, NDArray::ones({2, 1})}, "Solve", "is singular");
    check_error<ValueError>({a, b}, {LA::solve_triangular(a, b, true)},
                            {NDArray::from_list<double>({1, 0, 1, 0}, {2, 2}), NDArray::ones({2, 1})}, "SolveTriangular",
                            "diagonal element 1 is zero");
    NDArray nan = NDArray::from_vector(latest::identity(3), {3, 3});
    nan.index(0, 2).index(0, 0).fill(std::numeric_limits<double>::quiet_NaN());
    check_error<ValueError>({a}, {LA::eigvalsh(a)}, {nan}, "Eigh", "contains a NaN or an infinity, at row 2, column 0");
    check_error<ValueError>({a}, {LA::cholesky(a)}, {nan}, "Cholesky", "contains a NaN or an infinity, at row 2, column 0");
    check_error<ValueError>({a, b}, {LA::cho_solve({a, true}, b)}, {nan, NDArray::ones({3, 1})}, "CholeskySolve",
                            "contains a NaN or an infinity, at row 2, column 0");
    check_error<ShapeError>({a}, {LA::det(a)}, {NDArray::zeros({2, 3})}, "Det", "must be a square matrix");
    check_error<ShapeError>({a, b}, {LA::solve(a, b)}, {NDArray::from_vector(latest::identity(3), {3, 3}), NDArray::ones({2, 1})},
                            "Solve", "has 2 rows but the matrix (input 0) has 3");
    const Var u = any_tensor(DType::Float64, 3, "u");
    check_error<ShapeError>({t, u}, {LA::solve(t, u)}, {NDArray::zeros({2, 3, 3}), NDArray::zeros({3, 3, 1})}, "Solve",
                            "the batch dimensions do not broadcast");
    // cholesky(on_error="nan") gives NaNs from generated code too.
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{a}, std::vector<Var>{LA::cholesky(a, true, "nan")});
    std::vector<NDArray> out(1);
    const std::vector<NDArray> in{bad};
    lowered_thunk(fg)->run(in, out);
    CHECK(std::isnan(out[0].data_as<double>()[0]));
  }
}

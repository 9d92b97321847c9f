// Sparse matrices in functions (theano/sparse/ops.h, components.h): every op
// against the dense computation, through the reference linker (perform) and
// the generated code (cpp), float64 and float32, CSR and CSC; structured
// gradients with verify_grad; malformed components as errors naming the
// broken invariant in both linkers.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/sparse/sparse_test_util.h"
#include "test_util.h"
#include "use_linker.h"
#include "theano/codegen/c_linker.h"
#include "theano/config.h"
#include "theano/sparse/components.h"
#include "theano/sparse/ops.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

using theano::test::concat;

namespace {

/// A deterministic m x n matrix with about `fill` of its entries non-zero.
NDArray random_dense(int64_t m, int64_t n, double fill, uint64_t seed, DType dtype = DType::Float64) {
  NDArray a = NDArray::zeros({m, n});
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  double* p = a.data_as<double>();
  for (int64_t i = 0; i < m * n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double v = static_cast<double>(s >> 11) / 9007199254740992.0 * 2 - 1;
    if (u < fill) p[i] = v;
  }
  return dtype == DType::Float64 ? a : a.astype(dtype);
}

/// a . b by plain loops, in double.
NDArray dense_dot(const NDArray& a, const NDArray& b) {
  const NDArray x = a.astype(DType::Float64), y = b.astype(DType::Float64);
  const int64_t m = x.shape()[0], k = x.shape()[1], n = y.shape()[1];
  NDArray r = NDArray::zeros({m, n});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t t = 0; t < k; ++t) s += x.at<double>({i, t}) * y.at<double>({t, j});
      r.at<double>({i, j}) = s;
    }
  return r;
}

using theano::test::UseLinker;

const char* const kLinkers[] = {"py", "cpp"};

}  // namespace

TEST_SUITE("sparse ops") {
  TEST_CASE("structured_dot equals the dense product: CSR and CSC, float64 and float32, perform and generated code") {
    for (const char* linker : kLinkers)
      for (SparseFormat fmt : {SparseFormat::CSR, SparseFormat::CSC})
        for (DType dt : {DType::Float64, DType::Float32}) {
          CAPTURE(linker);
          CAPTURE(to_string(fmt));
          CAPTURE(dtype_name(dt));
          UseLinker l(linker);
          S::SparseInput s = fmt == SparseFormat::CSR ? S::csr_matrix("S", dt) : S::csc_matrix("S", dt);
          Var d = T::TensorType::make(dt, {std::nullopt, std::nullopt})->make_variable("D");
          Function f = function(concat(s.ins(), {In(d)}), {S::structured_dot(s, d)});
          const NDArray a = random_dense(37, 23, 0.2, 1, dt), b = random_dense(23, 9, 1.0, 2, dt);
          const NDArray r = f(concat(S::arguments(SparseMatrix::from_dense(a, fmt)), {b}))[0];
          CHECK(r.dtype() == dt);
          CHECK(allclose(r.astype(DType::Float64), dense_dot(a, b), dt == DType::Float32 ? 1e-5 : 1e-12, 1e-6));
        }
  }

  TEST_CASE("structured_dot: empty matrices, a row with no stored value, strided D") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      S::SparseInput s = S::csr_matrix("S");
      Var d = T::dmatrix("D");
      Function f = function(concat(s.ins(), {In(d)}), {S::structured_dot(s, d)});
      NDArray a = random_dense(6, 5, 0.5, 3);
      for (int64_t j = 0; j < 5; ++j) a.at<double>({2, j}) = 0;  // row 2 stores nothing
      const NDArray big = random_dense(5, 8, 1.0, 4);
      const NDArray b = big.slice(1, 0, std::nullopt, 2);  // every other column: a strided view
      CHECK(allclose(f(concat(S::arguments(SparseMatrix::from_dense(a, SparseFormat::CSR)), {b}))[0], dense_dot(a, b)));
      const NDArray e = f(concat(S::arguments(SparseMatrix::from_dense(NDArray::zeros({0, 5}), SparseFormat::CSR)),
                                 {random_dense(5, 3, 1.0, 5)}))[0];
      CHECK(e.shape() == std::vector<int64_t>{0, 3});
    }
  }

  TEST_CASE("dense_from_sparse, sparse_from_dense and transpose agree with the dense matrix") {
    for (const char* linker : kLinkers)
      for (SparseFormat fmt : {SparseFormat::CSR, SparseFormat::CSC}) {
        CAPTURE(linker);
        CAPTURE(to_string(fmt));
        UseLinker l(linker);
        S::SparseInput s = fmt == SparseFormat::CSR ? S::csr_matrix("S") : S::csc_matrix("S");
        Var m = T::dmatrix("M");
        const Var round = S::dense_from_sparse(S::sparse_from_dense(m, fmt));
        Function f = function(concat(s.ins(), {In(m)}), {S::dense_from_sparse(s), S::dense_from_sparse(S::transpose(s)), round});
        const NDArray a = random_dense(7, 4, 0.3, 6);
        const std::vector<NDArray> r = f(concat(S::arguments(SparseMatrix::from_dense(a, fmt)), {a}));
        CHECK(array_equal(r[0], a));
        CHECK(array_equal(r[1], a.transpose().contiguous()));
        CHECK(array_equal(r[2], a));
      }
  }

  TEST_CASE("repeated and unsorted indices add up, as in SciPy") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      S::SparseInput s = S::csr_matrix("S");
      Var d = T::dmatrix("D");
      Function f = function(concat(s.ins(), {In(d)}), {S::dense_from_sparse(s), S::structured_dot(s, d)});
      // Row 0 stores column 2 twice (1 + 2) and column 0 after it.
      const SparseMatrix m(SparseFormat::CSR, test::vec({1, 2, 4, 5}), NDArray::from_list<int64_t>({2, 2, 0, 1}),
                           NDArray::from_list<int64_t>({0, 3, 4}), {2, 3});
      const NDArray b = random_dense(3, 2, 1.0, 7);
      const std::vector<NDArray> r = f(concat(S::arguments(m), {b}));
      const NDArray want = NDArray::from_vector<double>({4, 0, 3, 0, 5, 0}, {2, 3});
      CHECK(array_equal(r[0], want));
      CHECK(allclose(r[1], dense_dot(want, b)));
    }
  }

  TEST_CASE("malformed components are a ValueError naming the broken invariant, in both linkers") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      S::SparseInput s = S::csr_matrix("S");
      Var d = T::dmatrix("D");
      Function f = function(concat(s.ins(), {In(d)}), {S::structured_dot(s, d)});
      const NDArray b = random_dense(3, 2, 1.0, 8);
      auto call = [&](NDArray data, std::initializer_list<int64_t> idx, std::initializer_list<int64_t> ptr) {
        return test::error_of([&] {
          f({data, NDArray::from_list<int64_t>(idx), NDArray::from_list<int64_t>(ptr),
             NDArray::from_list<int64_t>({2, 3}), b});
        });
      };
      CHECK(call(test::vec({1, 2}), {0, 3}, {0, 1, 2}).find("a stored index lies outside the matrix: 3") !=
            std::string::npos);
      CHECK(call(test::vec({1, 2}), {0, 1}, {0, 2}).find("indptr must have one entry more") != std::string::npos);
      CHECK(call(test::vec({1, 2}), {0, 1}, {1, 1, 2}).find("indptr must start at 0") != std::string::npos);
      CHECK(call(test::vec({1, 2}), {0, 1}, {0, 2, 1}).find("must not decrease") != std::string::npos);
      CHECK(call(test::vec({1, 2}), {0, 1}, {0, 1, 1}).find("last entry must be the number of stored values") !=
            std::string::npos);
      CHECK(call(test::vec({1}), {0, 1}, {0, 1, 1}).find("indices must have as many entries as data") !=
            std::string::npos);
      CHECK_THROWS_AS(f({test::vec({1, 2}), NDArray::from_list<int64_t>({0, 3}), NDArray::from_list<int64_t>({0, 1, 2}),
                         NDArray::from_list<int64_t>({2, 3}), b}),
                      ValueError);
      // D's rows must match the matrix's columns.
      CHECK_THROWS_AS(f({test::vec({1, 2}), NDArray::from_list<int64_t>({0, 1}), NDArray::from_list<int64_t>({0, 1, 2}),
                         NDArray::from_list<int64_t>({2, 4}), b}),
                      ShapeError);
    }
  }

  TEST_CASE("gradients: verify_grad through structured_dot w.r.t. D and the stored values, and dense_from_sparse") {
    const NDArray a = random_dense(6, 5, 0.4, 9);
    for (SparseFormat fmt : {SparseFormat::CSR, SparseFormat::CSC}) {
      CAPTURE(to_string(fmt));
      const SparseMatrix m = SparseMatrix::from_dense(a, fmt);
      const Var idx = T::constant(m.indices()), ptr = T::constant(m.indptr()), shp = T::constant(m.shape_array());
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::structured_dot(S::csm(fmt, in[0], idx, ptr, shp), in[1]); },
          {m.data(), random_dense(5, 3, 1.0, 10)});
      testing::verify_grad(
          [&](const std::vector<Var>& in) {
            return S::structured_dot(S::transpose(S::csm(fmt, in[0], idx, ptr, shp)), in[1]);
          },
          {m.data(), random_dense(6, 2, 1.0, 11)});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::csm(fmt, in[0], idx, ptr, shp)); },
          {m.data()});
    }
  }

  TEST_CASE("the structured gradient of structured_dot w.r.t. S is non-zero only where S stores values") {
    UseLinker l("cpp");
    S::SparseInput s = S::csr_matrix("S");
    Var d = T::dmatrix("D");
    const Var cost = T::sum(T::sqr(S::structured_dot(s, d)));
    const Var gs = grad(cost, s.data);  // through CSM: the gradient's data, one value per stored entry
    const Var gd = grad(cost, d);
    Function f = function(concat(s.ins(), {In(d)}), {gs, gd});
    const NDArray a = random_dense(8, 6, 0.3, 12), b = random_dense(6, 4, 1.0, 13);
    const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
    const std::vector<NDArray> r = f(concat(S::arguments(m), {b}));
    // d cost / dS = 2 (S D) D^T, read at the stored positions only.
    const NDArray g = dense_dot(dense_dot(a, b), b.transpose().contiguous());
    CHECK(r[0].size() == m.nnz());
    for (int64_t i = 0; i < 8; ++i)
      for (int64_t k = m.indptr().data_as<int64_t>()[i]; k < m.indptr().data_as<int64_t>()[i + 1]; ++k)
        CHECK(r[0].data_as<double>()[k] ==
              doctest::Approx(2 * g.at<double>({i, m.indices().data_as<int64_t>()[k]})).epsilon(1e-12));
    // d cost / dD = 2 S^T (S D).
    NDArray want = dense_dot(a.transpose().contiguous(), dense_dot(a, b));
    for (int64_t i = 0; i < want.size(); ++i) want.data_as<double>()[i] *= 2;
    CHECK(allclose(r[1], want, 1e-12, 1e-12));
  }

  TEST_CASE("a sparse input of function() is a TypeError saying how to pass it (outputs: test_sparse_call.cpp)") {
    S::SparseInput s = S::csr_matrix("S");
    Var d = T::dmatrix("D");
    std::string e = test::error_of([&] { function({In(s.var), In(d)}, {S::structured_dot(s, d)}); });
    CHECK(e.find("is a sparse matrix") != std::string::npos);
    CHECK(e.find("sparse::csr_matrix") != std::string::npos);
  }

  TEST_CASE("the component kernels directly: SpMM{csc}, SwapFormat, SampledDot, SparseGather in both linkers") {
    const NDArray a = random_dense(9, 7, 0.35, 20), b = random_dense(7, 5, 1.0, 21), x = random_dense(9, 5, 1.0, 22);
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      const SparseMatrix csc = SparseMatrix::from_dense(a, SparseFormat::CSC);
      Var data = T::dvector("data"), idx = T::lvector("idx"), ptr = T::lvector("ptr"), shp = T::lvector("shp");
      Var d = T::dmatrix("D"), vx = T::dmatrix("X"), m = T::dmatrix("M");
      const std::vector<Var> swapped = OpPtr(new S::SwapFormat(SparseFormat::CSC))->operator()({data, idx, ptr, shp});
      Function f = function({data, idx, ptr, shp, d, vx, m},
                            {OpPtr(new S::SpMM(SparseFormat::CSC))->apply1({data, idx, ptr, shp, d}), swapped[0],
                             swapped[1], swapped[2],
                             OpPtr(new S::SampledDot(SparseFormat::CSC))->apply1({idx, ptr, shp, vx, d}),
                             OpPtr(new S::SparseGather(SparseFormat::CSC))->apply1({idx, ptr, shp, m})});
      const std::vector<NDArray> r = f(concat(S::arguments(csc), {b, x, a}));
      CHECK(allclose(r[0], dense_dot(a, b)));
      const SparseMatrix csr = csc.as_format(SparseFormat::CSR);
      CHECK(array_equal(r[1], csr.data()));
      CHECK(array_equal(r[2], csr.indices()));
      CHECK(array_equal(r[3], csr.indptr()));
      // At each stored (i, j): X[i, :] . D[j, :] and M[i, j] (= the stored value).
      const int64_t* p = csc.indptr().data_as<int64_t>();
      const int64_t* ix = csc.indices().data_as<int64_t>();
      for (int64_t j = 0; j < 7; ++j)
        for (int64_t k = p[j]; k < p[j + 1]; ++k) {
          double s = 0;
          for (int64_t t = 0; t < 5; ++t) s += x.at<double>({ix[k], t}) * b.at<double>({j, t});
          CHECK(r[4].data_as<double>()[k] == doctest::Approx(s).epsilon(1e-12));
          CHECK(r[5].data_as<double>()[k] == csc.data().data_as<double>()[k]);
        }
    }
  }

  TEST_CASE("infer_shape of the component ops agrees with perform") {
    const NDArray a = random_dense(6, 4, 0.5, 30), b = random_dense(4, 3, 1.0, 31), x = random_dense(6, 3, 1.0, 32);
    const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
    Var data = T::dvector("data"), idx = T::lvector("idx"), ptr = T::lvector("ptr"), shp = T::lvector("shp");
    Var d = T::dmatrix("D"), vx = T::dmatrix("X"), mm = T::dmatrix("M"), z = T::dmatrix("Z");
    const SparseFormat f = SparseFormat::CSR;
    CHECK_NOTHROW(testing::check_infer_shape(
        {data, idx, ptr, shp, d, vx, mm, z},
        {OpPtr(new S::SpMM(f))->apply1({data, idx, ptr, shp, d}),
         OpPtr(new S::SampledDot(f))->apply1({idx, ptr, shp, vx, d}),
         OpPtr(new S::SparseGather(f))->apply1({idx, ptr, shp, mm}),
         OpPtr(new S::ComponentsToDense(f))->apply1({data, idx, ptr, shp}),
         OpPtr(new S::Usmm(f))->apply1({T::constant(NDArray::scalar(2.0)), data, idx, ptr, shp, d, z})},
        concat(S::arguments(m), {b, x, a, random_dense(6, 3, 1.0, 33)})));
  }

  TEST_CASE("every mode expands sparse graphs: unoptimized, fast_compile, fast_run, debugmode, nanguardmode") {
    const NDArray a = random_dense(8, 6, 0.4, 40), b = random_dense(6, 3, 1.0, 41);
    const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSC);
    for (const char* mode : {"unoptimized", "fast_compile", "fast_run", "debugmode", "nanguardmode"}) {
      CAPTURE(mode);
      S::SparseInput s = S::csc_matrix("S");
      Var d = T::dmatrix("D");
      const Var out = S::structured_dot(s, d);
      FunctionOptions o;
      o.mode = mode;
      Function f = function(concat(s.ins(), {In(d)}), {out, grad(T::sum(out), d)}, o);
      const std::vector<NDArray> r = f(concat(S::arguments(m), {b}));
      CHECK(allclose(r[0], dense_dot(a, b)));
      CHECK(allclose(r[1], dense_dot(a.transpose().contiguous(), NDArray::ones({8, 3}))));
    }
  }
}

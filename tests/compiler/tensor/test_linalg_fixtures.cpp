// Every linear algebra op of docs/linalg.md and docs/linalg-structure.md
// against NumPy / SciPy references (tests/data/linalg/gen_linalg.py: the
// inputs and the expected outputs as .npy, one prefix per case), in float64
// and, the inputs cast, in float32 with float32 tolerances. Factors defined
// up to signs (eigh's V, svd's U / Vt, qr's Q / R) are compared with each
// column's sign aligned; eig's eigenvalues as sorted sets and its vectors
// through A v = v w.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <string>
#include <vector>

#include "linalg_test_util.h"
#include "test_util.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_eig.h"
#include "theano/tensor/linalg_expm.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace LA = theano::tensor::linalg;

namespace {

NDArray fixture(const std::string& name) { return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/linalg/" + name + ".npy"); }
NDArray in(const std::string& c, int k) { return fixture(c + "_in" + std::to_string(k)); }
NDArray out(const std::string& c, int k) { return fixture(c + "_out" + std::to_string(k)); }

std::vector<double> values(const NDArray& a) {
  const NDArray c = a.astype(DType::Float64).copy();
  return std::vector<double>(c.data_as<double>(), c.data_as<double>() + c.size());
}

/// got and want agree in shape and, normwise, to `tol` relative to max|want| (at least 1).
void check_close(const NDArray& got, const NDArray& want, double tol) {
  REQUIRE(got.shape() == want.shape());
  const std::vector<double> g = values(got), w = values(want);
  double scale = 1, err = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    scale = std::max(scale, std::abs(w[i]));
    err = std::max(err, std::abs(g[i] - w[i]));
  }
  INFO("got " << got << "\nwant " << want);
  CHECK(err <= tol * scale);
}

/// The columns (axis -1 indexes them) of got multiplied by the sign that
/// aligns each with want's (their dot product's sign); with `rows` the rows.
NDArray align_signs(const NDArray& got, const NDArray& want, bool rows = false) {
  const std::int64_t r = got.shape()[static_cast<std::size_t>(got.ndim() - 2)], c = got.shape().back();
  NDArray g = got.astype(DType::Float64).copy();
  const std::vector<double> w = values(want);
  double* p = g.data_as<double>();
  const std::int64_t count = r * c != 0 ? g.size() / (r * c) : 0;
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t j = 0; j < (rows ? r : c); ++j) {
      double dot = 0;
      for (std::int64_t i = 0; i < (rows ? c : r); ++i) {
        const std::int64_t at = b * r * c + (rows ? j * c + i : i * c + j);
        dot += p[at] * w[static_cast<std::size_t>(at)];
      }
      if (dot < 0)
        for (std::int64_t i = 0; i < (rows ? c : r); ++i) p[b * r * c + (rows ? j * c + i : i * c + j)] *= -1;
    }
  return g;
}

Var sym(const NDArray& a, DType dt, const std::string& name) {
  return tensor::tensor(dt, StaticShape(static_cast<std::size_t>(a.ndim()), Dim()), name);
}

/// Runs `make` on symbolic inputs of dtype dt (the case's inputs cast) for
/// float64 (tolerance tol64) and float32 (tol32), checking its outputs
/// against the case's, each through `cmp` (check_close by default).
using Make = std::function<std::vector<Var>(const std::vector<Var>&)>;
void run_case(const std::string& c, int nin, const Make& make, double tol64 = 1e-10, double tol32 = 2e-4,
              const std::vector<int>& aligned_columns = {}, const std::vector<int>& aligned_rows = {}) {
  CAPTURE(c);
  for (const DType dt : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(dt));
    std::vector<Var> xs;
    std::vector<std::pair<Var, NDArray>> feed;
    for (int k = 0; k < nin; ++k) {
      const NDArray v = in(c, k).astype(dt);
      xs.push_back(sym(v, dt, "x" + std::to_string(k)));
      feed.emplace_back(xs.back(), v);
    }
    const std::vector<Var> outs = make(xs);
    for (std::size_t k = 0; k < outs.size(); ++k) {
      CAPTURE(k);
      const NDArray want = out(c, static_cast<int>(k));
      NDArray got = outs[k].eval(feed);
      if (is_float(want.dtype())) CHECK(got.dtype() == dt);
      if (std::find(aligned_columns.begin(), aligned_columns.end(), static_cast<int>(k)) != aligned_columns.end())
        got = align_signs(got, want);
      if (std::find(aligned_rows.begin(), aligned_rows.end(), static_cast<int>(k)) != aligned_rows.end())
        got = align_signs(got, want, true);
      check_close(got, want, dt == DType::Float64 ? tol64 : tol32);
    }
  }
}

Make one(std::function<Var(const std::vector<Var>&)> f) {
  return [f](const std::vector<Var>& x) { return std::vector<Var>{f(x)}; };
}

}  // namespace

TEST_SUITE("linalg fixtures") {
  TEST_CASE("cholesky, solve (gen / sym / pos), solve_triangular, cho_solve against SciPy") {
    run_case("cholesky_lower", 1, one([](auto& x) { return LA::cholesky(x[0]); }));
    run_case("cholesky_upper", 1, one([](auto& x) { return LA::cholesky(x[0], false); }));
    run_case("cholesky_batch", 1, one([](auto& x) { return LA::cholesky(x[0]); }));
    run_case("solve_gen_vec", 2, one([](auto& x) { return LA::solve(x[0], x[1]); }));
    run_case("solve_gen_mat", 2, one([](auto& x) { return LA::solve(x[0], x[1]); }));
    run_case("solve_sym", 2, one([](auto& x) { return LA::solve(x[0], x[1], "sym", true); }));
    run_case("solve_pos", 2, one([](auto& x) { return LA::solve(x[0], x[1], "pos", true); }));
    run_case("solve_batch", 2, one([](auto& x) { return LA::solve(x[0], x[1]); }));
    run_case("solve_triangular_lower", 2, one([](auto& x) { return LA::solve_triangular(x[0], x[1], true); }));
    run_case("solve_triangular_upper_trans", 2,
             one([](auto& x) { return LA::solve_triangular(x[0], x[1], false, 1); }));
    run_case("solve_triangular_unit", 2,
             one([](auto& x) { return LA::solve_triangular(x[0], x[1], true, 0, true); }));
    run_case("cho_solve", 2, one([](auto& x) { return LA::cho_solve({x[0], true}, x[1]); }));
  }

  TEST_CASE("lu, lu_factor, lu_solve, inv, pinv, det, slogdet against SciPy / NumPy") {
    run_case("lu", 1, [](auto& x) { return LA::lu(x[0]); });
    run_case("lu_factor", 1, [](auto& x) {
      auto [lu, piv] = LA::lu_factor(x[0]);
      return std::vector<Var>{lu, piv};
    });
    run_case("lu_solve", 2, one([](auto& x) { return LA::lu_solve(LA::lu_factor(x[0]), x[1]); }));
    run_case("inv", 1, one([](auto& x) { return LA::inv(x[0]); }));
    run_case("inv_batch", 1, one([](auto& x) { return LA::inv(x[0]); }));
    run_case("pinv", 1, one([](auto& x) { return LA::pinv(x[0]); }));
    run_case("det", 1, one([](auto& x) { return LA::det(x[0]); }));
    run_case("det_batch", 1, one([](auto& x) { return LA::det(x[0]); }));
    run_case("slogdet", 1, [](auto& x) {
      auto [s, l] = LA::slogdet(x[0]);
      return std::vector<Var>{s, l};
    });
  }

  TEST_CASE("eigh, svd, svdvals, qr (reduced, complete, r) against NumPy, signs aligned") {
    run_case("eigh", 1, [](auto& x) {
      auto [w, v] = LA::eigh(x[0]);
      return std::vector<Var>{w, v};
    }, 1e-10, 2e-4, {1});
    run_case("svd_reduced", 1, [](auto& x) { return LA::svd(x[0], false); }, 1e-10, 2e-4, {0}, {2});
    run_case("svdvals_batch", 1, one([](auto& x) { return LA::svdvals(x[0]); }));
    run_case("qr_reduced", 1, [](auto& x) { return LA::qr(x[0]); }, 1e-10, 2e-4, {0}, {1});
    run_case("qr_r", 1, [](auto& x) { return LA::qr(x[0], "r"); }, 1e-10, 2e-4, {}, {0});
    // complete: R's rows past min(m, n) are zeros; Q's columns past it span the
    // complement, any basis of it: only R and Q's first columns are compared.
    run_case("qr_complete", 1, [](auto& x) {
      const std::vector<Var> qr = LA::qr(x[0], "complete");
      return std::vector<Var>{qr[1], subtensor(qr[0], {Index(all), Index(slice(Bound(), 3))})};
    }, 1e-10, 2e-4, {1}, {0});
  }

  TEST_CASE("lstsq and lstsq_full (x, residuals, rank, s) against NumPy: full rank and rank-deficient") {
    for (const char* c : {"lstsq_over", "lstsq_deficient"})
      run_case(c, 2, [](auto& x) { return LA::lstsq_full(x[0], x[1]); }, 1e-10, 2e-4);
    // lstsq (x alone) with NumPy's rank cut: the rank-deficient case too, in float32 as well.
    for (const char* c : {"lstsq_over", "lstsq_deficient"})
      run_case(c, 2, one([](auto& x) { return LA::lstsq(x[0], x[1]); }), 1e-10, 2e-4);
  }

  TEST_CASE("expm against scipy.linalg.expm: every Pade degree, scaling, large norm, nilpotent, batch, zero") {
    for (const char* c : {"expm_m3", "expm_m5", "expm_m7", "expm_m9", "expm_m13", "expm_scaled", "expm_nilpotent",
                          "expm_batch", "expm_zero"})
      run_case(c, 1, one([](auto& x) { return LA::expm(x[0]); }), 1e-12, 1e-5);
    // ||A||_1 about 100: float32's input rounding alone moves exp(A) by about 1e-5 relative times the norm.
    run_case("expm_large", 1, one([](auto& x) { return LA::expm(x[0]); }), 1e-11, 5e-3);
  }

  TEST_CASE("norm (every matrix and vector ord NumPy takes, axes and keepdims) and matrix_power against NumPy") {
    const std::vector<std::pair<std::string, LA::NormOrd>> mat = {
        {"none", {}},        {"fro", "fro"}, {"nuc", "nuc"}, {"inf", INFINITY}, {"ninf", -INFINITY},
        {"1", 1},            {"n1", -1},     {"2", 2},       {"n2", -2}};
    for (const auto& [tag, ord] : mat) run_case("norm_mat_" + tag, 1, one([ord](auto& x) { return LA::norm(x[0], ord); }));
    const std::vector<std::pair<std::string, LA::NormOrd>> vec = {
        {"none", {}}, {"inf", INFINITY}, {"ninf", -INFINITY}, {"0", 0},   {"1", 1},
        {"n1", -1},   {"2", 2},          {"n2", -2},          {"3", 3},   {"0_5", 0.5}};
    for (const auto& [tag, ord] : vec) run_case("norm_vec_" + tag, 1, one([ord](auto& x) { return LA::norm(x[0], ord); }));
    for (const auto& [tag, ord] : std::vector<std::pair<std::string, LA::NormOrd>>{{"2", 2}, {"n2", -2}, {"nuc", "nuc"}})
      run_case("norm_axes_" + tag, 1, one([ord](auto& x) { return LA::norm(x[0], ord, {2, 0}, true); }));
    for (int n : {-3, -1, 0, 1, 2, 5}) {
      std::string tag = std::to_string(n);
      if (n < 0) tag = "n" + std::to_string(-n);
      run_case("matrix_power_" + tag, 1, one([n](auto& x) { return LA::matrix_power(x[0], n); }), 1e-10, 1e-4);
    }
    run_case("matrix_power_batch_n2", 1, one([](auto& x) { return LA::matrix_power(x[0], -2); }), 1e-10, 1e-4);
  }

  TEST_CASE("kron, block_diag, trace, tril, triu against NumPy / SciPy") {
    run_case("kron", 2, one([](auto& x) { return LA::kron(x[0], x[1]); }));
    run_case("block_diag", 2, one([](auto& x) { return LA::block_diag({x[0], x[1]}); }));
    run_case("trace", 1, [](auto& x) { return std::vector<Var>{LA::trace(x[0]), LA::trace(x[0], 1)}; });
    run_case("tril", 1, [](auto& x) { return std::vector<Var>{LA::tril(x[0]), LA::tril(x[0], -1), LA::tril(x[0], 2)}; });
    run_case("triu", 1, [](auto& x) { return std::vector<Var>{LA::triu(x[0]), LA::triu(x[0], 1), LA::triu(x[0], -2)}; });
  }

  TEST_CASE("eig / eigvals against numpy.linalg.eig: sorted eigenvalue sets, A v = v w, unit vectors") {
    for (const char* c : {"eig", "eig_real"})
      for (const DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(c);
        CAPTURE(dtype_name(dt));
        const double tol = dt == DType::Float64 ? 1e-10 : 2e-4;
        const NDArray A = in(c, 0).astype(dt), want_w = out(c, 0).astype(DType::Complex128);
        const Var x = sym(A, dt, "A");
        auto [w, v] = LA::eig(x);
        const DType cd = dt == DType::Float64 ? DType::Complex128 : DType::Complex64;
        CHECK(tensor_type(w)->dtype() == cd);
        CHECK(tensor_type(v)->dtype() == cd);
        const NDArray gw = w.eval({{x, A}}).astype(DType::Complex128).copy();
        const NDArray gv = v.eval({{x, A}}).astype(DType::Complex128).copy();
        const NDArray gw2 = LA::eigvals(x).eval({{x, A}}).astype(DType::Complex128).copy();
        const std::int64_t n = A.shape()[0];
        REQUIRE(gw.shape() == std::vector<std::int64_t>{n});
        REQUIRE(gv.shape() == std::vector<std::int64_t>{n, n});
        using C = std::complex<double>;
        auto sorted = [](const C* p, std::int64_t k) {
          std::vector<C> s(p, p + k);
          std::sort(s.begin(), s.end(),
                    [](C a, C b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
          return s;
        };
        const std::vector<C> sg = sorted(gw.data_as<C>(), n), sw = sorted(want_w.data_as<C>(), n),
                             s2 = sorted(gw2.data_as<C>(), n);
        for (std::int64_t i = 0; i < n; ++i) {
          CHECK(std::abs(sg[static_cast<std::size_t>(i)] - sw[static_cast<std::size_t>(i)]) <= tol * 10);
          CHECK(std::abs(s2[static_cast<std::size_t>(i)] - sw[static_cast<std::size_t>(i)]) <= tol * 10);
        }
        // A v_j = w_j v_j with |v_j| = 1, by plain loops in complex<double>.
        const std::vector<double> a = latest::rows(A);
        const C* V = gv.data_as<C>();
        const C* W = gw.data_as<C>();
        for (std::int64_t j = 0; j < n; ++j) {
          double norm2 = 0, err = 0;
          for (std::int64_t i = 0; i < n; ++i) {
            C av = 0;
            for (std::int64_t t = 0; t < n; ++t) av += a[static_cast<std::size_t>(i * n + t)] * V[t * n + j];
            err = std::max(err, std::abs(av - W[j] * V[i * n + j]));
            norm2 += std::norm(V[i * n + j]);
          }
          CHECK(err <= tol * 10);
          CHECK(std::abs(norm2 - 1) <= tol);
        }
      }
  }
}

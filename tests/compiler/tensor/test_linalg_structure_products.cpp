// kron, block_diag, matrix_power and norm (theano/tensor/linalg_structure.h):
// values against loops written here from NumPy's / SciPy's definitions over
// ranks, batches and dtypes, under perform (mode "unoptimized") and fast_run;
// verify_grad; the errors (negative power, unknown or svd-needing ords,
// non-square matrices, bad axes).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace LA = theano::tensor::linalg;

namespace {

/// Small distinct values of `shape`: (i mod 7) - 3 + i / 10 (negative ones too, for the absolute values).
NDArray values(const std::vector<std::int64_t>& shape, DType dtype = DType::Float64) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = is_float(dtype) ? static_cast<double>(i % 7) - 3 + 0.1 * static_cast<double>(i)
                                             : static_cast<double>(i % 7) - 3;
  return a.astype(dtype);
}

std::vector<std::int64_t> unravel(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::int64_t ravel(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& shape) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

NDArray as_f64(const NDArray& a) { return a.astype(DType::Float64).copy(); }

/// NumPy's kron: ranks padded with leading 1s; out[i * bs + j] = a[i] * b[j] per axis.
NDArray ref_kron(const NDArray& a0, const NDArray& b0) {
  NDArray a = as_f64(a0), b = as_f64(b0);
  std::vector<std::int64_t> as = a.shape(), bs = b.shape();
  while (as.size() < bs.size()) as.insert(as.begin(), 1);
  while (bs.size() < as.size()) bs.insert(bs.begin(), 1);
  std::vector<std::int64_t> os(as.size());
  for (std::size_t d = 0; d < os.size(); ++d) os[d] = as[d] * bs[d];
  NDArray out = NDArray::zeros(os);
  for (std::int64_t f = 0; f < out.size(); ++f) {
    const std::vector<std::int64_t> o = unravel(f, os);
    std::vector<std::int64_t> i(os.size()), j(os.size());
    for (std::size_t d = 0; d < os.size(); ++d) {
      i[d] = o[d] / bs[d];
      j[d] = o[d] % bs[d];
    }
    out.data_as<double>()[f] = a.data_as<double>()[ravel(i, as)] * b.data_as<double>()[ravel(j, bs)];
  }
  return out;
}

/// a @ b for 2-d float64 arrays, by the triple loop.
NDArray ref_matmul(const NDArray& a, const NDArray& b) {
  const std::int64_t n = a.shape()[0], k = a.shape()[1], m = b.shape()[1];
  NDArray out = NDArray::zeros({n, m});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t l = 0; l < k; ++l) out.at<double>({i, j}) += a.at<double>({i, l}) * b.at<double>({l, j});
  return out;
}

/// M^n by n - 1 plain products (not squaring: a different order than the code under test).
NDArray ref_power(const NDArray& m0, int n) {
  const NDArray m = as_f64(m0);
  NDArray out = NDArray::zeros(m.shape());
  for (std::int64_t i = 0; i < m.shape()[0]; ++i) out.at<double>({i, i}) = 1;
  for (int e = 0; e < n; ++e) out = ref_matmul(out, m);
  return out;
}

NDArray run(const std::vector<Var>& ins, const Var& y, const std::vector<NDArray>& args, const std::string& mode) {
  FunctionOptions o;
  o.mode = mode;
  return function({ins.begin(), ins.end()}, {y}, o)(args)[0];
}

bool close(const NDArray& got, const NDArray& want, double rtol = 1e-12) {
  return got.shape() == want.shape() && allclose(as_f64(got), as_f64(want), rtol, 1e-12, true);
}

const char* const kModes[] = {"unoptimized", "fast_run"};
const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("kron matches NumPy's definition over ranks, padded ranks and dtypes") {
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases{
      {{2, 3}, {4, 2}}, {{3}, {2}}, {{2, 2}, {3}}, {{2}, {2, 1, 3}}, {{2, 0}, {3, 2}}, {{}, {2, 2}}, {{}, {}}};
  for (const auto& [sa, sb] : cases)
    for (const char* mode : kModes) {
      CAPTURE(sa);
      CAPTURE(sb);
      CAPTURE(mode);
      const Var a = tensor::tensor(DType::Float64, StaticShape(sa.size()), "a");
      const Var b = tensor::tensor(DType::Float64, StaticShape(sb.size()), "b");
      const NDArray va = values(sa), vb = values(sb).astype(DType::Float64);
      CHECK(close(run({a, b}, LA::kron(a, b), {va, vb}, mode), ref_kron(va, vb)));
    }
  const Var i = matrix("i", DType::Int32), f = matrix("f", DType::Float32);
  CHECK(LA::kron(i, f).dtype() == DType::Float64);  // promote(int32, float32), as NumPy's
  CHECK(LA::kron(i, i).dtype() == DType::Int32);
  testing::verify_grad([](const std::vector<Var>& in) { return LA::kron(in[0], in[1]); },
                       {values({2, 3}), values({3, 2})});
}

TEST_CASE("block_diag places each matrix in its block, batched, in the promoted dtype") {
  const Var a = matrix("a", DType::Float64), b = matrix("b", DType::Int32), c = matrix("c", DType::Float64);
  const NDArray va = values({2, 3}), vb = values({1, 1}, DType::Int32), vc = values({0, 2});
  const Var y = LA::block_diag({a, b, c});
  CHECK(y.dtype() == DType::Float64);
  NDArray want = NDArray::zeros({3, 6});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) want.at<double>({i, j}) = va.at<double>({i, j});
  want.at<double>({2, 3}) = static_cast<double>(vb.at<std::int32_t>({0, 0}));
  for (const char* mode : kModes) CHECK(close(run({a, b, c}, y, {va, vb, vc}, mode), want));
  // A batch: each batch element's blocks; a batch axis of 1 broadcasts.
  const Var p = tensor3("p", DType::Float64), q = tensor::tensor(DType::Float64, {1, std::nullopt, std::nullopt}, "q");
  const NDArray vp = values({2, 2, 2}), vq = values({1, 1, 2});
  for (const char* mode : kModes) {
    const NDArray got = run({p, q}, LA::block_diag({p, q}), {vp, vq}, mode);
    REQUIRE(got.shape() == std::vector<std::int64_t>{2, 3, 4});
    for (std::int64_t n = 0; n < 2; ++n)
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t j = 0; j < 4; ++j) {
          const double w = i < 2 && j < 2 ? vp.at<double>({n, i, j}) : i == 2 && j >= 2 ? vq.at<double>({0, 0, j - 2}) : 0;
          CHECK(got.at<double>({n, i, j}) == w);
        }
  }
  testing::verify_grad([](const std::vector<Var>& in) { return LA::block_diag({in[0], in[1]}); },
                       {values({2, 3}), values({2, 2})});
  CHECK_THROWS_WITH_AS(LA::block_diag({}), doctest::Contains("block_diag: expected at least one matrix"), ValueError);
  CHECK_THROWS_WITH_AS(LA::block_diag({a, vector("v")}),
                       doctest::Contains("block_diag: input 1 (v) has rank 1; expected matrices"), ValueError);
  CHECK_THROWS_WITH_AS(LA::block_diag({a, p}), doctest::Contains("block_diag: input 1 (p) has rank 3"), ValueError);
}

TEST_CASE("matrix_power by repeated squaring equals repeated products, batched") {
  const Var m = matrix("m", DType::Float64);
  const NDArray vm = values({3, 3});
  for (int n : {0, 1, 2, 3, 5, 8, 13})
    for (const char* mode : kModes) {
      CAPTURE(n);
      CAPTURE(mode);
      CHECK(close(run({m}, LA::matrix_power(m, n), {vm}, mode), ref_power(vm, n), 1e-10));
    }
  // A batch of rank 4: each matrix its own power.
  const Var b = tensor4("b", DType::Float64);
  const NDArray vb = values({2, 1, 2, 2});
  for (const char* mode : kModes) {
    const NDArray got = run({b}, LA::matrix_power(b, 3), {vb}, mode);
    REQUIRE(got.shape() == vb.shape());
    for (std::int64_t i = 0; i < 2; ++i) {
      const NDArray want = ref_power(vb.index(0, i).index(0, 0).copy(), 3);
      CHECK(close(got.index(0, i).index(0, 0).copy(), want, 1e-10));
    }
  }
  const Var i = matrix("i", DType::Int64);
  CHECK(array_equal(run({i}, LA::matrix_power(i, 0), {values({2, 2}, DType::Int64)}, "fast_run"),
                    NDArray::from_list<std::int64_t>({1, 0, 0, 1}, {2, 2})));
  testing::verify_grad([](const std::vector<Var>& in) { return LA::matrix_power(in[0], 3); },
                       {values({3, 3}).astype(DType::Float64)}, {.abs_tol = 1e-3, .rel_tol = 1e-3});
  // n < 0 goes through inv (test_linalg_expm_eig.cpp checks its values and gradient).
  CHECK(tensor_type(LA::matrix_power(m, -1))->ndim() == 2);
  CHECK_THROWS_WITH_AS(LA::matrix_power(tensor::tensor(DType::Float64, {2, 3}, "r"), 2),
                       doctest::Contains("matrix_power: r of type TensorType(float64, (2, 3)) is not square"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::matrix_power(vector("v"), 2), doctest::Contains("matrix_power: expected v of rank 2"),
                       ValueError);
  CHECK_THROWS_WITH_AS(run({m}, LA::matrix_power(m, 2), {values({2, 3})}, "fast_run"),
                       doctest::Contains("matrix_power: M is not square"), std::exception);
}

TEST_CASE("norm: vector and matrix ords as NumPy computes them") {
  const Var x = matrix("x", DType::Float64);
  const NDArray vx = values({3, 4});
  // References by loops: the vector norms along axis 1, the matrix norms over (0, 1).
  auto row_norm = [&](double p) {
    NDArray out = NDArray::zeros({3});
    for (std::int64_t i = 0; i < 3; ++i) {
      double acc = std::isinf(p) ? (p > 0 ? 0 : kInf) : 0;
      for (std::int64_t j = 0; j < 4; ++j) {
        const double a = std::abs(vx.at<double>({i, j}));
        if (std::isinf(p)) acc = p > 0 ? std::max(acc, a) : std::min(acc, a);
        else if (p == 0) acc += a != 0 ? 1 : 0;
        else acc += std::pow(a, p);
      }
      out.data_as<double>()[i] = std::isinf(p) || p == 0 ? acc : std::pow(acc, 1 / p);
    }
    return out;
  };
  for (const double p : {2.0, 1.0, kInf, -kInf, 0.0, 3.0, 0.5}) {
    CAPTURE(p);
    for (const char* mode : kModes) {
      CHECK(close(run({x}, LA::norm(x, p, {1}), {vx}, mode), row_norm(p), 1e-12));
      CHECK(close(run({x}, LA::norm(x, p, {-1}, true), {vx}, mode), row_norm(p).reshape({3, 1}), 1e-12));
    }
  }
  CHECK(close(run({x}, LA::norm(x, {}, {1}), {vx}, "fast_run"), row_norm(2), 1e-12));
  auto matrix_ref = [&](const std::string& kind) {
    double fro = 0, best_col = 0, worst_col = kInf, best_row = 0, worst_row = kInf;
    for (std::int64_t j = 0; j < 4; ++j) {
      double s = 0;
      for (std::int64_t i = 0; i < 3; ++i) s += std::abs(vx.at<double>({i, j}));
      best_col = std::max(best_col, s);
      worst_col = std::min(worst_col, s);
    }
    for (std::int64_t i = 0; i < 3; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < 4; ++j) {
        s += std::abs(vx.at<double>({i, j}));
        fro += vx.at<double>({i, j}) * vx.at<double>({i, j});
      }
      best_row = std::max(best_row, s);
      worst_row = std::min(worst_row, s);
    }
    const double v = kind == "fro" ? std::sqrt(fro) : kind == "1" ? best_col : kind == "-1" ? worst_col
                     : kind == "inf" ? best_row : worst_row;
    return NDArray::scalar<double>(v);
  };
  for (const char* mode : kModes) {
    CAPTURE(mode);
    CHECK(close(run({x}, LA::norm(x), {vx}, mode), matrix_ref("fro")));
    CHECK(close(run({x}, LA::norm(x, "fro"), {vx}, mode), matrix_ref("fro")));
    CHECK(close(run({x}, LA::norm(x, 1), {vx}, mode), matrix_ref("1")));
    CHECK(close(run({x}, LA::norm(x, -1), {vx}, mode), matrix_ref("-1")));
    CHECK(close(run({x}, LA::norm(x, kInf), {vx}, mode), matrix_ref("inf")));
    CHECK(close(run({x}, LA::norm(x, -kInf), {vx}, mode), matrix_ref("-inf")));
    // Axes given in reverse order: rows are axis 1, so ord 1 takes row sums.
    CHECK(close(run({x}, LA::norm(x, 1, {1, 0}), {vx}, mode), matrix_ref("inf")));
    CHECK(close(run({x}, LA::norm(x, kInf, {1, 0}, true), {vx}, mode), matrix_ref("1").reshape({1, 1})));
  }
  // A batch of matrices over axes (1, 2); an integer input computed in float64; a 3-d 2-norm of everything.
  const Var t = tensor3("t", DType::Int32);
  const NDArray vt = values({2, 3, 4}, DType::Int32);
  const NDArray got = run({t}, LA::norm(t, 1, {1, 2}), {vt}, "fast_run");
  CHECK(got.dtype() == DType::Float64);
  for (std::int64_t n = 0; n < 2; ++n) {
    double best = 0;
    for (std::int64_t j = 0; j < 4; ++j) {
      double s = 0;
      for (std::int64_t i = 0; i < 3; ++i) s += std::abs(static_cast<double>(vt.at<std::int32_t>({n, i, j})));
      best = std::max(best, s);
    }
    CHECK(got.at<double>({n}) == best);
  }
  double all = 0;
  for (std::int64_t k = 0; k < vt.size(); ++k) all += std::pow(static_cast<double>(vt.copy().data_as<std::int32_t>()[k]), 2);
  CHECK(run({t}, LA::norm(t), {vt}, "fast_run").item<double>() == doctest::Approx(std::sqrt(all)));
  // Gradients (away from zeros and ties).
  NDArray g = values({3, 4});
  for (std::int64_t k = 0; k < g.size(); ++k) g.data_as<double>()[k] += 10.0;
  for (const double p : {2.0, 1.0, 3.0}) {
    CAPTURE(p);
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::norm(in[0], p, {0}); }, {g});
  }
  testing::verify_grad([](const std::vector<Var>& in) { return LA::norm(in[0]); }, {g});
  testing::verify_grad([](const std::vector<Var>& in) { return LA::norm(in[0], 1); }, {g});
  testing::verify_grad([](const std::vector<Var>& in) { return LA::norm(in[0], -kInf); }, {g});
}

TEST_CASE("norm: unknown ords and bad axes are clear errors, and the singular value ords build") {
  const Var x = matrix("x", DType::Float64);
  // 'nuc', 2 and -2 go through svdvals (values: test_linalg_fixtures.cpp, test_linalg_expm_eig.cpp).
  CHECK(tensor_type(LA::norm(x, "nuc"))->ndim() == 0);
  CHECK(tensor_type(LA::norm(x, 2))->ndim() == 0);
  CHECK(tensor_type(LA::norm(x, -2, {0, 1}, true))->ndim() == 2);
  CHECK_THROWS_WITH_AS(LA::norm(x, 3), doctest::Contains("norm: invalid matrix norm ord 3; expected None, 'fro'"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::norm(x, "fro", {0}), doctest::Contains("norm: ord 'fro' is a matrix norm"), ValueError);
  CHECK_THROWS_WITH_AS(LA::NormOrd("frob"), doctest::Contains("norm: unknown ord 'frob'"), ValueError);
  CHECK_THROWS_WITH_AS(LA::norm(x, 1, {2}), doctest::Contains("norm: axis 2 is out of range for x of rank 2"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::norm(x, 1, {0, -2}), doctest::Contains("name the same axis 0 of x of rank 2"), ValueError);
  CHECK_THROWS_WITH_AS(LA::norm(x, 1, {0, 1, 0}), doctest::Contains("norm: axis has 3 entries"), ValueError);
  CHECK_THROWS_WITH_AS(LA::norm(tensor3("t"), 1), doctest::Contains("norm: ord 1 with axis None needs a vector or a"),
                       ValueError);
  CHECK(LA::NormOrd(0.5).str() == "0.5");
  CHECK(LA::NormOrd(-kInf).str() == "-inf");
}

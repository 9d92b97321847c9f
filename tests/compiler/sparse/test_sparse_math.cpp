// sparse::add, mul_scalar, mul, sum, true_dot and sampling_dot (compositions
// over the sparse ops, theano/sparse/ops.h) against the dense computation in
// both linkers, with verify_grad through each.
#include <doctest/doctest.h>

#include <functional>
#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/codegen/c_linker.h"
#include "theano/config.h"
#include "theano/sparse/ops.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

namespace {

NDArray pattern(int64_t m, int64_t n, uint64_t seed, double fill) {
  NDArray a = NDArray::zeros({m, n});
  uint64_t s = seed;
  for (int64_t i = 0; i < m * n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    if (u < fill) a.data_as<double>()[i] = 0.25 + u;
  }
  return a;
}

NDArray dense(int64_t m, int64_t n, uint64_t seed) { return pattern(m, n, seed, 2.0); }

std::vector<NDArray> with(std::vector<NDArray> a, const std::vector<NDArray>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void for_linkers(const std::function<void()>& body) {
  codegen::register_linkers();
  for (const char* linker : {"py", "cpp"}) {
    CAPTURE(linker);
    Config c = config();
    c.flags["linker"] = linker;
    ConfigGuard guard(c);
    body();
  }
}

/// A structure fixed by `m` (constants), values from the differentiated input.
Var over(const SparseMatrix& m, const Var& data) {
  return S::csm(m.format(), data, T::constant(m.indices()), T::constant(m.indptr()), T::constant(m.shape_array()));
}

}  // namespace

TEST_SUITE("sparse math") {
  TEST_CASE("add, mul_scalar and mul agree with the dense forms, gradients structured") {
    const NDArray a = pattern(5, 4, 1, 0.4), d = dense(5, 4, 2);
    for (SparseFormat f : {SparseFormat::CSR, SparseFormat::CSC}) {
      const SparseMatrix m = SparseMatrix::from_dense(a, f);
      for_linkers([&] {
        S::SparseInput s = f == SparseFormat::CSR ? S::csr_matrix("S") : S::csc_matrix("S");
        Var x = T::dmatrix("X");
        Var k = T::dscalar("k");
        std::vector<In> ins = s.ins();
        ins.push_back(In(x));
        ins.push_back(In(k));
        Function fn = function(ins, {S::add(s, x), S::dense_from_sparse(S::mul_scalar(s, k)),
                                     S::dense_from_sparse(S::mul(s, x))});
        const std::vector<NDArray> r = fn(with(S::arguments(m), {d, NDArray::scalar(3.0)}));
        NDArray sum = a.copy(), scaled = a.copy(), prod = a.copy();
        for (int64_t i = 0; i < a.size(); ++i) {
          sum.data_as<double>()[i] += d.data_as<double>()[i];
          scaled.data_as<double>()[i] *= 3;
          prod.data_as<double>()[i] *= d.data_as<double>()[i];
        }
        CHECK(allclose(r[0], sum));
        CHECK(allclose(r[1], scaled));
        CHECK(allclose(r[2], prod));
      });
      testing::verify_grad([&](const std::vector<Var>& in) { return S::add(over(m, in[0]), in[1]); }, {m.data(), d});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::mul_scalar(over(m, in[0]), in[1])); },
          {m.data(), NDArray::scalar(1.5)});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::mul(over(m, in[0]), in[1])); }, {m.data(), d});
    }
  }

  TEST_CASE("sum over all values, each column and each row, repeated entries included") {
    const SparseMatrix m(SparseFormat::CSR, test::vec({1, 2, 4, 8, 16}), NDArray::from_list<int64_t>({2, 2, 0, 1, 3}),
                         NDArray::from_list<int64_t>({0, 3, 3, 5}), {3, 4});
    for_linkers([&] {
      S::SparseInput s = S::csr_matrix("S");
      Function fn = function(s.ins(), {S::sum(s), S::sum(s, 0), S::sum(s, 1)});
      const std::vector<NDArray> r = fn(S::arguments(m));
      CHECK(r[0].item<double>() == 31);
      CHECK(array_equal(r[1], test::vec({4, 8, 3, 16})));
      CHECK(array_equal(r[2], test::vec({7, 0, 24})));
    });
    for (int axis : {0, 1})
      testing::verify_grad([&](const std::vector<Var>& in) { return S::sum(over(m, in[0]), axis); }, {m.data()});
    testing::verify_grad([&](const std::vector<Var>& in) { return S::sum(over(m, in[0])); }, {m.data()});
  }

  TEST_CASE("true_dot: the product of structured_dot, a gradient at every position of S") {
    const NDArray a = pattern(4, 3, 3, 0.5), d = dense(3, 2, 4);
    const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
    for_linkers([&] {
      S::SparseInput s = S::csr_matrix("S");
      Var x = T::dmatrix("D");
      const Var out = S::true_dot(s, x);
      const Var gs = S::dense_from_sparse(grad(T::sum(out), s.var));  // ones . D^T, every entry
      std::vector<In> ins = s.ins();
      ins.push_back(In(x));
      Function fn = function(ins, {out, gs});
      const std::vector<NDArray> r = fn(with(S::arguments(m), {d}));
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 3; ++j)
          CHECK(r[1].at<double>({i, j}) == doctest::Approx(d.at<double>({j, 0}) + d.at<double>({j, 1})));
    });
    testing::verify_grad([&](const std::vector<Var>& in) { return S::true_dot(over(m, in[0]), in[1]); }, {m.data(), d});
  }

  TEST_CASE("sampling_dot: p * (x . y^T) at p's stored positions") {
    const NDArray p = pattern(5, 4, 5, 0.4), x = dense(5, 3, 6), y = dense(4, 3, 7);
    for (SparseFormat f : {SparseFormat::CSR, SparseFormat::CSC}) {
      const SparseMatrix m = SparseMatrix::from_dense(p, f);
      for_linkers([&] {
        S::SparseInput s = f == SparseFormat::CSR ? S::csr_matrix("P") : S::csc_matrix("P");
        Var vx = T::dmatrix("x"), vy = T::dmatrix("y");
        std::vector<In> ins = s.ins();
        ins.push_back(In(vx));
        ins.push_back(In(vy));
        Function fn = function(ins, {S::dense_from_sparse(S::sampling_dot(vx, vy, s))});
        const NDArray r = fn(with(S::arguments(m), {x, y}))[0];
        for (int64_t i = 0; i < 5; ++i)
          for (int64_t j = 0; j < 4; ++j) {
            double dot = 0;
            for (int64_t t = 0; t < 3; ++t) dot += x.at<double>({i, t}) * y.at<double>({j, t});
            CHECK(r.at<double>({i, j}) == doctest::Approx(p.at<double>({i, j}) * dot));
          }
      });
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::sampling_dot(in[1], in[2], over(m, in[0]))); },
          {m.data(), x, y});
    }
  }

  TEST_CASE("local_usmm: an update W <- W + a * structured_dot(S, G) runs as one in-place Usmm") {
    const NDArray a = pattern(6, 5, 8, 0.4), g = dense(5, 3, 9), w0 = dense(6, 3, 10);
    for (SparseFormat f : {SparseFormat::CSR, SparseFormat::CSC}) {
      const SparseMatrix m = SparseMatrix::from_dense(a, f);
      for_linkers([&] {
        S::SparseInput s = f == SparseFormat::CSR ? S::csr_matrix("S") : S::csc_matrix("S");
        Var vg = T::dmatrix("G");
        Var w = shared(w0.copy(), "W");
        std::vector<In> ins = s.ins();
        ins.push_back(In(vg));
        Function fn = function(ins, {}, {.updates = {{w, w + 0.5 * S::structured_dot(s, vg)}}});
        const std::string text = debugprint(fn);
        CAPTURE(text);
        CHECK(text.find("Usmm{csr,inplace}") != std::string::npos);  // a CSC S is converted first (sparse_dot)
        fn(with(S::arguments(m), {g}));
        NDArray want = w0.copy();
        for (int64_t i = 0; i < 6; ++i)
          for (int64_t j = 0; j < 3; ++j) {
            double sd = 0;
            for (int64_t t = 0; t < 5; ++t) sd += a.at<double>({i, t}) * g.at<double>({t, j});
            want.at<double>({i, j}) += 0.5 * sd;
          }
        CHECK(allclose(get_value(w), want, 1e-12, 1e-12));
      });
    }
  }

  TEST_CASE("a sparse matrix used twice: its gradient terms add up (same positions, and true_dot's every position)") {
    const NDArray a = pattern(5, 5, 11, 0.4), d = dense(5, 5, 12);
    const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
    testing::verify_grad(
        [&](const std::vector<Var>& in) {
          const Var s = over(m, in[0]);
          return S::add(s, S::structured_dot(s, in[1]));
        },
        {m.data(), d});
    testing::verify_grad(
        [&](const std::vector<Var>& in) {
          const Var s = over(m, in[0]);
          return S::true_dot(s, in[1]) + S::structured_dot(S::transpose(s), in[1]);
        },
        {m.data(), d});
  }
}

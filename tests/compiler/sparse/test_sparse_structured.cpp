// Theano's structured sparse ops (theano/sparse/ops.h: structured_add and its
// friends), written as a Theano user writes them: each against the dense
// reference (the function at the stored entries, zero elsewhere) in both
// linkers, CSR and CSC, with check_infer_shape and verify_grad; and the
// sparse tutorial's structured_add example with its numbers, its result
// returned from the function as a sparse matrix (sparse::call).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"
#include "use_linker.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

namespace {

/// A 5 x 4 matrix storing values in (0.1, 0.9) at about 40% of its entries.
NDArray positive_pattern(uint64_t seed) {
  NDArray a = NDArray::zeros({5, 4});
  uint64_t s = seed;
  for (int64_t i = 0; i < 20; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;
    if (u < 0.4) a.data_as<double>()[i] = 0.1 + 2 * u;
  }
  return a;
}

/// A structure fixed by `m` (constants), values from the differentiated input.
Var over(const SparseMatrix& m, const Var& data) {
  return S::csm(m.format(), data, T::constant(m.indices()), T::constant(m.indptr()), T::constant(m.shape_array()));
}

struct Case {
  const char* name;
  std::function<Var(const Var&)> op;
  std::function<double(double)> ref;  // at a stored entry
};

std::vector<Case> cases() {
  return {
      {"structured_sigmoid", [](const Var& s) { return S::structured_sigmoid(s); },
       [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"structured_exp", [](const Var& s) { return S::structured_exp(s); }, [](double v) { return std::exp(v); }},
      {"structured_log", [](const Var& s) { return S::structured_log(s); }, [](double v) { return std::log(v); }},
      {"structured_pow", [](const Var& s) { return S::structured_pow(s, 3); }, [](double v) { return v * v * v; }},
      {"structured_minimum", [](const Var& s) { return S::structured_minimum(s, 0.5); },
       [](double v) { return std::min(v, 0.5); }},
      {"structured_maximum", [](const Var& s) { return S::structured_maximum(s, 0.5); },
       [](double v) { return std::max(v, 0.5); }},
      {"structured_add", [](const Var& s) { return S::structured_add(s, 2.5); }, [](double v) { return v + 2.5; }},
      {"sqrt", [](const Var& s) { return S::sqrt(s); }, [](double v) { return std::sqrt(v); }},
      {"tanh", [](const Var& s) { return S::tanh(s); }, [](double v) { return std::tanh(v); }},
      {"sqr", [](const Var& s) { return S::sqr(s); }, [](double v) { return v * v; }},
      {"neg", [](const Var& s) { return S::neg(s); }, [](double v) { return -v; }},
  };
}

}  // namespace

TEST_SUITE("sparse structured ops") {
  TEST_CASE("the tutorial: structured_add(x, 2) on a float32 csc matrix, the result a sparse matrix") {
    for (const char* linker : {"py", "cpp"}) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      S::SparseInput x = S::csc_matrix("x", DType::Float32);
      Var y = S::structured_add(x, 2);
      Function f = function(x.ins(), {y});
      const SparseMatrix a = SparseMatrix::from_dense(
          NDArray::from_list<float>({0, 0, -1, 0, -2, 1, 3, 0, 0}, {3, 3}), SparseFormat::CSC);
      const SparseMatrix r = S::call(f, S::arguments(a))[0];
      CHECK(r.format() == SparseFormat::CSC);
      CHECK(r.dtype() == DType::Float32);
      CHECK(r.nnz() == 4);  // the stored entries only: the zeros stay zeros
      CHECK(array_equal(r.to_dense(), NDArray::from_list<float>({0, 0, 1, 0, 0, 3, 5, 0, 0}, {3, 3})));
    }
  }

  TEST_CASE("each structured op is the function at the stored entries, zero elsewhere: both linkers, CSR and CSC") {
    const NDArray a = positive_pattern(7);
    for (const Case& c : cases())
      for (SparseFormat fmt : {SparseFormat::CSR, SparseFormat::CSC})
        for (const char* linker : {"py", "cpp"}) {
          CAPTURE(c.name);
          CAPTURE(to_string(fmt));
          CAPTURE(linker);
          test::UseLinker l(linker);
          S::SparseInput x = fmt == SparseFormat::CSR ? S::csr_matrix("x") : S::csc_matrix("x");
          const Var y = c.op(x);
          CHECK(S::sparse_type(y)->format() == fmt);
          Function f = function(x.ins(), {y, S::dense_from_sparse(y)});
          const std::vector<S::Value> r = S::call(f, S::arguments(SparseMatrix::from_dense(a, fmt)));
          NDArray want = NDArray::zeros({5, 4});
          for (int64_t i = 0; i < 20; ++i)
            if (const double v = a.data_as<double>()[i]; v != 0) want.data_as<double>()[i] = c.ref(v);
          CHECK(allclose(r[0].sparse().to_dense(), want, 1e-12, 1e-12));
          CHECK(allclose(r[1].dense(), want, 1e-12, 1e-12));
          CHECK(r[0].sparse().nnz() == SparseMatrix::from_dense(a, fmt).nnz());
        }
  }

  TEST_CASE("infer_shape and verify_grad through each structured op") {
    const NDArray a = positive_pattern(11);
    for (const Case& c : cases()) {
      CAPTURE(c.name);
      S::SparseInput x = S::csr_matrix("x");
      const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
      CHECK_NOTHROW(testing::check_infer_shape({x.data, x.indices, x.indptr, x.shape},
                                               {S::dense_from_sparse(c.op(x))}, S::arguments(m)));
      testing::verify_grad([&](const std::vector<Var>& in) { return S::dense_from_sparse(c.op(over(m, in[0]))); },
                           {m.data()});
    }
  }

  TEST_CASE("the second operand must be a scalar and the first a sparse matrix") {
    S::SparseInput x = S::csr_matrix("x");
    std::string e = test::error_of([&] { S::structured_add(x, T::dvector("v")); });
    CHECK(e.find("sparse::structured_add: the second operand must be a scalar") != std::string::npos);
    e = test::error_of([&] { S::structured_exp(T::dmatrix("m")); });
    CHECK(e.find("sparse::structured_exp: the operand must be a sparse matrix") != std::string::npos);
    CHECK_THROWS_AS(S::structured_pow(T::dmatrix("m"), 2), TypeError);
  }
}

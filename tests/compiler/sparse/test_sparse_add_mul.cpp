// Theano's elementwise sparse ops of two operands, as a Theano user writes
// them: sparse::add / mul of two sparse matrices (add_s_s, mul_s_s), and a
// sparse matrix with a dense row vector (mul_s_v, structured_add_s_v).
// Against the dense computation on random matrices with stored zeros and
// empty rows and columns, CSR and CSC (mixed too), float64, float32, int32,
// int64 and mixed dtypes, in both linkers (perform and generated code); the
// result's pattern (the union / intersection of the stored positions, x's
// pattern for the vector ops), format and dtype; infer_shape, verify_grad,
// and the errors for bad operands.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/sparse/sparse_test_util.h"
#include "test_util.h"
#include "theano/sparse/components.h"
#include "theano/testing.h"
#include "theano/theano.hpp"
#include "use_linker.h"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

using theano::test::concat;

namespace {

const char* const kLinkers[] = {"py", "cpp"};

/// A rows x cols matrix of `dtype` in `format`, built from its components:
/// about `fill` of the positions stored, one in six of those an explicit zero,
/// row 1 and column 2 empty; values multiples of 1/4 (of 1 for integers), so
/// every sum and product below is exact.
SparseMatrix random_sparse(int64_t rows, int64_t cols, SparseFormat format, DType dtype, uint64_t seed,
                           double fill = 0.45) {
  const bool csr = format == SparseFormat::CSR;
  const int64_t major = csr ? rows : cols, minor = csr ? cols : rows;
  std::vector<double> data;
  std::vector<int64_t> indices, indptr = {0};
  uint64_t s = seed;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  for (int64_t a = 0; a < major; ++a) {
    for (int64_t i = 0; i < minor; ++i) {
      const int64_t r = csr ? a : i, c = csr ? i : a;
      if (next() >= fill || r == 1 || c == 2) continue;
      const double u = next();
      const double k = u < 1.0 / 6 ? 0 : static_cast<double>(static_cast<int64_t>(u * 12) - 5);  // -3..6, 0 stored
      data.push_back(is_integer(dtype) ? k : k / 4);
      indices.push_back(i);
    }
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  const int64_t n = static_cast<int64_t>(data.size());
  return SparseMatrix(format, NDArray::from_vector<double>(data, {n}).astype(dtype),
                      NDArray::from_vector<int64_t>(indices, {n}),
                      NDArray::from_vector<int64_t>(indptr, {major + 1}), {rows, cols});
}

/// Which positions `m` stores (row-major, rows x cols).
std::vector<bool> stored(const SparseMatrix& m) {
  const int64_t rows = m.shape()[0], cols = m.shape()[1];
  const bool csr = m.format() == SparseFormat::CSR;
  std::vector<bool> at(static_cast<std::size_t>(rows * cols), false);
  const int64_t* p = m.indptr().data_as<int64_t>();
  const int64_t* ix = m.indices().data_as<int64_t>();
  for (int64_t a = 0; a < (csr ? rows : cols); ++a)
    for (int64_t k = p[a]; k < p[a + 1]; ++k) at[static_cast<std::size_t>(csr ? a * cols + ix[k] : ix[k] * cols + a)] = true;
  return at;
}

NDArray dense64(const SparseMatrix& m) { return m.to_dense().astype(DType::Float64); }

S::SparseInput input(SparseFormat f, const char* name, DType dtype = DType::Float64) {
  return f == SparseFormat::CSR ? S::csr_matrix(name, dtype) : S::csc_matrix(name, dtype);
}

/// A structure fixed by `m` (constants), values from the differentiated input.
Var over(const SparseMatrix& m, const Var& data) {
  return S::csm(m.format(), data, T::constant(m.indices()), T::constant(m.indptr()), T::constant(m.shape_array()));
}

struct Pair {
  SparseFormat fx, fy;
  DType dx, dy;
};

/// Every format pairing in float64, and each dtype pairing in one of them.
std::vector<Pair> pairs() {
  const SparseFormat R = SparseFormat::CSR, C = SparseFormat::CSC;
  return {{R, R, DType::Float64, DType::Float64}, {C, C, DType::Float64, DType::Float64},
          {R, C, DType::Float64, DType::Float64}, {C, R, DType::Float64, DType::Float64},
          {R, R, DType::Float32, DType::Float32}, {C, C, DType::Int32, DType::Int32},
          {R, C, DType::Int64, DType::Int32},     {C, R, DType::Float32, DType::Float64},
          {R, R, DType::Int32, DType::Float32}};
}

}  // namespace

TEST_SUITE("sparse add and mul of two operands") {
  TEST_CASE("sparse::add and mul of two sparse matrices: the union and intersection of the patterns") {
    for (const Pair& p : pairs())
      for (const char* linker : kLinkers) {
        CAPTURE(to_string(p.fx));
        CAPTURE(to_string(p.fy));
        CAPTURE(dtype_name(p.dx));
        CAPTURE(dtype_name(p.dy));
        CAPTURE(linker);
        test::UseLinker l(linker);
        const SparseMatrix a = random_sparse(6, 5, p.fx, p.dx, 1), b = random_sparse(6, 5, p.fy, p.dy, 2);
        S::SparseInput x = input(p.fx, "x", p.dx), y = input(p.fy, "y", p.dy);
        const Var sum = S::add(x, y), prod = S::mul(x, y);
        const DType dt = promote_types(p.dx, p.dy);
        REQUIRE(S::sparse_type(sum));
        CHECK(S::sparse_type(sum)->format() == p.fx);
        CHECK(S::sparse_type(sum)->dtype() == dt);
        CHECK(S::sparse_type(prod)->dtype() == dt);
        Function f = function(concat(x.ins(), y.ins()), {sum, prod});
        const std::vector<S::Value> r = S::call(f, concat(S::arguments(a), S::arguments(b)));
        const SparseMatrix &rs = r[0].sparse(), &rp = r[1].sparse();
        const NDArray da = dense64(a), db = dense64(b);
        NDArray want_sum = da.copy(), want_prod = da.copy();
        const std::vector<bool> in_a = stored(a), in_b = stored(b);
        int64_t n_union = 0, n_both = 0;
        for (int64_t i = 0; i < 30; ++i) {
          want_sum.data_as<double>()[i] += db.data_as<double>()[i];
          want_prod.data_as<double>()[i] *= db.data_as<double>()[i];
          n_union += in_a[i] || in_b[i];
          n_both += in_a[i] && in_b[i];
        }
        for (const SparseMatrix* m : {&rs, &rp}) {
          CHECK(m->format() == p.fx);
          CHECK(m->dtype() == dt);
          CHECK(m->has_canonical_indices());
        }
        CHECK(array_equal(dense64(rs), want_sum));
        CHECK(array_equal(dense64(rp), want_prod));
        CHECK(rs.nnz() == n_union);  // stored zeros and sums that cancel stay stored
        CHECK(rp.nnz() == n_both);
      }
  }

  TEST_CASE("sparse::add and mul with the dense operand first: Theano's add_s_d(y, x) and mul_s_d(y, x)") {
    const SparseMatrix a = random_sparse(4, 3, SparseFormat::CSC, DType::Float64, 14);
    const NDArray d = NDArray::from_list<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {4, 3});
    S::SparseInput x = S::csc_matrix("x");
    Var m = T::dmatrix("m");
    const Var sum = S::add(m, x), prod = S::mul(m, x);
    CHECK(!S::sparse_type(sum));
    CHECK(S::sparse_type(prod)->format() == SparseFormat::CSC);
    Function f = function(concat(x.ins(), {In(m)}), {sum, S::dense_from_sparse(prod)});
    const std::vector<NDArray> r = f(concat(S::arguments(a), {d}));
    NDArray want_sum = dense64(a), want_prod = dense64(a);
    for (int64_t i = 0; i < 12; ++i) {
      want_sum.data_as<double>()[i] += d.data_as<double>()[i];
      want_prod.data_as<double>()[i] *= d.data_as<double>()[i];
    }
    CHECK(array_equal(r[0], want_sum));
    CHECK(array_equal(r[1], want_prod));
  }

  TEST_CASE("add_s_s and mul_s_s of operands with repeated and unsorted indices: the dense sum and product") {
    // Row 0 stores column 2 twice (1 + 2) and lists its columns out of order.
    const SparseMatrix a(SparseFormat::CSR, test::vec({1, 4, 2, 8}), NDArray::from_list<int64_t>({2, 0, 2, 1}),
                         NDArray::from_list<int64_t>({0, 3, 3, 4}), {3, 3});
    const SparseMatrix b = SparseMatrix::from_dense(NDArray::from_list<double>({0, 0, 5, 0, 0, 0, 7, 1, 0}, {3, 3}),
                                                    SparseFormat::CSC);
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      S::SparseInput x = S::csr_matrix("x"), y = S::csc_matrix("y");
      Function f = function(concat(x.ins(), y.ins()), {S::add_s_s(x, y), S::mul_s_s(x, y), S::mul_s_s(y, x)});
      const std::vector<S::Value> r = S::call(f, concat(S::arguments(a), S::arguments(b)));
      CHECK(array_equal(r[0].sparse().to_dense(), NDArray::from_list<double>({4, 0, 8, 0, 0, 0, 7, 9, 0}, {3, 3})));
      CHECK(array_equal(r[1].sparse().to_dense(), NDArray::from_list<double>({0, 0, 15, 0, 0, 0, 0, 8, 0}, {3, 3})));
      CHECK(r[1].sparse().nnz() == 2);
      CHECK(r[2].sparse().format() == SparseFormat::CSC);
      CHECK(array_equal(r[2].sparse().to_dense(), r[1].sparse().to_dense()));
    }
  }

  TEST_CASE("mul_s_v and structured_add_s_v: the vector along the rows at x's stored entries, x's pattern kept") {
    for (const Pair& p : pairs())
      for (const char* linker : kLinkers) {
        CAPTURE(to_string(p.fx));
        CAPTURE(dtype_name(p.dx));
        CAPTURE(dtype_name(p.dy));
        CAPTURE(linker);
        test::UseLinker l(linker);
        const SparseMatrix a = random_sparse(5, 7, p.fx, p.dx, 3);
        const NDArray v = NDArray::from_list<double>({1.5, -2, 0.25, 3, -0.5, 2, 4}).astype(p.dy);
        S::SparseInput x = input(p.fx, "x", p.dx);
        Var vy = T::vector("v", p.dy);
        const Var prod = S::mul_s_v(x, vy), plus = S::structured_add_s_v(x, vy);
        Function f = function(concat(x.ins(), {In(vy)}), {prod, plus});
        const std::vector<S::Value> r = S::call(f, concat(S::arguments(a), {v}));
        const DType dt = promote_types(p.dx, p.dy);
        const NDArray da = dense64(a), dv = v.astype(DType::Float64);
        const std::vector<bool> in_a = stored(a);
        NDArray want_prod = NDArray::zeros({5, 7}), want_plus = NDArray::zeros({5, 7});
        for (int64_t i = 0; i < 5; ++i)
          for (int64_t j = 0; j < 7; ++j) {
            // The reference in the result's dtype (an integer result truncates v's fractions).
            const double vj = NDArray::scalar(dv.data_as<double>()[j]).astype(dt).astype(DType::Float64).item<double>();
            want_prod.at<double>({i, j}) = da.at<double>({i, j}) * vj;
            if (in_a[static_cast<std::size_t>(i * 7 + j)]) want_plus.at<double>({i, j}) = da.at<double>({i, j}) + vj;
          }
        for (const S::Value& m : r) {
          CHECK(m.sparse().format() == p.fx);
          CHECK(m.sparse().dtype() == dt);
          CHECK(m.sparse().nnz() == a.nnz());
          CHECK(array_equal(m.sparse().indices(), a.indices()));
          CHECK(array_equal(m.sparse().indptr(), a.indptr()));
        }
        CHECK(array_equal(dense64(r[0].sparse()), want_prod));
        CHECK(array_equal(dense64(r[1].sparse()), want_plus));
      }
  }

  TEST_CASE("large operands: the generated code's passes, split between threads, give perform's matrices") {
    const SparseMatrix a = random_sparse(1500, 40, SparseFormat::CSR, DType::Float64, 12, 0.1);
    const SparseMatrix b = random_sparse(1500, 40, SparseFormat::CSC, DType::Float64, 13, 0.1);
    NDArray vec = NDArray::zeros({40});
    for (int64_t j = 0; j < 40; ++j) vec.data_as<double>()[j] = 0.25 * static_cast<double>(j % 7) - 0.5;
    std::vector<std::vector<S::Value>> results;
    for (const char* linker : kLinkers) {
      test::UseLinker l(linker);
      S::SparseInput x = S::csr_matrix("x"), y = S::csc_matrix("y");
      Var vv = T::dvector("v");
      Function f = function(concat(concat(x.ins(), y.ins()), {In(vv)}),
                            {S::add_s_s(x, y), S::mul_s_s(x, y), S::mul_s_v(x, vv), S::structured_add_s_v(x, vv)});
      results.push_back(S::call(f, concat(concat(S::arguments(a), S::arguments(b)), {vec})));
    }
    NDArray sum = dense64(a);
    const NDArray db = dense64(b);
    for (int64_t i = 0; i < sum.size(); ++i) sum.data_as<double>()[i] += db.data_as<double>()[i];
    CHECK(array_equal(results[1][0].sparse().to_dense(), sum));
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      const SparseMatrix &p = results[0][k].sparse(), &c = results[1][k].sparse();
      CHECK(array_equal(p.data(), c.data()));
      CHECK(array_equal(p.indices(), c.indices()));
      CHECK(array_equal(p.indptr(), c.indptr()));
    }
  }

  TEST_CASE("infer_shape through the four ops and of SparseRowVector") {
    const SparseMatrix a = random_sparse(6, 4, SparseFormat::CSR, DType::Float64, 4);
    const SparseMatrix b = random_sparse(6, 4, SparseFormat::CSC, DType::Float64, 5);
    S::SparseInput x = S::csr_matrix("x"), y = S::csc_matrix("y");
    Var v = T::dvector("v");
    CHECK_NOTHROW(testing::check_infer_shape(
        {x.data, x.indices, x.indptr, x.shape, y.data, y.indices, y.indptr, y.shape, v},
        {S::dense_from_sparse(S::add_s_s(x, y)), S::dense_from_sparse(S::mul_s_s(y, x)),
         S::dense_from_sparse(S::mul_s_v(x, v)), S::dense_from_sparse(S::structured_add_s_v(y, v)),
         OpPtr(new S::SparseRowVector(SparseFormat::CSC, false))->apply1({y.data, y.indices, y.indptr, y.shape, v})},
        concat(concat(S::arguments(a), S::arguments(b)), {test::vec({1, 2, 3, 4})})));
  }

  TEST_CASE("verify_grad through add_s_s, mul_s_s, mul_s_v and structured_add_s_v") {
    for (SparseFormat fy : {SparseFormat::CSR, SparseFormat::CSC}) {
      CAPTURE(to_string(fy));
      const SparseMatrix a = random_sparse(5, 4, SparseFormat::CSR, DType::Float64, 6, 0.6);
      const SparseMatrix b = random_sparse(5, 4, fy, DType::Float64, 7, 0.6);
      const NDArray v = test::vec({0.5, -1.5, 2, 1.25});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::add_s_s(over(a, in[0]), over(b, in[1]))); },
          {a.data(), b.data()});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::mul_s_s(over(a, in[0]), over(b, in[1]))); },
          {a.data(), b.data()});
      testing::verify_grad(
          [&](const std::vector<Var>& in) { return S::dense_from_sparse(S::mul_s_v(over(b, in[0]), in[1])); },
          {b.data(), v});
      testing::verify_grad(
          [&](const std::vector<Var>& in) {
            return S::dense_from_sparse(S::structured_add_s_v(over(b, in[0]), in[1]));
          },
          {b.data(), v});
    }
  }

  TEST_CASE("the gradients of add_s_s and mul_s_s reach each operand's stored entries only") {
    const SparseMatrix a = random_sparse(4, 4, SparseFormat::CSR, DType::Float64, 8, 0.6);
    const SparseMatrix b = random_sparse(4, 4, SparseFormat::CSC, DType::Float64, 9, 0.6);
    S::SparseInput x = S::csr_matrix("x"), y = S::csc_matrix("y");
    const Var cost = T::sum(S::dense_from_sparse(S::add_s_s(x, y))) + T::sum(S::dense_from_sparse(S::mul_s_s(x, y)));
    const std::vector<Var> g = grad(cost, {x.data, y.data});
    Function f = function(concat(x.ins(), y.ins()), {g[0], g[1]});
    const std::vector<NDArray> r = f(concat(S::arguments(a), S::arguments(b)));
    // d/dx at x's stored (i, j): 1 + y[i, j]; d/dy likewise.
    const NDArray da = dense64(a), db = dense64(b);
    for (const auto& [m, other, gm] : {std::tuple{&a, &db, r[0]}, std::tuple{&b, &da, r[1]}}) {
      const bool csr = m->format() == SparseFormat::CSR;
      const int64_t* p = m->indptr().data_as<int64_t>();
      const int64_t* ix = m->indices().data_as<int64_t>();
      for (int64_t t = 0; t < 4; ++t)
        for (int64_t k = p[t]; k < p[t + 1]; ++k)
          CHECK(gm.data_as<double>()[k] == 1 + (csr ? other->at<double>({t, ix[k]}) : other->at<double>({ix[k], t})));
    }
  }

  TEST_CASE("bad operands: a clear error naming the op and the operands") {
    S::SparseInput x = S::csr_matrix("x"), y = S::csc_matrix("y");
    std::string e = test::error_of([&] { S::add_s_s(T::dmatrix("m"), y); });
    CHECK(e.find("sparse::add_s_s: x must be a sparse matrix, got m") != std::string::npos);
    e = test::error_of([&] { S::mul_s_v(x, T::dmatrix("m")); });
    CHECK(e.find("sparse::mul_s_v: y must be a dense vector, got m") != std::string::npos);
    e = test::error_of([&] { S::structured_add_s_v(x, T::vector("c", DType::Complex128)); });
    CHECK(e.find("sparse::structured_add_s_v: the dtypes float64 and complex128 upcast to complex128") !=
          std::string::npos);
    e = test::error_of([&] { OpPtr(new S::AddSS())->apply1({x, S::csr_matrix("z", DType::Float32)}); });
    CHECK(e.find("AddSS: x and y must have one dtype") != std::string::npos);
    const SparseMatrix a = random_sparse(3, 4, SparseFormat::CSR, DType::Float64, 10);
    const SparseMatrix b = random_sparse(4, 4, SparseFormat::CSC, DType::Float64, 11);
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      Var v = T::dvector("v");
      Function f = function(concat(x.ins(), y.ins()), {S::add_s_s(x, y)});
      e = test::error_of([&] { S::call(f, concat(S::arguments(a), S::arguments(b))); });
      CHECK(e.find("SparseMerge{csr,add}") != std::string::npos);
      CHECK(e.find("x has 3 rows and y 4; the shapes must be equal") != std::string::npos);
      Function g = function(concat(x.ins(), {In(v)}), {S::mul_s_v(x, v)});
      e = test::error_of([&] { S::call(g, concat(S::arguments(a), {test::vec({1, 2, 3})})); });
      CHECK(e.find("SparseRowVector{csr,mul}") != std::string::npos);
      CHECK(e.find("v has 3 entries, expected 4, the sparse matrix's column count") != std::string::npos);
    }
  }

  TEST_CASE("SparseMerge directly: an operand with unsorted rows is sorted first, in both linkers") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      Var d = T::dvector("d"), i = T::lvector("i"), p = T::lvector("p"), s = T::lvector("s");
      Var e = T::dvector("e"), j = T::lvector("j"), q = T::lvector("q");
      for (bool mul : {false, true}) {
        CAPTURE(mul);
        const std::vector<Var> m =
            OpPtr(new S::SparseMerge(SparseFormat::CSR, mul))->operator()({d, i, p, s, e, j, q, s});
        Function f = function({d, i, p, s, e, j, q}, {m[0], m[1], m[2]});
        // x: row 1 lists columns 2, 0, 2 (3 in all at column 2); y sorted: row 0 column 1, row 1 columns 0, 2.
        const std::vector<NDArray> r =
            f({test::vec({1, 2, 4}), NDArray::from_list<int64_t>({2, 0, 2}), NDArray::from_list<int64_t>({0, 0, 3}),
               NDArray::from_list<int64_t>({2, 3}), test::vec({8, 16, 32}), NDArray::from_list<int64_t>({1, 0, 2}),
               NDArray::from_list<int64_t>({0, 1, 3})});
        if (mul) {
          CHECK(array_equal(r[0], test::vec({32, 160})));
          CHECK(array_equal(r[1], NDArray::from_list<int64_t>({0, 2})));
          CHECK(array_equal(r[2], NDArray::from_list<int64_t>({0, 0, 2})));
        } else {
          CHECK(array_equal(r[0], test::vec({8, 18, 37})));
          CHECK(array_equal(r[1], NDArray::from_list<int64_t>({1, 0, 2})));
          CHECK(array_equal(r[2], NDArray::from_list<int64_t>({0, 1, 3})));
        }
      }
    }
  }
}

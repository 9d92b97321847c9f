// Sparse matrices returned from a compiled function (sparse::call): a sparse
// output comes back as a SparseMatrix of its format, next to dense outputs,
// fresh (not aliasing the arguments), in both linkers; operator() refuses
// such a function with a TypeError saying to use sparse::call.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "test_util.h"
#include "use_linker.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

TEST_SUITE("sparse outputs") {
  TEST_CASE("sparse and dense outputs together: SparseMatrix values of the outputs' formats, fresh arrays") {
    const NDArray a = NDArray::from_list<double>({0, 1.5, 0, 2, 0, 0, 0, -3, 4, 0, 0, 0}, {3, 4});
    const NDArray d = NDArray::from_list<double>({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
    for (const char* linker : {"py", "cpp"}) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      S::SparseInput x = S::csr_matrix("x");
      Var vd = T::dmatrix("d");
      std::vector<In> ins = x.ins();
      ins.push_back(In(vd));
      Function f = function(ins, {S::transpose(x), S::structured_dot(x, vd), x.var});
      REQUIRE(f.outputs().size() == 3);
      CHECK(f.outputs()[2] == x.var);
      const SparseMatrix m = SparseMatrix::from_dense(a, SparseFormat::CSR);
      std::vector<NDArray> args = S::arguments(m);
      args.push_back(d);
      const std::vector<S::Value> r = S::call(f, args);
      REQUIRE(r.size() == 3);
      const SparseMatrix t = r[0], same = r[2];
      const NDArray prod = r[1];
      CHECK(t.format() == SparseFormat::CSC);
      CHECK(array_equal(t.to_dense(), a.transpose().contiguous()));
      CHECK(array_equal(prod, NDArray::from_list<double>({18.5, 22, -21, -24, 4, 8}, {3, 2})));
      CHECK(same.format() == SparseFormat::CSR);
      CHECK(array_equal(same.to_dense(), a));
      CHECK_FALSE(same.data().shares_buffer(m.data()));  // an output is a fresh array, as dense ones are
      CHECK_FALSE(r[1].is_sparse());
      CHECK_THROWS_AS((void)r[1].sparse(), TypeError);
      CHECK_THROWS_AS((void)r[0].dense(), TypeError);
    }
  }

  TEST_CASE("operator() of a function with a sparse output is a TypeError naming the output and sparse::call") {
    S::SparseInput x = S::csc_matrix("x");
    Function f = function(x.ins(), {S::dense_from_sparse(x), S::structured_exp(x)});
    const SparseMatrix m = SparseMatrix::from_dense(NDArray::from_list<double>({0, 1, 2, 0}, {2, 2}), SparseFormat::CSC);
    const std::string e = test::error_of([&] { f(S::arguments(m)); });
    CHECK(e.find("output 1") != std::string::npos);
    CHECK(e.find("is a sparse matrix; call the function with sparse::call(f, args)") != std::string::npos);
    CHECK_THROWS_AS(f(S::arguments(m)), TypeError);
    // A function without sparse outputs: sparse::call gives its arrays.
    Function g = function(x.ins(), {S::dense_from_sparse(x)});
    CHECK(array_equal(S::call(g, S::arguments(m))[0].dense(), g(S::arguments(m))[0]));
  }
}

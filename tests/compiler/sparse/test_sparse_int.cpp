// Integer sparse matrices (int32 and int64 values, CSR and CSC), as a Theano
// user writes them: the sparse tutorial's int64 example (a csc matrix read
// back as CSR through csm_properties, returned sparse), conversions both
// ways, transpose and the arithmetic ops against exact integer references in
// both linkers; float results where the function makes floats; and a clear
// TypeError for a gradient with respect to an integer matrix.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"
#include "use_linker.h"
#include "theano/codegen/c_linker.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

namespace {

/// A 4 x 5 integer matrix (values -3..5, about half zero) times `k`, of `dtype`.
NDArray int_pattern(DType dtype, int64_t k = 1) {
  NDArray a = NDArray::zeros({4, 5}, DType::Int64);
  const int64_t v[20] = {0, 2, 0, -3, 0, 1, 0, 0, 4, 0, 0, 0, 0, 0, 0, 5, -1, 0, 0, 3};
  for (int64_t i = 0; i < 20; ++i) a.data_as<int64_t>()[i] = k * v[i];
  return a.astype(dtype);
}

/// `a` (int64) times `k`, in float64.
NDArray scaled(const NDArray& a, double k) {
  NDArray r = a.astype(DType::Float64);
  for (int64_t i = 0; i < r.size(); ++i) r.data_as<double>()[i] *= k;
  return r;
}

S::SparseInput input(SparseFormat f, const char* name, DType dtype) {
  return f == SparseFormat::CSR ? S::csr_matrix(name, dtype) : S::csc_matrix(name, dtype);
}

std::vector<NDArray> with(std::vector<NDArray> a, const std::vector<NDArray>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_SUITE("sparse integer matrices") {
  TEST_CASE("the tutorial: an int64 csc matrix's properties read as CSR give its transpose, returned sparse") {
    for (const char* linker : {"py", "cpp"}) {
      CAPTURE(linker);
      test::UseLinker l(linker);
      S::SparseInput x = S::csc_matrix("x", DType::Int64);
      const std::vector<Var> p = S::csm_properties(x);  // data, indices, indptr, shape
      Var y = S::csm(SparseFormat::CSR, p[0], p[1], p[2], p[3]);
      Function f = function(x.ins(), {y});
      const SparseMatrix a =
          SparseMatrix::from_dense(NDArray::from_list<int64_t>({0, 1, 1, 0, 0, 0, 1, 0, 0}, {3, 3}), SparseFormat::CSC);
      CHECK(array_equal(a.to_dense(), NDArray::from_list<int64_t>({0, 1, 1, 0, 0, 0, 1, 0, 0}, {3, 3})));
      const SparseMatrix r = S::call(f, S::arguments(a))[0];
      CHECK(r.format() == SparseFormat::CSR);
      CHECK(r.dtype() == DType::Int64);
      CHECK(array_equal(r.to_dense(), NDArray::from_list<int64_t>({0, 0, 1, 1, 0, 0, 1, 0, 0}, {3, 3})));
    }
  }

  TEST_CASE("conversions, transpose and arithmetic: int32 and int64, CSR and CSC, both linkers, exact") {
    for (DType dt : {DType::Int32, DType::Int64})
      for (SparseFormat fmt : {SparseFormat::CSR, SparseFormat::CSC})
        for (const char* linker : {"py", "cpp"}) {
          CAPTURE(dtype_name(dt));
          CAPTURE(to_string(fmt));
          CAPTURE(linker);
          test::UseLinker l(linker);
          const NDArray a = int_pattern(dt);
          const NDArray d = int_pattern(dt).transpose().contiguous();  // 5 x 4
          const NDArray e = int_pattern(dt, 2);  // 4 x 5
          S::SparseInput s = input(fmt, "S", dt);
          Var vd = T::TensorType::make(dt, {std::nullopt, std::nullopt})->make_variable("D");
          Var ve = T::TensorType::make(dt, {std::nullopt, std::nullopt})->make_variable("E");
          std::vector<In> ins = s.ins();
          ins.push_back(In(vd));
          ins.push_back(In(ve));
          Function f = function(ins, {S::dense_from_sparse(s), S::transpose(s), S::sparse_from_dense(ve, fmt),
                                      S::structured_dot(s, vd), S::add(s, ve), S::mul(s, ve),
                                      S::mul_scalar(s, T::constant(NDArray::scalar<int64_t>(3))), S::sum(s, 0),
                                      S::sum(s, 1), S::sum(s)});
          const std::vector<S::Value> r = S::call(f, with(S::arguments(SparseMatrix::from_dense(a, fmt)), {d, e}));
          // Exact integer references.
          NDArray prod = NDArray::zeros({4, 4}, DType::Int64), sum = NDArray::zeros({4, 5}, DType::Int64),
                  had = NDArray::zeros({4, 5}, DType::Int64), cols = NDArray::zeros({5}, DType::Int64),
                  rows = NDArray::zeros({4}, DType::Int64);
          const NDArray a64 = a.astype(DType::Int64), d64 = d.astype(DType::Int64), e64 = e.astype(DType::Int64);
          int64_t total = 0;
          for (int64_t i = 0; i < 4; ++i)
            for (int64_t j = 0; j < 5; ++j) {
              const int64_t v = a64.at<int64_t>({i, j});
              for (int64_t k = 0; k < 4; ++k) prod.at<int64_t>({i, k}) += v * d64.at<int64_t>({j, k});
              sum.at<int64_t>({i, j}) = v + e64.at<int64_t>({i, j});
              had.at<int64_t>({i, j}) = v * e64.at<int64_t>({i, j});
              cols.at<int64_t>({j}) += v;
              rows.at<int64_t>({i}) += v;
              total += v;
            }
          CHECK(r[0].dense().dtype() == dt);
          CHECK(array_equal(r[0].dense(), a));
          CHECK(r[1].sparse().dtype() == dt);
          CHECK(array_equal(r[1].sparse().to_dense(), a.transpose().contiguous()));
          CHECK(r[2].sparse().format() == fmt);
          CHECK(array_equal(r[2].sparse().to_dense(), e));
          CHECK(r[3].dense().dtype() == dt);
          CHECK(array_equal(r[3].dense().astype(DType::Int64), prod));
          CHECK(array_equal(r[4].dense().astype(DType::Int64), sum));
          CHECK(array_equal(r[5].sparse().to_dense().astype(DType::Int64), had));
          CHECK(array_equal(r[6].sparse().to_dense().astype(DType::Int64), int_pattern(DType::Int64, 3)));
          CHECK(array_equal(r[7].dense().astype(DType::Int64), cols));
          CHECK(array_equal(r[8].dense().astype(DType::Int64), rows));
          CHECK(r[9].dense().astype(DType::Int64).item<int64_t>() == total);
        }
  }

  TEST_CASE("float results where the function makes floats: structured_exp, mul_scalar by 1.5, mul by a float matrix") {
    S::SparseInput s = S::csr_matrix("S", DType::Int64);
    CHECK(S::sparse_type(S::structured_exp(s))->dtype() == DType::Float64);
    CHECK(S::sparse_type(S::mul_scalar(s, T::constant(NDArray::scalar(1.5))))->dtype() == DType::Float64);
    Var m = T::dmatrix("M");
    CHECK(S::sparse_type(S::mul(s, m))->dtype() == DType::Float64);
    std::vector<In> ins = s.ins();
    ins.push_back(In(m));
    Function f = function(ins, {S::mul_scalar(s, T::constant(NDArray::scalar(1.5))), S::mul(s, m)});
    const NDArray a = int_pattern(DType::Int64);
    const NDArray half = NDArray::full({4, 5}, 0.5);
    const std::vector<S::Value> r = S::call(f, with(S::arguments(SparseMatrix::from_dense(a, SparseFormat::CSR)), {half}));
    CHECK(allclose(r[0].sparse().to_dense(), scaled(a, 1.5)));
    CHECK(allclose(r[1].sparse().to_dense(), scaled(a, 0.5)));
  }

  TEST_CASE("integer values of other widths are refused, and an integer matrix has no gradient") {
    std::string e = test::error_of([&] { S::csr_matrix("S", DType::Int8); });
    CHECK(e.find("must be float32, float64, int32 or int64") != std::string::npos);
    CHECK(e.find("int8") != std::string::npos);
    S::SparseInput s = S::csr_matrix("S", DType::Int64);
    e = test::error_of([&] { grad(T::sum(S::dense_from_sparse(s)), s.var); });
    CHECK(e.find("is an integer sparse matrix, which has no gradient") != std::string::npos);
    CHECK_THROWS_AS(grad(T::sum(S::dense_from_sparse(s)), s.var), TypeError);
  }

  TEST_CASE("a compiled unit calls the host's sparse kernels for its nodes' value types, and embeds none") {
    test::UseLinker l("cpp");
    S::SparseInput a = S::csr_matrix("a", DType::Int32), b = S::csr_matrix("b", DType::Float32);
    Var d = T::fmatrix("d");
    std::vector<In> ins = a.ins();
    for (const In& in : b.ins()) ins.push_back(in);
    ins.push_back(In(d));
    Function f = function(ins, {S::dense_from_sparse(a), S::structured_dot(b, d)});
    // Perform's kernels, through the host's table (host_kernels.h): the
    // unit holds neither sparse_kernels.h's text nor an instantiation.
    const std::string src = codegen::CLinker::generate_source(f.fgraph());
    CHECK(src.find("a->kt->sparse_to_dense_i32(") != std::string::npos);
    CHECK(src.find("a->kt->csr_product_f32(") != std::string::npos);
    for (const char* embedded : {"THEANO_SPARSE_KERNELS", "THEANO_SPARSE_SWAP", "theano_csr_product_"})
      CHECK(src.find(embedded) == std::string::npos);
    // And it runs: [[0, 2], [3, 0]] as int32, [[1.5, 0], [0, -2]] times [[1, 2], [3, 4]] as float32.
    const SparseMatrix sa = SparseMatrix::from_dense(NDArray::from_list<std::int32_t>({0, 2, 3, 0}, {2, 2}), SparseFormat::CSR);
    const SparseMatrix sb = SparseMatrix::from_dense(NDArray::from_list<float>({1.5f, 0, 0, -2}, {2, 2}), SparseFormat::CSR);
    std::vector<NDArray> args = S::arguments(sa);
    for (const NDArray& x : S::arguments(sb)) args.push_back(x);
    args.push_back(NDArray::from_list<float>({1, 2, 3, 4}, {2, 2}));
    const std::vector<NDArray> out = f(args);
    CHECK(out[0].at<std::int32_t>({0, 1}) == 2);
    CHECK(out[0].at<std::int32_t>({1, 0}) == 3);
    CHECK(out[1].at<float>({0, 0}) == 1.5f);
    CHECK(out[1].at<float>({1, 1}) == -8.0f);
  }
}

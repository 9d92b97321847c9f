// The stage sparse_expand (rewrite/sparse.cpp) as before/after graphs: each
// sparse op becomes its component op over the operands' components, and
// CSMProperties(CSM(...)) cancels, so nothing sparse is left.
#include <doctest/doctest.h>

#include <iostream>

#include "test_util.h"
#include "theano/printing.h"
#include "theano/runtime/sparse_matrix.h"
#include "theano/rewrite/optdb.h"
#include "theano/sparse/components.h"
#include "theano/sparse/ops.h"
#include "theano/extending.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace S = theano::sparse;

namespace {

/// Runs the sparse stage on `outs` (inputs `ins`) and compares with `expected`.
void check_expand(const std::vector<Var>& ins, const std::vector<Var>& outs, const std::vector<Var>& expected) {
  FunctionGraph fg(ins, outs);
  rewrite::Query q;
  q.include = {"sparse"};
  rewrite::optimize(fg, q);
  const bool same = equal_computations(fg.outputs(), expected, fg.inputs(), ins);
  if (!same)
    std::cerr << "Input:\n" << debugprint(outs) << "Output:\n" << debugprint(fg) << "Expected:\n" << debugprint(expected);
  CHECK(same);
  for (Apply* n : fg.apply_nodes())
    for (const Var& v : n->outputs()) CHECK_MESSAGE(!S::sparse_type(v), "a sparse variable is left: " << v.str());
}

std::vector<Var> ins_of(const S::SparseInput& s, std::vector<Var> more) {
  std::vector<Var> r = {s.data, s.indices, s.indptr, s.shape};
  r.insert(r.end(), more.begin(), more.end());
  return r;
}

}  // namespace

TEST_SUITE("sparse_expand") {
  TEST_CASE("sparse_dot: structured_dot(S, D) -> SpMM{csr}, a CSC S through SwapFormat first") {
    S::SparseInput s = S::csr_matrix("S");
    Var d = T::dmatrix("D");
    check_expand(ins_of(s, {d}), {S::structured_dot(s, d)},
                 {OpPtr(new S::SpMM(SparseFormat::CSR))->apply1({s.data, s.indices, s.indptr, s.shape, d})});
    S::SparseInput c = S::csc_matrix("C");
    const std::vector<Var> csr =
        OpPtr(new S::SwapFormat(SparseFormat::CSC))->operator()({c.data, c.indices, c.indptr, c.shape});
    check_expand(ins_of(c, {d}), {S::structured_dot(c, d)},
                 {OpPtr(new S::SpMM(SparseFormat::CSR))->apply1({csr[0], csr[1], csr[2], c.shape, d})});
  }

  TEST_CASE("transpose: the other format over the same components, the shape's entries swapped") {
    S::SparseInput s = S::csr_matrix("S");
    Var g = T::dmatrix("G");
    const Var swapped = T::make_vector({T::subtensor(s.shape, {1}), T::subtensor(s.shape, {0})}, DType::Int64);
    // S^T is CSC over S's components; the product converts them to S^T's CSR form.
    const std::vector<Var> csr =
        OpPtr(new S::SwapFormat(SparseFormat::CSC))->operator()({s.data, s.indices, s.indptr, swapped});
    check_expand(ins_of(s, {g}), {S::structured_dot(S::transpose(s), g)},
                 {OpPtr(new S::SpMM(SparseFormat::CSR))->apply1({csr[0], csr[1], csr[2], swapped, g})});
  }

  TEST_CASE("local_csm_properties_csm and dense conversions: csm_properties(S) is S's inputs") {
    S::SparseInput s = S::csc_matrix("S");
    const std::vector<Var> p = S::csm_properties(s);
    check_expand(ins_of(s, {}), {p[0], p[2], S::dense_from_sparse(s)},
                 {s.data, s.indptr,
                  OpPtr(new S::ComponentsToDense(SparseFormat::CSC))->apply1({s.data, s.indices, s.indptr, s.shape})});
  }

  TEST_CASE("the structured gradient w.r.t. S: SampledDot at S's stored positions") {
    S::SparseInput s = S::csr_matrix("S");
    Var d = T::dmatrix("D");
    const Var cost = T::sum(S::structured_dot(s, d));
    const Var gs = grad(cost, s.data);
    FunctionGraph fg(ins_of(s, {d}), {gs});
    rewrite::Query q;
    q.include = {"sparse"};
    rewrite::optimize(fg, q);
    int sampled = 0;
    for (Apply* n : fg.apply_nodes()) {
      sampled += n->op()->type_name() == "SampledDot";
      CHECK(n->op()->type_name() != "CSM");
      CHECK(n->op()->type_name() != "CSMProperties");
    }
    CHECK(sampled == 1);
  }

  TEST_CASE("local_usmm: z + a * structured_dot(S, D) -> Usmm(a, S's components, D, z)") {
    S::SparseInput s = S::csr_matrix("S");
    Var d = T::dmatrix("D"), z = T::dmatrix("Z");
    const std::vector<Var> ins = ins_of(s, {d, z});
    FunctionGraph fg(ins, {z + 2.0 * S::structured_dot(s, d)});
    rewrite::Query sparse_stage;
    sparse_stage.include = {"sparse"};
    rewrite::optimize(fg, sparse_stage);  // as function() does first
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    const Var two = T::constant(NDArray::scalar(2.0));
    const Var want = OpPtr(new S::Usmm(SparseFormat::CSR))->apply1({two, s.data, s.indices, s.indptr, s.shape, d, z});
    const bool same = equal_computations(fg.outputs(), {want}, fg.inputs(), ins);
    if (!same) std::cerr << "Output:\n" << debugprint(fg) << "Expected:\n" << debugprint(std::vector<Var>{want});
    CHECK(same);
  }

  TEST_CASE("sparse constant folding: a product of constant matrices becomes one constant") {
    const SparseMatrix m(SparseFormat::CSR, test::vec({1, 2, 3}), NDArray::from_list<int64_t>({0, 2, 1}),
                         NDArray::from_list<int64_t>({0, 2, 3}), {2, 3});
    const Var s = S::csm(SparseFormat::CSR, T::constant(m.data()), T::constant(m.indices()), T::constant(m.indptr()),
                         T::constant(m.shape_array()));
    const Var d = T::constant(NDArray::from_vector<double>({1, 2, 3, 4, 5, 6}, {3, 2}));
    Var x = T::dmatrix("x");
    FunctionGraph fg({x}, {x + S::structured_dot(S::transpose(S::transpose(s)), d)});
    rewrite::Query sparse_stage;
    sparse_stage.include = {"sparse"};
    rewrite::optimize(fg, sparse_stage);
    rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
    // x + [[1*1 + 2*5, 1*2 + 2*6], [3*3, 3*4]]: one add of x and a folded constant.
    const Apply* add = fg.outputs()[0].owner();
    REQUIRE(add);
    CHECK(add->nin() == 2);
    const Constant* folded = add->input(1).as_constant();
    REQUIRE(folded);
    CHECK(array_equal(folded->data().reshape({2, 2}), NDArray::from_vector<double>({11, 14, 9, 12}, {2, 2})));
  }
}

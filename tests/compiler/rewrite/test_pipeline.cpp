// The whole optimization pipeline (rewrite/optdb_layout.cpp) against a golden
// text: every stage with its position and tags, in run order, each followed by
// its rewrites in registration order with their tags (rewrite::print_summary()).
// A change to the layout (a stage moved, a rewrite added, reordered or
// retagged) must change this text too, in the same commit.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/extending.hpp"
#include "theano/gradient.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"

namespace R = theano::rewrite;

namespace {

// After the leading newline.
const char* const kPipeline = R"(
    0  merge1 [fast_compile, fast_run, merge]
  0.5  sparse_expand [sparse]
         local_csm_properties_csm [sparse]
         sparse_dot [sparse]
         local_dense_from_sparse [sparse]
         local_sparse_from_dense [sparse]
         local_sparse_transpose [sparse]
         local_sampled_dot [sparse]
         local_gather_sparse [sparse]
         local_sparse_merge [sparse]
         local_sparse_row_vector [sparse]
    1  canonicalize [canonicalize_db, fast_compile, fast_run]
         merge [fast_compile, fast_run, merge]
         constant_folding [constant_folding, fast_compile, fast_run]
         local_neg_neg [canonicalize, fast_run]
         local_useless_elemwise [canonicalize, fast_run]
         local_useless_dimshuffle [canonicalize, fast_run]
         local_dimshuffle_merge [canonicalize, fast_run]
         local_dimshuffle_lift [canonicalize, fast_run]
         local_reshape_lift [canonicalize, fast_run]
         local_remove_all_assert [unsafe]
         local_cut_gpu_transfers [canonicalize, fast_run, gpu]
         local_add_canonizer [canonicalize, fast_run]
         local_mul_canonizer [canonicalize, fast_run]
         local_neg_div_neg [canonicalize, fast_run]
         local_sum_scalar_mul [canonicalize, fast_run]
         local_fill_cut [canonicalize, fast_run]
         local_fill_sink [canonicalize, fast_run]
         local_useless_arith [canonicalize, fast_run]
         local_useless_cast [canonicalize, fast_run]
         local_mul_neg_const [canonicalize, fast_run]
         local_neg_to_mul [canonicalize, fast_run]
         local_exp_log [canonicalize, fast_run]
         local_useless_comparison [canonicalize, fast_run]
         local_cast_cast [canonicalize, fast_run]
         local_useless_assert [canonicalize, fast_run]
         local_remove_grad_stops [canonicalize, fast_run]
         local_remove_index_expression [canonicalize, fast_compile, fast_run]
         local_sum_of_mask [canonicalize, fast_run]
         local_sort_slice_to_topk [canonicalize, fast_run]
         local_cumsum_of_fill [canonicalize, fast_run]
         local_reduce_reduce [canonicalize, fast_run]
         local_abs_merge [canonicalize, fast_run]
         local_trivial_arith [canonicalize, fast_run]
         local_softmax_simplifier [canonicalize, fast_run]
         local_log_softmax_from_lse [canonicalize, fast_run]
         local_exp_log_softmax [canonicalize, fast_run]
         local_sigmoid_from_exp [canonicalize, fast_run]
         local_exp_over_1_plus_exp [canonicalize, fast_run]
         local_sigm_times_exp [canonicalize, fast_run]
         ifelse_constant_condition [canonicalize, fast_run, ifelse]
         ifelse_same_branches [canonicalize, fast_run, ifelse]
         scan_prune [canonicalize, fast_run, scan]
         scan_pushout [canonicalize, fast_run, scan]
         local_shape_to_shape_i [canonicalize, fast_run, shape]
         local_track_shape_i [canonicalize, fast_run, shape]
         local_reshape_chain [canonicalize, fast_run, shape]
         local_useless_reshape [canonicalize, fast_run, shape]
         local_useless_alloc [canonicalize, fast_run, shape]
         local_useless_specify_shape [canonicalize, fast_run, shape]
         local_useless_subtensor [canonicalize, fast_run, shape]
         local_subtensor_make_vector [canonicalize, fast_run, shape]
         local_subtensor_of_arange [canonicalize, fast_run, shape]
         local_IncSubtensor_serialize [canonicalize, fast_run, shape]
         local_lift_transpose_through_dot [blas, canonicalize, fast_run]
         local_diag_of_dot [canonicalize, fast_run, linalg]
         local_diag_alloc_diag [canonicalize, fast_run, linalg]
         local_diag_transpose [canonicalize, fast_run, linalg]
         local_tril_triu_merge [canonicalize, fast_run, linalg]
         local_inv_of_inv [canonicalize, fast_run, linalg]
         local_inv_of_diag [canonicalize, fast_run, linalg]
         local_cholesky_of_diag [canonicalize, fast_run, linalg]
         local_solve_transpose [canonicalize, fast_run, linalg]
         local_solve_triangular_structure [canonicalize, fast_run, linalg]
         local_solve_cholesky_product [canonicalize, fast_run, linalg]
         local_det_of_structure [canonicalize, fast_run, linalg]
  1.5  stabilize [fast_compile, fast_run]
         merge [fast_run, merge]
         constant_folding [constant_folding, fast_run]
         local_log_softmax [fast_run, stabilize]
         local_softmax_crossentropy_grad [fast_run, stabilize]
         local_log_softmax_grad [fast_run, stabilize]
         local_softmax_from_log_softmax [fast_run, stabilize]
         local_softplus [fast_run, stabilize]
         local_log1p [fast_run, stabilize]
         local_remove_all_assert [unsafe]
         local_log_sigmoid [fast_run, stabilize]
         local_expm1 [fast_run, stabilize]
         local_log_sum_exp [fast_compile, fast_run, stabilize]
         local_crossentropy_to_log_softmax [fast_run, stabilize]
         local_logaddexp [fast_compile, fast_run, stabilize]
         local_log1mexp [fast_run, stabilize]
         local_sigmoid_from_exp [fast_run, stabilize]
         local_1msigmoid [fast_run, stabilize]
         local_exp_over_1_plus_exp [fast_run, stabilize]
         local_sigm_times_exp [fast_run, stabilize]
         local_sigm_quotient_distribute [fast_run, stabilize]
         local_IncSubtensor_serialize [fast_run, shape, stabilize]
         local_inv_to_solve [fast_run, linalg, stabilize]
         local_solve_transpose [fast_run, linalg, stabilize]
         local_solve_triangular_structure [fast_run, linalg, stabilize]
         local_det_of_structure [fast_run, linalg, stabilize]
         local_det_of_factored [fast_run, linalg, stabilize]
         local_log_det [fast_run, linalg, stabilize]
         local_sign_det [fast_run, linalg, stabilize]
         local_log_prod [fast_run, linalg, stabilize]
         local_det_of_lu [fast_run, linalg, stabilize]
         local_reuse_decomposition [fast_run, linalg, stabilize]
  1.7  blas_opt [blas, fast_run]
         local_dot_to_dot22 [blas, dot22, fast_run]
         local_batched_dot_to_dot22 [blas, dot22, fast_run]
         local_gemm [blas, fast_run, gemm]
         local_usmm [blas, fast_run, usmm]
    2  specialize [fast_run, specialize_db]
         merge [fast_run, merge]
         constant_folding [constant_folding, fast_run]
         local_neg_neg [fast_run, specialize]
         local_mul_specialize [fast_run, specialize]
         local_add_specialize [fast_run, specialize]
         local_pow_specialize [fast_run, specialize]
         local_useless_elemwise [fast_run, specialize]
         local_useless_dimshuffle [fast_run, specialize]
         local_dimshuffle_merge [fast_run, specialize]
         local_remove_all_assert [unsafe]
         local_neg_div_neg [fast_run, specialize]
         local_useless_arith [fast_run, specialize]
         local_useless_cast [fast_run, specialize]
         local_exp_log [fast_run, specialize]
         local_useless_comparison [fast_run, specialize]
         local_cast_cast [fast_run, specialize]
         local_useless_assert [fast_run, specialize]
         local_outer_dot_to_mul [blas, fast_run, specialize]
         ifelse_lift [fast_run, ifelse, specialize]
         ifelse_merge [fast_run, ifelse, specialize]
         scan_prune [fast_run, scan, specialize]
         scan_pushout_add [fast_run, scan, specialize]
         scan_save_mem [fast_run, scan, specialize]
         scan_merge [fast_run, scan, specialize]
         local_track_shape_i [fast_run, shape, specialize]
         local_useless_reshape [fast_run, shape, specialize]
         local_useless_alloc [fast_run, shape, specialize]
         local_useless_subtensor [fast_run, shape, specialize]
         local_subtensor_make_vector [fast_run, shape, specialize]
         local_linalg_structure_expand [fast_run, linalg, specialize]
         local_paired_triangular_solves_to_cho_solve [fast_run, linalg, specialize]
    3  uncanonicalize [fast_run]
 48.6  specialize_device [fast_compile, fast_run]
         local_abstractconv_corrmm [conv_gemm, fast_compile, fast_run]
 48.7  AbstractConvCheck [fast_compile, fast_run]
         local_abstractconv_check [fast_compile, fast_run]
 48.8  stream_gemv [blas, fast_run, host_only, stream_gemv]
   49  elemwise_fusion [fast_run, fusion]
   49  merge2 [fast_run, merge]
 49.3  gpu_transfer [gpu]
 49.5  add_destroy_handler [fast_run, inplace]
   60  inplace_setsubtensor [fast_run, inplace, inplace_setsubtensor]
   70  blas_opt_inplace [blas_opt_inplace, fast_run, inplace]
 70.5  gemm_scaled_copy [blas, fast_run, gemm_scaled_copy, host_only, inplace]
   75  inplace_elemwise [fast_run, inplace, inplace_elemwise]
   99  inplace_random [fast_run, inplace, inplace_random]
  100  merge3 [fast_run, merge]
)";

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("optdb: the whole pipeline, stage by stage and rewrite by rewrite") {
    const std::string s = R::print_summary();
    CHECK(s == kPipeline + 1);
  }
}

namespace {

R::NodeRewriterPtr tracking(const std::string& name, std::vector<std::string> tracks) {
  return R::make_node_rewriter(name, std::move(tracks), "x -> x",
                               [](theano::FunctionGraph&, theano::Apply&) { return R::RewriteResult::fail("test"); });
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("optdb: a rewrite tracking a misspelled op kind or scalar op is refused at registration") {
    R::EquilibriumDB db("test_db");
    const std::string op_typo = theano::test::error_of([&] {
      db.register_rewrite(tracking("local_typo_op", {"Softmax", "Softmx"}), {"test"});
    });
    CHECK(op_typo.find("test_db") != std::string::npos);
    CHECK(op_typo.find("'local_typo_op'") != std::string::npos);
    CHECK(op_typo.find("'Softmx'") != std::string::npos);
    CHECK_THROWS_AS(db.register_rewrite(tracking("local_typo_op", {"Softmx"}), {"test"}), theano::ValueError);
    const std::string scalar_typo = theano::test::error_of(
        [&] { db.register_rewrite(tracking("local_typo_scalar", {"Elemwise:mull"}), {"test"}); });
    CHECK(scalar_typo.find("'local_typo_scalar'") != std::string::npos);
    CHECK(scalar_typo.find("'Elemwise:mull'") != std::string::npos);
    CHECK(scalar_typo.find("no row of the scalar op table is named 'mull'") != std::string::npos);
    CHECK_THROWS_AS(db.register_rewrite(tracking("local_elemwise_only", {"Elemwise:"}), {"test"}), theano::ValueError);
    CHECK(db.names().empty());  // nothing refused was registered

    // Valid: op kinds (also those named by their parameters and GpuOp's), scalar table rows, all nodes.
    db.register_rewrite(tracking("local_ok", {"Softmax", "Elemwise:mul", "Argmin", "ZeroGrad", "MpiAllreduce",
                                              "GpuDimShuffle", "SpMM"}),
                        {"test"});
    db.register_rewrite(tracking("local_any", {}), {"test"});
    // An op declared outside the library is tracked once its kind is registered.
    CHECK_THROWS_AS(db.register_rewrite(tracking("local_user_op", {"TestPipelineUserOp"}), {"test"}),
                    theano::ValueError);
    R::register_op_kind("TestPipelineUserOp");
    db.register_rewrite(tracking("local_user_op", {"TestPipelineUserOp"}), {"test"});
    CHECK(db.names() == std::vector<std::string>{"local_ok", "local_any", "local_user_op"});
    CHECK_THROWS_AS(R::register_op_kind("Elemwise:mul"), theano::ValueError);
  }

  TEST_CASE("optdb: the op kinds the tensor API builds can all be tracked") {
    namespace T = theano::tensor;
    using theano::Var;
    Var m = T::dmatrix("m"), v = T::dvector("v"), i = T::lvector("i");
    const std::vector<Var> built{T::exp(m),
                                 T::transpose(m),
                                 T::sum(m, 0),
                                 T::argmax(m, 0),
                                 T::argmin(m, 0),
                                 T::alloc(1.0, {3, 4}),
                                 T::arange(5),
                                 T::eye(3),
                                 T::shape(m),
                                 T::reshape(m, {-1}),
                                 T::join(0, {v, v}),
                                 m[0],
                                 T::dot(m, m),
                                 T::nnet::softmax(m),
                                 T::nnet::log_softmax(m),
                                 T::cast(m, theano::DType::Float32),
                                 theano::zero_grad(m),
                                 theano::disconnected_grad(m),
                                 v[i]};
    R::EquilibriumDB db("kinds");
    int n = 0;
    for (const Var& out : built) {
      REQUIRE(out.owner());
      const std::string kind(out.owner()->op()->type_name());
      CAPTURE(kind);
      CHECK_NOTHROW(db.register_rewrite(tracking("local_kind_" + std::to_string(n++), {kind}), {"test"}));
    }
  }

  TEST_CASE("optdb: every built-in rewrite tracks an op kind or scalar op that exists") {
    // Building the default optdb registers every rewrite, checking each track.
    CHECK_NOTHROW(R::optdb());
    CHECK(R::optdb().stage_names().size() == 20);
  }
}

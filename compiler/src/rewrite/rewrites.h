/// \file
/// The rewriters defined in compiler/src/rewrite/*.cpp (those of the algebra
/// family: algebra.h), each registered (stage, tags, order) by optdb_layout.cpp
/// and only there. Private to compiler/src/rewrite.
#pragma once

#include <optional>
#include <vector>

#include "theano/rewrite/optdb.h"
#include "theano/rewrite/rewriter.h"

namespace theano::rewrite::detail {

// merge.cpp
GraphRewriterPtr merge_optimizer();
// fusion.cpp
GraphRewriterPtr elemwise_fusion();
// gpu_transfer.cpp
GraphRewriterPtr gpu_transfer();
NodeRewriterPtr local_cut_gpu_transfers();
// constant_folding.cpp
NodeRewriterPtr constant_folding();
// math.cpp
NodeRewriterPtr local_neg_neg();
NodeRewriterPtr local_mul_specialize();
NodeRewriterPtr local_add_specialize();
NodeRewriterPtr local_pow_specialize();
NodeRewriterPtr local_useless_elemwise();
NodeRewriterPtr local_useless_dimshuffle();
// dimshuffle.cpp
NodeRewriterPtr local_dimshuffle_merge();
NodeRewriterPtr local_dimshuffle_lift();
NodeRewriterPtr local_reshape_lift();
NodeRewriterPtr local_log1p();
NodeRewriterPtr local_softplus();
// nnet.cpp
NodeRewriterPtr local_log_softmax();
NodeRewriterPtr local_softmax_crossentropy_grad();
NodeRewriterPtr local_log_softmax_grad();
NodeRewriterPtr local_softmax_from_log_softmax();
NodeRewriterPtr local_remove_all_assert();

// sparse.cpp: the stage sparse_expand's rewrites.
NodeRewriterPtr local_csm_properties_csm();
NodeRewriterPtr sparse_dot();
NodeRewriterPtr local_dense_from_sparse();
NodeRewriterPtr local_sparse_from_dense();
NodeRewriterPtr local_sparse_transpose();
NodeRewriterPtr local_sampled_dot();
NodeRewriterPtr local_gather_sparse();
NodeRewriterPtr local_sparse_merge();
NodeRewriterPtr local_sparse_row_vector();
// ifelse.cpp: IfElse constant conditions, identical branches, lifting, merging.
NodeRewriterPtr ifelse_constant_condition();
NodeRewriterPtr ifelse_same_branches();
NodeRewriterPtr ifelse_lift();
GraphRewriterPtr ifelse_merge();
/// Whether an output of `b` feeds `a` (merging the two would make a cycle).
bool depends_on(const Apply& a, const Apply& b);
// scan.cpp: Scan prune, pushout, save_mem, merge.
NodeRewriterPtr scan_prune();
NodeRewriterPtr scan_pushout();
NodeRewriterPtr scan_pushout_add();
GraphRewriterPtr scan_save_mem();
GraphRewriterPtr scan_merge();
// shape.cpp: shape promotion (ShapeFeature), reshape chain, useless shape ops.
NodeRewriterPtr local_shape_to_shape_i();
NodeRewriterPtr local_track_shape_i();
NodeRewriterPtr local_reshape_chain();
NodeRewriterPtr local_useless_reshape();
NodeRewriterPtr local_useless_alloc();
NodeRewriterPtr local_useless_specify_shape();
// subtensor.cpp: the IndexExpression marker, useless subtensor, make_vector indexing, inc_subtensor
// serialization.
NodeRewriterPtr local_remove_index_expression();
NodeRewriterPtr local_sum_of_mask();
// sort_rewrites.cpp: a slice of the ends of a sort -> top-k.
NodeRewriterPtr local_sort_slice_to_topk();
// cumulative_rewrites.cpp: the running sum of a constant fill.
NodeRewriterPtr local_cumsum_of_fill();
NodeRewriterPtr local_useless_subtensor();
NodeRewriterPtr local_subtensor_make_vector();
NodeRewriterPtr local_subtensor_of_arange();
NodeRewriterPtr local_IncSubtensor_serialize();
// blas.cpp: dot22, gemm / gemv / ger, usmm, transposes lifted through dot, outer products as
// elementwise products.
NodeRewriterPtr local_dot_to_dot22();
NodeRewriterPtr local_gemm();
NodeRewriterPtr local_usmm();
NodeRewriterPtr local_lift_transpose_through_dot();
NodeRewriterPtr local_outer_dot_to_mul();
// batched_dot.cpp: a BatchedDot whose b is one matrix -> a reshaped Dot22.
NodeRewriterPtr local_batched_dot_to_dot22();
// conv.cpp: abstract convolutions -> CorrMM, and the check that none is left.
NodeRewriterPtr local_abstractconv_corrmm();
NodeRewriterPtr local_abstractconv_check();
// inplace.cpp: the destroy handler stage and the inplace passes.
GraphRewriterPtr add_destroy_handler();
GraphRewriterPtr inplace_setsubtensor();
GraphRewriterPtr blas_opt_inplace();
// gemm_scaled_copy.cpp: a Gemm left out of place with a constant beta (not 0
// or 1) scales Z into a fresh buffer and accumulates there in place.
GraphRewriterPtr gemm_scaled_copy();
// stream_gemv.cpp: a Dot and a Gemv of the same matrix's transpose, joined by
// elementwise ops, into one RowStreamGemv (one pass over the matrix).
GraphRewriterPtr stream_gemv();
GraphRewriterPtr inplace_elemwise();
GraphRewriterPtr inplace_random();

// linalg_structure.cpp: the structural matrix ops (diagonals, triangular parts).
NodeRewriterPtr local_diag_of_dot();
NodeRewriterPtr local_diag_alloc_diag();
NodeRewriterPtr local_diag_transpose();
NodeRewriterPtr local_tril_triu_merge();
NodeRewriterPtr local_linalg_structure_expand();

/// The value of `v` when it is a constant (possibly under DimShuffles) whose
/// elements are all equal; nullopt otherwise.
std::optional<double> scalar_constant_value(const Var& v);
/// `v` made to have `out`'s type: cast to its dtype, then broadcast against
/// `shape_refs` (through `second`) until the type fits. A null Var when it
/// cannot be done (the rewrite must then not apply).
Var fit_type(Var v, const Var& out, const std::vector<Var>& shape_refs);

}  // namespace theano::rewrite::detail

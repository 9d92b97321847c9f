/// \file
/// The rewrites defined in compiler/src/rewrite/*.cpp, registered (database, tags,
/// position) by optdb_layout.cpp or their family's register_*_rewrites. Private here.
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

// Families that register themselves into the layout's databases (called by
// build_optdb in optdb_layout.cpp, which documents where each row lands):
// canonicalize.cpp, stabilize.cpp: the Canonizer (add/mul canonicalization),
// algebra simplifications, fill cut/sink, stabilizations.
void register_algebra_rewrites(SequenceDB& db);
// sigmoid.cpp: 1 / (1 + exp(x)), 1 - sigmoid(x), exp(x) * sigmoid(-x) and the gradients built from them.
void register_sigmoid_rewrites(SequenceDB& db);
// sparse.cpp: the stage sparse_expand and its rewrites (sparse_dot, local_csm_properties_csm, ...).
void register_sparse_rewrites(SequenceDB& db);
/// IfElse: constant conditions, identical branches, lifting, merging (rewrite/ifelse.cpp).
void register_ifelse_rewrites(SequenceDB& db);
/// Whether an output of `b` feeds `a` (merging the two would make a cycle).
bool depends_on(const Apply& a, const Apply& b);
/// Scan: prune, pushout, save_mem, merge (rewrite/scan.cpp).
void register_scan_rewrites(SequenceDB& db);
NodeRewriterPtr scan_prune();
NodeRewriterPtr scan_pushout();
NodeRewriterPtr scan_pushout_add();
GraphRewriterPtr scan_save_mem();
GraphRewriterPtr scan_merge();
NodeRewriterPtr ifelse_constant_condition();
NodeRewriterPtr ifelse_same_branches();
NodeRewriterPtr ifelse_lift();
GraphRewriterPtr ifelse_merge();
// shape.cpp, subtensor.cpp: ShapeFeature and shape promotion, reshape chain,
// inc_subtensor serialization, useless shape ops.
void register_shape_rewrites(SequenceDB& db);
// blas.cpp, inplace.cpp: dot22, gemm/gemv/ger, the destroy handler and the
// inplace rewrites.
void register_blas_inplace_rewrites(SequenceDB& db);
// inplace.cpp: add_destroy_handler (49.5), inplace_setsubtensor (60),
// blas_opt_inplace (70), inplace_elemwise (75).
void register_inplace_rewrites(SequenceDB& db);

/// The value of `v` when it is a constant (possibly under DimShuffles) whose
/// elements are all equal; nullopt otherwise.
std::optional<double> scalar_constant_value(const Var& v);
/// `v` made to have `out`'s type: cast to its dtype, then broadcast against
/// `shape_refs` (through `second`) until the type fits. A null Var when it
/// cannot be done (the rewrite must then not apply).
Var fit_type(Var v, const Var& out, const std::vector<Var>& shape_refs);

}  // namespace theano::rewrite::detail

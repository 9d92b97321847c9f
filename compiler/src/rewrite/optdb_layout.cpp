/// \file
/// The whole optimization pipeline, top to bottom: every stage of optdb (name,
/// float position, tags) and every rewrite of every equilibrium stage, in the
/// order they run, is registered here and nowhere else. The rewrites
/// themselves live in their family files (rewrites.h, algebra.h say where);
/// this file says where each lands. Positions and tags follow PyTensor's
/// `compile/mode.py` and `tensor/rewriting` (docs/architecture.md, "Rewrites and
/// the optimizer database" and "Modes").
///
/// The layout as text, stage by stage and rewrite by rewrite, is
/// `rewrite::print_summary()`; tests/compiler/rewrite/test_pipeline.cpp holds
/// it verbatim, so a change here shows there.
///
/// Order matters: stages run by position (registration order on ties, as for
/// elemwise_fusion and merge2 at 49); an equilibrium stage tries its rewrites
/// on a node in registration order. A rewrite's `tracks` must name an op kind
/// or an `Elemwise:<scalar op>` that exists, or registration throws.
#include <algorithm>
#include <cctype>

#include "algebra.h"
#include "known_names.h"
#include "linalg_rewrites.h"
#include "rewrites.h"
#include "theano/config_flags.h"
#include "theano/rewrite/optdb.h"

namespace theano::rewrite {

using namespace detail;

namespace {

using Tags = std::vector<std::string>;

SequenceDB build_optdb() {
  SequenceDB db;
  auto sparse_expand = std::make_shared<EquilibriumDB>("sparse_expand");
  auto canonicalize = std::make_shared<EquilibriumDB>("canonicalize");
  auto stabilize = std::make_shared<EquilibriumDB>("stabilize");
  auto blas = std::make_shared<EquilibriumDB>("blas_opt");
  auto specialize = std::make_shared<EquilibriumDB>("specialize");
  auto uncanonicalize = std::make_shared<EquilibriumDB>("uncanonicalize");

  // The stages, in run order.
  db.register_stage("merge1", 0, merge_optimizer(), {"fast_run", "fast_compile", "merge"});
  // function() runs sparse_expand first, in every mode, whenever the graph has a sparse variable.
  db.register_stage("sparse_expand", 0.5, sparse_expand, {"sparse"});
  db.register_stage("canonicalize", 1, canonicalize, {"fast_run", "fast_compile", "canonicalize_db"});
  // fast_compile runs the stabilize stage too, for the two rewrites tagged fast_compile there (PyTensor's
  // tags): log(sum(exp(x))) and log(exp(x) + exp(y) ...) overflow at x = 1000 otherwise.
  db.register_stage("stabilize", 1.5, stabilize, {"fast_run", "fast_compile"});
  db.register_stage("blas_opt", 1.7, blas, {"fast_run", "blas"});
  db.register_stage("specialize", 2, specialize, {"fast_run", "specialize_db"});
  db.register_stage("uncanonicalize", 3, uncanonicalize, {"fast_run"});
  // Theano's specialize_device (48.6: conv_opts, the choice of a convolution implementation) and
  // AbstractConvCheck (48.7), in fast_compile too: an abstract conv is never left to run.
  auto specialize_device = std::make_shared<EquilibriumDB>("specialize_device");
  db.register_stage("specialize_device", 48.6, specialize_device, {"fast_run", "fast_compile"});
  auto conv_check = std::make_shared<EquilibriumDB>("AbstractConvCheck");
  db.register_stage("AbstractConvCheck", 48.7, conv_check, {"fast_run", "fast_compile"});
  // Before the fusion: a fused node may join a value computed from the Dot's result with one that is
  // not (a cost and 1 / N), which would make the joined node's input depend on its output. host_only:
  // a function with a GPU context leaves it out (its op has no GPU form; the transfer comes later).
  db.register_stage("stream_gemv", 48.8, stream_gemv(), {"fast_run", "blas", "stream_gemv", "host_only"});
  db.register_stage("elemwise_fusion", 49, elemwise_fusion(), {"fast_run", "fusion"});
  db.register_stage("merge2", 49, merge_optimizer(), {"fast_run", "merge"});
  // Only with a GPU context selected (THEANO_FLAGS device): function() includes the tag gpu then.
  db.register_stage("gpu_transfer", 49.3, gpu_transfer(), {"gpu"});
  // The DestroyHandler with function()'s MutableInputs, then the inplace passes.
  db.register_stage("add_destroy_handler", 49.5, add_destroy_handler(), {"fast_run", "inplace"});
  db.register_stage("inplace_setsubtensor", 60, inplace_setsubtensor(),
                    {"fast_run", "inplace", "inplace_setsubtensor"});
  db.register_stage("blas_opt_inplace", 70, blas_opt_inplace(), {"fast_run", "inplace", "blas_opt_inplace"});
  // After it: the Gemms still out of place. host_only: cuBLAS has no beta pass to save.
  db.register_stage("gemm_scaled_copy", 70.5, gemm_scaled_copy(),
                    {"fast_run", "inplace", "blas", "gemm_scaled_copy", "host_only"});
  db.register_stage("inplace_elemwise", 75, inplace_elemwise(), {"fast_run", "inplace", "inplace_elemwise"});
  db.register_stage("inplace_random", 99, inplace_random(), {"fast_run", "inplace", "inplace_random"});
  db.register_stage("merge3", 100, merge_optimizer(), {"fast_run", "merge"});

  // sparse_expand (sparse.cpp): sparse ops become component ops; at equilibrium no sparse variable is left
  // between the graph's inputs and outputs.
  for (const NodeRewriterPtr& r :
       {local_csm_properties_csm(), sparse_dot(), local_dense_from_sparse(), local_sparse_from_dense(),
        local_sparse_transpose(), local_sampled_dot(), local_gather_sparse(), local_sparse_merge(),
        local_sparse_row_vector()})
    sparse_expand->register_rewrite(r, {"sparse"});

  // canonicalize: put the graph in a normal form (fast_compile runs only merge + folding).
  const Tags canon{"fast_run", "canonicalize"};
  canonicalize->register_global(merge_optimizer(), {"fast_run", "fast_compile", "merge"});
  canonicalize->register_rewrite(constant_folding(), {"fast_run", "fast_compile", "constant_folding"});
  canonicalize->register_rewrite(local_neg_neg(), canon);
  canonicalize->register_rewrite(local_useless_elemwise(), canon);
  canonicalize->register_rewrite(local_useless_dimshuffle(), canon);
  canonicalize->register_rewrite(local_dimshuffle_merge(), canon);
  canonicalize->register_rewrite(local_dimshuffle_lift(), canon);
  canonicalize->register_rewrite(local_reshape_lift(), canon);
  canonicalize->register_rewrite(local_remove_all_assert(), {"unsafe"});
  canonicalize->register_rewrite(local_cut_gpu_transfers(), {"fast_run", "canonicalize", "gpu"});
  //   the Canonizer and the algebra family (canonicalize.cpp, algebra.cpp, simplify.cpp, softmax_rewrites.cpp)
  canonicalize->register_rewrite(local_add_canonizer(), canon);
  canonicalize->register_rewrite(local_mul_canonizer(), canon);
  canonicalize->register_rewrite(local_neg_div_neg(), canon);
  canonicalize->register_rewrite(local_sum_scalar_mul(), canon);
  canonicalize->register_rewrite(local_fill_cut(), canon);
  canonicalize->register_rewrite(local_fill_sink(), canon);
  canonicalize->register_rewrite(local_useless_arith(), canon);
  canonicalize->register_rewrite(local_useless_cast(), canon);
  canonicalize->register_rewrite(local_mul_neg_const(), canon);
  canonicalize->register_rewrite(local_neg_to_mul(), canon);
  canonicalize->register_rewrite(local_exp_log(), canon);
  canonicalize->register_rewrite(local_useless_comparison(), canon);
  canonicalize->register_rewrite(local_cast_cast(), canon);
  canonicalize->register_rewrite(local_useless_assert(), canon);
  canonicalize->register_rewrite(local_remove_grad_stops(), canon);
  canonicalize->register_rewrite(local_remove_index_expression(), {"fast_run", "fast_compile", "canonicalize"});
  canonicalize->register_rewrite(local_sum_of_mask(), canon);
  canonicalize->register_rewrite(local_sort_slice_to_topk(), canon);
  canonicalize->register_rewrite(local_cumsum_of_fill(), canon);
  canonicalize->register_rewrite(local_reduce_reduce(), canon);
  canonicalize->register_rewrite(local_abs_merge(), canon);
  canonicalize->register_rewrite(local_trivial_arith(), canon);
  canonicalize->register_rewrite(local_softmax_simplifier(), canon);
  canonicalize->register_rewrite(local_log_softmax_from_lse(), canon);
  canonicalize->register_rewrite(local_exp_log_softmax(), canon);
  canonicalize->register_rewrite(local_sigmoid_from_exp(), canon);
  //   the sigmoid family (sigmoid.cpp) here too, so the Canonizer sees sigmoids
  canonicalize->register_rewrite(local_exp_over_1_plus_exp(), canon);
  canonicalize->register_rewrite(local_sigm_times_exp(), canon);
  //   IfElse (ifelse.cpp) and Scan (scan.cpp)
  const Tags canon_ifelse{"fast_run", "canonicalize", "ifelse"};
  canonicalize->register_rewrite(ifelse_constant_condition(), canon_ifelse);
  canonicalize->register_rewrite(ifelse_same_branches(), canon_ifelse);
  const Tags canon_scan{"fast_run", "canonicalize", "scan"};
  canonicalize->register_rewrite(scan_prune(), canon_scan);
  canonicalize->register_rewrite(scan_pushout(), canon_scan);
  //   shape promotion and useless shape ops (shape.cpp, subtensor.cpp). No ShapeOpt stage at 0.1
  //   (PyTensor's): each shape rewrite attaches the ShapeFeature on its first call, so a graph without
  //   shape, reshape, alloc or subtensor nodes never pays for it, and the feature stays attached (and up
  //   to date) for every later stage.
  const Tags canon_shape{"fast_run", "canonicalize", "shape"};
  canonicalize->register_rewrite(local_shape_to_shape_i(), canon_shape);
  canonicalize->register_rewrite(local_track_shape_i(), canon_shape);
  canonicalize->register_rewrite(local_reshape_chain(), canon_shape);
  canonicalize->register_rewrite(local_useless_reshape(), canon_shape);
  canonicalize->register_rewrite(local_useless_alloc(), canon_shape);
  canonicalize->register_rewrite(local_useless_specify_shape(), canon_shape);
  canonicalize->register_rewrite(local_useless_subtensor(), canon_shape);
  canonicalize->register_rewrite(local_subtensor_make_vector(), canon_shape);
  canonicalize->register_rewrite(local_subtensor_of_arange(), canon_shape);
  canonicalize->register_rewrite(local_IncSubtensor_serialize(), canon_shape);
  //   blas.cpp: transposes lifted through dot, so that blas_opt sees plain products
  canonicalize->register_rewrite(local_lift_transpose_through_dot(), {"fast_run", "canonicalize", "blas"});
  //   linalg_structure.cpp: diagonals of products, of alloc_diag and of transposes; tril/triu of tril/triu
  const Tags canon_linalg{"fast_run", "canonicalize", "linalg"};
  canonicalize->register_rewrite(local_diag_of_dot(), canon_linalg);
  canonicalize->register_rewrite(local_diag_alloc_diag(), canon_linalg);
  canonicalize->register_rewrite(local_diag_transpose(), canon_linalg);
  canonicalize->register_rewrite(local_tril_triu_merge(), canon_linalg);
  //   linalg_det.cpp, linalg_solve.cpp: inverses, factors, solves and determinants of known structure
  canonicalize->register_rewrite(local_inv_of_inv(), canon_linalg);
  canonicalize->register_rewrite(local_inv_of_diag(), canon_linalg);
  canonicalize->register_rewrite(local_cholesky_of_diag(), canon_linalg);
  canonicalize->register_rewrite(local_solve_transpose(), canon_linalg);
  canonicalize->register_rewrite(local_solve_triangular_structure(), canon_linalg);
  canonicalize->register_rewrite(local_solve_cholesky_product(), canon_linalg);
  canonicalize->register_rewrite(local_det_of_structure(), canon_linalg);

  // stabilize: numerically safer forms.
  const Tags stab{"fast_run", "stabilize"};
  stabilize->register_global(merge_optimizer(), {"fast_run", "merge"});
  stabilize->register_rewrite(constant_folding(), {"fast_run", "constant_folding"});
  stabilize->register_rewrite(local_log_softmax(), stab);
  stabilize->register_rewrite(local_softmax_crossentropy_grad(), stab);
  stabilize->register_rewrite(local_log_softmax_grad(), stab);
  stabilize->register_rewrite(local_softmax_from_log_softmax(), stab);
  stabilize->register_rewrite(local_softplus(), stab);
  stabilize->register_rewrite(local_log1p(), stab);
  stabilize->register_rewrite(local_remove_all_assert(), {"unsafe"});
  //   stabilize.cpp; fast_compile runs log-sum-exp and logaddexp too (PyTensor's tags)
  stabilize->register_rewrite(local_log_sigmoid(), stab);
  stabilize->register_rewrite(local_expm1(), stab);
  stabilize->register_rewrite(local_log_sum_exp(), {"fast_run", "fast_compile", "stabilize"});
  stabilize->register_rewrite(local_crossentropy_to_log_softmax(), stab);
  stabilize->register_rewrite(local_logaddexp(), {"fast_run", "fast_compile", "stabilize"});
  stabilize->register_rewrite(local_log1mexp(), stab);
  stabilize->register_rewrite(local_sigmoid_from_exp(), stab);
  //   the sigmoid family, after log(sigmoid) and friends are in place
  stabilize->register_rewrite(local_1msigmoid(), stab);
  stabilize->register_rewrite(local_exp_over_1_plus_exp(), stab);
  stabilize->register_rewrite(local_sigm_times_exp(), stab);
  stabilize->register_rewrite(local_sigm_quotient_distribute(), stab);
  stabilize->register_rewrite(local_IncSubtensor_serialize(), {"fast_run", "stabilize", "shape"});
  //   linalg_solve.cpp, linalg_det.cpp: products with an inverse as solves (then read in place as in
  //   canonicalize), determinants through the diagonal of a structure or a factor found elsewhere, their logs
  //   through slogdet or sums of logs; last, solves of one matrix sharing one factorization (before blas_opt, so
  //   that lu_solve's products become BLAS calls)
  const Tags stab_linalg{"fast_run", "stabilize", "linalg"};
  stabilize->register_rewrite(local_inv_to_solve(), stab_linalg);
  stabilize->register_rewrite(local_solve_transpose(), stab_linalg);
  stabilize->register_rewrite(local_solve_triangular_structure(), stab_linalg);
  stabilize->register_rewrite(local_det_of_structure(), stab_linalg);
  stabilize->register_rewrite(local_det_of_factored(), stab_linalg);
  stabilize->register_rewrite(local_log_det(), stab_linalg);
  stabilize->register_rewrite(local_sign_det(), stab_linalg);
  stabilize->register_rewrite(local_log_prod(), stab_linalg);
  stabilize->register_rewrite(local_det_of_lu(), stab_linalg);
  stabilize->register_rewrite(local_reuse_decomposition(), stab_linalg);

  // blas_opt (blas.cpp): dot22, then gemm / gemv / ger and usmm from sums of scaled products.
  blas->register_rewrite(local_dot_to_dot22(), {"fast_run", "blas", "dot22"});
  blas->register_rewrite(local_batched_dot_to_dot22(), {"fast_run", "blas", "dot22"});
  blas->register_rewrite(local_gemm(), {"fast_run", "blas", "gemm"});
  blas->register_rewrite(local_usmm(), {"fast_run", "blas", "usmm"});

  // specialize: cheaper forms of what canonicalize left.
  const Tags spec{"fast_run", "specialize"};
  specialize->register_global(merge_optimizer(), {"fast_run", "merge"});
  specialize->register_rewrite(constant_folding(), {"fast_run", "constant_folding"});
  specialize->register_rewrite(local_neg_neg(), spec);
  specialize->register_rewrite(local_mul_specialize(), spec);
  specialize->register_rewrite(local_add_specialize(), spec);
  specialize->register_rewrite(local_pow_specialize(), spec);
  specialize->register_rewrite(local_useless_elemwise(), spec);
  specialize->register_rewrite(local_useless_dimshuffle(), spec);
  specialize->register_rewrite(local_dimshuffle_merge(), spec);
  specialize->register_rewrite(local_remove_all_assert(), {"unsafe"});
  specialize->register_rewrite(local_neg_div_neg(), spec);
  specialize->register_rewrite(local_useless_arith(), spec);
  specialize->register_rewrite(local_useless_cast(), spec);
  specialize->register_rewrite(local_exp_log(), spec);
  specialize->register_rewrite(local_useless_comparison(), spec);
  specialize->register_rewrite(local_cast_cast(), spec);
  specialize->register_rewrite(local_useless_assert(), spec);
  //   blas.cpp: an outer product left after blas_opt's gers -> an elementwise product
  specialize->register_rewrite(local_outer_dot_to_mul(), {"fast_run", "specialize", "blas"});
  const Tags spec_ifelse{"fast_run", "specialize", "ifelse"};
  specialize->register_rewrite(ifelse_lift(), spec_ifelse);
  specialize->register_global(ifelse_merge(), spec_ifelse);
  const Tags spec_scan{"fast_run", "specialize", "scan"};
  specialize->register_rewrite(scan_prune(), spec_scan);
  specialize->register_rewrite(scan_pushout_add(), spec_scan);
  specialize->register_global(scan_save_mem(), spec_scan);
  specialize->register_global(scan_merge(), spec_scan);
  const Tags spec_shape{"fast_run", "specialize", "shape"};
  specialize->register_rewrite(local_track_shape_i(), spec_shape);
  specialize->register_rewrite(local_useless_reshape(), spec_shape);
  specialize->register_rewrite(local_useless_alloc(), spec_shape);
  specialize->register_rewrite(local_useless_subtensor(), spec_shape);
  specialize->register_rewrite(local_subtensor_make_vector(), spec_shape);
  //   linalg_structure.cpp: ExtractDiag, AllocDiag, Tril and Triu become graphs of ops generated code lowers
  //   (after canonicalize and stabilize, whose rewrites see the ops themselves)
  specialize->register_rewrite(local_linalg_structure_expand(), {"fast_run", "specialize", "linalg"});
  //   linalg_solve.cpp: a Cholesky factor's forward and backward substitutions as one cho_solve
  specialize->register_rewrite(local_paired_triangular_solves_to_cho_solve(), {"fast_run", "specialize", "linalg"});

  // specialize_device (conv.cpp): each abstract convolution becomes its implementation, CorrMM (Theano's
  // conv_groupopt, here with one implementation); AbstractConvCheck refuses one left over.
  specialize_device->register_rewrite(local_abstractconv_corrmm(), {"fast_run", "fast_compile", "conv_gemm"});
  conv_check->register_rewrite(local_abstractconv_check(), {"fast_run", "fast_compile"});

  // uncanonicalize: empty so far.
  return db;
}

std::vector<std::string> split_colon(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ":") {
    if (c == ':' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

}  // namespace

const SequenceDB& optdb() {
  static const SequenceDB db = build_optdb();
  return db;
}

// The modes, exactly as the seed's table:
//   o1 = fast_compile: merge + constant folding
//   o2 = fast_compile + fusion
//   o3 = fast_run - inplace
//   o4 = fast_run: everything tagged fast_run
//   stabilize = fast_run cut at 1.5 (PyTensor's position_cutoff 1.51 keeps the stabilize stage)
//   unsafe = o3 + unsafe (local_remove_all_assert, ...)
//   unoptimized: nothing (for tests and debugging of the raw graph)
Query mode_query(const std::string& mode) {
  std::string m = mode;
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  Query q;
  if (m == "o1" || m == "fast_compile") q.include = {"fast_compile"};
  else if (m == "o2") q.include = {"fast_compile", "fusion"};
  else if (m == "o3") q = Query{{"fast_run"}, {"inplace"}, {}, {}};
  // The checking modes (compile/debug_mode.h, nan_guard.h) check what fast_run runs, as Theano's do.
  else if (m == "o4" || m == "fast_run" || m == "debugmode" || m == "nanguardmode") q.include = {"fast_run"};
  else if (m == "stabilize") q = Query{{"fast_run"}, {}, {}, 1.51};
  else if (m == "unsafe") q = Query{{"fast_run", "unsafe"}, {"inplace"}, {}, {}};
  else if (m == "unoptimized") return q;
  else throw ValueError("unknown optimizer mode '" + mode + "'; valid: o1, o2, o3, o4, fast_compile, fast_run, stabilize, unsafe, unoptimized");
  if (const auto including = flag_value("optimizer_including")) {
    const std::vector<std::string> names = split_colon(*including);
    check_known(names, "THEANO_FLAGS optimizer_including");
    q = q.including(names);
  }
  if (const auto excluding = flag_value("optimizer_excluding")) q = q.excluding(split_colon(*excluding));
  return q;
}

}  // namespace theano::rewrite

/// \file
/// The whole optimization pipeline, top to bottom (docs/architecture.md,
/// "Rewrites and the optimizer database" and "Modes"; the positions and tags
/// are PyTensor's `compile/mode.py` and `tensor/rewriting`). build_optdb
/// registers the core stages and rewrites here, then calls each family's
/// register_*_rewrites, which adds that family's rewrites to these stages and,
/// for three families, stages of their own. The 16 stages, with the file that
/// registers each and what runs there (`rewrite::print_summary(mode)` prints
/// the exact list, with tags and each rewrite's algebra):
///
///   pos   stage                  registered in     what runs (tags: fast_run + the stage's unless said)
///   0     merge1                 here              MergeFeature: merge, duplicate constants (also fast_compile)
///   0.5   sparse_expand (eq.)    sparse.cpp        tag sparse only; function() runs it first, in every mode,
///                                                  when the graph has a sparse variable: sparse ops become
///                                                  component ops (local_csm_properties_csm, sparse_dot, the
///                                                  dense/sparse conversions, transpose, sampled dot, gather)
///   1     canonicalize (eq.)     here              merge, constant_folding (both also fast_compile), neg_neg,
///                                                  useless elemwise / dimshuffle, DimShuffle merging, DimShuffle
///                                                  and Reshape lifted toward the inputs, local_remove_all_assert
///                                                  (unsafe), local_cut_gpu_transfers (transfer pairs cancelled)
///                                canonicalize.cpp  add / mul Canonizer, neg_div_neg, sum_scalar_mul, fill cut /
///                                                  sink, useless arith / cast / comparison / Assert, negations
///                                                  into a product's constant, exp/log pairs, cast of a lossless
///                                                  cast, grad stops removed, reduce of a reduce, abs merging,
///                                                  0 / x, i % 1, sqrt(sqr(x)), the softmax family by hand
///                                                  (exp(x)/sum(exp(x)), x - logsumexp(x), exp(log_softmax),
///                                                  1/(1+exp(-x)))
///                                sigmoid.cpp       c/(1+exp(x)), exp(x)*sigmoid(-x)
///                                shape.cpp         shape promotion (ShapeFeature, attached on first use), reshape
///                                                  chain, useless reshape / alloc / specify_shape / subtensor,
///                                                  make_vector indexing, inc_subtensor serialization
///                                blas.cpp          transpose lifted through dot
///                                ifelse.cpp        constant condition, same branches
///                                scan.cpp          scan_prune, scan_pushout
///   1.5   stabilize (eq.)        here              merge, constant_folding, log_softmax, stable softmax-crossentropy
///                                                  and log-softmax gradients, softmax from log_softmax, softplus,
///                                                  log1p, local_remove_all_assert (unsafe); also fast_compile's
///                                                  stage, holding there only log-sum-exp and logaddexp
///                                canonicalize.cpp  log(sigmoid), expm1, log-sum-exp and logaddexp (n terms; both
///                                                  also fast_compile), crossentropy through log_softmax, log1mexp
///                                sigmoid.cpp       1 - sigmoid, c/(1+exp(x)), exp(x)*sigmoid(-x), products over
///                                                  quotients by a sigmoid
///                                shape.cpp         inc_subtensor serialization
///   1.7   blas_opt (eq.)         blas.cpp          dot22, gemm / gemv / ger (equal terms summed first), usmm [blas]
///   2     specialize (eq.)       here              merge, constant_folding, neg_neg, mul / add / pow specialization
///                                                  (integer powers as one Elemwise{Composite} of repeated
///                                                  squaring), useless elemwise / dimshuffle, DimShuffle merging,
///                                                  local_remove_all_assert (unsafe)
///                                canonicalize.cpp  neg_div_neg, useless arith / cast / comparison / Assert, exp/log
///                                                  pairs, cast of a lossless cast
///                                shape.cpp         shape_i tracking, useless reshape / alloc / subtensor,
///                                                  make_vector indexing
///                                ifelse.cpp        ifelse_lift, ifelse_merge (global)
///                                scan.cpp          scan_prune, scan_pushout_add, scan_save_mem and
///                                                  scan_merge (global)
///   3     uncanonicalize (eq.)   here              (empty)
///   49    elemwise_fusion        here              trees into one Elemwise{Composite}, multi-output fusion, fusion
///                                                  into reductions (Sum{fused=Composite}) [fusion]
///   49    merge2                 here              merge
///   49.3  gpu_transfer           here              tag gpu only, which function() adds when a GPU device is
///                                                  selected (gpu_transfer.cpp): inputs seeded onto the GPU,
///                                                  elementwise nodes and every host op with a GPU form
///                                                  (gpu::gpu_op_inputs: views, Alloc, Join, Split, indexing,
///                                                  reductions, softmax, cross-entropies, BLAS, ARange, Eye,
///                                                  random) moved, transfer pairs cancelled
///   49.5  add_destroy_handler    inplace.cpp       DestroyHandler with function()'s MutableInputs  [inplace]
///   60    inplace_setsubtensor   inplace.cpp       IncSubtensor / AdvancedIncSubtensor1 inplace    [inplace]
///   70    blas_opt_inplace       inplace.cpp       Gemm / Gemv / Ger / Usmm inplace                [inplace]
///   75    inplace_elemwise       inplace.cpp       Elemwise inplace                                 [inplace]
///   99    inplace_random         inplace.cpp       RandomFunction inplace on its stream state       [inplace]
///   100   merge3                 here              merge
///
/// PyTensor's specialize_device (48.6) has no counterpart.
#include <algorithm>
#include <cctype>

#include "known_names.h"
#include "rewrites.h"
#include "theano/config_flags.h"
#include "theano/rewrite/optdb.h"

namespace theano::rewrite {

using namespace detail;

namespace {

SequenceDB build_optdb() {
  SequenceDB db;
  auto canonicalize = std::make_shared<EquilibriumDB>("canonicalize");
  auto stabilize = std::make_shared<EquilibriumDB>("stabilize");
  auto specialize = std::make_shared<EquilibriumDB>("specialize");
  auto uncanonicalize = std::make_shared<EquilibriumDB>("uncanonicalize");

  db.register_stage("merge1", 0, merge_optimizer(), {"fast_run", "fast_compile", "merge"});
  db.register_stage("canonicalize", 1, canonicalize, {"fast_run", "fast_compile", "canonicalize_db"});
  // fast_compile runs the stabilize stage too, for the two rewrites tagged fast_compile there (PyTensor's
  // tags): log(sum(exp(x))) and log(exp(x) + exp(y) ...) overflow at x = 1000 otherwise.
  db.register_stage("stabilize", 1.5, stabilize, {"fast_run", "fast_compile"});
  db.register_stage("specialize", 2, specialize, {"fast_run", "specialize_db"});
  db.register_stage("uncanonicalize", 3, uncanonicalize, {"fast_run"});
  db.register_stage("elemwise_fusion", 49, elemwise_fusion(), {"fast_run", "fusion"});
  db.register_stage("merge2", 49, merge_optimizer(), {"fast_run", "merge"});
  db.register_stage("gpu_transfer", 49.3, gpu_transfer(), {"gpu"});
  // 49.5 add_destroy_handler and the inplace stages (>= 60): register_inplace_rewrites.
  db.register_stage("merge3", 100, merge_optimizer(), {"fast_run", "merge"});

  // canonicalize: put the graph in a normal form (fast_compile runs only merge + folding).
  canonicalize->register_global(merge_optimizer(), {"fast_run", "fast_compile", "merge"});
  canonicalize->register_rewrite(constant_folding(), {"fast_run", "fast_compile", "constant_folding"});
  canonicalize->register_rewrite(local_neg_neg(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_useless_elemwise(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_useless_dimshuffle(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_dimshuffle_merge(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_dimshuffle_lift(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_reshape_lift(), {"fast_run", "canonicalize"});
  canonicalize->register_rewrite(local_remove_all_assert(), {"unsafe"});
  canonicalize->register_rewrite(local_cut_gpu_transfers(), {"fast_run", "canonicalize", "gpu"});

  // stabilize: numerically safer forms.
  stabilize->register_global(merge_optimizer(), {"fast_run", "merge"});
  stabilize->register_rewrite(constant_folding(), {"fast_run", "constant_folding"});
  stabilize->register_rewrite(local_log_softmax(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_softmax_crossentropy_grad(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_log_softmax_grad(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_softmax_from_log_softmax(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_softplus(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_log1p(), {"fast_run", "stabilize"});
  stabilize->register_rewrite(local_remove_all_assert(), {"unsafe"});

  // specialize: cheaper forms of what canonicalize left.
  specialize->register_global(merge_optimizer(), {"fast_run", "merge"});
  specialize->register_rewrite(constant_folding(), {"fast_run", "constant_folding"});
  specialize->register_rewrite(local_neg_neg(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_mul_specialize(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_add_specialize(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_pow_specialize(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_useless_elemwise(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_useless_dimshuffle(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_dimshuffle_merge(), {"fast_run", "specialize"});
  specialize->register_rewrite(local_remove_all_assert(), {"unsafe"});

  register_algebra_rewrites(db);
  register_sigmoid_rewrites(db);
  register_sparse_rewrites(db);
  register_ifelse_rewrites(db);
  register_scan_rewrites(db);
  register_shape_rewrites(db);
  register_blas_inplace_rewrites(db);
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

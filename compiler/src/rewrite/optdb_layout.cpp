/// \file
/// The whole optimization pipeline, top to bottom (DESIGN.md 3.5-3.6; the
/// positions and tags are PyTensor's `compile/mode.py` and `tensor/rewriting`).
/// Node rewriters of a family are registered by the family's function
/// (register_*_rewrites, called at the end of build_optdb); this table says
/// where each lands. Theano's optimization table, row by row:
///
///   position  stage                       rewrites (tags: fast_run + the db's tag unless said)
///   0         merge1                      merge (MergeFeature: merge, constant elimination of duplicates)
///   0.5       sparse_expand (equilibrium) tag sparse, which function() runs first whenever the graph has a
///                                         sparse variable, in every mode (rewrite/sparse.cpp): sparse ops become
///                                         component ops; sparse_dot (the seed's), local_csm_properties_csm, ...
///   1         canonicalize (equilibrium)  merge, constant_folding (also fast_compile); shape promotion:
///                                         local_shape_to_shape_i, local_track_shape_i (ShapeFeature,
///                                         attached on first use); reshape chain, useless reshape / alloc /
///                                         specify_shape / subtensor, make_vector indexing;
///                                         inc_subtensor serialization; add and mul canonicalization
///                                         (Canonizer); neg_neg, neg_div_neg, sum_scalar_mul, fill cut /
///                                         fill sink, useless elemwise / arith / cast / dimshuffle,
///                                         DimShuffle merging, DimShuffle / Reshape lifted through
///                                         elementwise ops (toward the inputs); negations into a product's constant,
///                                         exp/log pairs, x < x, cast of a lossless cast, useless
///                                         Assert, grad stops removed, reduce of a reduce, abs
///                                         merging, 0 / x, i % 1, sqrt(sqr(x)); the softmax family by hand
///                                         (exp(x)/sum(exp(x)), x - logsumexp(x), exp(log_softmax),
///                                         1/(1+exp(-x)), c/(1+exp(x)), exp(x)*sigmoid(-x): rewrite/sigmoid.cpp);
///                                         local_remove_all_assert (unsafe);
///                                         local_cut_gpu_transfers (transfer pairs cancelled);
///                                         ifelse_constant_condition, ifelse_same_branches (rewrite/ifelse.cpp)
///   1.5       stabilize (equilibrium)     log_softmax, stable softmax-crossentropy and log-softmax
///                                         gradients, softmax from
///                                         log_softmax, softplus, log1p, log(sigmoid), expm1,
///                                         log-sum-exp, crossentropy through log_softmax,
///                                         log1p(-sigmoid), logaddexp (n terms), log1mexp,
///                                         the sigmoid family (1 - sigmoid, c/(1+exp(x)),
///                                         exp(x)*sigmoid(-x), products over quotients by a
///                                         sigmoid), inc_subtensor serialization; the stage is
///                                         also fast_compile's, holding there only log-sum-exp
///                                         and logaddexp (tagged fast_compile, as PyTensor's)
///   1.7       blas_opt (equilibrium)      dot22, gemm / gemv / ger (GemmOptimizer patterns, equal terms
///                                         summed first), usmm  [blas]
///   2         specialize (equilibrium)    mul / add / pow specialization (integer powers as one
///                                         Elemwise{Composite} of repeated squaring), neg_neg,
///                                         neg_div_neg, useless ops, exp/log pairs,
///                                         shape_i tracking, DimShuffle merging; ifelse_lift
///                                         (elementwise work into the branches), ifelse_merge (global)
///   3         uncanonicalize (eq.)        (empty so far)
///   49        elemwise_fusion             fusion: trees into one Elemwise{Composite}, then multi-output
///                                         fusion (a result used by several elementwise clients computed
///                                         once with them), then fusion into reductions
///                                         (Sum{fused=Composite}) [fusion]
///   49        merge2                      merge
///   49.3      gpu_transfer                with a GPU context selected (THEANO_FLAGS device,
///                                         gpu/context.h): inputs seeded onto the GPU, elementwise
///                                         nodes moved greedily, transfer pairs cancelled (only
///                                         tag: gpu, which function() includes for a GPU device)
///   49.5      add_destroy_handler         DestroyHandler with function()'s MutableInputs  [inplace]
///   60        inplace_setsubtensor        IncSubtensor / AdvancedIncSubtensor1 inplace    [inplace]
///   70        blas_opt_inplace            Gemm / Gemv / Ger inplace                        [inplace]
///   75        inplace_elemwise            Elemwise inplace                                 [inplace]
///   99        inplace_random              RandomFunction inplace on its stream state       [inplace]
///   100       merge3                      merge
///
/// Not yet present: sparse_dot (no sparse types yet) and specialize_device
/// 48.6; GPU transfer moves elementwise nodes only so far.
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

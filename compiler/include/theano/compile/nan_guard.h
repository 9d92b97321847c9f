/// \file
/// NanGuardMode (Theano's `compile/nanguardmode.py`): after every node of the
/// optimized graph, its float outputs are scanned for NaN, infinities and big
/// values (|x| > 1e10), and the first bad value stops the call with an error
/// naming that node.
///
/// Why: a NaN in a result says nothing about where it appeared (Theano
/// users' recurring complaint). Checking each node as it runs (the linker runs node by node, see
/// NodeObserver in linker.h) names the *first* node that produced it: its
/// toposort index, op, output variable, the rewrite that introduced it, and a
/// summary of each input (dtype, shape, min/max, NaN/Inf present).
///
/// Select it with `FunctionOptions::mode = "NanGuardMode"` or THEANO_FLAGS
/// `mode=NanGuardMode`; it optimizes as fast_run. Which kinds are errors:
/// `FunctionOptions::nan_guard`, else THEANO_FLAGS `nanguard_nan_is_error`,
/// `nanguard_inf_is_error`, `nanguard_big_is_error` (Theano's spelling
/// `NanGuardMode__nan_is_error` etc. also works), each true by default as in
/// Theano. As in Theano, an infinity is also a big value, and the graph's
/// inputs are checked too (as the first node reading them runs).
#pragma once

#include <memory>
#include <string>

#include "theano/compile/linker.h"
#include "theano/runtime/error.h"

namespace theano {

class FunctionGraph;
class RewriteProvenance;

/// The first bad value a NanGuardMode function met.
class NanGuardError : public ValueError {
 public:
  using ValueError::ValueError;
};

struct NanGuardOptions {
  bool nan_is_error = true;
  bool inf_is_error = true;
  bool big_is_error = true;  ///< |x| > 1e10
  /// The THEANO_FLAGS values (defaults: all true). ValueError for a flag that
  /// is not a boolean.
  static NanGuardOptions from_flags();
};

/// The observer that checks every node of `fgraph` (`provenance` may be null;
/// `what` names the function in messages).
std::shared_ptr<const NodeObserver> make_nan_guard_observer(const NanGuardOptions& options,
                                                            std::shared_ptr<const FunctionGraph> fgraph,
                                                            std::shared_ptr<const RewriteProvenance> provenance,
                                                            std::string what);

}  // namespace theano

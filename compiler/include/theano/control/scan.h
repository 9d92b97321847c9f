/// \file
/// `scan`: Theano's loop (theano/scan): a step function applied over
/// sequences, carrying recurrent outputs, with map / reduce / foldl / foldr
/// on top. The step's graph becomes the inner graph of one `Scan` node.
///
/// The step function receives, in Theano's order: for each sequence one
/// slice per tap, for each recurrent output one value per tap (fresh
/// variables), then the non-sequences: the outer variables themselves, as in
/// Theano, so the step may differentiate through them (the Jacobian idiom
/// `grad(y[i], x)` with non_sequences {y, x}); scan then moves the step's
/// graph onto inner placeholders. It returns one value per outputs_info
/// entry (in the same order), optionally updates of shared variables and an
/// `until` condition.
///
///     auto r = scan([&](const std::vector<Var>& a) {   // a = {x_t, h_tm1, W}
///                     return StepResult{{tanh(dot(a[0], U) + dot(a[1], a[2]))}};
///                   },
///                   ScanArgs{.sequences = {x}, .outputs_info = {h0}, .non_sequences = {W}});
///     Var h = r.outputs[0];                              // (steps, hidden)
///
/// Variables the step reads without receiving them (outer variables, shared
/// variables) become non-sequences automatically, as in Theano.
///
/// Semantics: output t of a recurrent output with taps {-k..} reads its own
/// earlier outputs, or the initial value: with taps {-1} the initial value is
/// the state itself; with several taps (or one other than -1) it is a stack
/// of K = -min(taps) states, row K + tap being the value at tap (Theano's
/// convention). A sequence with taps {a..b} gives step t the rows t + tap -
/// min(taps). The number of steps is n_steps when given (at most what the
/// sequences allow: more is a ValueError naming the sequence), else what the
/// sequences allow; `until` stops after the step whose condition is true, and
/// the outputs then hold only the steps run. go_backwards walks the
/// sequences from their end.
///
/// Errors name the scan and the output: a step output whose dtype or rank
/// differs from its outputs_info, taps not negative for outputs, taps that
/// span more rows than int64 holds, an initial value too short for its taps,
/// n_steps < 0 (at run time).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"

namespace theano {

class FunctionGraph;

/// A sequence and the taps the step reads of it (default: the current row).
struct SeqInfo {
  Var value;
  std::vector<std::int64_t> taps = {0};
  SeqInfo(Var v) : value(std::move(v)) {}  // NOLINT: implicit, so {x} lists sequences
  SeqInfo(Var v, std::vector<std::int64_t> t) : value(std::move(v)), taps(std::move(t)) {}
};

/// An output: recurrent (an initial value and taps, default {-1}) or, with a
/// null initial value, computed per step without recurrence (a "map" output).
struct OutputInfo {
  Var initial;
  std::vector<std::int64_t> taps = {-1};
  OutputInfo() = default;
  OutputInfo(Var v) : initial(std::move(v)) {}  // NOLINT: implicit
  OutputInfo(Var v, std::vector<std::int64_t> t) : initial(std::move(v)), taps(std::move(t)) {}
  static OutputInfo none() { return OutputInfo(); }
};

struct ScanArgs {
  std::vector<SeqInfo> sequences;
  std::vector<OutputInfo> outputs_info;
  std::vector<Var> non_sequences;
  /// Number of steps (an integer scalar, symbolic or constant); null: what
  /// the sequences allow.
  Var n_steps;
  bool go_backwards = false;
  /// Backpropagation through time stops after this many steps (-1: all).
  std::int64_t truncate_gradient = -1;
  std::string name = "scan";
};

/// What the step function returns.
struct StepResult {
  std::vector<Var> outputs;
  /// (shared variable, its new value after this step): the value is carried
  /// to the next step, and the final one is returned in ScanResult::updates.
  std::vector<std::pair<Var, Var>> updates;
  /// Stop after this step when true (a scalar); null: run every step.
  Var until;
};

struct ScanResult {
  /// One per outputs_info entry: the values of every step, stacked (steps, ...).
  std::vector<Var> outputs;
  /// (shared variable, value after the last step): pass to function()'s updates.
  std::vector<std::pair<Var, Var>> updates;
};

using StepFn = std::function<StepResult(const std::vector<Var>&)>;

ScanResult scan(const StepFn& step, const ScanArgs& args);

/// map(f, sequences, non_sequences): f applied to each row, no recurrence.
std::vector<Var> scan_map(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                          const std::vector<SeqInfo>& sequences, const std::vector<Var>& non_sequences = {},
                          const std::string& name = "map");
/// The last row of a scan output (the value after the last step), or
/// `if_empty` when no step ran: `ifelse(len > 0, stacked[-1], if_empty)`,
/// which scan_save_mem turns into an output that keeps only that value.
Var last_value(const Var& stacked, const Var& if_empty);

/// reduce / foldl: the value of each recurrent output after the last step
/// (its initial value when no step ran); foldr walks the sequences from
/// their end.
std::vector<Var> scan_reduce(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                             const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                             const std::vector<Var>& non_sequences = {}, bool go_backwards = false,
                             const std::string& name = "reduce");
std::vector<Var> foldl(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                       const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                       const std::vector<Var>& non_sequences = {});
std::vector<Var> foldr(const std::function<std::vector<Var>(const std::vector<Var>&)>& f,
                       const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                       const std::vector<Var>& non_sequences = {});

/// The static description of a Scan node (inputs and outputs by group).
struct ScanInfo {
  std::vector<std::vector<std::int64_t>> seq_taps;  ///< per sequence
  std::vector<std::vector<std::int64_t>> rec_taps;  ///< per recurrent output (all < 0)
  int n_map = 0;                                    ///< outputs without recurrence
  int n_nonseq = 0;
  bool go_backwards = false;
  bool until = false;
  std::int64_t truncate_gradient = -1;
  std::string name = "scan";
  /// Per recurrent output: only its value after the last step is an output
  /// (the initial state's last row when no step ran), not the stacked steps;
  /// the loop then keeps only the K + 1 rows its taps need (scan_save_mem).
  /// Empty: every output is stacked.
  std::vector<bool> rec_last;

  int n_seq() const { return static_cast<int>(seq_taps.size()); }
  int n_rec() const { return static_cast<int>(rec_taps.size()); }
  /// K = -min(taps) of recurrent output r: the rows its buffer keeps before step 0.
  std::int64_t lag(int r) const;
  /// max(taps) - min(taps) of sequence s: the rows step t reads past row t.
  std::int64_t seq_span(int s) const;
  /// Throws ValueError, naming `what` (the scan and the sequence or output),
  /// when `taps` is empty, lists a tap twice, has a tap >= 0 for a recurrent
  /// output, or spans more rows than int64 holds (theano_scan_span_rule over
  /// min..max for a sequence, min..0 for a recurrent output).
  static void check_tap_list(const std::vector<std::int64_t>& taps, bool recurrent, const std::string& what);
  /// check_tap_list for every sequence and recurrent output (the Scan
  /// constructor runs it, so no loop sees taps whose row arithmetic wraps).
  void check_taps() const;
  /// Whether recurrent output r's initial value is the state itself (taps {-1}).
  bool plain_state(int r) const;
  /// Whether recurrent output r returns only its last value (rec_last).
  bool last_only(int r) const { return static_cast<std::size_t>(r) < rec_last.size() && rec_last[static_cast<std::size_t>(r)]; }
  /// Inner inputs: slices (one per tap per sequence), taps (one per tap per
  /// recurrent output), non-sequences.
  int n_inner_inputs() const;
  friend bool operator==(const ScanInfo&, const ScanInfo&) = default;
};

/// The Scan op. Outer inputs: n_steps (int64 scalar), the sequences, the
/// recurrent outputs' initial values, the non-sequences. Outer outputs: the
/// recurrent outputs then the map outputs, each stacked over the steps run
/// (a recurrent output marked last_only: its final state only).
/// The inner graph: inputs as ScanInfo::n_inner_inputs lists them; outputs:
/// the recurrent outputs' new values, the map outputs, then the until
/// condition when ScanInfo::until.
class Scan final : public Op {
 public:
  Scan(ScanInfo info, std::vector<Var> inner_inputs, std::vector<Var> inner_outputs);
  ~Scan() override;
  THEANO_OP_DECLARE("Scan")
  std::string name() const override;
  Props props() const override;
  bool equals(const Op& other) const override;
  std::size_t hash() const override;
  bool keyed_by_props() const override { return false; }
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  const ScanInfo& info() const noexcept { return info_; }
  const std::vector<Var>& inner_inputs() const noexcept { return inner_inputs_; }
  const std::vector<Var>& inner_outputs() const noexcept { return inner_outputs_; }
  /// The inner graph optimized (fast_run, once, shared by perform and the
  /// cpp linker's loop): inputs and outputs as inner_inputs / inner_outputs.
  std::shared_ptr<const FunctionGraph> optimized_inner() const;

 private:
  struct Program;  // the inner graph, optimized and linked on first use
  const Program& program() const;

  ScanInfo info_;
  std::vector<Var> inner_inputs_, inner_outputs_;
  mutable std::shared_ptr<const Program> program_;
  mutable std::once_flag program_once_;
};

const Scan* as_scan(const Apply& node);

}  // namespace theano

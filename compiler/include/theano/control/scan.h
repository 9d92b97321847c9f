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
///     auto [h, updates] = scan([&](Var x_t, Var h_tm1, Var W) { return tanh(dot(x_t, U) + dot(h_tm1, W)); },
///                              ScanArgs().sequences(x).outputs_info(h0).non_sequences(W));
///     // h[0]: (steps, hidden)
///
/// The step takes one Var per argument, or all of them as a
/// `const std::vector<Var>&`; it returns a Var, a std::vector<Var>, Updates,
/// or a StepResult (outputs, updates, until). Variables the step reads
/// without receiving them (outer variables, shared variables) become
/// non-sequences automatically, as in Theano, unless ScanArgs::strict.
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
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "theano/compile/updates.h"
#include "theano/function_ref.h"
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

/// The options of a scan: Theano's keyword arguments, set in any order by
/// named setters (as the PyTorch C++ frontend's options), each returning the
/// ScanArgs so they chain:
///
///     ScanArgs().sequences(x).outputs_info(h0).non_sequences(W).n_steps(10)
///
/// A setter taking a list also takes one value (`sequences(x)`, as Theano
/// accepts a single variable). Values are checked by scan(), whose errors
/// name the scan and the option (`n_steps is -1; it must be >= 0`).
class ScanArgs {
 public:
  ScanArgs& sequences(const Var& sequence);
  ScanArgs& sequences(SeqInfo sequence);
  ScanArgs& sequences(std::vector<SeqInfo> sequences);
  /// One entry per output the step returns, in its order.
  ScanArgs& outputs_info(const Var& initial);
  ScanArgs& outputs_info(OutputInfo output);
  ScanArgs& outputs_info(std::vector<OutputInfo> outputs);
  ScanArgs& non_sequences(const Var& value);
  ScanArgs& non_sequences(std::vector<Var> values);
  /// Number of steps: an integer, or an integer scalar Var; unset: what the
  /// sequences allow.
  ScanArgs& n_steps(const Var& n);
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  ScanArgs& n_steps(I n) {
    if constexpr (std::is_unsigned_v<I>) return n_steps_unsigned(static_cast<unsigned long long>(n));
    else return n_steps_signed(static_cast<long long>(n));
  }
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  ScanArgs& n_steps(F) {
    static_assert(!std::is_floating_point_v<F>, "ScanArgs::n_steps takes an integer or an integer scalar Var");
    return *this;
  }
  ScanArgs& go_backwards(bool backwards = true);
  /// Backpropagation through time stops after this many steps (-1: all).
  ScanArgs& truncate_gradient(std::int64_t steps);
  ScanArgs& name(std::string name);
  /// Theano's strict mode: the step may read only what it is given
  /// (sequences, outputs_info, non_sequences, shared variables it updates);
  /// another outer variable it reads is a ValueError naming it.
  ScanArgs& strict(bool strict = true);
  /// scan_checkpoints only: keep every N-th state (default 10), and pad the
  /// sequences with zeros to a multiple of N (default true; false: their
  /// length must be a multiple of N).
  ScanArgs& save_every_N(std::int64_t n);
  ScanArgs& padding(bool pad = true);

  const std::vector<SeqInfo>& sequences() const noexcept { return sequences_; }
  const std::vector<OutputInfo>& outputs_info() const noexcept { return outputs_info_; }
  const std::vector<Var>& non_sequences() const noexcept { return non_sequences_; }
  /// Null: unset.
  const Var& n_steps() const noexcept { return n_steps_; }
  bool go_backwards() const noexcept { return go_backwards_; }
  std::int64_t truncate_gradient() const noexcept { return truncate_gradient_; }
  const std::string& name() const noexcept { return name_; }
  bool strict() const noexcept { return strict_; }
  /// Unset: nullopt.
  const std::optional<std::int64_t>& save_every_N() const noexcept { return save_every_N_; }
  const std::optional<bool>& padding() const noexcept { return padding_; }

 private:
  ScanArgs& n_steps_signed(long long n);
  ScanArgs& n_steps_unsigned(unsigned long long n);

  std::vector<SeqInfo> sequences_;
  std::vector<OutputInfo> outputs_info_;
  std::vector<Var> non_sequences_;
  Var n_steps_;
  bool go_backwards_ = false;
  std::int64_t truncate_gradient_ = -1;
  std::string name_ = "scan";
  bool strict_ = false;
  std::optional<std::int64_t> save_every_N_;
  std::optional<bool> padding_;
};

/// What the step function returns: the outputs (one per outputs_info entry),
/// updates of shared variables, and an `until` condition. A step may return
/// a Var (one output), a std::vector<Var>, or Updates alone instead.
struct StepResult {
  std::vector<Var> outputs;
  /// (shared variable, its new value after this step): the value is carried
  /// to the next step, and the final one is returned in ScanResult::updates.
  Updates updates;
  /// Stop after this step when true (a scalar); null: run every step.
  Var until;

  StepResult() = default;
  StepResult(Var output);                                                         // NOLINT: implicit
  StepResult(std::vector<Var> outputs, Updates updates = {}, Var until = Var());  // NOLINT: implicit
  StepResult(Updates updates);                                                    // NOLINT: implicit
};

struct ScanResult {
  /// The one output of a scan with one (Theano returns it alone): ValueError
  /// naming the count otherwise.
  const Var& output() const;
  /// One per outputs_info entry: the values of every step, stacked (steps, ...).
  std::vector<Var> outputs;
  /// shared variable -> value after the last step: pass to function()'s updates.
  Updates updates;
};

/// A step of scan(): called while scan() builds the loop, not kept.
using StepFn = FunctionRef<StepResult(const std::vector<Var>&)>;

namespace detail {
template <std::size_t>
using StepArg = const Var&;
/// Whether `F` takes N Vars.
template <class F, std::size_t N>
constexpr bool takes_n_vars() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return std::is_invocable_v<F&, StepArg<I>...>;
  }(std::make_index_sequence<N>{});
}
inline constexpr std::size_t kMaxStepArity = 16;
/// The one N <= kMaxStepArity with takes_n_vars<F, N>, or kMaxStepArity + 1.
template <class F>
constexpr std::size_t step_arity() {
  return []<std::size_t... N>(std::index_sequence<N...>) {
    std::size_t found = kMaxStepArity + 1, count = 0;
    ((takes_n_vars<F, N>() ? (void)(found = N, ++count) : (void)0), ...);
    return count == 1 ? found : kMaxStepArity + 1;
  }(std::make_index_sequence<kMaxStepArity + 1>{});
}
template <class F>
constexpr std::size_t spread_arity() {
  constexpr std::size_t n = step_arity<F>();
  static_assert(n <= kMaxStepArity,
                "a scan step takes `const std::vector<Var>&`, or up to 16 `Var` parameters (one per value scan "
                "gives it: sequence slices, previous outputs, non-sequences)");
  return n;
}
/// `f(a[0], ..., a[N-1])` as a vector step (scan checks the count first).
template <class F, std::size_t... I>
auto spread_step(F f, std::index_sequence<I...>) {
  using R = std::invoke_result_t<F&, StepArg<I>...>;
  static_assert(std::is_convertible_v<R, StepResult>,
                "a scan step returns a Var, a std::vector<Var>, Updates or a StepResult");
  return [f = std::move(f)](const std::vector<Var>& a) -> StepResult {
    (void)a;  // a step of no arguments
    return f(a[I]...);
  };
}
template <class F>
concept VectorStep = std::is_invocable_v<F&, const std::vector<Var>&>;
inline constexpr std::size_t kVectorStep = static_cast<std::size_t>(-1);
/// scan() for a step taking `arity` Vars (kVectorStep: the vector of them).
ScanResult scan(const StepFn& step, std::size_t arity, const ScanArgs& args);
ScanResult scan_checkpoints(const StepFn& step, std::size_t arity, const ScanArgs& args);
}  // namespace detail

/// The step takes the vector of its arguments.
ScanResult scan(const StepFn& step, const ScanArgs& args);
/// The step takes one `Var` per argument, as Theano's fn: `[](Var x_t, Var
/// h_tm1) { ... }` (a count that differs from what scan gives is a
/// ValueError naming both). A one-parameter step spells its type (`Var`,
/// not `auto`): scan first tries it on the vector.
template <class F>
  requires(!detail::VectorStep<F>)
ScanResult scan(F step, const ScanArgs& args) {
  constexpr std::size_t n = detail::spread_arity<F>();
  return detail::scan(detail::spread_step(std::move(step), std::make_index_sequence<n>{}), n, args);
}

/// Theano's scan_checkpoints: gradient checkpointing. The loop of
/// scan(step, args), run as an outer scan over blocks of
/// args.save_every_N() steps (an inner scan each): only the state at the end
/// of each block is stored, and backpropagation recomputes each block's
/// states from its checkpoint. The outputs are the states after steps N,
/// 2N, ... and after the last step (ceil(n_steps / N) rows); the updates as
/// scan's. Outputs and sequences take only the default taps ({-1}, {0});
/// go_backwards and truncate_gradient are not supported (ValueErrors naming
/// them).
ScanResult scan_checkpoints(const StepFn& step, const ScanArgs& args);
template <class F>
  requires(!detail::VectorStep<F>)
ScanResult scan_checkpoints(F step, const ScanArgs& args) {
  constexpr std::size_t n = detail::spread_arity<F>();
  return detail::scan_checkpoints(detail::spread_step(std::move(step), std::make_index_sequence<n>{}), n, args);
}

/// map(f, sequences, non_sequences): f applied to each row, no recurrence.
/// `f` is a step as scan() takes it: the vector of its arguments, or one
/// `Var` per argument (`[](Var x) { return x * 2; }`), returning a Var or a
/// vector of Vars.
std::vector<Var> scan_map(const StepFn& f, const std::vector<SeqInfo>& sequences,
                          const std::vector<Var>& non_sequences = {}, const std::string& name = "map");
template <class F>
  requires(!detail::VectorStep<F>)
std::vector<Var> scan_map(F f, const std::vector<SeqInfo>& sequences, const std::vector<Var>& non_sequences = {},
                          const std::string& name = "map") {
  return scan(std::move(f), ScanArgs().sequences(sequences).non_sequences(non_sequences).name(name)).outputs;
}
/// The last row of a scan output (the value after the last step), or
/// `if_empty` when no step ran: `ifelse(len > 0, stacked[-1], if_empty)`,
/// which scan_save_mem turns into an output that keeps only that value.
Var last_value(const Var& stacked, const Var& if_empty);

namespace detail {
/// The ScanArgs of reduce/foldl/foldr.
ScanArgs reduce_args(const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                     const std::vector<Var>& non_sequences, bool go_backwards, const std::string& name);
/// `last_value` of each output of `r`, with `outputs_info` as the empty-case values.
std::vector<Var> last_values(const ScanResult& r, const std::vector<Var>& outputs_info);
}  // namespace detail

/// reduce / foldl: the value of each recurrent output after the last step
/// (its initial value when no step ran); foldr walks the sequences from
/// their end. `f` as for scan_map.
std::vector<Var> scan_reduce(const StepFn& f, const std::vector<SeqInfo>& sequences,
                             const std::vector<Var>& outputs_info, const std::vector<Var>& non_sequences = {},
                             bool go_backwards = false, const std::string& name = "reduce");
template <class F>
  requires(!detail::VectorStep<F>)
std::vector<Var> scan_reduce(F f, const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                             const std::vector<Var>& non_sequences = {}, bool go_backwards = false,
                             const std::string& name = "reduce") {
  return detail::last_values(
      scan(std::move(f), detail::reduce_args(sequences, outputs_info, non_sequences, go_backwards, name)),
      outputs_info);
}
template <class F>
std::vector<Var> foldl(F f, const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                       const std::vector<Var>& non_sequences = {}) {
  return scan_reduce(std::move(f), sequences, outputs_info, non_sequences, false, "foldl");
}
template <class F>
std::vector<Var> foldr(F f, const std::vector<SeqInfo>& sequences, const std::vector<Var>& outputs_info,
                       const std::vector<Var>& non_sequences = {}) {
  return scan_reduce(std::move(f), sequences, outputs_info, non_sequences, true, "foldr");
}

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
  // By hand: computed from ScanInfo (tap lists as text); the inner graph is compared by `equals`.
  Props props() const override;
  bool equals(const Op& other) const override;
  std::size_t hash() const override;
  /// Its props and its step graph identify it (a request spells the graph out).
  InnerGraph inner_graph() const override { return {&inner_inputs_, &inner_outputs_}; }
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
  struct LazyProgram;  // the Program and the once_flag that builds it (scan_op.cpp)
  const Program& program() const;

  ScanInfo info_;
  std::vector<Var> inner_inputs_, inner_outputs_;
  std::unique_ptr<LazyProgram> program_;
};

const Scan* as_scan(const Apply& node);

}  // namespace theano

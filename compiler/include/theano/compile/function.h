/// \file
/// `function(inputs, outputs, options)`: Theano's `theano.function`, compiling a
/// symbolic graph into a callable `Function`.
///
/// Pipeline: validate the inputs (root variables, no Constants, no shared
/// variables, each once) -> apply `givens` (clone_replace, the user graph is
/// untouched) -> collect updates (explicit ones, then shared variables'
/// default updates) and check their types -> check for missing and unused
/// inputs -> the linker's function record of an equal request, if it holds
/// one (the warm start: nothing below runs) -> FunctionGraph(explicit inputs
/// + shared variables used, outputs + update expressions, clone=true) -> the
/// mode's optimizer (rewrite::mode_query, optdb_layout.cpp) -> the mode's
/// Linker makes a Thunk.
///
/// THEANO_FLAGS switches read here: `profile` (see FunctionOptions::profile),
/// `log_compile` (one line per compiled function on stderr with the compile
/// breakdown: rewrite / codegen / clang / load), `keep_sources` (the cpp
/// linkers keep each generated translation unit on disk; the path is in the
/// profile and the log line).
///
/// Thread safety: compiling functions from several threads at once is safe. A
/// Function may be called from several threads at once only when it has no
/// updates and no shared state is set meanwhile; otherwise call each copy
/// (`copy()`) from one thread at a time. Copies share the compiled program.
///
/// Call semantics (Theano's): `f(2.0, 3)`, `f({x_array, y_array})`,
/// `f(33, named("w_by_name", 1))`; arguments are filtered into each input's
/// type (`strict` refuses any conversion, `allow_downcast` permits lossy casts;
/// a number or nested list converts when its values survive, call_arg.h;
/// errors name the input); inputs not given take their `In` default value;
/// the Outputs of a function of one output convert to its array; every update
/// is computed from the *old* values and written back only after the whole
/// graph ran; an output without `Out::borrow` is a fresh array
/// that aliases neither an argument, nor a shared value, nor a constant, nor
/// any internal storage.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "theano/compile/call_arg.h"
#include "theano/compile/linker.h"
#include "theano/compile/nan_guard.h"
#include "theano/compile/profile.h"
#include "theano/compile/shared.h"
#include "theano/compile/updates.h"
#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

// Declared here, defined in headers a user includes only to look inside a
// compiled function (theano/fgraph/function_graph.h, theano/rewrite/rewriter.h):
// this header stays light to compile.
class FunctionGraph;
namespace rewrite {
struct RewriteStats;
}

/// Raised when an input is not needed to compute the outputs (on_unused_input=raise).
class UnusedInputError : public ValueError {
 public:
  using ValueError::ValueError;
};

/// An explicit input of a function.
struct In {
  In(const Var& v) : variable(v) {}  // NOLINT: implicit, as Theano accepts plain variables
  /// Theano's In(x, name="x_name"): the name a call passes it by (`named`).
  template <class S>
    requires(std::is_convertible_v<const S&, std::string_view> && !std::is_arithmetic_v<S>)
  In(const Var& v, const S& name_) : variable(v), name(std::string_view(name_)) {}
  /// Theano's In(y, value=1, name="y_name"): `default_value` is an NDArray, a
  /// number or a nested list (call_arg.h: a literal is converted to the
  /// variable's type now, and must fit it exactly, or be a double for a floatX
  /// variable).
  In(const Var& v, const Arg& default_value, std::string name_ = {});
  /// A state input (Theano's In(x, value=..., update=...)): `value` is the initial state.
  In(const Var& v, const Arg& initial_value, const Var& update_expr);
  // Out of line: `function({x, y}, ...)` copies Ins from its braces, and
  // their inline copies and destructors would be code in every call site.
  ~In();
  In(const In&);
  In(In&&) noexcept;
  In& operator=(const In&);
  In& operator=(In&&) noexcept;
  Var variable;
  /// Name for named calls; defaults to the variable's name.
  std::string name;
  /// Default value used when the argument is left out (trailing arguments).
  std::optional<NDArray> value;
  /// The function may keep a reference to the caller's array after the call
  /// (e.g. as a shared variable's new value) instead of copying it, and a
  /// borrowed output (Out::borrow) may be a view of it.
  bool borrow = false;
  /// Ops may overwrite this argument's array in place.
  bool mutable_ = false;
  /// The argument must already have the input's exact type (no conversion).
  bool strict = false;
  /// Permit lossy casts of the argument (unset: FunctionOptions::allow_input_downcast).
  std::optional<bool> allow_downcast;
  /// After each call the stored value (`value`, required) becomes this
  /// expression's result, computed from the call's values as the outputs are
  /// (Theano's In.update): the input is a state the Function carries, read
  /// when the argument is left out. Passing the argument sets the state for
  /// that call. Copies of the Function (Function::copy) get their own state.
  Var update;
};

/// An output of a function.
struct Out {
  Out(const Var& v) : variable(v) {}  // NOLINT: implicit
  Out(const Var& v, bool borrow_) : variable(v), borrow(borrow_) {}
  Var variable;
  /// Return the value without copying, even when it aliases internal storage,
  /// a constant, a shared value, a borrowed argument (In::borrow) or another
  /// borrowed output. As in Theano, a view of an argument not borrowed (or of
  /// an output not borrowed) is still copied: aliasing needs both sides' consent.
  bool borrow = false;
};

enum class OnUnusedInput { Raise, Warn, Ignore };

struct FunctionOptions {
  /// (shared variable, new value expression); all read the old values.
  /// A map (compile/updates.h): `o.updates[w] = w - lr * g`, or a scan's
  /// ScanResult::updates as they are.
  Updates updates;
  /// (variable, replacement) substituted in the outputs and updates.
  std::vector<std::pair<Var, Var>> givens;
  /// Compilation mode (see get_mode); empty: THEANO_FLAGS mode, else fast_run.
  std::string mode;
  /// Tags or rewrite names added to / removed from the mode's optimizer query
  /// (on top of THEANO_FLAGS optimizer_including / optimizer_excluding).
  std::vector<std::string> optimizer_including;
  std::vector<std::string> optimizer_excluding;
  OnUnusedInput on_unused_input = OnUnusedInput::Raise;
  /// Default for In::allow_downcast.
  std::optional<bool> allow_input_downcast;
  /// Do not apply shared variables' default updates.
  bool no_default_updates = false;
  /// Name used in error messages and printing.
  std::string name;
  /// Skip filtering the arguments into the input types (Theano's
  /// trust_input): the caller promises each argument already has its input's
  /// dtype and ndim. The compiled code still checks dtype and ndim (never a
  /// crash), but no conversion happens and static shapes are not checked.
  bool trust_input = false;
  /// Time the calls (and each node, with linker opwise); unset:
  /// THEANO_FLAGS profile. See Function::profile().
  std::optional<bool> profile;
  /// What mode NanGuardMode treats as an error (nan_guard.h); unset: the
  /// THEANO_FLAGS nanguard_* values. Ignored by the other modes.
  std::optional<NanGuardOptions> nan_guard;
};

namespace detail {
struct FunctionImpl;
struct Swapped;  // function_impl.h
}

/// What a call returns: one array per output, in order. A function of one
/// output (Theano returns the array itself, not a list) also gives its array
/// without `[0]`: `NDArray z = f(2.0, 3.0);`, `f(2.0, 3.0).value()`,
/// `f(2.0, 3.0).item<double>()`. Those are a ValueError naming the number of
/// outputs when there is not exactly one.
class Outputs : public std::vector<NDArray> {
 public:
  Outputs() = default;
  explicit Outputs(std::vector<NDArray> arrays) noexcept : std::vector<NDArray>(std::move(arrays)) {}
  /// The one output's array.
  const NDArray& value() const;
  operator NDArray() const { return value(); }  // NOLINT: implicit, as Theano returns the array
  /// `value().item<T>()`: the one output's single element.
  template <class T>
  T item() const {
    return value().item<T>();
  }
};

/// Theano's Function.copy(share_memory, swap, delete_updates), for
/// `f.copy({.swap = {{state, new_state}}})` or `f.copy({.delete_updates = true})`
/// (designated initializers in this order).
struct CopyOptions {
  /// The copy uses the same shared-variable containers as the original
  /// (updates are seen by both); otherwise it gets its own copies of the
  /// shared values. Default values and In::update states are always copied.
  bool share_memory = false;
  /// (shared variable used by the function, shared variable of the same type):
  /// the copy reads and updates the second one's container instead.
  std::vector<std::pair<Var, Var>> swap;
  /// The copy applies no updates (neither shared-variable updates nor
  /// In::update states); it is compiled again without them.
  bool delete_updates = false;
};

/// A compiled function. Copying the C++ object makes another handle on the same
/// compiled program *and* the same value containers; `copy()` is Theano's copy.
class Function {
 public:
  /// An empty Function (calling it is a ValueError); assign one from function().
  Function() = default;
  // Out of line, so a user translation unit does not compile them.
  ~Function();
  Function(const Function&);
  Function(Function&&) noexcept;
  Function& operator=(const Function&);
  Function& operator=(Function&&) noexcept;
  /// Theano's call: `f(2.0, 3)`, `f({1.0, 2.0}, {{1, 2}, {3, 4}})`,
  /// `f(x_array, named("w_by_name", 1))`. Positional arguments come first, one
  /// per input in order, then named ones (`named`, by In::name); an input given
  /// neither way takes its default (In value or state). Each argument is an
  /// NDArray or a number / nested list converted against its input's type
  /// (call_arg.h). TypeError naming the input for an unknown name, an input
  /// given twice, a missing one, or a value that does not fit. Up to 10
  /// arguments; more: pass a std::vector<NDArray>.
  Outputs operator()(Arg a0 = Arg::none(), Arg a1 = Arg::none(), Arg a2 = Arg::none(), Arg a3 = Arg::none(),
                     Arg a4 = Arg::none(), Arg a5 = Arg::none(), Arg a6 = Arg::none(), Arg a7 = Arg::none(),
                     Arg a8 = Arg::none(), Arg a9 = Arg::none()) const;
  /// Positional call with NDArrays, `f({x, y})`: one argument per input,
  /// trailing ones may be left out when they have defaults (`f({})`: none).
  Outputs operator()(std::initializer_list<NDArray> args) const;
  /// The same with a std::vector<NDArray> (or anything converting to one).
  template <class V>
    requires std::is_convertible_v<const V&, const std::vector<NDArray>&>
  Outputs operator()(const V& args) const {
    return call_arrays(args);
  }
  /// The positional call with each sparse output as its four components
  /// (data, indices, indptr, shape) in its place; sparse::call regroups them.
  /// (The calls above are a TypeError naming a sparse output, pointing at
  /// sparse::call, which returns it as a SparseMatrix.)
  std::vector<NDArray> call_components(const std::vector<NDArray>& args) const;
  /// Named call: arguments by In name (or variable name); the others take
  /// their defaults.
  Outputs call(const std::vector<std::pair<std::string, NDArray>>& named_args) const;

  /// A new Function over the same compiled program. `share_memory`: use the
  /// same shared-variable containers (updates are seen by both); otherwise the
  /// copy gets its own copies of every shared value and default value.
  Function copy(bool share_memory) const;
  /// Theano's copy(share_memory, swap, delete_updates) (see CopyOptions).
  /// TypeError when a swap pair is not two shared variables of the same type,
  /// ValueError when its first one is not used by this function or is
  /// swapped twice.
  Function copy(const CopyOptions& options = {}) const;

  /// The user's explicit input variables, in call order.
  const std::vector<Var>& inputs() const;
  /// The user's output variables (a sparse one as given, though the compiled
  /// graph computes its components).
  const std::vector<Var>& outputs() const;
  /// The user's (shared variable, update expression) pairs, default updates included.
  const std::vector<std::pair<Var, Var>>& updates() const;
  /// The compiled graph: inputs are the explicit inputs then the shared
  /// variables used (clones sharing their containers); outputs are the
  /// outputs (a sparse output as its four components), then one expression
  /// per In::update, then one per shared update.
  /// When function() found the compiled code of an equal request (a function
  /// record, the warm start) the optimizer did not run: the first call of
  /// fgraph() runs it then (the same rewrites, so the same graph).
  const FunctionGraph& fgraph() const;
  std::size_t n_explicit_inputs() const;
  const std::string& name() const;
  const Mode& mode() const;
  /// What the optimizer did while compiling this function: per rewrite, how
  /// often it fired and how long it took (`rewrite_stats().summary()`).
  /// Empty for a function built from a function record (see fgraph()).
  const rewrite::RewriteStats& rewrite_stats() const;
  /// Compile-time breakdown, and call / per-node times when profiling is on
  /// (`profile().summary()` prints them).
  ProfileStats profile() const;

  /// The value this function sees for shared variable `v` (differs from
  /// `get_value(v)` in a `copy(false)`), as stored: a GPU shared variable's is
  /// its device array (`to_host()` it to read it). TypeError when `v` is not
  /// shared, ValueError when this function does not use it.
  NDArray shared_value(const Var& v, bool borrow = false) const;
  /// The value explicit input `i` takes when its argument is left out: its
  /// In::value, or the state an In::update has left there (a copy). ValueError
  /// when input `i` has none, IndexError when there is no input `i`.
  NDArray input_value(std::size_t i) const;

 private:
  friend Function function(const std::vector<In>&, const std::vector<Out>&, const FunctionOptions&);
  Outputs call_arrays(const std::vector<NDArray>& args) const;
  /// The user's shared variable behind shared_[k] (a swapped copy's own).
  const Var& shared_var(std::size_t k) const;
  std::shared_ptr<const detail::FunctionImpl> impl_;
  std::vector<std::shared_ptr<SharedStorage>> defaults_;  // per explicit input (null: no default)
  std::vector<std::shared_ptr<SharedStorage>> shared_;    // per shared graph input
  std::shared_ptr<const detail::Swapped> swapped_;        // copy(swap): the swapped variables; null: none
};

/// Compiles `outputs` as functions of `inputs`.
Function function(const std::vector<In>& inputs, const std::vector<Out>& outputs, const FunctionOptions& options);
/// With the default options. (An overload rather than a default argument, so
/// that a call site does not build and destroy a FunctionOptions inline: less
/// code in every user translation unit.)
Function function(const std::vector<In>& inputs, const std::vector<Out>& outputs);
/// Theano's `function([x, y], z)`: one output `Var` or `Out` without braces
/// (a call's result then converts to the array: see Outputs).
template <class O>
  requires std::is_convertible_v<const O&, Out>
Function function(const std::vector<In>& inputs, const O& output, const FunctionOptions& options) {
  return function(inputs, std::vector<Out>{Out(output)}, options);
}
template <class O>
  requires std::is_convertible_v<const O&, Out>
Function function(const std::vector<In>& inputs, const O& output) {
  return function(inputs, std::vector<Out>{Out(output)});
}

/// `Var::eval(bindings)` compiles `function(bound variables, {a copy of self},
/// on_unused_input = Ignore)` once and caches it in a bounded (64-entry) LRU
/// table keyed by the creation ids of the variables (ids are never reused).
/// The table holds no reference to the user's output graph, and an entry is
/// erased when that graph is destroyed (the output is watched), so dropping
/// every handle on a graph frees it and its compiled Function.
/// Drops every Function cached by `Var::eval`.
void clear_eval_cache();
/// Number of Functions cached by `Var::eval` (tests).
std::size_t eval_cache_size();

}  // namespace theano

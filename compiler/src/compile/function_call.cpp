/// \file
/// Calling a Function: positional, literal (call_arg.h) and named arguments,
/// argument count and filtering, defaults, running the Thunk, the no-aliasing
/// guarantee of non-borrowed outputs, and writing updates back after the
/// whole graph ran.
#include <chrono>
#include <mutex>
#include <optional>
#include <span>
#include <sstream>
#include <vector>

#include "function_impl.h"
#include "theano/compile/function.h"
#include "theano/runtime/overlap.h"
#include "theano/sparse/type.h"

namespace theano {
namespace {

using detail::FunctionImpl;

/// Whether `v` is the only array holding its buffer: one the call allocated
/// (generated code keeps every array of a call under the owner of its buffer;
/// an output that is an argument, a constant or a view of one shares that
/// owner), so it aliases no other array and the checks below can skip it.
bool sole_holder(const NDArray& v) { return v.owner() && v.owner().use_count() == 1; }

const NDArray& deref(const NDArray& a) { return a; }
const NDArray& deref(const NDArray* a) { return *a; }

/// Whether `v` shares a buffer with one of `others` (arrays, or pointers to them).
template <class Arrays>
bool aliases_any(const NDArray& v, const Arrays& others) {
  if (!v.defined()) return false;
  for (const auto& o : others)
    if (deref(o).defined() && v.shares_buffer(deref(o))) return true;
  return false;
}

/// The values a call makes (converted arguments, the shared variables'
/// values, copies against aliasing), at addresses that stay valid: room for
/// all of them is reserved at the first (none when the call makes none).
struct Held {
  std::vector<NDArray> values;
  std::size_t room;
  const NDArray* add(NDArray v) {
    if (values.capacity() == 0) values.reserve(room);
    THEANO_INTERNAL_CHECK(values.size() < values.capacity()) << "a call made more values than it has room for";
    return &values.emplace_back(std::move(v));
  }
};

/// As Theano does: a value that shares memory with an input the compiled
/// code may overwrite in place (In::mutable_, or the storage of a shared
/// variable this function updates) is copied before the call, else the graph
/// would read what it already overwrote (f(get_value(W, borrow)) with an
/// update of W, or the same array passed twice). An overwritable value whose
/// own elements overlap (a broadcast view) is copied too: in-place code would
/// write one element through several indices (and the shared storage's
/// array, the caller's, keeps its value: the update replaces it after the call).
void copy_aliases_of_overwritable(const FunctionImpl& f, std::span<const NDArray*> in_values, Held& held) {
  const std::size_t n_args = f.ins.size();
  const std::vector<std::size_t>& overwritable = f.overwritable;
  if (overwritable.empty()) return;
  auto copy = [&](std::size_t k) { in_values[k] = held.add(in_values[k]->copy()); };
  for (std::size_t j : overwritable)
    if (elements_may_overlap(*in_values[j])) copy(j);
  for (std::size_t i = 0; i < in_values.size(); ++i) {
    const NDArray& v = *in_values[i];
    if (!v.defined() || v.size() == 0) continue;
    for (std::size_t j : overwritable)
      if (j != i && in_values[j]->defined() && v.shares_buffer(*in_values[j])) {
        // Copy the argument, never the shared storage the update replaces.
        copy(i < n_args || j >= n_args ? i : j);
        break;
      }
  }
}

using Storages = std::vector<std::shared_ptr<SharedStorage>>;

// `states`: the Function's stored input values (the states In::update replaces).
std::vector<NDArray> run_unprofiled(const FunctionImpl& f, const Storages& shared, const Storages& states,
                                    std::span<const NDArray> args) {
  // args: one (unfiltered) value per explicit input. in_values: the value of
  // each input of the thunk: the argument itself when its type accepts it as
  // it is, else its converted copy; then the shared variables' values
  // (copies: a set_value during the call replaces the stored array); each
  // value at most twice more against aliasing.
  const std::size_t n_in = args.size() + shared.size();
  const NDArray* stack_values[16];
  std::vector<const NDArray*> heap_values(n_in > std::size(stack_values) ? n_in : 0);
  const std::span<const NDArray*> in_values(heap_values.empty() ? stack_values : heap_values.data(), n_in);
  Held held{{}, n_in * (f.overwritable.empty() ? 1 : 3)};
  for (std::size_t i = 0; i < args.size(); ++i) {
    in_values[i] = &args[i];
    if (f.trust_input) continue;
    try {
      const Type& type = *f.ins[i].variable.type();
      if (std::optional<NDArray> c = type.filter_converted(args[i], f.strict[i], f.allow_downcast[i]))
        in_values[i] = held.add(std::move(*c));
    } catch (const TypeError& e) {
      std::ostringstream os;
      os << "Bad input argument with name \"" << f.ins[i].name << "\" to " << f.what() << " at index " << i
         << " (0-based): " << e.what();
      throw TypeError(os.str());
    }
  }
  for (std::size_t k = 0; k < shared.size(); ++k) in_values[args.size() + k] = held.add(shared[k]->value);
  copy_aliases_of_overwritable(f, in_values, held);

  const std::size_t n_out = f.outputs.size();
  std::vector<NDArray> results(f.nresults);
  f.thunk->run_refs(in_values, results);

  // Update values must not keep a caller's array (unless In::borrow) or a
  // constant's buffer.
  const std::size_t n_args = args.size();
  auto not_ours = [&](const NDArray& v) {
    if (sole_holder(v)) return false;
    if (aliases_any(v, f.constants)) return true;
    for (std::size_t i = 0; i < n_args; ++i)
      if (!f.ins[i].borrow && v.defined() &&
          (v.shares_buffer(*in_values[i]) || (in_values[i] != &args[i] && v.shares_buffer(args[i]))))
        return true;
    return false;
  };
  // new_values: the In::update states, then the shared variables' values.
  const std::size_t n_states = f.input_updates.size();
  std::vector<NDArray> new_values;
  new_values.reserve(n_states + f.updates.size());
  for (std::size_t k = 0; k < n_states + f.updates.size(); ++k) {
    NDArray v = std::move(results[n_out + k]);
    if (not_ours(v)) v = v.copy();
    new_values.push_back(std::move(v));
  }

  // Outputs: fresh arrays unless borrowed; a non-borrowed output aliases no
  // argument, input value, constant, new shared value or earlier output. As
  // in Theano, a borrowed output is copied too when it aliases an argument
  // not borrowed (In::borrow: the caller's array, or a stored default) or an
  // earlier output not borrowed: only borrowing on both sides allows aliasing.
  results.resize(n_out);
  for (std::size_t i = 0; i < n_out; ++i) {
    NDArray& v = results[i];
    if (!v.defined() || sole_holder(v)) continue;
    const bool borrow = f.out_borrow[i];
    bool alias = !borrow && (aliases_any(v, in_values) || aliases_any(v, f.constants) || aliases_any(v, new_values));
    for (std::size_t j = 0; j < n_args && !alias; ++j) {
      const bool checked = !borrow && in_values[j] == &args[j];  // by aliases_any(v, in_values) above
      alias = !checked && !(borrow && f.ins[j].borrow) && v.shares_buffer(args[j]);
    }
    for (std::size_t j = 0; j < i && !alias; ++j)
      alias = !(borrow && f.out_borrow[j]) && results[j].defined() && v.shares_buffer(results[j]);
    if (alias) v = v.copy();
  }

  // Every update read the old values; write them all now (a GPU shared
  // variable keeps its value on its GPU: the perform-based linkers compute
  // host values, uploaded here).
  for (std::size_t k = 0; k < n_states; ++k) states[f.input_updates[k]]->value = std::move(new_values[k]);
  for (std::size_t k = 0; k < f.updates.size(); ++k) {
    const auto t = static_cast<std::size_t>(f.update_target[k]);
    shared[t]->value = stored_value(*f.shared_vars[t].type(), new_values[n_states + k]);
  }
  return results;
}

std::vector<NDArray> run(const FunctionImpl& f, const Storages& shared, const Storages& states,
                         std::span<const NDArray> args) {
  if (!f.profile) return run_unprofiled(f, shared, states, args);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<NDArray> r = run_unprofiled(f, shared, states, args);
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::lock_guard<std::mutex> lock(f.profile_mutex);
  ++f.calls;
  f.call_seconds += dt;
  return r;
}

/// The function, for a call that returns arrays: ValueError for an empty
/// Function, TypeError naming a sparse output (sparse::call returns those).
const FunctionImpl& checked(const std::shared_ptr<const FunctionImpl>& impl) {
  THEANO_USER_CHECK(impl, ValueError) << "calling an empty (default-constructed) Function; make it with function()";
  const FunctionImpl& f = *impl;
  if (f.sparse_outputs)
    for (std::size_t i = 0; i < f.user_outputs.size(); ++i)
      THEANO_USER_CHECK(!sparse::sparse_type(f.user_outputs[i]), TypeError)
          << f.what() << ": output " << i << " (" << f.user_outputs[i].str() << ", " << f.user_outputs[i].type()->str()
          << ") is a sparse matrix; call the function with sparse::call(f, args), which returns it as a SparseMatrix";
  return f;
}

/// `"x" (position 0)` for messages.
std::string quoted_input(const FunctionImpl& f, std::size_t i) {
  return "\"" + f.ins[i].name + "\" (position " + std::to_string(i) + ")";
}

/// The input named `name` (In::name); TypeError naming the inputs when there
/// is none, or when two inputs have that name.
std::size_t find_input(const FunctionImpl& f, const std::string& name) {
  auto names = [&] {
    std::string r;
    for (const In& in : f.ins) r += (r.empty() ? "" : ", ") + (in.name.empty() ? std::string("<unnamed>") : in.name);
    return r;
  };
  int found = -1;
  for (std::size_t i = 0; i < f.ins.size(); ++i)
    if (f.ins[i].name == name) {
      THEANO_USER_CHECK(found < 0, TypeError)
          << f.what() << ": input name \"" << name << "\" is ambiguous (inputs " << found << " and " << i << ")";
      found = static_cast<int>(i);
    }
  THEANO_USER_CHECK(found >= 0, TypeError)
      << f.what() << ": unknown input name \"" << name << "\"; the inputs are: " << names();
  return static_cast<std::size_t>(found);
}

/// TypeError: `n_args` positional arguments for the inputs, the first
/// `required` of which have no default.
[[noreturn]] void throw_count(const FunctionImpl& f, std::size_t n_args, std::size_t required) {
  const std::size_t n = f.ins.size();
  std::ostringstream os;
  os << f.what() << ": expected ";
  if (required == n)
    os << n;
  else
    os << required << " to " << n;
  os << " argument" << (n == 1 && required == n ? "" : "s") << ", got " << n_args;
  if (n_args < required) {
    os << " (missing input" << (required - n_args > 1 ? "s" : "");
    for (std::size_t i = n_args; i < required; ++i) os << (i == n_args ? " " : ", ") << '"' << f.ins[i].name << '"';
    os << ")";
  }
  throw TypeError(os.str());
}

/// Positional NDArrays; trailing inputs with defaults may be left out.
Outputs call_positional(const FunctionImpl& f, const Storages& shared, const Storages& defaults,
                        std::span<const NDArray> args) {
  const std::size_t n = f.ins.size();
  std::size_t required = n;
  while (required > 0 && defaults[required - 1]) --required;
  if (args.size() > n || args.size() < required) throw_count(f, args.size(), required);
  if (args.size() == n) return Outputs(run(f, shared, defaults, args));
  std::vector<NDArray> full(args.begin(), args.end());
  for (std::size_t i = args.size(); i < n; ++i) full.push_back(defaults[i]->value);
  return Outputs(run(f, shared, defaults, full));
}

/// `arg` converted for input `i` (Arg::value_for); its errors name the input.
NDArray argument_value(const FunctionImpl& f, std::size_t i, const Arg& arg) {
  const std::optional<bool> downcast = f.downcast_unset[i] ? std::nullopt : std::optional<bool>(f.allow_downcast[i]);
  auto where = [&] {
    return "Bad input argument with name \"" + f.ins[i].name + "\" to " + f.what() + " at index " +
           std::to_string(i) + " (0-based): ";
  };
  try {
    return arg.value_for(*f.ins[i].variable.type(), f.strict[i], downcast);
  } catch (const TypeError& e) {
    throw TypeError(where() + e.what());
  } catch (const ValueError& e) {
    throw ValueError(where() + e.what());
  }
}

}  // namespace

const NDArray& Outputs::value() const {
  THEANO_USER_CHECK(size() == 1, ValueError)
      << "the function has " << size() << " outputs; only the result of a function of one output converts to "
      << "its array (value(), item(), NDArray): index the result ([i]) instead";
  return front();
}

std::vector<NDArray> Function::call_components(const std::vector<NDArray>& args) const {
  THEANO_USER_CHECK(impl_, ValueError) << "calling an empty (default-constructed) Function; make it with function()";
  return call_positional(*impl_, shared_, defaults_, args);
}

Outputs Function::call_arrays(const std::vector<NDArray>& args) const {
  return call_positional(checked(impl_), shared_, defaults_, args);
}

Outputs Function::operator()(std::initializer_list<NDArray> args) const {
  return call_positional(checked(impl_), shared_, defaults_, std::span<const NDArray>(args.begin(), args.size()));
}

Outputs Function::operator()(Arg a0, Arg a1, Arg a2, Arg a3, Arg a4, Arg a5, Arg a6, Arg a7, Arg a8, Arg a9) const {
  const FunctionImpl& f = checked(impl_);
  const Arg* args[] = {&a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7, &a8, &a9};
  const std::size_t n = f.ins.size();
  std::vector<NDArray> full(n);
  std::vector<char> given(n, 0);
  std::size_t n_given = 0, n_unnamed = 0;
  for (std::size_t k = 0; k < std::size(args); ++k) {
    if (!args[k]->given()) continue;
    THEANO_USER_CHECK(n_given == k, ValueError)
        << f.what() << ": argument " << k << " follows Arg::none(); only trailing arguments can be left out";
    ++n_given;
    n_unnamed += args[k]->name().empty();
  }
  if (n_unnamed > n) {
    std::size_t required = n;
    while (required > 0 && defaults_[required - 1]) --required;
    throw_count(f, n_unnamed, required);
  }
  std::size_t n_positional = 0;
  const Arg* first_named = nullptr;
  for (std::size_t k = 0; k < n_given; ++k) {
    const Arg* a = args[k];
    if (!a->name().empty()) {
      first_named = first_named ? first_named : a;
      const std::size_t i = find_input(f, a->name());
      THEANO_USER_CHECK(!given[i], TypeError)
          << f.what() << ": got two values for input " << quoted_input(f, i) << ": "
          << (i < n_positional ? "positionally and by name" : "by name twice");
      full[i] = argument_value(f, i, *a);
      given[i] = 1;
      continue;
    }
    THEANO_USER_CHECK(!first_named, TypeError)
        << f.what() << ": a positional argument follows the named argument \"" << first_named->name()
        << "\"; give positional arguments first (as Python requires)";
    full[n_positional] = argument_value(f, n_positional, *a);
    given[n_positional] = 1;
    ++n_positional;
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < n; ++i) {
    if (given[i]) continue;
    if (defaults_[i])
      full[i] = defaults_[i]->value;
    else
      missing.push_back(i);
  }
  if (!missing.empty()) {
    std::ostringstream os;
    os << f.what() << ": missing required input" << (missing.size() > 1 ? "s" : "");
    for (std::size_t k = 0; k < missing.size(); ++k) os << (k ? ", " : " ") << quoted_input(f, missing[k]);
    os << "; got " << n_given << " argument" << (n_given == 1 ? "" : "s");
    throw TypeError(os.str());
  }
  return Outputs(run(f, shared_, defaults_, full));
}

Outputs Function::call(const std::vector<std::pair<std::string, NDArray>>& named_args) const {
  const FunctionImpl& f = checked(impl_);
  std::vector<NDArray> full(f.ins.size());
  for (const auto& [name, value] : named_args) {
    const std::size_t found = find_input(f, name);
    THEANO_USER_CHECK(!full[found].defined(), TypeError) << f.what() << ": input \"" << name << "\" is given twice";
    full[found] = value;
  }
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i].defined()) continue;
    THEANO_USER_CHECK(defaults_[i], TypeError)
        << f.what() << ": missing required input \"" << f.ins[i].name << "\" (position " << i << ")";
    full[i] = defaults_[i]->value;
  }
  return Outputs(run(f, shared_, defaults_, full));
}

NDArray Function::input_value(std::size_t i) const {
  THEANO_USER_CHECK(impl_, ValueError) << "input_value of an empty (default-constructed) Function";
  THEANO_USER_CHECK(i < defaults_.size(), IndexError)
      << impl_->what() << ": input_value(" << i << "): the function has " << defaults_.size() << " explicit inputs";
  THEANO_USER_CHECK(defaults_[i], ValueError)
      << impl_->what() << ": input " << i << " (\"" << impl_->ins[i].name << "\") has no default value or state";
  return defaults_[i]->value.copy();
}

Function::~Function() = default;
Function::Function(const Function&) = default;
Function::Function(Function&&) noexcept = default;
Function& Function::operator=(const Function&) = default;
Function& Function::operator=(Function&&) noexcept = default;

const std::vector<Var>& Function::inputs() const { return impl_->input_vars; }
const std::vector<Var>& Function::outputs() const { return impl_->user_outputs; }
const std::vector<std::pair<Var, Var>>& Function::updates() const {
  return swapped_ ? swapped_->updates : impl_->updates;
}
const FunctionGraph& Function::fgraph() const {
  const detail::FunctionImpl& f = *impl_;
  if (!f.optimize_later) return *f.fgraph;
  std::call_once(f.optimized_once, [&f] { f.optimized = f.optimize_later(); });
  return *f.optimized;
}
std::size_t Function::n_explicit_inputs() const { return impl_->ins.size(); }
const std::string& Function::name() const { return impl_->name; }
const Mode& Function::mode() const { return impl_->mode; }

const rewrite::RewriteStats& Function::rewrite_stats() const { return impl_->rewrite_stats; }

ProfileStats Function::profile() const {
  THEANO_USER_CHECK(impl_, ValueError) << "profile() of an empty (default-constructed) Function";
  const FunctionImpl& f = *impl_;
  ProfileStats p;
  p.name = f.name;
  p.mode = f.mode.name;
  p.linker = f.mode.linker;
  p.enabled = f.profile;
  p.rewrite_ms = f.rewrite_ms;
  p.build = f.thunk->stats();
  std::lock_guard<std::mutex> lock(f.profile_mutex);
  p.calls = f.calls;
  p.call_seconds = f.call_seconds;
  return p;
}

NDArray Function::shared_value(const Var& v, bool borrow) const {
  THEANO_USER_CHECK(is_shared(v), TypeError) << impl_->what() << ": " << v.str() << " is not a shared variable";
  for (std::size_t k = 0; k < shared_.size(); ++k)
    if (shared_var(k) == v || shared_var(k)->id() == v.id() ||
        as_shared(shared_var(k))->storage() == as_shared(v)->storage())
      return borrow ? shared_[k]->value : shared_[k]->value.copy();
  throw ValueError(impl_->what() + ": shared variable " + v.str() + " is not used by this function");
}

}  // namespace theano

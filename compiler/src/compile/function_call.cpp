/// \file
/// Calling a Function: argument count and filtering, defaults, named
/// arguments, running the Thunk, the no-aliasing guarantee of non-borrowed
/// outputs, and writing updates back after the whole graph ran.
#include <chrono>
#include <mutex>
#include <span>
#include <sstream>

#include "function_impl.h"
#include "theano/compile/function.h"
#include "theano/runtime/overlap.h"
#include "theano/sparse/type.h"

namespace theano {
namespace {

using detail::FunctionImpl;

bool aliases_any(const NDArray& v, const std::vector<NDArray>& others) {
  if (!v.defined()) return false;
  for (const NDArray& o : others)
    if (o.defined() && v.shares_buffer(o)) return true;
  return false;
}

/// As Theano does: a value that shares memory with an input the compiled
/// code may overwrite in place (In::mutable_, or the storage of a shared
/// variable this function updates) is copied before the call, else the graph
/// would read what it already overwrote (f(get_value(W, borrow)) with an
/// update of W, or the same array passed twice). An overwritable value whose
/// own elements overlap (a broadcast view) is copied too: in-place code would
/// write one element through several indices (and the shared storage's
/// array, the caller's, keeps its value: the update replaces it after the call).
void copy_aliases_of_overwritable(const FunctionImpl& f, std::vector<NDArray>& in_values) {
  const std::size_t n_args = f.ins.size();
  std::vector<std::size_t> overwritable;
  for (std::size_t i = 0; i < n_args; ++i)
    if (f.ins[i].mutable_) overwritable.push_back(i);
  for (int t : f.update_target) overwritable.push_back(n_args + static_cast<std::size_t>(t));
  if (overwritable.empty()) return;
  for (std::size_t j : overwritable)
    if (elements_may_overlap(in_values[j])) in_values[j] = in_values[j].copy();
  for (std::size_t i = 0; i < in_values.size(); ++i) {
    NDArray& v = in_values[i];
    if (!v.defined() || v.size() == 0) continue;
    for (std::size_t j : overwritable)
      if (j != i && in_values[j].defined() && v.shares_buffer(in_values[j])) {
        // Copy the argument, never the shared storage the update replaces.
        if (i < n_args || j >= n_args)
          v = v.copy();
        else
          in_values[j] = in_values[j].copy();
        break;
      }
  }
}

using Storages = std::vector<std::shared_ptr<SharedStorage>>;

// `states`: the Function's stored input values (the states In::update replaces).
std::vector<NDArray> run_unprofiled(const FunctionImpl& f, const Storages& shared, const Storages& states,
                                    std::span<const NDArray> args) {
  // args: one (unfiltered) value per explicit input.
  std::vector<NDArray> in_values;
  in_values.reserve(args.size() + shared.size());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (f.trust_input) {
      in_values.push_back(args[i]);
      continue;
    }
    try {
      in_values.push_back(f.ins[i].variable.type()->filter(args[i], f.strict[i], f.allow_downcast[i]));
    } catch (const TypeError& e) {
      std::ostringstream os;
      os << "Bad input argument with name \"" << f.ins[i].name << "\" to " << f.what() << " at index " << i
         << " (0-based): " << e.what();
      throw TypeError(os.str());
    }
  }
  for (const auto& s : shared) in_values.push_back(s->value);
  copy_aliases_of_overwritable(f, in_values);

  const std::size_t n_out = f.outputs.size();
  std::vector<NDArray> results(f.fgraph->outputs().size());
  f.thunk->run(in_values, results);

  // Update values must not keep a caller's array (unless In::borrow) or a
  // constant's buffer.
  const std::size_t n_args = args.size();
  auto not_ours = [&](const NDArray& v) {
    if (aliases_any(v, f.constants)) return true;
    for (std::size_t i = 0; i < n_args; ++i)
      if (!f.ins[i].borrow && v.defined() && (v.shares_buffer(in_values[i]) || v.shares_buffer(args[i])))
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
    if (!v.defined()) continue;
    const bool borrow = f.out_borrow[i];
    bool alias = !borrow && (aliases_any(v, in_values) || aliases_any(v, f.constants) || aliases_any(v, new_values));
    for (std::size_t j = 0; j < n_args && !alias; ++j)
      alias = !(borrow && f.ins[j].borrow) && v.shares_buffer(args[j]);
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

}  // namespace

namespace {
/// TypeError naming the first sparse output: operator() and call() return arrays only.
void refuse_sparse_outputs(const FunctionImpl& f) {
  if (!f.sparse_outputs) return;
  for (std::size_t i = 0; i < f.user_outputs.size(); ++i)
    THEANO_USER_CHECK(!sparse::sparse_type(f.user_outputs[i]), TypeError)
        << f.what() << ": output " << i << " (" << f.user_outputs[i].str() << ", " << f.user_outputs[i].type()->str()
        << ") is a sparse matrix; call the function with sparse::call(f, args), which returns it as a SparseMatrix";
}
}  // namespace

std::vector<NDArray> Function::operator()(const std::vector<NDArray>& args) const {
  THEANO_USER_CHECK(impl_, ValueError) << "calling an empty (default-constructed) Function; make it with function()";
  refuse_sparse_outputs(*impl_);
  return call_components(args);
}

std::vector<NDArray> Function::call_components(const std::vector<NDArray>& args) const {
  THEANO_USER_CHECK(impl_, ValueError) << "calling an empty (default-constructed) Function; make it with function()";
  const FunctionImpl& f = *impl_;
  const std::size_t n = f.ins.size();
  std::size_t required = n;
  while (required > 0 && defaults_[required - 1]) --required;
  if (args.size() > n || args.size() < required) {
    std::ostringstream os;
    os << f.what() << ": expected ";
    if (required == n)
      os << n;
    else
      os << required << " to " << n;
    os << " argument" << (n == 1 && required == n ? "" : "s") << ", got " << args.size();
    if (args.size() < required) {
      os << " (missing input" << (required - args.size() > 1 ? "s" : "");
      for (std::size_t i = args.size(); i < required; ++i)
        os << (i == args.size() ? " " : ", ") << '"' << f.ins[i].name << '"';
      os << ")";
    }
    throw TypeError(os.str());
  }
  if (args.size() == n) return run(f, shared_, defaults_, args);
  std::vector<NDArray> full(args);
  for (std::size_t i = args.size(); i < n; ++i) full.push_back(defaults_[i]->value);
  return run(f, shared_, defaults_, full);
}

std::vector<NDArray> Function::call(const std::vector<std::pair<std::string, NDArray>>& named_args) const {
  THEANO_USER_CHECK(impl_, ValueError) << "calling an empty (default-constructed) Function; make it with function()";
  const FunctionImpl& f = *impl_;
  refuse_sparse_outputs(f);
  std::vector<NDArray> full(f.ins.size());
  auto names = [&] {
    std::string r;
    for (const In& in : f.ins) r += (r.empty() ? "" : ", ") + (in.name.empty() ? std::string("<unnamed>") : in.name);
    return r;
  };
  for (const auto& [name, value] : named_args) {
    int found = -1;
    for (std::size_t i = 0; i < f.ins.size(); ++i)
      if (f.ins[i].name == name) {
        THEANO_USER_CHECK(found < 0, TypeError)
            << f.what() << ": input name \"" << name << "\" is ambiguous (inputs " << found << " and " << i << ")";
        found = static_cast<int>(i);
      }
    THEANO_USER_CHECK(found >= 0, TypeError)
        << f.what() << ": unknown input name \"" << name << "\"; the inputs are: " << names();
    THEANO_USER_CHECK(!full[static_cast<std::size_t>(found)].defined(), TypeError)
        << f.what() << ": input \"" << name << "\" is given twice";
    full[static_cast<std::size_t>(found)] = value;
  }
  for (std::size_t i = 0; i < full.size(); ++i) {
    if (full[i].defined()) continue;
    THEANO_USER_CHECK(defaults_[i], TypeError)
        << f.what() << ": missing required input \"" << f.ins[i].name << "\" (position " << i << ")";
    full[i] = defaults_[i]->value;
  }
  return run(f, shared_, defaults_, full);
}

NDArray Function::input_value(std::size_t i) const {
  THEANO_USER_CHECK(impl_, ValueError) << "input_value of an empty (default-constructed) Function";
  THEANO_USER_CHECK(i < defaults_.size(), IndexError)
      << impl_->what() << ": input_value(" << i << "): the function has " << defaults_.size() << " explicit inputs";
  THEANO_USER_CHECK(defaults_[i], ValueError)
      << impl_->what() << ": input " << i << " (\"" << impl_->ins[i].name << "\") has no default value or state";
  return defaults_[i]->value.copy();
}

Function Function::copy(bool share_memory) const {
  Function r = *this;
  for (auto& d : r.defaults_)
    if (d) d = std::make_shared<SharedStorage>(SharedStorage{d->value.copy()});
  if (!share_memory)
    for (auto& s : r.shared_) s = std::make_shared<SharedStorage>(SharedStorage{s->value.copy()});
  return r;
}

const std::vector<Var>& Function::inputs() const { return impl_->input_vars; }
const std::vector<Var>& Function::outputs() const { return impl_->user_outputs; }
const std::vector<std::pair<Var, Var>>& Function::updates() const { return impl_->updates; }
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
  for (std::size_t k = 0; k < impl_->shared_vars.size(); ++k)
    if (impl_->shared_vars[k] == v || impl_->shared_vars[k]->id() == v.id() ||
        as_shared(impl_->shared_vars[k])->storage() == as_shared(v)->storage())
      return borrow ? shared_[k]->value : shared_[k]->value.copy();
  throw ValueError(impl_->what() + ": shared variable " + v.str() + " is not used by this function");
}

}  // namespace theano

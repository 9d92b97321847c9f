/// \file
/// `function()`: validates the user's request and builds the FunctionGraph and
/// Thunk of a Function (see function.h for the pipeline). Calls live in
/// function_call.cpp.
#include "theano/compile/function.h"
#include "theano/fgraph/mutable_inputs.h"
#include "theano/runtime/fork_guard.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "function_impl.h"
#include "theano/graph/clone.h"
#include "theano/graph/traversal.h"
#include "theano/config.h"
#include "theano/compile/debug_mode.h"
#include "theano/compile/rewrite_provenance.h"
#include "theano/rewrite/optdb.h"

namespace theano {
namespace {

using detail::FunctionImpl;

std::string type_str(const Var& v) { return v.type()->str(); }

/// The first node among the ancestors of `roots` that uses `v`, for messages.
std::string user_of(const Var& v, const std::vector<Var>& roots) {
  for (const Var& a : ancestors(roots)) {
    if (!a.owner()) continue;
    for (const Var& in : a.owner()->inputs())
      if (in == v) {
        std::ostringstream os;
        os << *a.owner();
        return os.str();
      }
  }
  return {};
}

void check_explicit_inputs(const FunctionImpl& f) {
  for (std::size_t i = 0; i < f.ins.size(); ++i) {
    const Var& v = f.ins[i].variable;
    THEANO_USER_CHECK(v, ValueError) << f.what() << ": input " << i << " is a null Var";
    THEANO_USER_CHECK(!v.is_constant(), TypeError)
        << f.what() << ": input " << i << " (" << v.str() << ") is a Constant; constants are not allowed as "
        << "inputs (their value is fixed in the graph): use a non-constant variable";
    THEANO_USER_CHECK(!is_shared(v), TypeError)
        << f.what() << ": cannot use a shared variable (" << v.str() << ") as explicit input " << i
        << "; shared variables are implicit inputs. Consider substituting a non-shared variable via the "
        << "`givens` parameter";
    for (std::size_t j = 0; j < i; ++j)
      THEANO_USER_CHECK(!(f.ins[j].variable == v), ValueError)
          << f.what() << ": variable " << v.str() << " is used twice in the inputs (positions " << j << " and " << i
          << ")";
  }
}

/// (shared var, expression) pairs checked for targets and types.
void check_update(const FunctionImpl& f, const Var& target, const Var& expr,
                  const std::unordered_set<const Variable*>& seen) {
  THEANO_USER_CHECK(target && expr, ValueError) << f.what() << ": an update has a null Var";
  THEANO_USER_CHECK(is_shared(target), TypeError)
      << f.what() << ": the update target " << target.str() << " is not a shared variable; only shared "
      << "variables (made with shared()) can be updated";
  THEANO_USER_CHECK(!seen.count(target.get()), ValueError)
      << f.what() << ": shared variable " << target.str() << " has two update expressions";
  THEANO_USER_CHECK(target.type()->convert_variable(expr), TypeError)
      << f.what() << ": an update must have the same type as the original shared variable (shared_var="
      << target.str() << ", shared_var.type=" << type_str(target) << ", update_val=" << expr.str()
      << ", update_val.type=" << type_str(expr) << "); cast the update (e.g. .astype(" << type_str(target)
      << "'s dtype)) or give the shared variable the dtype of the update";
}

}  // namespace

Function function(const std::vector<In>& inputs, const std::vector<Out>& outputs, const FunctionOptions& options) {
  ForkGuard no_fork_while_compiling;  // a fork waits for this compile (fork_guard.h)
  SuppressCreationSites quiet;  // the user's variables exist already; clones copy their sites
  auto impl = std::make_shared<FunctionImpl>();
  FunctionImpl& f = *impl;
  f.name = options.name;
  f.mode = get_mode(options.mode);
  if (auto it = config().flags.find("device"); it != config().flags.end() && !it->second.empty()) {
    THEANO_USER_CHECK(it->second == "cpu", ValueError)
        << "THEANO_FLAGS device='" << it->second << "': only device=cpu runs compiled functions so far (the CUDA "
        << "back end, device=cuda, is not built yet; NVRTC compilation is available in codegen/)";
  }
  f.ins = inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (f.ins[i].name.empty() && f.ins[i].variable) f.ins[i].name = f.ins[i].variable.name();
    f.input_vars.push_back(f.ins[i].variable);
  }
  check_explicit_inputs(f);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    THEANO_USER_CHECK(outputs[i].variable, ValueError) << f.what() << ": output " << i << " is a null Var";
    f.outputs.push_back(outputs[i].variable);
    f.out_borrow.push_back(outputs[i].borrow);
  }

  // Replacements: an owned explicit input cuts the graph there (a fresh root
  // stands for it), then the givens.
  std::vector<std::pair<Var, Var>> replace;
  std::vector<Var> roots;  // graph inputs standing for the explicit inputs
  for (const Var& v : f.input_vars) {
    if (v.owner()) {
      Var cut = v.type()->make_variable(v.name());
      replace.emplace_back(v, cut);
      roots.push_back(cut);
    } else {
      roots.push_back(v);
    }
  }
  std::unordered_set<const Variable*> given;
  for (const auto& [from, to] : options.givens) {
    THEANO_USER_CHECK(from && to, ValueError) << f.what() << ": a `givens` pair has a null Var";
    for (const Var& v : f.input_vars)
      THEANO_USER_CHECK(!(v == from), ValueError)
          << f.what() << ": you are trying to replace variable " << from.str()
          << " through the `givens` parameter, but this variable is an input to your function. Replacing inputs "
          << "is forbidden because it has no effect";
    THEANO_USER_CHECK(!from.is_constant(), ValueError)
        << f.what() << ": `givens` cannot replace the constant " << from.str();
    THEANO_USER_CHECK(given.insert(from.get()).second, ValueError)
        << f.what() << ": variable " << from.str() << " is replaced twice in `givens`";
    THEANO_USER_CHECK(*from.type() == *to.type() || from.type()->convert_variable(to), TypeError)
        << f.what() << ": `givens` cannot replace " << from.str() << " (" << type_str(from) << ") by " << to.str()
        << " (" << type_str(to) << "): the types differ; cast the replacement or declare the variable with the "
        << "replacement's type";
    replace.emplace_back(from, to);
  }
  auto substitute = [&](const std::vector<Var>& exprs) {
    return replace.empty() ? exprs : clone_replace(exprs, replace);
  };

  // Explicit updates, then default updates of every shared variable the graph
  // (including update expressions) uses, until no new one appears.
  std::unordered_set<const Variable*> updated;
  for (const auto& [target, expr] : options.updates) {
    check_update(f, target, expr, updated);
    updated.insert(target.get());
    f.updates.emplace_back(target, expr);
  }
  std::vector<Var> exprs = f.outputs;
  for (const auto& u : f.updates) exprs.push_back(u.second);
  exprs = substitute(exprs);
  if (!options.no_default_updates) {
    std::size_t scanned = 0;
    while (scanned < exprs.size()) {
      std::vector<Var> fresh(exprs.begin() + static_cast<std::ptrdiff_t>(scanned), exprs.end());
      scanned = exprs.size();
      for (const Var& v : theano::inputs(fresh)) {
        SharedVariable* sv = as_shared(v);
        if (!sv || updated.count(v.get())) continue;
        Var du = sv->default_update();
        if (!du) continue;
        check_update(f, v, du, updated);
        updated.insert(v.get());
        f.updates.emplace_back(v, du);
        exprs.push_back(substitute({du})[0]);
      }
    }
  }
  for (std::size_t k = 0; k < f.updates.size(); ++k) {
    const Var& expr = exprs[f.outputs.size() + k];
    THEANO_USER_CHECK(f.updates[k].first.type()->convert_variable(expr), TypeError)
        << f.what() << ": after `givens`, the update of " << f.updates[k].first.str() << " has type "
        << type_str(expr) << " but the shared variable has type " << type_str(f.updates[k].first);
  }

  // Leaves of the graph: explicit inputs, shared variables, constants; anything
  // else is missing.
  std::unordered_set<const Variable*> root_set;
  for (const Var& r : roots) root_set.insert(r.get());
  std::unordered_set<const Variable*> used;
  std::vector<Var> shared_leaves;
  for (const Var& leaf : theano::inputs(exprs, roots)) {
    used.insert(leaf.get());
    if (root_set.count(leaf.get()) || leaf.is_constant()) continue;
    if (is_shared(leaf)) {
      shared_leaves.push_back(leaf);
      continue;
    }
    const std::string user = user_of(leaf, exprs);
    throw MissingInputError(f.what() + ": variable " + leaf.str() + " (" + type_str(leaf) +
                            ") is needed to compute the outputs" + (user.empty() ? "" : " (it is used by " + user + ")") +
                            " but it was not given as an input; add it to the inputs, replace it with `givens`, or "
                            "make it a shared variable");
  }
  for (std::size_t i = 0; i < roots.size(); ++i) {
    if (used.count(roots[i].get()) || options.on_unused_input == OnUnusedInput::Ignore) continue;
    const std::string msg = f.what() + " was asked to create a function computing outputs given certain inputs, "
                            "but the provided input variable at index " + std::to_string(i) + " (" +
                            f.input_vars[i].str() + ") is not part of the computational graph needed to compute "
                            "the outputs. To make this error into a warning, pass on_unused_input = Warn; to "
                            "disable it completely, use on_unused_input = Ignore.";
    if (options.on_unused_input == OnUnusedInput::Raise) throw UnusedInputError(msg);
    std::cerr << "UserWarning: " << msg << "\n";
  }

  // Graph inputs: explicit inputs, then the shared variables used, then
  // update targets used by nothing else.
  std::unordered_map<const Variable*, int> shared_index;
  for (const Var& s : shared_leaves) {
    shared_index.emplace(s.get(), static_cast<int>(f.shared_vars.size()));
    f.shared_vars.push_back(s);
  }
  for (const auto& [target, expr] : f.updates) {
    auto [it, fresh] = shared_index.emplace(target.get(), static_cast<int>(f.shared_vars.size()));
    if (fresh) f.shared_vars.push_back(target);
    f.update_target.push_back(it->second);
  }
  std::vector<Var> fg_inputs = roots;
  fg_inputs.insert(fg_inputs.end(), f.shared_vars.begin(), f.shared_vars.end());
  const std::unique_ptr<Linker> linker = make_linker(f.mode.linker);
  linker->prepare();
  auto fg = std::make_shared<FunctionGraph>(fg_inputs, exprs, std::vector<FeaturePtr>{}, /*clone=*/true);
  // Inputs the compiled code may overwrite: In(mutable=True), and the storage
  // of every shared variable this function updates (its old value is read
  // before it is replaced; the inplace rewrites order those readers first).
  std::vector<bool> input_mutable;
  for (const In& in : f.ins) input_mutable.push_back(in.mutable_);
  input_mutable.resize(fg_inputs.size(), false);
  for (int t : f.update_target) input_mutable[roots.size() + static_cast<std::size_t>(t)] = true;
  {
    std::vector<Var> mutable_vars;
    for (std::size_t k = 0; k < input_mutable.size(); ++k)
      if (input_mutable[k]) mutable_vars.push_back(fg->inputs()[k]);
    fg->attach_feature(std::make_shared<MutableInputs>(std::move(mutable_vars)));
  }
  // The checking modes (debug_mode.h, nan_guard.h) record which rewrite made
  // each node; DebugMode also keeps the graph as it was before rewriting.
  const bool debug_mode = f.mode.name == "debugmode", nan_guard = f.mode.name == "nanguardmode";
  std::shared_ptr<RewriteProvenance> provenance;
  std::shared_ptr<const FunctionGraph> unoptimized;
  if (debug_mode || nan_guard) {
    provenance = std::make_shared<RewriteProvenance>();
    fg->attach_feature(provenance);
  }
  if (debug_mode) unoptimized = std::make_shared<FunctionGraph>(fg_inputs, exprs, std::vector<FeaturePtr>{}, true);
  // The mode's optimizer rewrites the graph before the constants are
  // collected and the linker runs.
  const auto t_rewrite = std::chrono::steady_clock::now();
  f.rewrite_stats = rewrite::optimize(*fg, rewrite::mode_query(f.mode.name)
                                               .including(options.optimizer_including)
                                               .excluding(options.optimizer_excluding));
  f.rewrite_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_rewrite).count();
  for (Apply* node : fg->apply_nodes())
    for (const Var& in : node->inputs())
      if (const Constant* c = in.as_constant()) f.constants.push_back(c->data());
  for (const Var& out : fg->outputs())
    if (const Constant* c = out.as_constant()) f.constants.push_back(c->data());
  f.fgraph = fg;

  // Per-input call policies.
  for (const In& in : f.ins) {
    f.strict.push_back(in.strict);
    f.allow_downcast.push_back(in.allow_downcast.value_or(options.allow_input_downcast.value_or(false)));
  }
  LinkOptions link;
  link.mutable_inputs = input_mutable;
  link.borrow_outputs = f.out_borrow;
  link.fast_compile = f.mode.name == "fast_compile";
  f.trust_input = options.trust_input;
  f.profile = options.profile.value_or(config_flag("profile"));
  link.profile = f.profile;
  if (nan_guard)
    link.observer = make_nan_guard_observer(options.nan_guard.value_or(NanGuardOptions::from_flags()), fg,
                                            provenance, f.what());
  f.thunk = debug_mode ? make_debug_mode_thunk(*linker, fg, unoptimized, provenance, link, f.what())
                       : linker->make_thunk(fg, link);
  if (config_flag("log_compile")) {
    const ThunkStats st = f.thunk->stats();
    std::ostringstream line;
    line << "theano-cpp: compiled " << f.what() << " (mode " << f.mode.name << ", linker " << f.mode.linker
         << "): rewrite " << f.rewrite_ms << " ms, codegen " << st.codegen_ms << " ms, clang " << st.compile_ms
         << " ms, load " << st.load_ms << " ms";
    if (!st.cache.empty()) line << "; cache " << st.cache;
    if (!st.source_path.empty()) line << "; source " << st.source_path;
    std::cerr << line.str() << "\n";
  }

  Function result;
  for (std::size_t i = 0; i < f.ins.size(); ++i) {
    const In& in = f.ins[i];
    if (!in.value) {
      result.defaults_.push_back(nullptr);
      continue;
    }
    NDArray v;
    try {
      v = in.variable.type()->filter(*in.value, in.strict, f.allow_downcast[i]);
    } catch (const TypeError& e) {
      throw TypeError(f.what() + ": the default value of input " + std::to_string(i) + " (" + in.variable.str() +
                      ") does not fit its type: " + e.what());
    }
    if (v.shares_buffer(*in.value) && !in.borrow) v = v.copy();
    result.defaults_.push_back(std::make_shared<SharedStorage>(SharedStorage{v}));
  }
  for (const Var& s : f.shared_vars) result.shared_.push_back(as_shared(s)->storage());
  result.impl_ = std::move(impl);
  return result;
}

}  // namespace theano

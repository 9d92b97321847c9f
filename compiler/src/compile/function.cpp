/// \file
/// `function()`: validates the user's request and builds the FunctionGraph and
/// Thunk of a Function in named stages, as PyTensor's FunctionMaker does
/// (request, givens, updates, leaves, inputs, warm start, FunctionGraph,
/// rewrite, link), so a device stage fits between them (see function.h for
/// the pipeline). Calls live in function_call.cpp.
#include "theano/compile/function.h"

#include <chrono>
#include <iostream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "function_impl.h"
#include "request_text.h"
#include "value_checks.h"
#include "../rewrite/known_names.h"
#include "theano/compile/debug_mode.h"
#include "theano/compile/rewrite_provenance.h"
#include "theano/config.h"
#include "theano/fgraph/mutable_inputs.h"
#include "theano/gpu/context.h"
#include "theano/graph/clone.h"
#include "theano/graph/traversal.h"
#include "theano/rewrite/optdb.h"
#include "theano/runtime/fork_guard.h"
#include "theano/sparse/ops.h"

namespace theano {
namespace {

using detail::FunctionImpl;
using detail::request_text;
using detail::RequestContext;

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

/// `v` as a variable of `type`: convert_variable, or, for a literal (a
/// constant) whose values all survive the conversion exactly, a constant of
/// `type`, as Theano's filter_variable takes a literal: givens {n (int32): 7
/// (an int8 constant)}, an update of a float32 shared variable by a float64
/// constant 0.5. Null when neither applies.
Var convert_or_literal(const Type& type, const Var& v) {
  if (Var converted = type.convert_variable(v)) return converted;
  const Constant* c = v.as_constant();
  if (!c || !c->data().defined() || !c->data().on_host()) return Var();
  const NDArray& data = c->data();
  NDArray fitted;
  try {
    fitted = type.filter(data, /*strict=*/false, /*allow_downcast=*/true);
  } catch (const TypeError&) {
    return Var();
  } catch (const ValueError&) {
    return Var();
  }
  return detail::converts_exactly(data, fitted) ? type.make_constant(fitted) : Var();
}

/// A (shared var, expression) pair checked for target and type; returns the
/// expression, or the literal it is converted into (convert_or_literal).
Var check_update(const FunctionImpl& f, const Var& target, const Var& expr,
                 const std::unordered_set<const Variable*>& seen) {
  THEANO_USER_CHECK(target && expr, ValueError) << f.what() << ": an update has a null Var";
  THEANO_USER_CHECK(is_shared(target), TypeError)
      << f.what() << ": the update target " << target.str() << " is not a shared variable; only shared "
      << "variables (made with shared()) can be updated";
  THEANO_USER_CHECK(!seen.count(target.get()), ValueError)
      << f.what() << ": shared variable " << target.str() << " has two update expressions";
  Var converted = convert_or_literal(*target.type(), expr);
  THEANO_USER_CHECK(converted, TypeError)
      << f.what() << ": an update must have the same type as the original shared variable (shared_var=" << target.str()
      << ", shared_var.type=" << type_str(target) << ", update_val=" << expr.str()
      << ", update_val.type=" << type_str(expr) << "); cast the update (e.g. .astype(" << type_str(target)
      << "'s dtype)) or give the shared variable the dtype of the update";
  return converted.is_constant() ? converted : expr;  // (other conversions: take_updates, after givens)
}

/// What function() knows as it goes through its stages (PyTensor's
/// FunctionMaker): the request checked, the graph's roots and replacements,
/// the expressions (outputs, then update values), the FunctionGraph and the
/// inputs the compiled code may overwrite.
struct Build {
  FunctionImpl& f;
  const FunctionOptions& options;
  std::vector<std::pair<Var, Var>> replace;  // cut explicit inputs, then givens
  std::vector<Var> roots;                    // graph inputs standing for the explicit inputs
  std::vector<Var> exprs;                    // outputs, then update values, after replacement
  std::vector<Var> shared_leaves;            // shared variables the expressions read
  std::vector<Var> fg_inputs;
  std::vector<bool> input_mutable;
  std::shared_ptr<FunctionGraph> fg;
  std::shared_ptr<RewriteProvenance> provenance;     // the checking modes
  std::shared_ptr<const FunctionGraph> unoptimized;  // DebugMode
  std::string request;                               // the request's canonical text, "" when not keyed

  std::vector<Var> substitute(const std::vector<Var>& e) const {
    return replace.empty() ? e : clone_replace(e, replace);
  }
};

/// Stage 1: the mode, the explicit inputs and the outputs, checked.
void take_request(Build& b, const std::vector<In>& inputs, const std::vector<Out>& outputs) {
  FunctionImpl& f = b.f;
  f.name = b.options.name;
  f.options = b.options;
  f.mode = get_mode(b.options.mode);
  // The device flag's GPU; an unusable device=cuda is an error here, before any work.
  f.gpu_context = gpu::selected_context();
  f.ins = inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (f.ins[i].name.empty() && f.ins[i].variable) f.ins[i].name = f.ins[i].variable.name();
    f.input_vars.push_back(f.ins[i].variable);
  }
  check_explicit_inputs(f);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    THEANO_USER_CHECK(!sparse::sparse_type(inputs[i].variable), TypeError)
        << f.what() << ": input " << i << " (" << inputs[i].variable.str() << ", " << type_str(inputs[i].variable)
        << ") is a sparse matrix; a sparse matrix is passed as its components: make it with sparse::csr_matrix / "
           "csc_matrix, give its ins() as inputs and sparse::arguments(m) in the call";
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    THEANO_USER_CHECK(outputs[i].variable, ValueError) << f.what() << ": output " << i << " is a null Var";
    f.user_outputs.push_back(outputs[i].variable);
    if (sparse::sparse_type(outputs[i].variable)) {
      // Computed as its components (no linker moves a sparse value); sparse::call rebuilds the matrix.
      f.sparse_outputs = true;
      for (const Var& c : sparse::csm_properties(outputs[i].variable)) {
        f.outputs.push_back(c);
        f.out_borrow.push_back(outputs[i].borrow);
      }
      continue;
    }
    f.outputs.push_back(outputs[i].variable);
    f.out_borrow.push_back(outputs[i].borrow);
  }
  for (std::size_t i = 0; i < f.ins.size(); ++i) {
    const In& in = f.ins[i];
    f.strict.push_back(in.strict);
    f.allow_downcast.push_back(in.allow_downcast.value_or(b.options.allow_input_downcast.value_or(false)));
    f.downcast_unset.push_back(!in.allow_downcast && !b.options.allow_input_downcast);
    if (!in.update) continue;
    // (A missing value is reported after the graph's checks: check_states.)
    Var update = convert_or_literal(*in.variable.type(), in.update);
    THEANO_USER_CHECK(update, TypeError)
        << f.what() << ": the update of input " << i << " (" << in.variable.str() << ", " << type_str(in.variable)
        << ") has type " << type_str(in.update) << "; cast the update to the input's type";
    if (update.is_constant()) f.ins[i].update = update;
    f.input_updates.push_back(i);
  }
}

/// Stage 2: replacements. An owned explicit input cuts the graph there (a
/// fresh root stands for it), then the givens.
void take_givens(Build& b) {
  const FunctionImpl& f = b.f;
  for (const Var& v : f.input_vars) {
    if (v.owner()) {
      Var cut = v.type()->make_variable(v.name());
      b.replace.emplace_back(v, cut);
      b.roots.push_back(cut);
    } else {
      b.roots.push_back(v);
    }
  }
  std::unordered_set<const Variable*> given;
  for (const auto& [from, to] : b.options.givens) {
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
    const Var converted = *from.type() == *to.type() ? to : convert_or_literal(*from.type(), to);
    THEANO_USER_CHECK(converted, TypeError)
        << f.what() << ": `givens` cannot replace " << from.str() << " (" << type_str(from) << ") by " << to.str()
        << " (" << type_str(to) << "): the types differ; cast the replacement or declare the variable with the "
        << "replacement's type";
    b.replace.emplace_back(from, converted);
  }
}

/// Stage 3: explicit updates, then default updates of every shared variable
/// the graph (including update expressions) uses, until no new one appears.
void take_updates(Build& b) {
  FunctionImpl& f = b.f;
  std::unordered_set<const Variable*> updated;
  for (const auto& [target, expr] : b.options.updates) {
    Var converted = check_update(f, target, expr, updated);
    updated.insert(target.get());
    f.updates.emplace_back(target, std::move(converted));
  }
  std::vector<Var> exprs = f.outputs;
  for (std::size_t i : f.input_updates) exprs.push_back(f.ins[i].update);
  for (const auto& u : f.updates) exprs.push_back(u.second);
  exprs = b.substitute(exprs);
  if (!b.options.no_default_updates) {
    std::size_t scanned = 0;
    while (scanned < exprs.size()) {
      std::vector<Var> fresh(exprs.begin() + static_cast<std::ptrdiff_t>(scanned), exprs.end());
      scanned = exprs.size();
      for (const Var& v : theano::inputs(fresh)) {
        SharedVariable* sv = as_shared(v);
        if (!sv || updated.count(v.get())) continue;
        Var du = sv->default_update();
        if (!du) continue;
        Var converted = check_update(f, v, du, updated);
        updated.insert(v.get());
        f.updates.emplace_back(v, converted);
        exprs.push_back(b.substitute({converted})[0]);
      }
    }
  }
  for (std::size_t k = 0; k < f.input_updates.size(); ++k) {
    Var& expr = exprs[f.outputs.size() + k];
    expr = f.ins[f.input_updates[k]].variable.type()->convert_variable(expr);
    THEANO_USER_CHECK(expr, TypeError) << f.what() << ": after `givens`, the update of input " << f.input_updates[k]
                                       << " no longer has the input's type";
  }
  for (std::size_t k = 0; k < f.updates.size(); ++k) {
    Var& expr = exprs[f.outputs.size() + f.input_updates.size() + k];
    const Var converted = f.updates[k].first.type()->convert_variable(expr);
    THEANO_USER_CHECK(converted, TypeError)
        << f.what() << ": after `givens`, the update of " << f.updates[k].first.str() << " has type " << type_str(expr)
        << " but the shared variable has type " << type_str(f.updates[k].first);
    expr = converted;  // e.g. GpuFromHost of a host update of a GPU shared variable
  }
  b.exprs = std::move(exprs);
}

/// Stage 4: the leaves of the graph are explicit inputs, shared variables and
/// constants; anything else is missing. Unused explicit inputs are reported
/// as asked, before a missing one (Theano's order).
void check_leaves(Build& b) {
  const FunctionImpl& f = b.f;
  std::unordered_set<const Variable*> root_set;
  for (const Var& r : b.roots) root_set.insert(r.get());
  std::unordered_set<const Variable*> used;
  Var missing;  // reported after the unused inputs, as Theano does (FunctionMaker checks those first)
  for (const Var& leaf : theano::inputs(b.exprs, b.roots)) {
    used.insert(leaf.get());
    if (root_set.count(leaf.get()) || leaf.is_constant()) continue;
    if (is_shared(leaf)) {
      b.shared_leaves.push_back(leaf);
      continue;
    }
    if (!missing) missing = leaf;
  }
  for (std::size_t i = 0; i < b.roots.size(); ++i) {
    if (used.count(b.roots[i].get()) || b.options.on_unused_input == OnUnusedInput::Ignore) continue;
    const std::string msg = f.what() +
                            " was asked to create a function computing outputs given certain inputs, "
                            "but the provided input variable at index " +
                            std::to_string(i) + " (" + f.input_vars[i].str() +
                            ") is not part of the computational graph needed to compute "
                            "the outputs. To make this error into a warning, pass on_unused_input = Warn; to "
                            "disable it completely, use on_unused_input = Ignore.";
    if (b.options.on_unused_input == OnUnusedInput::Raise) throw UnusedInputError(msg);
    std::cerr << "UserWarning: " << msg << "\n";
  }
  if (missing) {
    const std::string user = user_of(missing, b.exprs);
    throw MissingInputError(f.what() + ": variable " + missing.str() + " (" + type_str(missing) +
                            ") is needed to compute the outputs" +
                            (user.empty() ? "" : " (it is used by " + user + ")") +
                            " but it was not given as an input; add it to the inputs, replace it with `givens`, or "
                            "make it a shared variable");
  }
}

/// Stage 4b: a state input (In::update) needs its initial value; reported
/// after the update's type and the graph's leaves, the more specific errors.
void check_states(const FunctionImpl& f) {
  for (std::size_t i : f.input_updates)
    THEANO_USER_CHECK(f.ins[i].value, ValueError)
        << f.what() << ": input " << i << " (" << f.ins[i].variable.str()
        << ") has an update but no value; give In a value, the state before the first call";
}

/// A copy of the request's graph (inputs `fg_inputs`, outputs `exprs`) with
/// its MutableInputs feature: the graph the optimizer rewrites.
std::shared_ptr<FunctionGraph> request_fgraph(const std::vector<Var>& fg_inputs, const std::vector<Var>& exprs,
                                              const std::vector<bool>& input_mutable) {
  auto fg = std::make_shared<FunctionGraph>(fg_inputs, exprs, std::vector<FeaturePtr>{}, /*clone=*/true);
  std::vector<Var> mutable_vars;
  for (std::size_t k = 0; k < input_mutable.size(); ++k)
    if (input_mutable[k]) mutable_vars.push_back(fg->inputs()[k]);
  fg->attach_feature(std::make_shared<MutableInputs>(std::move(mutable_vars)));
  return fg;
}

/// Stage 5: the compiled function's inputs: the explicit inputs, then the
/// shared variables used, then update targets used by nothing else; the
/// inputs the compiled code may overwrite are In(mutable=True) and the storage
/// of every shared variable this function updates (its old value is read
/// before it is replaced; the inplace rewrites order those readers first).
/// The FunctionGraph over them is built only when the request is not found
/// (make_fgraph).
void take_function_inputs(Build& b) {
  FunctionImpl& f = b.f;
  std::unordered_map<const Variable*, int> shared_index;
  for (const Var& s : b.shared_leaves) {
    shared_index.emplace(s.get(), static_cast<int>(f.shared_vars.size()));
    f.shared_vars.push_back(s);
  }
  for (const auto& [target, expr] : f.updates) {
    auto [it, fresh] = shared_index.emplace(target.get(), static_cast<int>(f.shared_vars.size()));
    if (fresh) f.shared_vars.push_back(target);
    f.update_target.push_back(it->second);
  }
  for (std::size_t i = 0; i < f.ins.size(); ++i)
    if (f.ins[i].mutable_) f.overwritable.push_back(i);
  for (int t : f.update_target) f.overwritable.push_back(f.ins.size() + static_cast<std::size_t>(t));
  b.fg_inputs = b.roots;
  b.fg_inputs.insert(b.fg_inputs.end(), f.shared_vars.begin(), f.shared_vars.end());
  for (const In& in : f.ins) b.input_mutable.push_back(in.mutable_);
  b.input_mutable.resize(b.fg_inputs.size(), false);
  for (int t : f.update_target) b.input_mutable[b.roots.size() + static_cast<std::size_t>(t)] = true;
  f.nresults = b.exprs.size();
}

/// Stage 6: the FunctionGraph the optimizer rewrites (a copy of the request).
void make_fgraph(Build& b) { b.fg = request_fgraph(b.fg_inputs, b.exprs, b.input_mutable); }

/// The mode's rewrite query for `f` (its device adds the GPU transfer stage).
rewrite::Query rewrite_query(const FunctionImpl& f, const FunctionOptions& options) {
  rewrite::check_known(options.optimizer_including, "FunctionOptions::optimizer_including");
  rewrite::Query query = rewrite::mode_query(f.mode.name).including(options.optimizer_including);
  // The GPU transfer stage, and no stage making ops that have no GPU form.
  if (f.gpu_context) query = query.including({"gpu"}).excluding({"host_only"});
  return query.excluding(options.optimizer_excluding);
}

/// Stage 6b: a graph with sparse matrices is first rewritten into component
/// ops (the stage sparse_expand, rewrite/sparse.cpp), whatever the mode: no
/// linker runs sparse ops as such. An op it cannot expand is an error here.
/// Returns whether the graph had sparse matrices.
bool expand_sparse(Build& b) {
  if (!sparse::graph_has_sparse(b.fg->outputs())) return false;
  rewrite::Query q;
  q.include = {"sparse"};
  rewrite::optimize(*b.fg, q);
  for (Apply* node : b.fg->apply_nodes())
    for (const Var& v : node->outputs())
      THEANO_USER_CHECK(!sparse::sparse_type(v), MethodNotDefined)
          << b.f.what() << ": " << node->op()->name() << " computing " << v.str() << " (" << type_str(v)
          << ") has no expansion into sparse component ops (theano/sparse/components.h)";
  return true;
}

/// Stage 6c: the mode's optimizer rewrites the graph; then its constants are
/// collected. The checking modes (debug_mode.h, nan_guard.h) record which
/// rewrite made each node; DebugMode also keeps the graph as it was before.
void rewrite_fgraph(Build& b) {
  FunctionImpl& f = b.f;
  const bool checking = f.mode.name == "debugmode" || f.mode.name == "nanguardmode";
  if (checking) {
    b.provenance = std::make_shared<RewriteProvenance>();
    b.fg->attach_feature(b.provenance);
  }
  const bool sparse = expand_sparse(b);  // DebugMode's reference graph is then the expanded one
  if (f.mode.name == "debugmode")
    b.unoptimized = sparse ? std::make_shared<FunctionGraph>(b.fg->inputs(), b.fg->outputs(), std::vector<FeaturePtr>{}, true)
                           : std::make_shared<FunctionGraph>(b.fg_inputs, b.exprs, std::vector<FeaturePtr>{}, true);
  const auto t_rewrite = std::chrono::steady_clock::now();
  f.rewrite_stats = rewrite::optimize(*b.fg, rewrite_query(f, b.options));
  f.rewrite_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_rewrite).count();
  for (Apply* node : b.fg->apply_nodes())
    for (const Var& in : node->inputs())
      if (const Constant* c = in.as_constant()) f.constants.push_back(c->data());
  for (const Var& out : b.fg->outputs())
    if (const Constant* c = out.as_constant()) f.constants.push_back(c->data());
  f.fgraph = b.fg;
}

/// Stage 7: the linker makes the thunk (under a checking mode's observer).
LinkOptions link_options(Build& b) {
  FunctionImpl& f = b.f;
  LinkOptions link;
  link.mutable_inputs = b.input_mutable;
  link.borrow_outputs = f.out_borrow;
  link.fast_compile = f.mode.name == "fast_compile";
  f.trust_input = b.options.trust_input;
  f.profile = b.options.profile.value_or(config_flag("profile"));
  link.profile = f.profile;
  link.request = b.request;
  return link;
}

/// Stage 5b: the request's canonical text (request_text.h), written from the
/// user's graph, for modes that only rewrite and compile (not the checking
/// modes, not when profiling); then the linker may already hold the thunk of
/// an equal request. On such a hit neither the FunctionGraph nor the
/// optimizer runs: the Function builds the optimized graph the first time
/// `Function::fgraph()` asks. Returns whether it was a hit.
bool find_request(Build& b, const Linker& linker) {
  FunctionImpl& f = b.f;
  const bool checking = f.mode.name == "debugmode" || f.mode.name == "nanguardmode";
  if (checking || b.options.profile.value_or(config_flag("profile")) || !linker.keeps_function_records())
    return false;
  RequestContext context{f.mode.name, f.mode.linker, b.options.optimizer_including, b.options.optimizer_excluding,
                         b.input_mutable, f.out_borrow, f.gpu_context.value_or("")};
  std::optional<std::string> text = request_text(b.fg_inputs, b.exprs, context);
  if (!text) return false;
  const auto t0 = std::chrono::steady_clock::now();
  // The text moves into the options and back (not copied: 5-15 KB, and a
  // warm start's fresh heap pages).
  LinkOptions link = link_options(b);
  link.request = std::move(*text);
  std::unique_ptr<Thunk> thunk = linker.thunk_for_request(b.fg_inputs, b.exprs.size(), link);
  b.request = std::move(link.request);
  if (!thunk) return false;
  f.thunk = std::move(thunk);
  f.constants = f.thunk->constant_values();
  f.optimize_later = [fg_inputs = b.fg_inputs, exprs = b.exprs, input_mutable = b.input_mutable,
                      query = rewrite_query(f, b.options)]() -> std::shared_ptr<const FunctionGraph> {
    SuppressCreationSites quiet;
    std::shared_ptr<FunctionGraph> fg = request_fgraph(fg_inputs, exprs, input_mutable);
    rewrite::optimize(*fg, query);
    return fg;
  };
  if (config_flag("log_compile"))
    std::cerr << "theano-cpp: compiled " << f.what() << " (mode " << f.mode.name << ", linker " << f.mode.linker
              << "): found its function record (no rewrite, codegen or compile) in "
              << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()
              << " ms\n";
  return true;
}

void link_thunk(Build& b, const Linker& linker) {
  FunctionImpl& f = b.f;
  LinkOptions link = link_options(b);
  if (f.mode.name == "nanguardmode")
    link.observer = make_nan_guard_observer(b.options.nan_guard.value_or(NanGuardOptions::from_flags()), b.fg,
                                            b.provenance, f.what());
  f.thunk = f.mode.name == "debugmode"
                ? make_debug_mode_thunk(linker, b.fg, b.unoptimized, b.provenance, link, f.what())
                : linker.make_thunk(b.fg, link);
  if (config_flag("log_compile")) {
    const ThunkStats st = f.thunk->stats();
    std::ostringstream line;
    line << "theano-cpp: compiled " << f.what() << " (mode " << f.mode.name << ", linker " << f.mode.linker
         << "): rewrite " << f.rewrite_ms << " ms, codegen " << st.codegen_ms << " ms, clang " << st.compile_ms
         << " ms";
    if (st.compile_ms > 0)
      line << " (front end " << st.frontend_ms << ", -O " << st.optimize_ms << ", machine code " << st.machine_code_ms
           << "; prelude precompiled in " << st.precompiled_preludes << " of " << st.translation_units << " units)";
    line << ", load " << st.load_ms << " ms" << (st.shared_library ? " (shared library)" : "");
    if (!st.cache.empty()) line << "; cache " << st.cache;
    if (!st.tier.empty()) line << "; code " << st.tier;
    if (!st.gpu.empty()) line << "; GPU code " << st.gpu;
    if (!st.source_path.empty()) line << "; source " << st.source_path;
    std::cerr << line.str() << "\n";
  }
}

}  // namespace

Function function(const std::vector<In>& inputs, const std::vector<Out>& outputs) {
  return function(inputs, outputs, FunctionOptions{});
}

Function function(const std::vector<In>& inputs, const std::vector<Out>& outputs, const FunctionOptions& options) {
  ForkGuard no_fork_while_compiling;  // a fork waits for this compile (fork_guard.h)
  SuppressCreationSites quiet;        // the user's variables exist already; clones copy their sites
  auto impl = std::make_shared<FunctionImpl>();
  FunctionImpl& f = *impl;
  Build b{f, options};
  take_request(b, inputs, outputs);
  take_givens(b);
  take_updates(b);
  check_leaves(b);
  check_states(f);
  const std::unique_ptr<Linker> linker = make_linker(f.mode.linker);
  linker->prepare();  // the JIT gets ready while the graph is rewritten
  take_function_inputs(b);
  if (!find_request(b, *linker)) {
    make_fgraph(b);
    rewrite_fgraph(b);
    link_thunk(b, *linker);
  }

  // The Function: default values filtered into their types, shared storage.
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

/// \file
/// DebugMode (see debug_mode.h): `DebugObserver` checks each node as the
/// linker runs it; `DebugModeThunk` adds the rewrite checks (each recorded
/// replacement, and the whole unoptimized graph on the PerformLinker).
#include "theano/compile/debug_mode.h"

#include <set>
#include <sstream>
#include <unordered_map>

#include "reference_eval.h"
#include "theano/compile/rewrite_provenance.h"
#include "theano/fgraph/function_graph.h"
#include "theano/gpu/type.h"
#include "theano/tensor/type.h"
#include "value_checks.h"

namespace theano {
namespace {

using Kind = DebugModeError::Kind;

/// "    " before every line of `text`.
std::string indent(const std::string& text, const std::string& pad = "    ") {
  std::string r = pad;
  for (char c : text) {
    r += c;
    if (c == '\n') r += pad;
  }
  return r;
}

std::string node_line(std::size_t index, const Apply& node, const RewriteProvenance* prov) {
  std::ostringstream os;
  os << "node " << index << ": " << node << "\n  op: " << node.op()->name();
  if (prov) os << "\n  node " << prov->describe(node);
  return os.str();
}

/// The rank of a tensor or a GPU array (whose DebugMode values are the host
/// arrays downloaded after its node), -1 for anything else.
int array_ndim(const Var& v) {
  if (const tensor::TensorType* t = tensor::tensor_type(v)) return t->ndim();
  if (const gpu::GpuArrayType* g = gpu::gpu_type(v)) return g->ndim();
  return -1;
}

/// Per node: its infer_shape graph over placeholder dimensions, built once.
struct ShapeProgram {
  std::vector<std::vector<Var>> in_dims;   // per input: one int64 scalar per dimension (empty: not a tensor)
  std::vector<std::vector<Var>> out_dims;  // per output: what infer_shape says
  std::string problem;                     // infer_shape's result does not fit the node
};

ShapeProgram build_shape_program(const Apply& node) {
  ShapeProgram p;
  for (const Var& in : node.inputs()) {
    std::vector<Var> dims;
    for (int d = 0; d < array_ndim(in); ++d) dims.push_back(tensor::scalar("", DType::Int64));
    p.in_dims.push_back(std::move(dims));
  }
  try {
    p.out_dims = node.op()->infer_shape(node, p.in_dims);
  } catch (const Error&) {
    p.out_dims.clear();  // no infer_shape (MethodNotDefined) or it refuses: nothing to check
    return p;
  }
  if (p.out_dims.size() != static_cast<std::size_t>(node.nout())) {
    p.problem = "infer_shape returned " + std::to_string(p.out_dims.size()) + " shapes for " +
                std::to_string(node.nout()) + " outputs";
    return p;
  }
  for (int k = 0; k < node.nout(); ++k) {
    const int nd = array_ndim(node.output(k));
    const std::size_t got = p.out_dims[static_cast<std::size_t>(k)].size();
    if (nd >= 0 && got != static_cast<std::size_t>(nd))
      p.problem = "infer_shape gave " + std::to_string(got) + " dimensions for output " + std::to_string(k) +
                  " of type " + node.output(k).type()->str();
  }
  return p;
}

class DebugObserver final : public NodeObserver {
 public:
  DebugObserver(std::shared_ptr<const FunctionGraph> fg, std::shared_ptr<const RewriteProvenance> prov,
                std::string what)
      : fg_(std::move(fg)), prov_(std::move(prov)), what_(std::move(what)) {
    for (const Apply* node : fg_->toposort()) shapes_.emplace(node, build_shape_program(*node));
  }

  bool wants_inputs_before() const override { return true; }

  void after_node(const NodeRun& run) const override {
    const Apply& node = run.node;
    const std::size_t nin = run.inputs.size(), nout = run.outputs.size();
    std::vector<NDArray> before(run.inputs_before.begin(), run.inputs_before.end());
    if (before.size() != nin) before.assign(run.inputs.begin(), run.inputs.end());  // linker gave no copies

    // The reference: perform on C-contiguous copies of what the node read.
    std::vector<NDArray> ref_in;
    for (const NDArray& b : before) ref_in.push_back(b.defined() ? b.copy() : b);
    std::vector<NDArray> ref_out(nout);
    if (node.op()->has_perform()) {
      try {
        node.op()->perform(node, ref_in, ref_out);
      } catch (const std::exception& e) {
        fail(Kind::BadThunkOutput, run, "perform raised an error on inputs the compiled code accepted",
             std::string("perform: ") + e.what(), before);
      }
    }
    const bool have_ref = node.op()->has_perform();

    // destroy_map: an input not declared destroyed (nor aliasing one that is) is left unchanged.
    const ViewMap destroy = node.op()->destroy_map(), view = node.op()->view_map();
    std::vector<bool> destroyed(nin, false);
    for (const auto& [k, ins] : destroy)
      for (int i : ins)
        if (i >= 0 && static_cast<std::size_t>(i) < nin) destroyed[static_cast<std::size_t>(i)] = true;
    for (std::size_t i = 0; i < nin; ++i) {
      if (destroyed[i]) continue;
      bool aliases_destroyed = false;
      for (std::size_t j = 0; j < nin; ++j)
        aliases_destroyed |= destroyed[j] && run.inputs[i].shares_buffer(run.inputs[j]);
      if (aliases_destroyed) continue;
      detail::CompareOptions exact;
      exact.exact = true;
      exact.got_name = "after";
      exact.want_name = "before";
      const std::string what_in = "input " + std::to_string(i) + " (" + node.input(static_cast<int>(i)).str() + ")";
      if (std::string d = detail::compare_values(run.inputs[i], before[i], exact); !d.empty())
        fail(Kind::BadDestroyMap, run,
             "the compiled code changed " + what_in + ", which the op does not declare in its destroy_map", d, before);
      if (have_ref)
        if (std::string d = detail::compare_values(ref_in[i], before[i], exact); !d.empty())
          fail(Kind::BadDestroyMap, run,
               "perform changed " + what_in + ", which the op does not declare in its destroy_map", d, before);
    }

    // view_map: an output not declared a view (or in-place result) owns its memory.
    auto declared = [&](std::size_t k) {
      return view.count(static_cast<int>(k)) > 0 || destroy.count(static_cast<int>(k)) > 0;
    };
    auto check_aliasing = [&](std::span<const NDArray> ins, std::span<const NDArray> outs, const char* side) {
      for (std::size_t k = 0; k < outs.size(); ++k) {
        if (declared(k) || !outs[k].defined()) continue;
        for (std::size_t i = 0; i < ins.size(); ++i)
          if (ins[i].defined() && outs[k].shares_buffer(ins[i]))
            fail(Kind::BadViewMap, run,
                 std::string("in the ") + side + ", output " + std::to_string(k) + " (" +
                     node.output(static_cast<int>(k)).str() + ") shares memory with input " + std::to_string(i) + " (" +
                     node.input(static_cast<int>(i)).str() + ") but the op declares no view_map or destroy_map for it",
                 "", before);
        for (std::size_t j = 0; j < k; ++j)
          if (!declared(j) && outs[j].defined() && outs[k].shares_buffer(outs[j]))
            fail(Kind::BadViewMap, run,
                 std::string("in the ") + side + ", outputs " + std::to_string(j) + " and " + std::to_string(k) +
                     " share memory",
                 "", before);
      }
    };
    check_aliasing(run.inputs, run.outputs, "compiled code");
    if (have_ref) check_aliasing(ref_in, ref_out, "perform");

    // Compiled code against perform.
    if (have_ref)
      for (std::size_t k = 0; k < nout; ++k) {
        detail::CompareOptions o;
        o.got_name = "compiled";
        o.want_name = "perform";
        if (std::string d = detail::compare_values(run.outputs[k], ref_out[k], o); !d.empty())
          fail(Kind::BadThunkOutput, run,
               "the compiled code and perform disagree on output " + std::to_string(k) + " (" +
                   node.output(static_cast<int>(k)).str() + ")",
               d, before);
      }

    check_shapes(run, before);
  }

 private:
  void check_shapes(const NodeRun& run, const std::vector<NDArray>& before) const {
    auto it = shapes_.find(&run.node);
    if (it == shapes_.end()) return;
    const ShapeProgram& p = it->second;
    if (!p.problem.empty()) fail(Kind::BadInferShape, run, p.problem, "", before);
    if (p.out_dims.empty()) return;
    detail::ValueMemo memo;
    for (std::size_t i = 0; i < p.in_dims.size() && i < before.size(); ++i) {
      memo[run.node.input(static_cast<int>(i)).get()] = before[i];
      for (std::size_t d = 0; d < p.in_dims[i].size() && before[i].defined(); ++d)
        memo[p.in_dims[i][d].get()] = NDArray::scalar<std::int64_t>(before[i].shape()[d]);
    }
    for (std::size_t k = 0; k < p.out_dims.size() && k < run.outputs.size(); ++k) {
      const NDArray& out = run.outputs[k];
      if (!out.defined() || out.ndim() != static_cast<int>(p.out_dims[k].size())) continue;
      std::vector<std::int64_t> inferred;
      bool complete = true;
      for (std::size_t d = 0; d < p.out_dims[k].size(); ++d) {
        NDArray v;
        try {
          v = detail::reference_eval(p.out_dims[k][d], memo);
        } catch (const std::exception& e) {
          fail(Kind::BadInferShape, run,
               "evaluating infer_shape's dimension " + std::to_string(d) + " of output " + std::to_string(k) +
                   " raised an error",
               e.what(), before);
        }
        if (!v.defined() || v.size() != 1) {
          complete = false;
          break;
        }
        inferred.push_back(v.item<std::int64_t>());
      }
      if (complete && inferred != out.shape())
        fail(Kind::BadInferShape, run,
             "infer_shape says output " + std::to_string(k) + " (" + run.node.output(static_cast<int>(k)).str() +
                 ") has shape " + shape_to_string(inferred) + " but the compiled code produced " +
                 shape_to_string(out.shape()),
             "", before);
    }
  }

  [[noreturn]] void fail(Kind kind, const NodeRun& run, const std::string& headline, const std::string& detail,
                         const std::vector<NDArray>& inputs) const {
    std::ostringstream os;
    os << "DebugMode: " << DebugModeError::kind_name(kind) << " in " << what_ << ": " << headline << "\n  "
       << node_line(run.index, run.node, prov_.get());
    if (!detail.empty()) os << "\n" << indent(detail);
    os << "\n  inputs (before the node ran):";
    for (std::size_t i = 0; i < inputs.size(); ++i)
      os << "\n    " << i << " (" << run.node.input(static_cast<int>(i)).str() << "): " << detail::summarize(inputs[i]);
    if (const std::string note = creation_note(run.node); !note.empty()) os << "\n" << note;
    throw DebugModeError(kind, os.str());
  }

  std::shared_ptr<const FunctionGraph> fg_;
  std::shared_ptr<const RewriteProvenance> prov_;
  std::string what_;
  std::unordered_map<const Apply*, ShapeProgram> shapes_;
};

class DebugModeThunk final : public Thunk {
 public:
  DebugModeThunk(std::unique_ptr<Thunk> optimized, std::unique_ptr<Thunk> reference,
                 std::shared_ptr<const FunctionGraph> fg, std::shared_ptr<const RewriteProvenance> prov,
                 std::string what)
      : optimized_(std::move(optimized)),
        reference_(std::move(reference)),
        fg_(std::move(fg)),
        prov_(std::move(prov)),
        what_(std::move(what)) {}

  ThunkStats stats() const override { return optimized_->stats(); }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    // The optimized program may overwrite mutable inputs: keep the originals
    // (host copies: the reference runs perform on the host).
    std::vector<NDArray> saved;
    for (const NDArray& v : inputs) saved.push_back(!v.defined() ? v : v.on_host() ? v.copy() : v.to_host());
    std::vector<NDArray> expected(outputs.size());
    if (reference_) reference_->run(saved, expected);
    optimized_->run(inputs, outputs);
    if (prov_) check_replacements(saved);
    if (!reference_) return;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      detail::CompareOptions opt;
      opt.got_name = "optimized";
      opt.want_name = "unoptimized";
      opt.skip_nonfinite_want = true;
      const NDArray got = outputs[o].defined() ? outputs[o].to_host() : outputs[o];  // a GPU update: downloaded
      const std::string d = detail::compare_values(got, expected[o], opt);
      if (d.empty()) continue;
      const Var& v = fg_->outputs()[o];
      std::ostringstream os;
      os << "DebugMode: BadOptimization in " << what_ << ": output " << o << " (" << v.str()
         << ") of the optimized graph differs from the unoptimized graph's (run with perform)";
      if (const Apply* n = v.owner())
        os << "\n  computed by " << *n << (prov_ ? "\n  node " + prov_->describe(*n) : "");
      os << "\n" << indent(d) << "\n  rewrites that changed the graph: " << rewrites_applied();
      throw DebugModeError(Kind::BadOptimization, os.str());
    }
  }

 private:
  /// Every replacement keeps the value: old and new variable evaluated with
  /// perform on this call's inputs (Theano's BadOptimization check).
  void check_replacements(const std::vector<NDArray>& saved) const {
    const auto& log = prov_->replacements();
    if (log.empty()) return;
    detail::ValueMemo memo;
    for (std::size_t i = 0; i < saved.size() && i < fg_->inputs().size(); ++i) memo[fg_->inputs()[i].get()] = saved[i];
    for (const RewriteProvenance::Replacement& r : log) {
      NDArray before, after;
      try {
        before = detail::reference_eval(r.old_var, memo);
        after = detail::reference_eval(r.new_var, memo);
      } catch (const Error&) {
        continue;  // no value on these inputs: e.g. in the branch of an IfElse not taken, which never runs
      }
      if (!before.defined() || !after.defined()) continue;  // not evaluable with perform
      detail::CompareOptions opt;
      opt.got_name = "after";
      opt.want_name = "before";
      opt.skip_nonfinite_want = true;
      const std::string d = detail::compare_values(after, before, opt);
      if (d.empty()) continue;
      std::ostringstream os;
      os << "DebugMode: BadOptimization in " << what_ << ": rewrite " << r.rewrite << " replaced " << r.old_var.str();
      if (const Apply* n = r.old_var.owner()) os << " (computed by " << *n << ", op " << n->op()->name() << ")";
      os << " by " << r.new_var.str();
      if (const Apply* n = r.new_var.owner()) os << " (computed by " << *n << ", op " << n->op()->name() << ")";
      os << " but the values differ (both evaluated with perform on this call's inputs):\n" << indent(d);
      throw DebugModeError(Kind::BadOptimization, os.str());
    }
  }

  std::string rewrites_applied() const {
    if (!prov_) return "(not recorded)";
    std::set<std::string> names;
    for (const auto& r : prov_->replacements()) names.insert(r.rewrite);
    if (names.empty()) return "none";
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  std::unique_ptr<Thunk> optimized_;
  std::unique_ptr<Thunk> reference_;  // null: the unoptimized graph has an op without perform
  std::shared_ptr<const FunctionGraph> fg_;
  std::shared_ptr<const RewriteProvenance> prov_;
  std::string what_;
};

}  // namespace

const char* DebugModeError::kind_name(Kind k) {
  switch (k) {
    case Kind::BadThunkOutput:
      return "BadThunkOutput";
    case Kind::BadDestroyMap:
      return "BadDestroyMap";
    case Kind::BadViewMap:
      return "BadViewMap";
    case Kind::BadInferShape:
      return "BadInferShape";
    case Kind::BadOptimization:
      return "BadOptimization";
  }
  return "DebugModeError";
}

std::unique_ptr<Thunk> make_debug_mode_thunk(const Linker& linker, std::shared_ptr<const FunctionGraph> optimized,
                                             std::shared_ptr<const FunctionGraph> unoptimized,
                                             std::shared_ptr<const RewriteProvenance> provenance, LinkOptions options,
                                             std::string what) {
  THEANO_INTERNAL_CHECK(optimized && unoptimized) << "make_debug_mode_thunk: null FunctionGraph";
  options.observer = std::make_shared<DebugObserver>(optimized, provenance, what);
  std::unique_ptr<Thunk> main = linker.make_thunk(optimized, options);
  std::unique_ptr<Thunk> reference;
  try {
    reference = make_perform_linker()->make_thunk(std::move(unoptimized), LinkOptions{});
  } catch (const MethodNotDefined&) {
    // An op of the user's graph has no perform: only the per-node checks run.
  }
  return std::make_unique<DebugModeThunk>(std::move(main), std::move(reference), std::move(optimized),
                                          std::move(provenance), std::move(what));
}

}  // namespace theano

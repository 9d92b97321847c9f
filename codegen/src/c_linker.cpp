// CLinker: whole-graph C++ code generation for elementwise graphs (see
// c_linker.h). Source generation, compilation/loading and the host Thunk.
#include <theano/codegen/c_linker.h>

#include <theano/codegen/code_writer.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/errors.h>
#include <theano/codegen/jit_loader.h>
#include <theano/compile/profile.h>

#include "lower/lowering.h"
#include "thunk_abi.h"
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/graph/basic.h>
#include <theano/runtime/error.h>
#include <theano/runtime/thread_pool.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <new>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <thread>
#include <utility>
#include <vector>

namespace theano::codegen {
namespace {

using lower::NodeLowering;
using lower::str;
using lower::ttype;
using tensor::TensorType;

void check_type(const Apply& node, const Var& v) {
  const TensorType* t = tensor::tensor_type(v);
  if (!t) lower::refuse(node, " (a non-tensor variable)");
  if (!lower::c_type(t->dtype()))
    lower::refuse(node, std::string(" (dtype ") + std::string(dtype_name(t->dtype())) + ")");
  if (t->ndim() > THEANO_MAX_NDIM)
    lower::refuse(node, " (more than " + std::to_string(THEANO_MAX_NDIM) + " dimensions)");
}

/// The memory plan (DESIGN.md 3.8): every buffer an op allocates for an
/// intermediate gets a slot; buffers whose lives do not overlap share a slot,
/// which the host keeps between calls and grows when a call needs more.
/// A buffer lives from its producer to the last reader of any view of it
/// (views and destroyed-in-place inputs are followed through view_map and
/// destroy_map), so a view never outlives its base. Buffers that reach a graph
/// output are fresh each call, unless the output is borrowed (Out::borrow),
/// in which case they get a slot of their own that is recycled on the next
/// call (Theano's no_recycling rule).
struct MemoryPlan {
  std::unordered_map<const Variable*, std::int64_t> slot;  // allocated variable -> slot (absent: fresh)
  std::int64_t nslots = 0;
  std::unordered_map<const Variable*, const Variable*> root;  // variable -> buffer it lives in
  std::vector<std::size_t> destroyed_inputs;                 // graph inputs some op overwrites
};

const Variable* alias_of(const Apply& node, int k) {
  for (const ViewMap& m : {node.op()->view_map(), node.op()->destroy_map()}) {
    auto it = m.find(k);
    if (it != m.end() && !it->second.empty()) return node.input(it->second.front()).get();
  }
  return nullptr;
}

MemoryPlan plan_memory(const FunctionGraph& fg, const std::vector<Apply*>& order, const LinkOptions& options) {
  MemoryPlan plan;
  auto root_of = [&](const Variable* v) {
    auto it = plan.root.find(v);
    return it == plan.root.end() ? v : it->second;
  };
  for (Apply* node : order)
    for (int k = 0; k < node->nout(); ++k)
      if (const Variable* a = alias_of(*node, k)) plan.root[node->output(k).get()] = root_of(a);
  // Graph inputs overwritten in place (the host passes a copy unless mutable).
  for (Apply* node : order)
    for (const auto& [k, ins] : node->op()->destroy_map())
      for (int i : ins) {
        const Variable* r = root_of(node->input(i).get());
        for (std::size_t j = 0; j < fg.inputs().size(); ++j)
          if (fg.inputs()[j].get() == r &&
              std::find(plan.destroyed_inputs.begin(), plan.destroyed_inputs.end(), j) == plan.destroyed_inputs.end())
            plan.destroyed_inputs.push_back(j);
      }
  std::sort(plan.destroyed_inputs.begin(), plan.destroyed_inputs.end());
  // Last use of each buffer (toposort index); graph outputs live past the end.
  std::unordered_map<const Variable*, std::size_t> last;
  for (std::size_t t = 0; t < order.size(); ++t) {
    for (const Var& in : order[t]->inputs()) last[root_of(in.get())] = t;
    for (int k = 0; k < order[t]->nout(); ++k) {
      const Variable* r = root_of(order[t]->output(k).get());
      last[r] = std::max(last[r], t);
    }
  }
  std::unordered_map<const Variable*, bool> borrowed;  // buffers reaching an output: borrowed by all?
  for (std::size_t o = 0; o < fg.outputs().size(); ++o) {
    const Variable* r = root_of(fg.outputs()[o].get());
    const bool b = o < options.borrow_outputs.size() && options.borrow_outputs[o];
    auto [it, fresh] = borrowed.emplace(r, b);
    if (!fresh) it->second = it->second && b;
  }
  std::vector<std::int64_t> free_slots;  // kept sorted descending: back() is the smallest
  std::vector<std::vector<std::int64_t>> release(order.size());
  for (std::size_t t = 0; t < order.size(); ++t) {
    const Apply& node = *order[t];
    for (int k = 0; k < node.nout(); ++k) {
      const Variable* v = node.output(k).get();
      if (root_of(v) != v) continue;  // a view or an in-place result
      auto b = borrowed.find(v);
      if (b != borrowed.end()) {
        if (b->second) plan.slot[v] = plan.nslots++;  // recycled between calls, never shared
        continue;
      }
      std::int64_t s;
      if (!free_slots.empty()) {
        s = free_slots.back();
        free_slots.pop_back();
      } else {
        s = plan.nslots++;
      }
      plan.slot[v] = s;
      release[last[v]].push_back(s);
    }
    for (std::int64_t s : release[t]) free_slots.push_back(s);
    std::sort(free_slots.begin(), free_slots.end(), std::greater<>());
  }
  return plan;
}

/// OpWise: where a node's input or output lives, for a NodeObserver
/// ('i': ctx->inputs, 'c': ctx->constants, 'v': ctx->vars).
struct ArrayRef {
  char kind;
  std::int64_t index;
};

/// The least node-function source (optimized functions count fully,
/// unoptimized ones a tenth) worth a translation unit of its own: below it, a
/// second front end and thread cost more than they save.
constexpr std::size_t kSplitWeight = 12000;

struct Generator {
  const FunctionGraph& fg;
  LinkOptions options;
  bool allow_fallback = true;
  /// OpWise: every node output lives in ctx->vars and `theano_step(ctx, t)`
  /// runs node t alone, so the host can call (and time) the nodes one by one.
  bool opwise = false;
  std::vector<const Apply*> fallback;  // nodes that run their perform through the host
  std::vector<std::string> labels;     // per node, for profiles
  std::int64_t nvars = 0;              // OpWise: size of ctx->vars
  std::unordered_map<const Variable*, std::string> names;  // variable -> `const TheanoArray*` expression
  std::unordered_map<const Variable*, ArrayRef> refs;      // OpWise: variable -> where it lives
  std::vector<std::vector<ArrayRef>> step_in, step_out;    // OpWise: per node
  std::vector<const Apply*> step_nodes;                    // the toposort
  std::vector<const Constant*> constants;
  std::vector<std::string> support_keys;
  CodeWriter support;    // shared helpers requested by lowerings
  /// Per node, its function (with its file-scope helpers) and what compiling
  /// it costs, roughly (source size; a tenth for unoptimized functions).
  struct NodeFunction {
    std::string text;         // `THEANO_LINKAGE` stands for its linkage
    std::string declaration;  // for a translation unit that calls it from outside
    std::size_t weight = 0;
  };
  std::vector<NodeFunction> functions;
  std::vector<NodeCode> blocks;
  MemoryPlan plan;

  std::string name_of(const Var& v) {
    auto it = names.find(v.get());
    if (it != names.end()) return it->second;
    const Constant* c = v.as_constant();
    THEANO_INTERNAL_CHECK(c != nullptr) << "variable " << v.str() << " has no producer in the graph";
    const std::string n = "&ctx->constants[" + str(static_cast<std::int64_t>(constants.size())) + "]";
    refs[v.get()] = ArrayRef{'c', static_cast<std::int64_t>(constants.size())};
    constants.push_back(c);
    names[v.get()] = n;
    return n;
  }

  /// A node whose op has no lowering (or refused this node's types) calls
  /// the op's `perform` through the host, when the linker allows it.
  void perform_fallback(NodeLowering& L, const std::string& why) {
    if (!allow_fallback) lower::refuse(L.node, why);
    for (const Var& v : L.node.inputs())
      if (!tensor::tensor_type(v)) lower::refuse(L.node, " (a non-tensor input)");
    for (int k = 0; k < L.nout(); ++k)
      if (!tensor::tensor_type(L.node.output(k))) lower::refuse(L.node, " (a non-tensor output)");
    L.ns.clear();
    L.file = CodeWriter();
    L.body = CodeWriter();
    std::string in = "const TheanoArray* in[" + str(std::max(L.nin(), 1)) + "] = {";
    for (int i = 0; i < L.nin(); ++i) in += (i ? ", x" : "x") + str(i);
    L.body.line(in + (L.nin() ? "};" : "0};"));
    std::string out = "TheanoArray* out[" + str(std::max(L.nout(), 1)) + "] = {";
    for (int k = 0; k < L.nout(); ++k) out += (k ? ", o" : "o") + str(k);
    L.body.line(out + (L.nout() ? "};" : "0};"));
    L.cold = true;
    L.body.line("// no lowering" + why + ": the op's perform runs on the host");
    L.body.line("return ctx->perform(ctx->host, " + str(static_cast<std::int64_t>(fallback.size())) + ", in, out);");
    fallback.push_back(&L.node);
  }

  void lower_node(std::size_t t, const Apply& node) {
    std::vector<std::int64_t> slots;
    for (int k = 0; k < node.nout(); ++k) {
      auto it = plan.slot.find(node.output(k).get());
      slots.push_back(it == plan.slot.end() ? -1 : it->second);
    }
    CodeWriter body, file;
    NodeLowering L(node, t, body, file, support_keys, support, std::move(slots));
    const lower::LowerFn fn = lower::find_lowering(*node.op());
    if (!fn) {
      perform_fallback(L, " yet");
    } else {
      try {
        for (const Var& v : node.inputs()) check_type(node, v);
        for (int k = 0; k < node.nout(); ++k) check_type(node, node.output(k));
        fn(L);
      } catch (const MethodNotDefined& e) {
        std::string why = e.what();
        const auto open = why.find(" (");
        const auto end = why.find(';');
        why = open != std::string::npos && end != std::string::npos && end > open ? why.substr(open, end - open)
                                                                               : std::string();
        perform_fallback(L, why);
      }
    }
    const int nin = node.nin(), nout = node.nout();
    CodeWriter w;
    if (!L.ns.empty()) w.line("namespace " + L.ns + " {");
    w.append(file);
    const bool optimized = lower::worth_optimizing(L);
    std::string params = "(TheanoContext* ctx";
    for (int i = 0; i < nin; ++i) params += ", const TheanoArray* x" + str(i);
    for (int k = 0; k < nout; ++k) params += ", TheanoArray* o" + str(k);
    params += ")";
    w.open(std::string(optimized ? "" : "THEANO_UNOPTIMIZED ") + "THEANO_LINKAGE int " + L.fn + params, L.fn);
    std::string all;
    for (int i = 0; i < nin; ++i) all += (i ? ", x" : "x") + str(i);
    w.line("const TheanoArray* all[" + str(std::max(nin, 1)) + "] = {" + (nin ? all : std::string("0")) + "};");
    w.line("(void)all;");
    for (int k = 0; k < nout; ++k) {
      const TensorType& ot = ttype(node.output(k));
      w.line("o" + str(k) + "->ndim = " + str(ot.ndim()) + "; o" + str(k) +
             "->dtype = " + str(static_cast<int>(ot.dtype())) + "; o" + str(k) + "->owner = -1;");
    }
    w.append(body);
    w.close();
    if (!L.ns.empty()) w.line("}  // namespace " + L.ns);
    w.line("");
    NodeFunction nf;
    nf.text = w.str();
    nf.declaration = (L.ns.empty() ? "" : "namespace " + L.ns + " { ") + "int " + L.fn + params + ";" +
                     (L.ns.empty() ? "" : " }");
    nf.weight = optimized ? nf.text.size() : nf.text.size() / 10;
    functions.push_back(std::move(nf));

    NodeCode nc;
    nc.name = L.label;
    std::string call = "if (int e = " + (L.ns.empty() ? std::string() : L.ns + "::") + L.fn + "(ctx";
    for (int i = 0; i < nin; ++i) call += ", " + name_of(node.input(i));
    for (int k = 0; k < nout; ++k) {
      std::string ref;
      if (opwise) {
        refs[node.output(k).get()] = ArrayRef{'v', nvars};
        ref = "&ctx->vars[" + str(nvars++) + "]";
      } else {
        const std::string out = "n" + str(static_cast<std::int64_t>(t)) + "_" + str(k);
        nc.init.line("TheanoArray " + out + ";");
        ref = "&" + out;
      }
      call += ", " + ref;
      names[node.output(k).get()] = ref;
    }
    labels.push_back(L.label);
    if (opwise) {
      step_in.emplace_back();
      step_out.emplace_back();
      for (const Var& v : node.inputs()) step_in.back().push_back(refs.at(v.get()));
      for (int k = 0; k < nout; ++k) step_out.back().push_back(refs.at(node.output(k).get()));
    }
    nc.compute.line(call + ")) return e;");
    blocks.push_back(std::move(nc));
  }

  /// The translation units of the graph: one, or up to `max_units` when the
  /// node functions are big enough to be worth compiling on several threads
  /// (kSplitWeight each). Unit 0 holds the entry; the node functions of the
  /// others have external linkage and are declared in unit 0.
  std::vector<std::string> run(int max_units = 1) {
    for (std::size_t i = 0; i < fg.inputs().size(); ++i) {
      names[fg.inputs()[i].get()] = "&ctx->inputs[" + str(static_cast<std::int64_t>(i)) + "]";
      refs[fg.inputs()[i].get()] = ArrayRef{'i', static_cast<std::int64_t>(i)};
    }
    const std::vector<Apply*> order = fg.toposort();
    step_nodes.assign(order.begin(), order.end());
    plan = plan_memory(fg, order, options);
    for (std::size_t t = 0; t < order.size(); ++t) lower_node(t, *order[t]);

    // Consecutive runs of nodes of about equal weight, one per unit.
    std::size_t total = 0;
    for (const NodeFunction& f : functions) total += f.weight;
    const std::size_t units =
        std::clamp<std::size_t>(std::min<std::size_t>(static_cast<std::size_t>(std::max(max_units, 1)),
                                                        total / kSplitWeight),
                                1, std::max<std::size_t>(functions.size(), 1));
    std::vector<std::size_t> unit_of(functions.size(), 0);
    std::size_t acc = 0;
    for (std::size_t t = 0; t < functions.size(); ++t) {
      unit_of[t] = std::min(units - 1, acc * units / std::max<std::size_t>(total, 1));
      acc += functions[t].weight;
    }
    std::vector<CodeWriter> src(units);
    for (std::size_t u = 0; u < units; ++u) {
      src[u].raw(lower::prelude());
      src[u].line("");
      src[u].line(u == 0 ? "#define THEANO_LINKAGE static" : "#define THEANO_LINKAGE");
      if (!support.empty()) {
        src[u].line("// ---- support code");
        src[u].append(support);
      }
      src[u].line("// ---- per-node functions");
    }
    for (std::size_t t = 0; t < functions.size(); ++t) src[unit_of[t]].raw(functions[t].text);
    if (units > 1) {
      src[0].line("// ---- node functions of the other translation units");
      for (std::size_t t = 0; t < functions.size(); ++t)
        if (unit_of[t] != 0) src[0].line(functions[t].declaration);
    }
    CodeWriter& entry = src[0];
    entry.line("// ---- entry");
    if (opwise) {
      entry.open("extern \"C\" int theano_step(TheanoContext* ctx, int64_t t)", "theano_step");
      entry.open("switch (t)");
      for (std::size_t t = 0; t < blocks.size(); ++t) {
        entry.line("case " + str(static_cast<std::int64_t>(t)) + ":  // " + blocks[t].name);
        entry.append(blocks[t].compute);
        entry.line("  return 0;");
      }
      entry.close();
      entry.line("return 0;");
      entry.close();
      entry.open("extern \"C\" int theano_finish(TheanoContext* ctx)", "theano_finish");
    } else {
      entry.open("extern \"C\" int theano_entry(TheanoContext* ctx)", "theano_entry");
      assemble(entry, blocks);
    }
    for (std::size_t o = 0; o < fg.outputs().size(); ++o) {
      const Var& v = fg.outputs()[o];
      entry.line("ctx->outputs[" + str(static_cast<std::int64_t>(o)) + "] = *" + name_of(v) + ";");
    }
    entry.line("return 0;");
    entry.close();
    std::vector<std::string> r;
    for (const CodeWriter& w : src) r.push_back(w.str());
    return r;
  }
};

/// The units as one text (keep_sources, the cache key).
std::string join_units(const std::vector<std::string>& units) {
  std::string r = units[0];
  for (std::size_t u = 1; u < units.size(); ++u)
    r += "\n// ==== translation unit " + std::to_string(u) + " (compiled on its own)\n" + units[u];
  return r;
}

// ---- host side ------------------------------------------------------------------

TheanoArray describe(const NDArray& a, std::int64_t owner) {
  TheanoArray d{};
  d.data = static_cast<char*>(const_cast<void*>(a.data()));
  d.ndim = a.ndim();
  d.dtype = static_cast<std::int64_t>(a.dtype());
  d.owner = owner;
  for (int i = 0; i < a.ndim(); ++i) {
    d.shape[i] = a.shape()[static_cast<std::size_t>(i)];
    d.strides[i] = a.strides()[static_cast<std::size_t>(i)];
  }
  return d;
}

/// What one call needs besides the inputs: the planned slot buffers (kept
/// between calls), the table of arrays the generated code refers to by
/// `owner`, and the descriptor arrays. A thunk keeps a few of these in a pool,
/// so concurrent calls (of copies of a Function) never share one.
struct Workspace {
  std::vector<std::shared_ptr<std::byte[]>> slot_buffers;
  std::vector<std::size_t> slot_bytes;
  // Arrays by `owner` index: inputs and constants (not copied: pointers to the
  // caller's arrays), then the arrays allocated during the call.
  std::vector<const NDArray*> refs;
  std::vector<NDArray> allocs;
  std::vector<NDArray> input_copies;  // protected inputs an op overwrites
  std::int64_t next_owner() const { return static_cast<std::int64_t>(refs.size() + allocs.size()); }
  const NDArray& owner_array(std::int64_t owner) const {
    const auto o = static_cast<std::size_t>(owner);
    return o < refs.size() ? *refs[o] : allocs[o - refs.size()];
  }
  void clear() {
    refs.clear();
    allocs.clear();
    input_copies.clear();
  }
  std::vector<TheanoArray> in_desc, out_desc;
  std::vector<TheanoArray> vars;  // OpWise: node outputs
  const std::vector<const Apply*>* fallback = nullptr;  // the thunk's perform-fallback nodes
  std::exception_ptr host_error;                        // what a fallback perform threw
};

/// The NDArray a generated-code array stands for (a view into its owner's buffer).
NDArray as_ndarray(const Workspace& ws, const TheanoArray& a) {
  THEANO_INTERNAL_CHECK(a.owner >= 0 && a.owner < ws.next_owner()) << "generated code passed an array with no owner";
  const NDArray& base = ws.owner_array(a.owner);
  const auto nd = static_cast<std::size_t>(a.ndim);
  if (a.data == static_cast<const char*>(base.data()) && static_cast<DType>(a.dtype) == base.dtype() &&
      std::equal(a.shape, a.shape + nd, base.shape().begin(), base.shape().end()) &&
      std::equal(a.strides, a.strides + nd, base.strides().begin(), base.strides().end()))
    return base;
  return NDArray::from_strided(base.owner(), a.data, static_cast<DType>(a.dtype),
                               std::vector<std::int64_t>(a.shape, a.shape + nd),
                               std::vector<std::int64_t>(a.strides, a.strides + nd));
}

int host_perform(void* host, std::int64_t index, const TheanoArray* const* in, TheanoArray* const* out) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    const Apply& node = *(*ws->fallback)[static_cast<std::size_t>(index)];
    std::vector<NDArray> inputs, outputs(static_cast<std::size_t>(node.nout()));
    for (int i = 0; i < node.nin(); ++i) inputs.push_back(as_ndarray(*ws, *in[i]));
    node.op()->perform(node, inputs, outputs);
    for (int k = 0; k < node.nout(); ++k) {
      NDArray& v = outputs[static_cast<std::size_t>(k)];
      TheanoArray& d = *out[k];
      const auto* t = tensor::tensor_type(node.output(k));
      THEANO_INTERNAL_CHECK(v.defined() && v.dtype() == t->dtype() && v.ndim() == t->ndim())
          << node.op()->name() << ".perform returned a value that does not match output " << k << "'s type "
          << t->str();
      const TheanoArray desc = describe(v, ws->next_owner());
      std::copy(std::begin(desc.shape), std::end(desc.shape), d.shape);
      std::copy(std::begin(desc.strides), std::end(desc.strides), d.strides);
      d.data = desc.data;
      d.owner = desc.owner;
      ws->allocs.push_back(std::move(v));
    }
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return lower::kErrHost;
  }
}

int host_alloc(void* host, TheanoArray* a, std::int64_t slot) noexcept {
  try {
    auto* ws = static_cast<Workspace*>(host);
    if (a->ndim < 0 || a->ndim > THEANO_MAX_NDIM) return 1;
    std::vector<std::int64_t> shape(a->shape, a->shape + a->ndim);
    const DType dt = static_cast<DType>(a->dtype);
    NDArray arr;
    if (slot < 0) {
      arr = NDArray::empty(std::move(shape), dt);
    } else {
      const auto s = static_cast<std::size_t>(slot);
      // The rule generated code checked before calling (shape_rules.h), again:
      // the host never trusts a size it is handed.
      std::int64_t n = 0, bad = 0;
      const int rule = theano_shape_size(shape.data(), a->ndim, static_cast<std::int64_t>(dtype_size(dt)), &n, &bad);
      if (rule != THEANO_RULE_OK) return 1;
      const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(dt);
      if (ws->slot_bytes[s] < bytes || !ws->slot_buffers[s]) {
        // 64-byte aligned like NDArray::empty; at least one element.
        const std::size_t want = std::max<std::size_t>(bytes, 64);
        ws->slot_buffers[s] = std::shared_ptr<std::byte[]>(
            static_cast<std::byte*>(::operator new[](want, std::align_val_t{64})),
            [](std::byte* p) { ::operator delete[](p, std::align_val_t{64}); });
        ws->slot_bytes[s] = want;
      }
      std::vector<std::int64_t> strides(shape.size());
      std::int64_t st = static_cast<std::int64_t>(dtype_size(dt));
      for (std::size_t d = shape.size(); d-- > 0;) {
        strides[d] = st;
        st *= std::max<std::int64_t>(shape[d], 1);
      }
      arr = NDArray::from_strided(std::shared_ptr<void>(ws->slot_buffers[s], ws->slot_buffers[s].get()),
                                  ws->slot_buffers[s].get(), dt, std::move(shape), std::move(strides));
    }
    a->data = static_cast<char*>(arr.data());
    for (int i = 0; i < a->ndim; ++i) a->strides[i] = arr.strides()[static_cast<std::size_t>(i)];
    a->owner = ws->next_owner();
    ws->allocs.push_back(std::move(arr));
    return 0;
  } catch (...) {
    return 1;
  }
}

/// What make_thunk hands the thunk besides the loaded module.
struct ThunkParts {
  std::vector<NDArray> constants;
  std::int64_t nslots = 0;
  std::vector<std::size_t> copy_inputs;  // protected inputs some op overwrites
  std::vector<const Apply*> fallback;    // perform-fallback nodes
  bool opwise = false;
  bool profile = false;                  // OpWise: time every node
  std::int64_t threads = 1;              // loop threads (THEANO_FLAGS threads)
  std::int64_t nvars = 0;
  std::vector<std::string> labels;
  ThunkStats stats;                      // build times
  std::shared_ptr<const NodeObserver> observer;          // OpWise: called after every node
  std::vector<std::vector<ArrayRef>> step_in, step_out;  // OpWise: per node, for the observer
  std::vector<const Apply*> step_nodes;
};

class CThunk final : public Thunk {
 public:
  CThunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, ThunkParts parts)
      : fg_(std::move(fg)),
        module_(std::move(module)),
        constants_(std::move(parts.constants)),
        nslots_(static_cast<std::size_t>(parts.nslots)),
        copy_inputs_(std::move(parts.copy_inputs)),
        fallback_(std::move(parts.fallback)),
        opwise_(parts.opwise),
        profile_(parts.profile),
        threads_(parts.threads),
        nvars_(static_cast<std::size_t>(parts.nvars)),
        stats_(std::move(parts.stats)),
        observer_(std::move(parts.observer)),
        step_in_(std::move(parts.step_in)),
        step_out_(std::move(parts.step_out)),
        step_nodes_(std::move(parts.step_nodes)) {
    if (opwise_) {
      step_ = module_.function<int (*)(TheanoContext*, std::int64_t)>("theano_step");
      finish_ = module_.function<int (*)(TheanoContext*)>("theano_finish");
      for (std::string& l : parts.labels) stats_.nodes.push_back({std::move(l), 0.0, 0});
    } else {
      entry_ = module_.function<int (*)(TheanoContext*)>("theano_entry");
    }
    for (const Var& v : fg_->inputs()) in_types_.push_back(&ttype(v));
    const std::int64_t base = static_cast<std::int64_t>(fg_->inputs().size());
    for (std::size_t j = 0; j < constants_.size(); ++j)
      const_desc_.push_back(describe(constants_[j], base + static_cast<std::int64_t>(j)));
  }

  ~CThunk() override { delete spare_.load(); }
  CThunk(const CThunk&) = delete;
  CThunk& operator=(const CThunk&) = delete;

  ThunkStats stats() const override {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }
  void set_load_ms(double ms) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.load_ms = ms;
  }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    THEANO_USER_CHECK(inputs.size() == in_types_.size(), ValueError)
        << "the compiled function takes " << in_types_.size() << " inputs, got " << inputs.size();
    THEANO_USER_CHECK(outputs.size() == fg_->outputs().size(), ValueError)
        << "the compiled function has " << fg_->outputs().size() << " outputs, got room for " << outputs.size();
    std::unique_ptr<Workspace> ws = acquire();
    struct Release {
      const CThunk* self;
      std::unique_ptr<Workspace>& ws;
      ~Release() { self->release(std::move(ws)); }
    } release{this, ws};
    ws->clear();
    ws->in_desc.resize(inputs.size());
    ws->out_desc.resize(outputs.size());
    ws->input_copies.reserve(copy_inputs_.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const TensorType& t = *in_types_[i];
      THEANO_USER_CHECK(inputs[i].defined() && inputs[i].dtype() == t.dtype() && inputs[i].ndim() == t.ndim(),
                        TypeError)
          << "input " << i << " (" << fg_->inputs()[i].str() << ") must be a " << t.str() << " value";
      ws->refs.push_back(&inputs[i]);
    }
    for (std::size_t i : copy_inputs_) {  // protected, overwritten in place: work on a copy
      ws->input_copies.push_back(inputs[i].copy());
      ws->refs[i] = &ws->input_copies.back();
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      ws->in_desc[i] = describe(*ws->refs[i], static_cast<std::int64_t>(i));
    for (const NDArray& c : constants_) ws->refs.push_back(&c);
    char error[2048];
    error[0] = 0;
    TheanoContext ctx{ws->in_desc.data(), ws->out_desc.data(), const_desc_.data(), ws.get(), &host_alloc,
                      error,          sizeof error,      &host_perform,      nullptr,  &parallel_for,
                      threads_};
    const int rc = opwise_ ? run_opwise(ctx, *ws) : entry_(&ctx);
    if (rc != 0) {
      std::string msg(error);
      ws->clear();
      // The message starts with the failing node's label, "node <k> (...)":
      // add where the user created that node's outputs, when recorded.
      std::size_t k = 0;
      if (std::sscanf(msg.c_str(), "node %zu (", &k) == 1) {
        const std::vector<Apply*> order = fg_->toposort();
        if (k < order.size())
          if (const std::string note = creation_note(*order[k]); !note.empty()) msg += "\n" + note;
      }
      if (rc == lower::kErrHost && ws->host_error) {
        std::exception_ptr e = std::exchange(ws->host_error, nullptr);
        std::rethrow_exception(e);
      }
      switch (rc) {
        case lower::kErrShape: throw ShapeError(msg);
        case lower::kErrIndex: throw IndexError(msg);
        case lower::kErrValue: throw ValueError(msg);
        case lower::kErrAssert: throw AssertionError(msg);
        default: throw InternalError("generated code returned error code " + std::to_string(rc) + ": " + msg);
      }
    }
    for (std::size_t o = 0; o < outputs.size(); ++o) outputs[o] = as_ndarray(*ws, ws->out_desc[o]);
    ws->clear();
  }

 private:
  /// Runs the nodes one by one (timing each when profiling), then the outputs.
  int run_opwise(TheanoContext& ctx, Workspace& ws) const {
    ws.vars.assign(nvars_, TheanoArray{});
    ctx.vars = ws.vars.data();
    const std::size_t n = stats_.nodes.size();
    std::vector<double> seconds(profile_ ? n : 0);
    int rc = 0;
    std::size_t t = 0;
    for (; t < n && rc == 0; ++t) {
      std::vector<NDArray> before;  // the observer's copies of the inputs
      if (observer_ && observer_->wants_inputs_before()) before = step_arrays(ws, step_in_[t], /*copy=*/true);
      if (!profile_) {
        rc = step_(&ctx, static_cast<std::int64_t>(t));
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        rc = step_(&ctx, static_cast<std::int64_t>(t));
        seconds[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if (rc == 0 && observer_) {
        const std::vector<NDArray> in = step_arrays(ws, step_in_[t], false), out = step_arrays(ws, step_out_[t], false);
        observer_->after_node(NodeRun{t, *step_nodes_[t], in, before, out});
      }
    }
    if (profile_) {
      std::lock_guard<std::mutex> lock(stats_mutex_);
      for (std::size_t k = 0; k < t; ++k) {
        stats_.nodes[k].seconds += seconds[k];
        ++stats_.nodes[k].calls;
      }
    }
    return rc != 0 ? rc : finish_(&ctx);
  }

  /// The arrays a node read or wrote, as NDArrays (copies when asked).
  std::vector<NDArray> step_arrays(const Workspace& ws, const std::vector<ArrayRef>& refs, bool copy) const {
    std::vector<NDArray> r;
    for (const ArrayRef& a : refs) {
      const auto i = static_cast<std::size_t>(a.index);
      const TheanoArray& d = a.kind == 'i' ? ws.in_desc[i] : a.kind == 'c' ? const_desc_[i] : ws.vars[i];
      NDArray v = as_ndarray(ws, d);
      r.push_back(copy ? v.copy() : std::move(v));
    }
    return r;
  }

  std::unique_ptr<Workspace> acquire() const {
    // The common case, one caller at a time: the spare workspace, no lock.
    if (Workspace* w = spare_.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<Workspace>(w);
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (!pool_.empty()) {
        std::unique_ptr<Workspace> ws = std::move(pool_.back());
        pool_.pop_back();
        return ws;
      }
    }
    auto ws = std::make_unique<Workspace>();
    ws->slot_buffers.resize(nslots_);
    ws->slot_bytes.assign(nslots_, 0);
    ws->refs.reserve(in_types_.size() + constants_.size());
    ws->allocs.reserve(16);
    ws->fallback = &fallback_;
    return ws;
  }
  void release(std::unique_ptr<Workspace> ws) const noexcept {
    Workspace* expected = nullptr;
    if (spare_.compare_exchange_strong(expected, ws.get(), std::memory_order_release)) {
      (void)ws.release();
      return;
    }
    try {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (pool_.size() < 4) pool_.push_back(std::move(ws));
    } catch (...) {
    }
  }

  std::shared_ptr<const FunctionGraph> fg_;
  LoadedModule module_;
  std::vector<NDArray> constants_;
  std::vector<TheanoArray> const_desc_;
  std::vector<const TensorType*> in_types_;
  std::size_t nslots_;
  std::vector<std::size_t> copy_inputs_;
  std::vector<const Apply*> fallback_;
  bool opwise_;
  bool profile_;
  std::int64_t threads_;
  std::size_t nvars_;
  mutable std::mutex stats_mutex_;
  mutable ThunkStats stats_;
  std::shared_ptr<const NodeObserver> observer_;
  std::vector<std::vector<ArrayRef>> step_in_, step_out_;
  std::vector<const Apply*> step_nodes_;
  int (*entry_)(TheanoContext*) = nullptr;
  int (*step_)(TheanoContext*, std::int64_t) = nullptr;
  int (*finish_)(TheanoContext*) = nullptr;
  mutable std::atomic<Workspace*> spare_{nullptr};  // owned; taken without a lock
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<Workspace>> pool_;
};

/// THEANO_FLAGS `key` as a whole number from 0 to `max` (`zero` says what 0
/// means, for the error message), or nullopt when the flag is not given.
std::optional<int> count_flag(const char* key, int max, const char* zero) {
  auto it = config().flags.find(key);
  if (it == config().flags.end()) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(it->second.c_str(), &end, 10);
  THEANO_USER_CHECK(!it->second.empty() && *end == 0 && n >= 0 && n <= max, ValueError)
      << "THEANO_FLAGS " << key << " must be a whole number from 0 (" << zero << ") to " << max << ", got '"
      << it->second << "'";
  return static_cast<int>(n);
}

/// THEANO_FLAGS threads: the loop threads of generated code (default, and 0:
/// every core; 1: no splitting). An explicit value caps BLAS's threads too.
std::int64_t loop_threads() {
  const std::optional<int> n = count_flag("threads", kMaxParallelParts, "every core");
  if (!n) return hardware_threads();
  const int threads = *n == 0 ? hardware_threads() : *n;
  tensor::set_blas_threads(threads);
  return threads;
}

}  // namespace

CLinker::CLinker(CompileOptions options, std::string name)
    : options_(std::move(options)), name_(std::move(name)), opwise_(name_ == "opwise") {
  options_.cxxflags.push_back("-fwrapv");
  // Unrolling after vectorization buys little in these loops and costs a
  // quarter of the -O2 compile time of a typical graph.
  options_.cxxflags.push_back("-fno-unroll-loops");
}

std::string_view CLinker::prelude() { return lower::prelude(); }

std::string CLinker::generate_source(const FunctionGraph& fgraph, const LinkOptions& options,
                                     bool perform_fallback, bool opwise) {
  Generator g{fgraph, options, perform_fallback, opwise};
  return g.run()[0];
}

std::unique_ptr<Thunk> CLinker::make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                           const LinkOptions& options) const {
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  THEANO_INTERNAL_CHECK(fgraph != nullptr) << "CLinker::make_thunk: null FunctionGraph";
  CompileOptions copts = options_;
  if (options.fast_compile) copts.opt = OptLevel::O0;
  // THEANO_FLAGS cxxflags: extra driver flags, space-separated, appended last.
  if (auto it = config().flags.find("cxxflags"); it != config().flags.end()) {
    std::istringstream words(it->second);
    for (std::string w; words >> w;) copts.cxxflags.push_back(w);
  }
  // THEANO_FLAGS codegen_threads: threads compiling one function (0: automatic).
  if (const std::optional<int> n = count_flag("codegen_threads", 64, "automatic")) copts.codegen_threads = *n;
  // A big graph is compiled as several translation units, one per thread
  // (front end, optimizer and machine code alike); automatic: two when there
  // are two cores.
  const int max_units = copts.codegen_threads > 0 ? copts.codegen_threads : std::min(hardware_threads(), 2);

  const auto t0 = Clock::now();
  // A NodeObserver (the checking modes) needs the nodes one by one: opwise.
  const bool opwise = opwise_ || options.observer != nullptr;
  Generator g{*fgraph, options, perform_fallback_, opwise};
  const std::vector<std::string> units = g.run(max_units);
  const std::string source = join_units(units);
  ThunkParts parts;
  for (const Constant* c : g.constants) parts.constants.push_back(c->data());
  for (std::size_t i : g.plan.destroyed_inputs)
    if (i >= options.mutable_inputs.size() || !options.mutable_inputs[i]) parts.copy_inputs.push_back(i);
  parts.nslots = g.plan.nslots;
  parts.fallback = std::move(g.fallback);
  parts.opwise = opwise;
  parts.observer = options.observer;
  parts.step_in = std::move(g.step_in);
  parts.step_out = std::move(g.step_out);
  parts.step_nodes = std::move(g.step_nodes);
  parts.profile = options.profile;
  parts.threads = loop_threads();
  parts.nvars = g.nvars;
  parts.labels = std::move(g.labels);
  parts.stats.codegen_ms = ms_since(t0);
  parts.stats.source_bytes = source.size();
  parts.stats.translation_units = units.size();
  if (config_flag("keep_sources")) parts.stats.source_path = keep_source(source, ".cpp", "theano-cpp-sources");

  auto compile = [&] {
    const auto t1 = Clock::now();
    CompiledObject obj;
    if (units.size() == 1) {
      obj = ClangCompiler(copts).compile(source, "theano_graph.cpp");
    } else {
      // One unit per thread (each generating its machine code alone), the
      // objects loaded together as a bundle.
      CompileOptions unit_opts = copts;
      unit_opts.codegen_threads = 1;
      const ClangCompiler cc(unit_opts);
      std::vector<std::string> objects(units.size());
      std::vector<std::exception_ptr> errors(units.size());
      auto run_unit = [&](std::size_t u) {
        try {
          objects[u] = cc.compile(units[u], "theano_graph_" + std::to_string(u) + ".cpp").bytes;
        } catch (...) {
          errors[u] = std::current_exception();
        }
      };
      std::vector<std::thread> workers;
      for (std::size_t u = 1; u < units.size(); ++u) workers.emplace_back(run_unit, u);
      run_unit(0);
      for (std::thread& t : workers) t.join();
      for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
      obj.bytes = bundle_objects(objects);
    }
    parts.stats.compile_ms = ms_since(t1);
    return obj;
  };
  std::string object;
  if (cache::CompileCache* cc = current_cache()) {
    // The compiledir: look up by key (no lock); on a miss compile under the
    // key's stripe lock and publish (compiledir.h, cache/compile_cache.h).
    const auto tc = Clock::now();
    parts.stats.cache_key = cache_key(copts, source);
    bool hit = false;
    object = cc->get_or_produce(
        parts.stats.cache_key,
        [&] {
          CompiledObject obj = compile();
          std::string origin = std::to_string(parts.labels.size()) + " nodes, linker " + name_ + ", outputs:";
          for (const Var& v : fgraph->outputs()) origin += " " + v.str();
          return cache::Entry{std::move(obj.bytes), source, parts.stats.compile_ms, origin.substr(0, 300)};
        },
        &hit);
    parts.stats.cache = hit ? "hit" : "miss";
    parts.stats.cache_ms = ms_since(tc) - parts.stats.compile_ms;
  } else {
    object = compile().bytes;
    parts.stats.cache = "off";
  }
  const auto t2 = Clock::now();
  LoadedModule module = JitLoader::instance().load(object, name_);
  auto thunk = std::make_unique<CThunk>(std::move(fgraph), std::move(module), std::move(parts));
  // Lookups of the entry symbols happen in the constructor: part of loading.
  const double load_ms = ms_since(t2);
  thunk->set_load_ms(load_ms);
  return thunk;
}

void CLinker::prepare() const { JitLoader::instance().prepare_async(); }

void register_linkers() {
  static std::once_flag once;
  std::call_once(once, [] {
    set_compile_cache_reporter(&compile_cache_report);
    register_linker("cpp", [] { return std::make_unique<CLinker>(CompileOptions{}, "cpp"); });
    register_linker("c", [] { return std::make_unique<CLinker>(CompileOptions{}, "c"); });
    register_linker("opwise", [] { return std::make_unique<CLinker>(CompileOptions{}, "opwise"); });
  });
}

namespace {
// Static registrar: runs when this object file is linked in (see c_linker.h).
[[maybe_unused]] const bool registered = (register_linkers(), true);
}  // namespace

}  // namespace theano::codegen

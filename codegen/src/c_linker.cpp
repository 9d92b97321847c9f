// CLinker: whole-graph C++ code generation for elementwise graphs (see
// c_linker.h). Source generation, the memory plan, compilation and loading;
// the host Thunk that runs the loaded code is in c_thunk.cpp.
#include <theano/codegen/c_linker.h>
#include <theano/codegen/code_writer.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/errors.h>
#include <theano/codegen/jit_loader.h>
#include <theano/compile/profile.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gpu/context.h>
#include <theano/gpu/type.h>
#include <theano/graph/basic.h>
#include <theano/runtime/error.h>
#include <theano/runtime/thread_pool.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "c_thunk.h"
#include "cuda/cuda_unit.h"
#include "cuda/gpu_device.h"
#include "lower/lowering.h"
#include "memory_plan.h"
#include "thunk_abi.h"

namespace theano::codegen {
namespace {

using lower::NodeLowering;
using lower::str;
using lower::ttype;
using tensor::TensorType;

void check_type(const Apply& node, const Var& v) {
  const TensorType* t = tensor::tensor_type(v);
  if (!t && lower::on_gpu(v)) t = &ttype(v);  // a GPU array: its host twin's dtype and rank
  if (!t) lower::refuse(node, " (a non-tensor variable)");
  if (!lower::c_type(t->dtype()))
    lower::refuse(node, std::string(" (dtype ") + std::string(dtype_name(t->dtype())) + ")");
  if (t->ndim() > THEANO_MAX_NDIM)
    lower::refuse(node, " (more than " + std::to_string(THEANO_MAX_NDIM) + " dimensions)");
}

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
  std::vector<const Apply*> fallback;                      // nodes that run their perform through the host
  std::vector<std::string> labels;                         // per node, for profiles
  std::int64_t nvars = 0;                                  // OpWise: size of ctx->vars
  std::unordered_map<const Variable*, std::string> names;  // variable -> `const TheanoArray*` expression
  std::unordered_map<const Variable*, ArrayRef> refs;      // OpWise: variable -> where it lives
  std::vector<std::vector<ArrayRef>> step_in, step_out;    // OpWise: per node
  std::vector<const Apply*> step_nodes;                    // the toposort
  std::vector<const Constant*> constants;
  std::vector<std::string> support_keys;
  CodeWriter support;  // shared helpers requested by lowerings
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
  cuda::CudaUnit cuda;        // the kernels of GPU nodes: the function's CUDA translation unit
  std::string gpu_context;    // the GPU context of the function's GPU arrays ("" for none)

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

  /// One GPU context per function (its kernels are one CUDA unit on one device).
  void note_gpu_context(const Apply& node) {
    auto note = [&](const Var& v) {
      const gpu::GpuArrayType* g = gpu::gpu_type(v);
      if (!g) return;
      if (gpu_context.empty()) gpu_context = g->context();
      if (g->context() != gpu_context)
        lower::refuse(node, " (GPU arrays of two contexts, " + gpu_context + " and " + g->context() +
                                ", in one function)");
    };
    for (const Var& v : node.inputs()) note(v);
    for (const Var& v : node.outputs()) note(v);
  }

  void lower_node(std::size_t t, const Apply& node) {
    std::vector<std::int64_t> slots;
    for (int k = 0; k < node.nout(); ++k) {
      auto it = plan.slot.find(node.output(k).get());
      slots.push_back(it == plan.slot.end() ? -1 : it->second);
    }
    CodeWriter body, file;
    NodeLowering L(node, t, body, file, support_keys, support, std::move(slots));
    L.cuda = &cuda;
    note_gpu_context(node);
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
    nf.declaration =
        (L.ns.empty() ? "" : "namespace " + L.ns + " { ") + "int " + L.fn + params + ";" + (L.ns.empty() ? "" : " }");
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
    const std::size_t units = std::clamp<std::size_t>(
        std::min<std::size_t>(static_cast<std::size_t>(std::max(max_units, 1)), total / kSplitWeight), 1,
        std::max<std::size_t>(functions.size(), 1));
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

std::string CLinker::generate_source(const FunctionGraph& fgraph, const LinkOptions& options, bool perform_fallback,
                                     bool opwise) {
  Generator g{fgraph, options, perform_fallback, opwise};
  return g.run()[0];
}

std::string CLinker::generate_cuda_source(const FunctionGraph& fgraph, const LinkOptions& options) {
  Generator g{fgraph, options, true, false};
  g.run();
  return g.cuda.empty() ? std::string() : g.cuda.source();
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
  if (!g.gpu_context.empty()) {
    // The GPU side: the CUDA unit compiled (NVRTC, or Clang for the emulated
    // device), cached in the compiledir and loaded on the function's device.
    std::string origin = "CUDA kernels of " + std::to_string(parts.labels.size()) + " nodes, outputs:";
    for (const Var& v : fgraph->outputs()) origin += " " + v.str();
    cuda::GpuDevice& device = cuda::GpuDevice::get(g.gpu_context);
    parts.gpu = std::make_shared<cuda::GpuProgram>(device, g.cuda, copts, origin);
    const cuda::GpuProgramStats& gs = parts.gpu->stats();
    std::ostringstream gpu_line;
    gpu_line << gs.image << ", cache " << gs.cache << ", " << gs.compile_ms << " ms to compile";
    parts.stats.gpu = gpu_line.str();
    if (config_flag("keep_sources"))
      parts.stats.source_path += " " + keep_source(parts.gpu->source(), ".cu", "theano-cpp-sources");
  }
  const auto t2 = Clock::now();
  LoadedModule module = JitLoader::instance().load(object, name_);
  return make_c_thunk(std::move(fgraph), std::move(module), std::move(parts), t2);
}

void CLinker::prepare() const { JitLoader::instance().prepare_async(); }

void register_linkers() {
  gpu::register_context_probe(&cuda::GpuDevice::unusable_reason);
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

// CLinker: whole-graph C++ code generation (see c_linker.h): compiling and
// loading what the source generator (source_generator.cpp) writes, the GPU
// side included; the host Thunk that runs the loaded code is in c_thunk.cpp.
#include <theano/codegen/c_linker.h>
#include <theano/codegen/code_writer.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/errors.h>
#include <theano/codegen/jit_loader.h>
#include <theano/compile/profile.h>
#include <theano/config.h>
#include <theano/config_flags.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gpu/context.h>
#include <theano/gpu/type.h>
#include <theano/graph/basic.h>
#include <theano/runtime/error.h>
#include <theano/runtime/fork_guard.h>
#include <theano/runtime/thread_pool.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/function_record.h"
#include "emit/cuda_unit.h"
#include "emit/lower/lowering.h"
#include "emit/memory_plan.h"
#include "emit/source_generator.h"
#include "load/shared_object.h"
#include "run/background_compiles.h"
#include "run/c_thunk.h"
#include "run/cuda/gpu_device.h"
#include "thunk_abi.h"

namespace theano::codegen {
namespace {

using lower::NodeLowering;
using lower::str;
using lower::ttype;
using tensor::TensorType;

/// THEANO_FLAGS threads: the loop threads of generated code (default, and 0:
/// every core; 1: no splitting). An explicit value caps BLAS's threads too.
std::int64_t loop_threads() {
  const std::optional<long long> n = flag_int("threads");  // 0..kMaxParallelParts (flag_table.cpp)
  if (!n) return hardware_threads();
  const int threads = *n == 0 ? hardware_threads() : static_cast<int>(*n);
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

CompileOptions CLinker::compile_options(const LinkOptions& options) const {
  CompileOptions copts = options_;
  if (options.fast_compile) copts.opt = OptLevel::O0;
  // THEANO_FLAGS cxxflags: extra driver flags, space-separated, appended last.
  if (const auto extra = flag_value("cxxflags")) {
    std::istringstream words(*extra);
    for (std::string w; words >> w;) copts.cxxflags.push_back(w);
  }
  // THEANO_FLAGS codegen_threads: threads compiling one function (0: automatic).
  if (const std::optional<long long> n = flag_int("codegen_threads")) copts.codegen_threads = static_cast<int>(*n);
  // The precompiled prelude, kept in the compiledir for the next processes.
  copts.precompile_prelude = config_flag("precompile_prelude");
  if (copts.precompile_prelude) copts.prelude_store = current_prelude_store();
  return copts;
}

namespace {

/// One line on stderr the first time the shared-library route fails in this
/// process (functions still load, through ORC, about 1.5 ms slower to start).
void warn_shared_object_once(const std::string& why) {
  static std::once_flag once;
  std::call_once(once, [&] {
    std::cerr << "theano-cpp warning: cached code is loaded through the JIT instead of as a shared library (" << why
              << ")\n";
  });
}

/// The code the compiledir `cc` holds under `object_key`, loaded: a live
/// module of that key; else its shared library through dlopen (linked and
/// published in `libraries` first when it has none yet); else the object
/// through ORC (also when there is no library cache: a read-only compiledir).
/// `object` is the object's bytes when the caller has them (read here when
/// needed). An empty module: the object is not in the compiledir.
LoadedModule load_cached(cache::CompileCache& cc, cache::CompileCache* libraries, const std::string& object_key,
                         std::optional<std::string>& object, const std::string& name, bool& shared_library) {
  JitLoader& loader = JitLoader::instance();
  if (LoadedModule live = loader.find_loaded(object_key)) {
    shared_library = live.is_shared_library();
    return live;
  }
  const std::string so_key = detail::shared_object_key(object_key);
  // Mapped, not read: dlopen opens the very file whose bytes were checked.
  const std::shared_ptr<const cache::MappedFile> mapped = libraries ? libraries->lookup_mapped(so_key) : nullptr;
  std::optional<std::string> library;
  if (!mapped && libraries) {
    if (!object) object = cc.lookup(object_key);
    if (!object) return {};
    try {
      library = libraries->get_or_produce(so_key, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        cache::Entry e{detail::link_shared_object(*object), "", 0, "shared library of " + object_key};
        e.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        e.kind = detail::kSharedObjectKind;
        return e;
      });
    } catch (const LoadError& e) {
      warn_shared_object_once(e.what());
    }
  }
  if (mapped || library) {
    try {
      LoadedModule m = mapped ? loader.load_shared_object(mapped->bytes(), name, object_key, mapped->fd())
                              : loader.load_shared_object(*library, name, object_key);
      shared_library = true;
      return m;
    } catch (const LoadError& e) {
      warn_shared_object_once(e.what());
      libraries->evict(so_key, e.what());  // linked again from the object next time
    }
  }
  if (!object) object = cc.lookup(object_key);
  if (!object) return {};
  shared_library = false;
  return loader.load(*object, name, object_key);
}

/// Compiles `units` with `copts`: one translation unit, or several on as
/// many threads, each generating its machine code alone, the objects bundled.
/// The slowest unit's phases go to `stats`.
CompiledObject compile_units(const std::vector<std::string>& units, const std::string& source,
                             const CompileOptions& copts, ThunkStats& stats) {
  CompiledObject obj;
  auto record_phases = [&](const CompiledObject& o) {
    if (o.precompiled_prelude) ++stats.precompiled_preludes;
    if (o.compile_ms < stats.frontend_ms + stats.optimize_ms + stats.machine_code_ms) return;
    stats.frontend_ms = o.frontend_ms;
    stats.optimize_ms = o.optimize_ms;
    stats.machine_code_ms = o.machine_code_ms;
  };
  if (units.size() == 1) {
    obj = ClangCompiler(copts).compile(source, "theano_graph.cpp");
    record_phases(obj);
    return obj;
  }
  CompileOptions unit_opts = copts;
  unit_opts.codegen_threads = 1;
  const ClangCompiler cc(unit_opts);
  std::vector<CompiledObject> objects(units.size());
  std::vector<std::exception_ptr> errors(units.size());
  auto run_unit = [&](std::size_t u) {
    try {
      objects[u] = cc.compile(units[u], "theano_graph_" + std::to_string(u) + ".cpp");
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
  std::vector<std::string> bytes;
  for (CompiledObject& o : objects) {
    record_phases(o);
    bytes.push_back(std::move(o.bytes));
  }
  obj.bytes = bundle_objects(bytes);
  return obj;
}

/// Whether function records cover a thunk built with `options` by `linker`.
bool records_cover(bool opwise, const LinkOptions& options) {
  return !options.request.empty() && !opwise && !options.profile && options.observer == nullptr;
}

/// Publishes a function record (its key, its contents) in `records`.
void publish_record(cache::CompileCache& records, const std::pair<std::string, detail::FunctionRecord>& r) {
  records.get_or_produce(r.first, [&] {
    cache::Entry e{detail::serialize(r.second), "", 0,
                   "function record: " + std::to_string(r.second.labels.size()) + " nodes, object " +
                       r.second.object_key};
    e.kind = "function record";
    return e;
  });
}

/// Tiered compilation's background job: the optimized object of `units`
/// compiled (or found: another process may have published it meanwhile),
/// published under `key` with its function record, loaded, and handed to
/// `slot`, whose thunk then calls it. Without a compiledir (`cc` null) it is
/// only compiled and loaded. A failure leaves the thunk on its -O0 code and
/// says why, once per process on stderr and in the thunk's stats.
void optimize_in_background(const std::vector<std::string>& units, const std::string& source,
                            const CompileOptions& copts, const std::string& key, cache::CompileCache* cc,
                            const std::string& origin,
                            const std::optional<std::pair<std::string, detail::FunctionRecord>>& record,
                            cache::CompileCache* records, cache::CompileCache* libraries, const std::string& name,
                            TierSlot& slot) {
  try {
    auto produce = [&] {
      ThunkStats stats;
      const auto t0 = std::chrono::steady_clock::now();
      CompiledObject obj = compile_units(units, source, copts, stats);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return cache::Entry{std::move(obj.bytes), source, ms, origin};
    };
    LoadedModule module;
    if (cc) {
      std::optional<std::string> object = cc->get_or_produce(key, produce);
      if (record && records) publish_record(*records, *record);
      bool shared_library = false;
      module = load_cached(*cc, libraries, key, object, name, shared_library);
      if (!module) module = JitLoader::instance().load(*object, name, key);
    } else {
      module = JitLoader::instance().load(produce().object, name);
    }
    const TierSlot::Entry entry = module.function<TierSlot::Entry>("theano_entry");
    std::lock_guard lock(slot.mu);
    slot.optimized = std::move(module);
    slot.state = "-O2";
    slot.entry.store(entry, std::memory_order_release);
  } catch (const std::exception& e) {
    static std::once_flag once;
    std::call_once(once, [&] {
      std::cerr << "theano-cpp warning: a function keeps its unoptimized code (tiered_compile): " << e.what() << "\n";
    });
    std::lock_guard lock(slot.mu);
    slot.state = std::string("-O0 (optimizing failed: ") + e.what() + ")";
  }
}
}  // namespace

bool CLinker::keeps_function_records() const {
  return !opwise_ && current_cache() != nullptr && current_record_cache() != nullptr;
}

std::unique_ptr<Thunk> CLinker::thunk_for_request(const std::vector<Var>& inputs, std::size_t noutputs,
                                                  const LinkOptions& options) const {
  using Clock = std::chrono::steady_clock;
  if (!records_cover(opwise_, options)) return nullptr;
  cache::CompileCache* cc = current_cache();
  cache::CompileCache* records = current_record_cache();
  if (cc == nullptr || records == nullptr) return nullptr;
  const CompileOptions copts = compile_options(options);
  const std::string key = detail::function_record_key(options.request, copts);
  if (key.empty()) return nullptr;
  const auto t0 = Clock::now();
  const std::optional<std::string> bytes = records->lookup(key);
  if (!bytes) return nullptr;
  std::optional<detail::FunctionRecord> record = detail::parse_function_record(*bytes);
  if (!record) return nullptr;  // damaged or another version: the full path rewrites it
  const std::size_t ninputs = inputs.size();
  ThunkParts parts;
  parts.constants = std::move(record->constants);
  for (std::size_t i : record->destroyed_inputs) {
    if (i >= ninputs) return nullptr;
    if (i >= options.mutable_inputs.size() || !options.mutable_inputs[i]) parts.copy_inputs.push_back(i);
  }
  parts.nslots = record->nslots;
  parts.threads = loop_threads();
  parts.nvars = record->nvars;
  parts.labels = std::move(record->labels);
  parts.stats.cache = "hit";
  parts.stats.function_record = true;
  parts.stats.cache_key = record->object_key;
  parts.stats.cache_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  const auto t2 = Clock::now();
  // A live module of this key (another function of this request), the
  // shared library, or the object.
  std::optional<std::string> object;
  LoadedModule module;
  try {
    module = load_cached(*cc, current_library_cache(), record->object_key, object, name_, parts.stats.shared_library);
  } catch (const LoadError& e) {
    cc->evict(record->object_key, e.what());
    return nullptr;  // the full path compiles it again, under the same key
  }
  if (!module) return nullptr;  // evicted: the full path compiles it again, under the same key
  return make_c_thunk(ThunkSignature{inputs, noutputs, nullptr}, std::move(module), std::move(parts), t2);
}

std::unique_ptr<Thunk> CLinker::make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                           const LinkOptions& options) const {
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  THEANO_INTERNAL_CHECK(fgraph != nullptr) << "CLinker::make_thunk: null FunctionGraph";
  const CompileOptions copts = compile_options(options);
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
    CompiledObject obj = compile_units(units, source, copts, parts.stats);
    parts.stats.compile_ms = ms_since(t1);
    return obj;
  };
  std::string object;
  cache::CompileCache* const cc = current_cache();
  std::string origin = std::to_string(parts.labels.size()) + " nodes, linker " + name_ + ", outputs:";
  for (const Var& v : fgraph->outputs()) origin += " " + v.str();
  origin = origin.substr(0, 300);
  auto produce_entry = [&] {
    CompiledObject obj = compile();
    return cache::Entry{std::move(obj.bytes), source, parts.stats.compile_ms, origin};
  };
  // The function record of this request (thunk_for_request), for thunks it
  // can rebuild alone: no GPU side, no perform fallback.
  auto make_record = [&]() -> std::optional<std::pair<std::string, detail::FunctionRecord>> {
    if (!records_cover(opwise_, options) || !g.gpu_context.empty() || !parts.fallback.empty()) return std::nullopt;
    std::string rkey = detail::function_record_key(options.request, copts);
    if (rkey.empty()) return std::nullopt;
    detail::FunctionRecord record;
    record.object_key = parts.stats.cache_key;
    record.nslots = parts.nslots;
    record.nvars = parts.nvars;
    record.destroyed_inputs = g.plan.destroyed_inputs;
    record.labels = parts.labels;
    record.constants = parts.constants;
    return std::make_pair(std::move(rkey), std::move(record));
  };

  // Tiered compilation (THEANO_FLAGS tiered_compile; docs/jit-and-cache.md,
  // "Tiered compilation"): on a miss, the calls run the code compiled at -O0
  // at once; the background thread compiles the -O2 object, publishes it and
  // the record, loads it and switches the thunk to it.
  // A hit keeps the bytes it read for the path below.
  std::optional<std::string> found;
  if (config_flag("tiered_compile") && copts.opt != OptLevel::O0 && !opwise && g.gpu_context.empty()) {
    const auto tc = Clock::now();
    parts.stats.cache_key = cc ? cache_key(copts, source) : std::string();
    if (cc) found = cc->lookup(parts.stats.cache_key);
    if (!found) {
      // The -O0 code loads through the JIT: its session gets ready meanwhile
      // (started here, not in prepare(), so that a process whose functions
      // all hit never starts it).
      JitLoader::instance().prepare_async();
      parts.stats.cache = cc ? "miss" : "off";
      parts.stats.cache_ms = ms_since(tc);
      const auto t1 = Clock::now();
      CompileOptions quick_opts = copts;
      quick_opts.opt = OptLevel::O0;
      CompiledObject quick = compile_units(units, source, quick_opts, parts.stats);
      parts.stats.compile_ms = ms_since(t1);
      auto slot = std::make_shared<TierSlot>();
      parts.tier = slot;
      std::function<void()> job = [units, source, copts, key = parts.stats.cache_key, cc, origin, slot,
                                   name = name_, record = cc ? make_record() : std::nullopt,
                                   records = cc ? current_record_cache() : nullptr,
                                   libraries = cc ? current_library_cache() : nullptr] {
        optimize_in_background(units, source, copts, key, cc, origin, record, records, libraries, name, *slot);
      };
      const auto t2 = Clock::now();
      LoadedModule module = JitLoader::instance().load(quick.bytes, name_);
      std::unique_ptr<Thunk> thunk = make_c_thunk(std::move(fgraph), std::move(module), std::move(parts), t2);
      // Queued last: after the statics this compile and load constructed
      // (background_compiles.h, the wait at exit).
      detail::run_in_background(std::move(job));
      return thunk;
    }
  }
  if (cc) {
    // The compiledir: look up by key (no lock); on a miss compile under the
    // key's stripe lock and publish (compiledir.h, cache/compile_cache.h).
    const auto tc = Clock::now();
    parts.stats.cache_key = cache_key(copts, source);
    bool hit = found.has_value();
    object = hit ? std::move(*found) : cc->get_or_produce(parts.stats.cache_key, produce_entry, &hit);
    parts.stats.cache = hit ? "hit" : "miss";
    cache::CompileCache* records = current_record_cache();
    if (auto record = make_record(); record && records != nullptr) publish_record(*records, *record);
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
  // Shared with a live thunk of the same object; from the compiledir, its
  // shared library (linked now on a miss) unless that fails.
  LoadedModule module;
  if (cc) {
    const std::string& key = parts.stats.cache_key;
    std::optional<std::string> bytes(std::move(object));
    try {
      module = load_cached(*cc, current_library_cache(), key, bytes, name_, parts.stats.shared_library);
      if (!module) module = JitLoader::instance().load(*bytes, name_, key);
    } catch (const LoadError& e) {
      // An entry that passed the integrity checks but does not load (a
      // signed remote entry of garbage, a bug of an older writer): evicted,
      // compiled again and republished, instead of failing every function
      // of this graph until `theano-cache clear`.
      cc->evict(key, e.what());
      bool hit = false;
      std::string fresh = cc->get_or_produce(key, produce_entry, &hit);
      if (hit) fresh = produce_entry().object;  // a read-only compiledir still holds it: compile without it
      parts.stats.cache = "miss";
      parts.stats.shared_library = false;
      module = JitLoader::instance().load(fresh, name_, key);  // a fresh compile that fails to load is an error
    }
  } else {
    module = JitLoader::instance().load(object, name_);
  }
  return make_c_thunk(std::move(fgraph), std::move(module), std::move(parts), t2);
}

void CLinker::prepare() const {
  // With a compiledir, code loads as shared libraries (load_cached): no JIT
  // session to get ready, unless that route fails (then the first load makes it).
  if (opwise_ || current_library_cache() == nullptr) JitLoader::instance().prepare_async();
}

namespace {
/// The runtime's DeviceMemory of a GPU (device arrays users hold): the
/// GpuDevice of that context, opened on first use.
DeviceMemory* gpu_device_memory(const Device& device, bool open) {
  return open ? &cuda::GpuDevice::get(device.str()) : cuda::GpuDevice::find(device.str());
}
}  // namespace

void wait_for_optimized_code() { detail::wait_background(); }

void register_linkers() {
  gpu::register_context_probe(&cuda::GpuDevice::unusable_reason);
  register_device_memory_provider(&gpu_device_memory);
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

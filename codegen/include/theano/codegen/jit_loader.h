/// \file
/// Loading compiled objects into the process with LLVM ORC (LLJIT + JITLink) and
/// looking up their `extern "C"` entry points.
///
/// Why: an in-memory object needs no linker, no `-l` flags, no temp `.so` and no
/// dlopen/dlclose (unreliable, and broken by `noexec` temp dirs); loading one takes
/// about 0.1-0.5 ms and unloading is clean (JIT-NOTES.md section 2). There is one
/// LLJIT per process, created on first use. Each loaded object gets its own
/// JITDylib, removed when the last LoadedModule handle referring to it dies, so a
/// process that compiles and drops functions for hours does not grow.
///
/// Symbols the object does not define resolve against the process and against the
/// runtime libraries (libopenblas, libmvec) that the loader dlopens explicitly:
/// the host executable's as-needed linking would otherwise drop them.
#pragma once

#include <theano/codegen/errors.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen {

namespace detail {
struct ModuleState;
}

/// A shared handle to one loaded object. Copies share the module; when the last
/// copy is destroyed the module's JITDylib (code, data, unwind info) is removed.
/// Function pointers obtained from it must not be called after that.
class LoadedModule {
 public:
  LoadedModule() = default;

  /// Address of symbol `name` (unmangled, e.g. an `extern "C"` function). Throws
  /// LoadError when the module does not define it or the module fails to link.
  void* symbol(std::string_view name) const;

  /// `symbol(name)` cast to a function pointer type, e.g.
  /// `m.function<int (*)(void**, void**)>("jit_entry")`.
  template <class Fn>
  Fn function(std::string_view name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }

  /// The module's JITDylib name (unique in the process), e.g. "theano_fn_12".
  const std::string& name() const;
  /// Time the load took (add object + link of the first lookup excluded), ms.
  double load_ms() const;
  explicit operator bool() const noexcept { return state_ != nullptr; }
  /// Number of handles sharing this module.
  long use_count() const noexcept { return state_.use_count(); }

 private:
  friend class JitLoader;
  explicit LoadedModule(std::shared_ptr<detail::ModuleState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::ModuleState> state_;
};

/// The process-wide ORC JIT. All member functions are thread-safe.
class JitLoader {
 public:
  /// The one loader of the process (created on first call; the LLJIT itself is
  /// created lazily on the first load).
  static JitLoader& instance();

  /// Sets the shared libraries dlopened for symbol resolution. Only effective
  /// before the first load; returns false (and changes nothing) after it.
  /// Default: {"libopenblas.so.0", "libmvec.so.1"}.
  bool set_runtime_libraries(std::vector<std::string> libraries);
  /// The configured runtime libraries.
  std::vector<std::string> runtime_libraries() const;
  /// For each runtime library that failed to open: "name: reason". Empty when all
  /// opened (or before the first load).
  std::vector<std::string> runtime_library_errors() const;

  /// Adds an ELF relocatable object (e.g. `CompiledObject::bytes`) in a fresh
  /// JITDylib named `theano_<name_hint>_<n>`. The bytes are copied; the caller may
  /// free them. Linking happens on the first symbol lookup. Throws LoadError.
  LoadedModule load(std::string_view object, std::string_view name_hint = "fn");
  /// load(), shared by content: while a handle to a module loaded under the
  /// same `key` (the object's compiledir key) lives, that module is returned
  /// and nothing is added or linked. Generated code keeps no mutable state of
  /// its own (every thunk has its own workspace), so thunks of one compiled
  /// graph can share it. An empty key is a plain load().
  LoadedModule load(std::string_view object, std::string_view name_hint, const std::string& key);
  /// The live module loaded under `key`, or an empty handle.
  LoadedModule find_loaded(const std::string& key);

  /// Starts creating the LLJIT on a background thread, unless it exists or is
  /// being created; the next load waits for it. The CLinker calls this as a
  /// compile begins, so the JIT's one-time setup (about 1 ms) overlaps
  /// rewriting, code generation and the cache look-up of the first function.
  void prepare_async();

  /// Looks up `symbol` in the module named `module_name` (LoadedModule::name()).
  /// Returns nullptr when no such module is loaded (e.g. after its last handle
  /// died) or it does not define the symbol; never throws for those cases.
  void* find_symbol(std::string_view module_name, std::string_view symbol);

  /// Number of modules currently loaded.
  std::size_t live_modules() const;

  /// Time the LLJIT took to create (0 before the first load), ms.
  double jit_creation_ms() const;

  /// The LLJIT's target triple, e.g. "x86_64-pc-linux-gnu" ("" before the first load).
  std::string target_triple() const;

  JitLoader(const JitLoader&) = delete;
  JitLoader& operator=(const JitLoader&) = delete;

  struct Impl;

 private:
  JitLoader();
  ~JitLoader();
  std::unique_ptr<Impl> impl_;
};

/// Debugging aid: writes `object` (compiled with CompileOptions::pic = true) to a
/// temp file and links it into a shared library at `path` with the system C
/// compiler (`cc -shared ... -lopenblas -lmvec -lm`), for gdb/perf users. Throws
/// LoadError with the linker output on failure.
void export_shared_object(std::string_view object, const std::string& path);

}  // namespace theano::codegen

/// \file
/// Loading compiled code into the process and looking up its `extern "C"`
/// entry points: objects through LLVM ORC (LLJIT + JITLink), and the shared
/// libraries the compiledir keeps (shared_object.h) through dlopen.
///
/// Why ORC: an in-memory object needs no linker, no `-l` flags and no temp
/// `.so`; loading one takes about 0.1-0.5 ms and unloading is clean
/// (docs/jit-and-cache.md, "Loading"). There is one LLJIT per process, created on first
/// use (about 1 ms). Each loaded object gets its own JITDylib, removed when the
/// last LoadedModule handle referring to it dies, so a process that compiles
/// and drops functions for hours does not grow.
///
/// Why dlopen as well: a process whose functions all come from the compiledir
/// would pay the LLJIT's creation for nothing; a cached `.so` loads in
/// 0.05-0.1 ms from its checked compiledir file, or from a sealed memfd (no
/// temp file, so `noexec` /tmp does not matter), and is dlclose'd with its
/// last handle (linked without STB_GNU_UNIQUE symbols, so it really unloads).
///
/// Symbols the code does not define resolve against the process and against the
/// runtime libraries (libopenblas, libmvec) that the loader dlopens explicitly:
/// the host executable's as-needed linking would otherwise drop them. OpenBLAS
/// opens on its first call (theano/runtime/blas_library.h): loading code binds
/// to the forwarders and does not open it.
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
/// copy is destroyed the module's JITDylib (code, data, unwind info) is removed,
/// or its shared library dlclose'd.
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

  /// The module's name (unique in the process), e.g. "theano_fn_12": its
  /// JITDylib's, or the memfd's a shared library was loaded from.
  const std::string& name() const;
  /// Time the load took (add object + link of the first lookup excluded), ms.
  double load_ms() const;
  /// Loaded by JitLoader::load_shared_object (dlopen), not by ORC.
  bool is_shared_library() const noexcept;
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
  /// Default: {"libopenblas.so.0", "libmvec.so.1"}; the first is runtime::kBlasLibrary,
  /// which stands for OpenBLAS opened on first use (its forwarders, for an object
  /// loaded by ORC; opened when a shared library's dlopen finds a symbol undefined).
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
  /// A shared library (detail::link_shared_object's bytes, already verified
  /// by the caller) loaded with dlopen, RTLD_NOW | RTLD_LOCAL, after the
  /// runtime libraries it may need were opened RTLD_GLOBAL (libmvec only when
  /// the library names a _ZGV symbol); shared by `key` as load() is. Creates
  /// no ORC session. `verified_fd` (optional) is an open descriptor of a
  /// trusted file holding exactly `library` (a compiledir entry mapped by
  /// cache::map_trusted): dlopen opens that file itself; otherwise, or when
  /// its filesystem is mounted noexec or that dlopen fails, the bytes are
  /// loaded from a sealed memfd. Throws LoadError naming the module and
  /// dlopen's reason (an undefined symbol, a kernel refusing executable
  /// memfds): the caller may then load the object instead.
  LoadedModule load_shared_object(std::string_view library, std::string_view name_hint, const std::string& key,
                                  int verified_fd = -1);
  /// The live module loaded under `key`, or an empty handle.
  LoadedModule find_loaded(const std::string& key);

  /// Starts creating the LLJIT on a background thread, unless it exists or is
  /// being created; the next load waits for it. The CLinker calls this as a
  /// compile begins, so the JIT's one-time setup (about 1 ms) overlaps
  /// rewriting, code generation and the cache look-up of the first function.
  void prepare_async();

  /// Opens the runtime libraries RTLD_GLOBAL, as the first load_shared_object
  /// does (once per process; later calls return at once). For a helper thread
  /// getting a process ready before its first function loads.
  void open_runtime_libraries();

  /// Looks up `symbol` in the module named `module_name` (LoadedModule::name()).
  /// ORC modules only (not load_shared_object's).
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

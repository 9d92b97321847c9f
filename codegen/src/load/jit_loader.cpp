/// \file
/// The process-wide ORC LLJIT: one JITDylib per loaded object, removed with its
/// last handle; runtime libraries (OpenBLAS, libmvec) dlopened explicitly and
/// searched by a dedicated JITDylib that every module links against
/// (docs/jit-and-cache.md, "Loading").
///
/// Why a dedicated "runtime libs" JITDylib: the executable's as-needed linking
/// drops libopenblas when host code never calls it (and libmvec where the build
/// found none to link), so searching only the process could miss `cblas_dgemm`
/// and `_ZGVdN4v_exp`.
///
/// OpenBLAS is the exception: it opens on its first call
/// (runtime/blas_library.h), and loading code must not open it. An ORC
/// object's calls of the functions theano-cpp forwards bind to the forwarders;
/// a shared library that names any other OpenBLAS symbol gets OpenBLAS opened
/// for it when its dlopen reports the symbol undefined.
#include <theano/codegen/jit_loader.h>
#include <theano/codegen/clang_compiler.h>

#include "../compile/clang_driver.h"  // detail::init_native_target
#include "scratch_dir.h"     // detail::write_all

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <theano/runtime/blas_library.h>
#include <theano/runtime/fork_guard.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#if THEANO_LIBMVEC_LINKED
// One of libmvec's functions (never called here): the program links libmvec
// (codegen/CMakeLists.txt), and dlopen_name's reference keeps it under --as-needed.
extern "C" void _ZGVbN2v_exp();
#endif

namespace theano::codegen {

namespace {

/// Errors ORC cannot return to a caller (e.g. "Symbols not found" while linking
/// during a lookup) go to the session's error reporter. Materialization runs on the
/// looking-up thread (in-place dispatch), so a thread-local buffer pairs them with
/// the failed lookup.
thread_local std::string t_session_errors;

std::string take_session_errors() {
  std::string s;
  s.swap(t_session_errors);
  return s;
}

/// LLJIT's IR layer is never used (the loader adds objects only), but by
/// default LLJIT builds a TargetMachine for it, and a platform layer for
/// static initializers that generated code does not have. Standing in a
/// compiler that refuses and leaving the platform inactive makes the session
/// three times cheaper to create (about 0.3 instead of 0.6-1.2 ms): the first
/// function of every process pays it.
class NoIRCompiler final : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  NoIRCompiler() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module&) override {
    return llvm::make_error<llvm::StringError>("theano-cpp's JIT loads objects only; it compiles no LLVM IR",
                                               llvm::inconvertibleErrorCode());
  }
};

/// What to dlopen for the runtime library `name`: libmvec by the absolute
/// path of the copy the program linked (found by one of its functions), else
/// of its copy beside the process's libm (both are glibc's, and must be the
/// same glibc's), so the dlopen neither reads ld.so.cache nor tries each
/// directory of the search path in turn (a quarter of libmvec's load, 30-40
/// us here); any other name, or no libm found, as given.
std::string dlopen_name(const std::string& name) {
  if (name != "libmvec.so.1") return name;
#if THEANO_LIBMVEC_LINKED
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&_ZGVbN2v_exp), &info) != 0 && info.dli_fname && info.dli_fname[0] == '/')
    return info.dli_fname;
#endif
  std::string dir;
  ::dl_iterate_phdr(
      [](struct dl_phdr_info* info, std::size_t, void* out) -> int {
        const std::string_view path = info->dlpi_name ? info->dlpi_name : "";
        constexpr std::string_view kLibm = "/libm.so.6";
        if (path.size() <= kLibm.size() || path.substr(path.size() - kLibm.size()) != kLibm) return 0;
        *static_cast<std::string*>(out) = std::string(path.substr(0, path.size() - kLibm.size() + 1));
        return 1;
      },
      &dir);
  if (dir.empty() || ::access((dir + name).c_str(), R_OK) != 0) return name;
  return dir + name;
}

}  // namespace

struct JitLoader::Impl {
  mutable std::mutex mu;
  std::unique_ptr<llvm::orc::LLJIT> jit;  // created once under mu, then immutable
  llvm::orc::JITDylib* runtime_libs = nullptr;
  std::vector<std::string> libraries = {"libopenblas.so.0", "libmvec.so.1"};
  std::vector<std::string> library_errors;
  // The runtime libraries opened RTLD_GLOBAL for dlopen'ed modules (each
  // once; `libraries_global`: the first was asked for, the list is fixed).
  bool libraries_global = false;
  std::set<std::string> opened_global;
  std::atomic<std::uint64_t> counter{0};
  std::atomic<std::size_t> live{0};
  double creation_ms = 0;
  // Modules loaded under a content key (load's `key`), while a handle lives.
  std::mutex shared_mu;
  std::unordered_map<std::string, std::weak_ptr<detail::ModuleState>> shared;
  // The descriptor numbers in the names ("/proc/self/fd/N") of live dlopen'ed
  // modules: glibc takes a dlopen of a name it has loaded for that object, so
  // no two live modules may share one (a closed number is soon reused).
  std::mutex dl_mu;
  std::set<int> dl_names;
  // The files (device, inode) live modules were dlopen'ed from directly
  // (load_shared_object's `verified_fd`). glibc also takes a dlopen of a file
  // it has loaded for that object, adding the new name to it, and that name
  // would outlive its entry here: a file in use is loaded from a memfd instead.
  std::set<std::pair<dev_t, ino_t>> dl_files;
  // prepare_async's thread, detached (a joinable std::thread would be joined
  // in a forked child, where that thread does not exist). It holds a
  // ForkGuard while it creates the JIT, so fork() waits for it, and get()
  // waits on `prepared` instead of joining.
  bool preparing = false;
  std::condition_variable prepared;

  void prepare_async() {
    std::lock_guard lock(mu);
    if (jit || preparing) return;
    preparing = true;
    try {
      std::thread([this] {
        // Destroyed last: nothing of ours runs after it. A fork already
        // waiting (for the compile that waits for us) wins: get() creates it.
        ForkGuard no_fork_while_preparing(std::try_to_lock);
        {
          std::unique_lock lock(mu);
          try {
            if (no_fork_while_preparing.owns()) create_locked();
          } catch (...) {
            // The first load creates it again and reports the error.
          }
          preparing = false;
        }
        prepared.notify_all();
      }).detach();
    } catch (...) {
      preparing = false;  // no thread: the first load creates it
    }
  }

  llvm::orc::LLJIT& get() {
    std::unique_lock lock(mu);
    prepared.wait(lock, [this] { return !preparing; });
    if (!jit) create_locked();
    return *jit;
  }

  // Creates the JIT; `mu` is held.
  void create_locked() {
    if (jit) return;
    auto t0 = std::chrono::steady_clock::now();
    detail::init_native_target();
    auto j = llvm::orc::LLJITBuilder()
                 .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                   return std::make_unique<NoIRCompiler>();
                 })
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .create();
    if (!j) throw LoadError("cannot create the ORC JIT: " + llvm::toString(j.takeError()));
    auto& es = (*j)->getExecutionSession();
    es.setErrorReporter([](llvm::Error e) {
      if (!t_session_errors.empty()) t_session_errors += "\n";
      t_session_errors += llvm::toString(std::move(e));
    });
    auto libs = (*j)->createJITDylib("theano_runtime_libs");
    if (!libs) throw LoadError("cannot create the runtime-library JITDylib: " + llvm::toString(libs.takeError()));
    const char prefix = (*j)->getDataLayout().getGlobalPrefix();
    for (const auto& name : libraries) {
      if (name == runtime::kBlasLibrary) {
        // The forwarders, not the library: it opens on the first call.
        llvm::orc::SymbolMap forwarders;
        for (const auto& f : runtime::blas_functions())
          forwarders[es.intern(prefix ? std::string(1, prefix) + f.name : std::string(f.name))] = {
              llvm::orc::ExecutorAddr::fromPtr(f.address),
              llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
        if (auto err = libs->define(llvm::orc::absoluteSymbols(std::move(forwarders))))
          library_errors.push_back(name + ": " + llvm::toString(std::move(err)));
        continue;
      }
      auto gen = llvm::orc::DynamicLibrarySearchGenerator::Load(name.c_str(), prefix);
      if (!gen) {
        library_errors.push_back(name + ": " + llvm::toString(gen.takeError()));
        continue;
      }
      libs->addGenerator(std::move(*gen));
    }
    runtime_libs = &*libs;
    jit = std::move(*j);
    creation_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  // Shares `state` under `key` while a handle to it lives (find_loaded).
  void remember(const std::string& key, const std::shared_ptr<detail::ModuleState>& state) {
    std::lock_guard lock(shared_mu);
    if (shared.size() >= 64)  // drop the entries of unloaded modules now and then
      std::erase_if(shared, [](const auto& e) { return e.second.expired(); });
    shared[key] = state;
  }

  // Opens the runtime libraries RTLD_GLOBAL (each once): a shared library
  // loaded by load_shared_object has no DT_NEEDED entries, so its undefined
  // symbols resolve in the global scope, where these must be (the
  // executable's as-needed linking may have dropped them). With `module`
  // (the bytes of the library about to be loaded), libmvec is opened only
  // when they name one of its vector functions (_ZGV...; .dynstr holds every
  // undefined symbol's name, so a module needing libmvec always has that
  // text). Where the program links libmvec (THEANO_LIBMVEC_LINKED) that open
  // finds it loaded; where it does not, loading it here cost the warm start
  // of the first such function 0.1-0.3 ms.
  // OpenBLAS waits for `everything` (below), which load_shared_object asks
  // for when a library's dlopen finds a symbol undefined: theano-cpp's units
  // call no BLAS function, and opening OpenBLAS starts its threads.
  void make_libraries_global(std::optional<std::string_view> module = std::nullopt, bool everything = false) {
    std::lock_guard lock(mu);
    libraries_global = true;
    // RTLD_LAZY: a library the process has loaded lazily already is only
    // made global; RTLD_NOW would bind all its thousands of lazy symbols
    // first (0.2 ms for OpenBLAS). The module itself is opened RTLD_NOW.
    for (const auto& name : libraries) {
      if (opened_global.count(name)) continue;
      if (!everything && name == runtime::kBlasLibrary) continue;
      if (!everything && module && name.rfind("libmvec.so", 0) == 0 && module->find("_ZGV") == std::string_view::npos)
        continue;
      opened_global.insert(name);
      if (!::dlopen(dlopen_name(name).c_str(), RTLD_LAZY | RTLD_GLOBAL)) {
        const char* why = ::dlerror();
        library_errors.push_back(name + ": " + (why ? why : "dlopen failed"));
      }
    }
  }

  // Opens every runtime library not opened yet; false when there was none.
  bool open_the_rest() {
    {
      std::lock_guard lock(mu);
      if (opened_global.size() == libraries.size()) return false;
    }
    make_libraries_global(std::nullopt, /*everything=*/true);
    return true;
  }

  std::string library_note() const {
    std::lock_guard lock(mu);
    std::string s;
    for (const auto& e : library_errors) s += "\n(runtime library not loaded: " + e + ")";
    return s;
  }

  // dlopen (RTLD_NOW | RTLD_LOCAL) of the shared library open as `fd`, by a
  // "/proc/self/fd/N" name no live module has (`name_fd`: its N, kept in
  // dl_names while the module lives). nullptr with `why` when it fails.
  void* dlopen_fd(int fd, const std::string& name, int& name_fd, std::string& why);
};

namespace detail {

struct ModuleState {
  JitLoader::Impl* impl = nullptr;
  llvm::orc::JITDylib* jd = nullptr;  // loaded by ORC, or
  void* dl = nullptr;                  // by dlopen (JitLoader::load_shared_object)
  int dl_name = -1;                    // the N of its "/proc/self/fd/N" (Impl::dl_names)
  std::optional<std::pair<dev_t, ino_t>> dl_file;  // the file it was opened from directly (Impl::dl_files)
  std::string name;
  double load_ms = 0;

  ~ModuleState() {
    if (dl) {
      ForkGuard no_fork_while_unloading;
      ::dlclose(dl);
      {
        std::lock_guard lock(impl->dl_mu);
        impl->dl_names.erase(dl_name);
        if (dl_file) impl->dl_files.erase(*dl_file);
      }
      impl->live.fetch_sub(1);
      return;
    }
    if (!jd) return;
    ForkGuard no_fork_while_unloading;  // the session's lock must not be inherited held
    if (auto err = impl->jit->getExecutionSession().removeJITDylib(*jd))
      llvm::consumeError(std::move(err));  // nothing useful to do in a destructor
    impl->live.fetch_sub(1);
  }
};

}  // namespace detail

void* LoadedModule::symbol(std::string_view name) const {
  THEANO_USER_CHECK(state_, ValueError) << "LoadedModule::symbol('" << name << "') on an empty handle";
  ForkGuard no_fork_while_looking_up;
  if (state_->dl) {
    const std::string sym(name);
    ::dlerror();
    void* addr = ::dlsym(state_->dl, sym.c_str());
    if (!addr) {
      const char* why = ::dlerror();
      throw LoadError("module '" + state_->name + "' (a shared library): cannot resolve symbol '" + sym +
                      "': " + (why ? why : "not defined"));
    }
    return addr;
  }
  auto& jit = *state_->impl->jit;
  auto addr = jit.lookup(*state_->jd, llvm::StringRef(name.data(), name.size()));
  if (!addr) {
    std::string msg = llvm::toString(addr.takeError());
    std::string extra = take_session_errors();
    throw LoadError("JIT module '" + state_->name + "': cannot resolve symbol '" + std::string(name) +
                    "': " + msg + (extra.empty() ? "" : "\n" + extra) + state_->impl->library_note());
  }
  return addr->toPtr<void*>();
}

const std::string& LoadedModule::name() const {
  static const std::string empty;
  return state_ ? state_->name : empty;
}

double LoadedModule::load_ms() const { return state_ ? state_->load_ms : 0; }

bool LoadedModule::is_shared_library() const noexcept { return state_ && state_->dl != nullptr; }

JitLoader& JitLoader::instance() {
  // Never destroyed: LoadedModule handles in static objects may die after main().
  static JitLoader* loader = new JitLoader();
  return *loader;
}

JitLoader::JitLoader() : impl_(std::make_unique<Impl>()) {}

void JitLoader::prepare_async() { impl_->prepare_async(); }
void JitLoader::open_runtime_libraries() { impl_->make_libraries_global(); }
JitLoader::~JitLoader() = default;

bool JitLoader::set_runtime_libraries(std::vector<std::string> libraries) {
  std::lock_guard lock(impl_->mu);
  if (impl_->jit || impl_->libraries_global) return false;
  impl_->libraries = std::move(libraries);
  return true;
}

std::vector<std::string> JitLoader::runtime_libraries() const {
  std::lock_guard lock(impl_->mu);
  return impl_->libraries;
}

std::vector<std::string> JitLoader::runtime_library_errors() const {
  std::lock_guard lock(impl_->mu);
  return impl_->library_errors;
}

LoadedModule JitLoader::find_loaded(const std::string& key) {
  if (key.empty()) return LoadedModule();
  std::lock_guard lock(impl_->shared_mu);
  auto it = impl_->shared.find(key);
  if (it == impl_->shared.end()) return LoadedModule();
  return LoadedModule(it->second.lock());
}

LoadedModule JitLoader::load(std::string_view object, std::string_view name_hint, const std::string& key) {
  if (key.empty()) return load(object, name_hint);
  if (LoadedModule live = find_loaded(key)) return live;
  LoadedModule m = load(object, name_hint);
  impl_->remember(key, m.state_);
  return m;
}

namespace {

/// A sealed memfd holding `library`, named `name`; throws LoadError.
int sealed_memfd(std::string_view library, const std::string& name) {
  // MFD_EXEC (Linux 6.3+; older kernels reject it with EINVAL): the memfd
  // holds code, said explicitly rather than by the kernel's default.
  constexpr unsigned kMfdExec = 0x0010U;
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | kMfdExec);
  if (fd < 0 && errno == EINVAL) fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) throw LoadError("JIT module '" + name + "': memfd_create failed: " + std::strerror(errno));
  if (!detail::write_all(fd, library) ||
      ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
    const int e = errno;
    ::close(fd);
    throw LoadError("JIT module '" + name + "': cannot write and seal its memfd: " + std::strerror(e));
  }
  return fd;
}

/// Whether code can be mapped from the file `fd` (its filesystem is not
/// mounted noexec).
bool executable_filesystem(int fd) {
  struct statvfs vfs {};
  return ::fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOEXEC) == 0;
}

}  // namespace

void* JitLoader::Impl::dlopen_fd(int fd, const std::string& name, int& name_fd, std::string& why) {
  // A name no live module has: the descriptor's number, or a duplicate of it
  // above the numbers in use (the duplicates stay open until dlopen returns,
  // so each step finds a new number). glibc knows a module by this name.
  std::vector<int> dups;
  struct CloseDups {
    std::vector<int>& fds;
    ~CloseDups() {
      for (int d : fds) ::close(d);
    }
  } close_dups{dups};
  name_fd = fd;
  {
    std::lock_guard lock(dl_mu);
    while (dl_names.count(name_fd)) {
      const int d = ::fcntl(fd, F_DUPFD_CLOEXEC, name_fd + 1);
      if (d < 0) throw LoadError("JIT module '" + name + "': cannot duplicate its descriptor: " + std::strerror(errno));
      dups.push_back(d);
      name_fd = d;
    }
    dl_names.insert(name_fd);
  }
  char path[48];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", name_fd);
  ::dlerror();
  void* handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = ::dlerror();
    why = e ? e : "unknown error";
    // A symbol no library opened so far defines: open the rest (OpenBLAS)
    // and try once more; a failed dlopen leaves nothing loaded.
    if (why.find("undefined symbol") != std::string::npos && open_the_rest()) {
      handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        e = ::dlerror();
        why = e ? e : "unknown error";
      }
    }
  }
  if (!handle) {
    std::lock_guard lock(dl_mu);
    dl_names.erase(name_fd);
  }
  return handle;
}

LoadedModule JitLoader::load_shared_object(std::string_view library, std::string_view name_hint,
                                           const std::string& key, int verified_fd) {
  if (LoadedModule live = find_loaded(key)) return live;
  ForkGuard no_fork_while_loading;
  auto t0 = std::chrono::steady_clock::now();
  impl_->make_libraries_global(library);
  std::string name = "theano_" + std::string(name_hint) + "_" + std::to_string(impl_->counter.fetch_add(1));
  // What runs is exactly what the caller verified. A trusted compiledir file
  // (`verified_fd`, the descriptor its bytes were checked through) is opened
  // as it is; other bytes, or a file whose filesystem is mounted noexec or
  // that dlopen refuses, go to a sealed memfd first, so no file anyone else
  // can replace is involved and noexec temporary directories do not matter.
  void* handle = nullptr;
  int name_fd = -1;
  std::string why;
  std::optional<std::pair<dev_t, ino_t>> file;
  struct stat st {};
  if (verified_fd >= 0 && executable_filesystem(verified_fd) && ::fstat(verified_fd, &st) == 0) {
    std::lock_guard lock(impl_->dl_mu);
    if (impl_->dl_files.insert({st.st_dev, st.st_ino}).second) file = std::make_pair(st.st_dev, st.st_ino);
  }
  if (file) {
    auto forget_file = [&] {
      std::lock_guard lock(impl_->dl_mu);
      impl_->dl_files.erase(*file);
      file.reset();
    };
    try {
      handle = impl_->dlopen_fd(verified_fd, name, name_fd, why);
    } catch (const LoadError&) {
      forget_file();
      throw;
    }
    if (!handle) forget_file();
  }
  if (!handle) {
    const int fd = sealed_memfd(library, name);
    struct CloseFd {
      int fd;
      ~CloseFd() { ::close(fd); }
    } close_fd{fd};
    handle = impl_->dlopen_fd(fd, name, name_fd, why);
  }
  if (!handle)
    throw LoadError("JIT module '" + name + "': dlopen of its shared library failed: " + why +
                    impl_->library_note());
  auto state = std::make_shared<detail::ModuleState>();
  state->impl = impl_.get();
  state->dl = handle;
  state->dl_name = name_fd;
  state->dl_file = file;
  state->name = std::move(name);
  impl_->live.fetch_add(1);
  state->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!key.empty()) impl_->remember(key, state);
  return LoadedModule(std::move(state));
}

LoadedModule JitLoader::load(std::string_view object, std::string_view name_hint) {
  ForkGuard no_fork_while_loading;
  auto t0 = std::chrono::steady_clock::now();
  auto& jit = impl_->get();
  std::string name = "theano_" + std::string(name_hint) + "_" + std::to_string(impl_->counter.fetch_add(1));
  auto jd = jit.createJITDylib(name);
  if (!jd) throw LoadError("cannot create JITDylib '" + name + "': " + llvm::toString(jd.takeError()));
  jd->addToLinkOrder(*impl_->runtime_libs);

  auto state = std::make_shared<detail::ModuleState>();
  state->impl = impl_.get();
  state->jd = &*jd;
  state->name = name;
  impl_->live.fetch_add(1);  // from here on ~ModuleState removes the JITDylib

  for (std::string_view part : unbundle_objects(object)) {  // a bundle: its objects link together
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(part.data(), part.size()), name);
    if (auto err = jit.addObjectFile(*jd, std::move(buffer))) {
      std::string extra = take_session_errors();
      throw LoadError("cannot add the object to JIT module '" + name + "': " + llvm::toString(std::move(err)) +
                      (extra.empty() ? "" : "\n" + extra));
    }
  }
  state->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return LoadedModule(std::move(state));
}

void* JitLoader::find_symbol(std::string_view module_name, std::string_view symbol) {
  ForkGuard no_fork_while_looking_up;
  auto& jit = impl_->get();
  llvm::orc::JITDylibSP jd = jit.getExecutionSession().getJITDylibByName(
      llvm::StringRef(module_name.data(), module_name.size()));
  if (!jd || jd.get() == impl_->runtime_libs) return nullptr;
  auto addr = jit.lookup(*jd, llvm::StringRef(symbol.data(), symbol.size()));
  if (!addr) {
    llvm::consumeError(addr.takeError());
    take_session_errors();
    return nullptr;
  }
  return addr->toPtr<void*>();
}

std::size_t JitLoader::live_modules() const { return impl_->live.load(); }

double JitLoader::jit_creation_ms() const {
  std::lock_guard lock(impl_->mu);
  return impl_->creation_ms;
}

std::string JitLoader::target_triple() const {
  std::lock_guard lock(impl_->mu);
  return impl_->jit ? impl_->jit->getTargetTriple().str() : std::string();
}

}  // namespace theano::codegen

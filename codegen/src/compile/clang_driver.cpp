/// \file
/// The driver step of the in-process compile (docs/jit-and-cache.md, "In-process Clang", step 1) and
/// the normalized compiler identity built from its result.
///
/// Why here and once: clang's driver run as `clang::createInvocation` runs it,
/// with argv[0] = the llvm-19 clang++, lets clang itself find the resource
/// directory and the libstdc++ include paths,
/// which is robust where hard-coded paths are not. The result depends only on the
/// flag set, so it is cached per flag vector behind a mutex.
#include "clang_driver.h"

#include "build_id.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Driver/Tool.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include <llvm/Config/llvm-config.h>

#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <cpuid.h>
#include <sys/platform/x86.h>
#define THEANO_HAVE_GLIBC_CPUID 1
#endif

#ifndef THEANO_CLANG_DRIVER_DEFAULT
#define THEANO_CLANG_DRIVER_DEFAULT "/usr/lib/llvm-19/bin/clang++"
#endif

namespace theano::codegen {

std::vector<std::string> CompileOptions::driver_flags() const {
  std::vector<std::string> f = {"-c", "-x", "c++", "-std=" + std, "-fno-exceptions", "-fno-rtti",
                                "-O" + std::to_string(static_cast<int>(opt))};
  if (!march.empty()) f.push_back("-march=" + march);
  if (no_math_errno) f.push_back("-fno-math-errno");
  if (!veclib.empty()) f.push_back("-fveclib=" + veclib);
  if (fast_math) f.push_back("-ffast-math");
  if (pic) f.push_back("-fPIC");
  if (!warnings) f.push_back("-w");
  f.insert(f.end(), cxxflags.begin(), cxxflags.end());
  return f;
}

std::string clang_version() { return clang::getClangFullVersion(); }

std::string clang_driver_path() {
  const char* env = std::getenv("THEANO_CLANG_DRIVER");
  return env && *env ? env : THEANO_CLANG_DRIVER_DEFAULT;
}

namespace detail {

void init_native_target() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

namespace {

std::shared_ptr<const DriverResult> run_driver(const std::vector<std::string>& flags) {
  for (const auto& f : flags)
    THEANO_USER_CHECK(f != "-mllvm" && f.rfind("-mllvm=", 0) != 0, ValueError)
        << "cxxflags: '-mllvm' options are not supported by the in-process compiler (they change "
           "LLVM's process-wide state); got flags: " << f;

  std::vector<std::string> args;
  args.push_back(clang_driver_path());
  args.insert(args.end(), flags.begin(), flags.end());
  args.push_back(kDriverInput);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  // The input as an (empty) in-memory file over the real file system, which
  // the driver probes for the GCC installation.
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  mem->addFile(kDriverInput, 0, llvm::MemoryBuffer::getMemBuffer(""));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(
      llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(mem);

  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  auto diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  auto diags = clang::CompilerInstance::createDiagnostics(
      diag_opts.get(), new clang::TextDiagnosticPrinter(diag_os, diag_opts.get()), true);

  // The driver alone, as clang::createInvocation runs it (-fsyntax-only,
  // inputs not checked, no probing for precompiled headers), without the
  // CompilerInvocation it then builds from the cc1 args and this function
  // threw away: 0.4 ms of every cold process (make_invocation builds one
  // per compile).
  argv.insert(argv.end() - 1, "-fsyntax-only");
  auto result = std::make_shared<DriverResult>();
  clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(), *diags, "theano-cpp JIT", overlay);
  driver.setCheckInputsExist(false);
  driver.setProbePrecompiled(false);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  std::size_t jobs = 0;
  if (compilation && !diags->hasErrorOccurred()) {
    for (const clang::driver::Command& job : compilation->getJobs()) {
      ++jobs;
      if (std::string_view(job.getCreator().getName()) == "clang")
        result->cc1.assign(job.getArguments().begin(), job.getArguments().end());
    }
  }
  diag_os.flush();
  std::string joined;
  for (const auto& f : flags) joined += " " + f;
  THEANO_USER_CHECK(jobs == 1 && !result->cc1.empty() && result->cc1[0] == "-cc1", ValueError)
      << "the clang driver (" << args[0] << ") rejected the compile flags" << joined << "\n"
      << diag_text;

  const auto& cc1 = result->cc1;
  for (std::size_t i = 0; i + 1 < cc1.size(); ++i) {
    if (cc1[i] == "-triple") result->triple = cc1[i + 1];
    else if (cc1[i] == "-target-cpu") result->cpu = cc1[i + 1];
    else if (cc1[i] == "-target-feature") result->features.push_back(cc1[i + 1]);
  }
  result->driver_flags = flags;
  return result;
}

}  // namespace

std::shared_ptr<const DriverResult> driver_result(const CompileOptions& options, double* driver_ms) {
  static std::mutex mu;
  static std::map<std::vector<std::string>, std::shared_ptr<const DriverResult>> cache;
  std::vector<std::string> flags = options.driver_flags();
  std::lock_guard lock(mu);
  if (auto it = cache.find(flags); it != cache.end()) {
    if (driver_ms) *driver_ms = 0;
    return it->second;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_driver(flags);
  if (driver_ms)
    *driver_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  cache.emplace(std::move(flags), r);
  return r;
}

std::shared_ptr<clang::CompilerInvocation> make_invocation(const DriverResult& driver, const std::string& path,
                                                           std::string_view name, llvm::raw_ostream& diags) {
  // The cc1 args name the input the driver was run with (kDriverInput); the
  // compile reads `path` instead.
  std::vector<std::string> args(driver.cc1.begin() + 1, driver.cc1.end());
  for (auto& a : args) {
    if (a == kDriverInput) a = path;
    else if (a == "__input__.cpp") a = std::string(name);  // -main-file-name
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  auto inv = std::make_shared<clang::CompilerInvocation>();
  std::string text;
  llvm::raw_string_ostream os(text);
  auto opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(os, opts.get());
  clang::DiagnosticsEngine engine(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), opts, &printer,
                                  /*ShouldOwnClient=*/false);
  const bool ok = clang::CompilerInvocation::CreateFromArgs(*inv, argv, engine);
  os.flush();
  diags << text;
  THEANO_USER_CHECK(ok, ValueError) << "clang rejected the cc1 arguments:\n" << text;
  inv->getFrontendOpts().DisableFree = false;
  inv->getCodeGenOpts().DisableFree = false;
  inv->getCodeGenOpts().DisableLLVMPasses = true;
  return inv;
}

void use_memory_files(clang::CompilerInstance& ci, const std::vector<MemoryFile>& files) {
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const MemoryFile& f : files) {
    const llvm::StringRef bytes(f.bytes.data(), f.bytes.size());
    mem->addFile(f.path, 0,
                 f.copy ? llvm::MemoryBuffer::getMemBufferCopy(bytes, f.path)
                        : llvm::MemoryBuffer::getMemBuffer(bytes, f.path, /*RequiresNullTerminator=*/false));
  }
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(mem);
  ci.createFileManager(overlay);
}

}  // namespace detail

std::vector<std::string> ClangCompiler::cc1_args() const {
  return detail::driver_result(options_, nullptr)->cc1;
}

std::string detail::x86_cpuid_fingerprint() {
#if defined(THEANO_HAVE_GLIBC_CPUID) && LLVM_VERSION_MAJOR == 19
  // Per glibc index: the registers (eax, ebx, ecx, edx) kept; 0 masks one
  // that describes the core or the OS's sizes, not the CPU's features.
  struct Leaf {
    unsigned index;
    std::uint32_t keep[4];
  };
  static constexpr Leaf kLeaves[] = {
      {CPUID_INDEX_1, {0x0FFF3FF0u, 0, ~0u, ~0u}},  // family/model (no stepping), features; ebx: APIC id, counts
      {CPUID_INDEX_7, {~0u, ~0u, ~0u, ~0u}},
      {CPUID_INDEX_80000001, {~0u, 0, ~0u, ~0u}},  // ebx: brand / package
      {CPUID_INDEX_D_ECX_1, {~0u, 0, ~0u, ~0u}},   // ebx: the XSAVE area's size (XCR0 below)
      {CPUID_INDEX_80000007, {0, 0, 0, ~0u}},
      {CPUID_INDEX_80000008, {0, ~0u, 0, 0}},      // eax: address sizes; ecx: core count
      {CPUID_INDEX_7_ECX_1, {~0u, ~0u, ~0u, ~0u}},
      {CPUID_INDEX_19, {~0u, ~0u, ~0u, ~0u}},
      {CPUID_INDEX_14_ECX_0, {~0u, ~0u, ~0u, ~0u}},
  };
  unsigned max_leaf = 0, vendor[3] = {0, 0, 0};
  // One CPUID (leaf 0: the highest leaf and the vendor); glibc keeps the
  // rest. __get_cpuid would execute it twice, and each traps in a VM (13 us).
  __cpuid(0, max_leaf, vendor[0], vendor[2], vendor[1]);
  if (max_leaf == 0) return {};
  const cpuid_feature* leaf7_1 = __x86_get_cpuid_feature_leaf(CPUID_INDEX_7_ECX_1);
  if (leaf7_1->cpuid_array[3] & (1u << 19)) return {};  // AVX10: LLVM reads leaf 0x24 too
  std::string fp = "x86-cpuid:";
  fp.reserve(800);
  auto put = [&](std::uint32_t v) {  // 8 hex digits (by hand: 78 snprintf calls were most of this function)
    static constexpr char kHex[] = "0123456789abcdef";
    for (int shift = 28; shift >= 0; shift -= 4) fp += kHex[(v >> shift) & 15u];
  };
  put(max_leaf);
  for (unsigned v : vendor) put(v);
  for (const Leaf& l : kLeaves) {
    const cpuid_feature* f = __x86_get_cpuid_feature_leaf(l.index);
    fp += '.';
    for (int r = 0; r < 4; ++r) put(f->cpuid_array[r] & l.keep[r]);
    for (int r = 0; r < 4; ++r) put(f->active_array[r]);
  }
  std::uint32_t xcr0_lo = 0, xcr0_hi = 0;
  if (__x86_get_cpuid_feature_leaf(CPUID_INDEX_1)->cpuid_array[2] & (1u << 27))  // OSXSAVE
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  fp += '.';
  put(xcr0_hi);
  put(xcr0_lo);
  return fp;
#else
  return {};
#endif
}

namespace {

/// What identity() says about this host and this build of Clang, the same
/// for every flag set: asked once per process (a warm process keys two flag
/// sets). The features are detail::x86_cpuid_fingerprint() where it can say them,
/// else LLVM's list (0.1-0.2 ms of CPUID instructions in a VM).
struct HostIdentity {
  std::string prefix;  ///< clang version, pipeline, driver path, triple
  /// LLVM's name for the host CPU, or "native-<hash of the fingerprint>"
  /// where the fingerprint, which determines that name, is the features.
  std::string native_cpu, native_features;
};

/// Which Clang and LLVM compile: the version these headers name, then the
/// build ids of the loaded libclang-cpp and libLLVM (detail::elf_build_id),
/// which change with any rebuild of either. Clang's own full version string
/// says less (no build) and costs a warm start 30 us of page faults in
/// libclang-cpp, which it otherwise never touches; it stands in only where
/// the libraries carry no build id. (The triple beside it is the LLVM
/// build's default, LLVM_DEFAULT_TARGET_TRIPLE, what
/// llvm::sys::getDefaultTargetTriple returns on Linux.)
std::string clang_build() {
  const std::string clang = detail::elf_build_id(reinterpret_cast<const void*>(&clang::getClangFullVersion));
  const std::string llvm = detail::elf_build_id(reinterpret_cast<const void*>(&llvm::sys::getDefaultTargetTriple));
  if (clang.empty() || llvm.empty()) return clang_version();
  return "clang version " CLANG_VERSION_STRING ", libclang-cpp build " + clang + ", libLLVM build " + llvm;
}

const HostIdentity& host_identity() {
  static const HostIdentity host = [] {
    HostIdentity h;
    h.prefix = "clang=" + clang_build() + "\npipeline=" + std::to_string(detail::kPipelineVersion) +
               "\ndriver=" + clang_driver_path() + "\ntriple=" + LLVM_DEFAULT_TARGET_TRIPLE;
    h.native_features = detail::x86_cpuid_fingerprint();
    // LLVM 19 names the host CPU from the CPUID values the fingerprint keeps
    // (vendor, family and model without the stepping, the feature leaves,
    // XCR0), so with a fingerprint the name adds nothing to the key. Asking
    // for it executes CPUID again, five to six times: 60-80 us in a VM,
    // where each one traps (5.7 % of a warm W10 start, perf). The CPU is
    // named by the fingerprint's hash instead (also in the default
    // compiledir's name, docs/jit-and-cache.md).
    if (!h.native_features.empty()) {
      static constexpr char kHex[] = "0123456789abcdef";
      const std::uint64_t hash = llvm::xxh3_64bits(h.native_features);
      h.native_cpu = "native-";
      for (int shift = 60; shift >= 0; shift -= 4) h.native_cpu += kHex[(hash >> shift) & 15u];
      return h;
    }
    h.native_cpu = llvm::sys::getHostCPUName().str();
    std::vector<std::string> features;
    for (const auto& [name, on] : llvm::sys::getHostCPUFeatures()) features.push_back((on ? "+" : "-") + name.str());
    std::sort(features.begin(), features.end());
    for (std::size_t i = 0; i < features.size(); ++i) h.native_features += (i ? "," : "") + features[i];
    return h;
  }();
  return host;
}

}  // namespace

std::string ClangCompiler::identity() const {
  // Built from the host and the flags without running the driver: a warm
  // process would otherwise spend about 1.5 ms in the driver just to key
  // its first cache look-up. For -march=native the driver asks LLVM the same
  // questions (host CPU name and features); any other -march, --target or
  // -m flag is part of the flags below. The driver path is included because
  // it decides how the driver reads those flags.
  static std::mutex mu;
  static std::map<std::vector<std::string>, std::string> memo;
  std::vector<std::string> flags = options_.driver_flags();
  std::lock_guard lock(mu);
  if (auto it = memo.find(flags); it != memo.end()) return it->second;
  std::string march;
  for (const auto& f : flags)
    if (f.rfind("-march=", 0) == 0) march = f.substr(7);  // the last one wins, as in the driver
  const bool native = march == "native";
  const HostIdentity& host = host_identity();
  std::string id = host.prefix + "\ncpu=" + (native ? host.native_cpu : march.empty() ? "generic" : march) +
                   "\nfeatures=" + (native ? host.native_features : "");
  id += "\nflags=";
  for (std::size_t i = 0; i < flags.size(); ++i) id += (i ? " " : "") + flags[i];
  memo.emplace(std::move(flags), id);
  return id;
}

std::string compiler_identity() { return ClangCompiler().identity(); }

}  // namespace theano::codegen

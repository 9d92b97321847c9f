/// \file
/// The precompiled prelude (docs/jit-and-cache.md, "The precompiled prelude"):
/// a PCHGenerator run on the prelude's text with the unit's own cc1 args,
/// its bytes kept in memory, one per flag set and prelude text.
///
/// Why the unit's args: Clang accepts a PCH only when the language, target
/// and preprocessor options it was built with match the compile that loads
/// it (-fwrapv, -O, the target features); built from the same args it always
/// matches.
#include "prelude_pch.h"

#include <theano/codegen/clang_compiler.h>

#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Serialization/ASTWriter.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace theano::codegen::detail {

namespace {

/// What GeneratePCHAction does, with the AST kept in memory rather than
/// written to an output file.
class MemoryPchAction : public clang::ASTFrontendAction {
 public:
  explicit MemoryPchAction(std::shared_ptr<clang::PCHBuffer> buffer) : buffer_(std::move(buffer)) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci, llvm::StringRef) override {
    return std::make_unique<clang::PCHGenerator>(ci.getPreprocessor(), ci.getModuleCache(), kPreludePch,
                                                 /*isysroot=*/"", buffer_,
                                                 ci.getFrontendOpts().ModuleFileExtensions,
                                                 /*AllowASTWithErrors=*/false, /*IncludeTimestamps=*/false);
  }
  bool BeginSourceFileAction(clang::CompilerInstance& ci) override {
    ci.getLangOpts().CompilingPCH = true;
    return true;
  }
  clang::TranslationUnitKind getTranslationUnitKind() override { return clang::TU_Prefix; }
  bool hasASTFileSupport() const override { return false; }

 private:
  std::shared_ptr<clang::PCHBuffer> buffer_;
};

/// Serializes the AST of `prelude` parsed with `driver`'s args; false when
/// Clang reports an error.
bool build(const DriverResult& driver, PreludePch& pch) {
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  std::shared_ptr<clang::CompilerInvocation> inv = make_invocation(driver, kPreludeHeader, "__theano_prelude__.h", diag_os);
  clang::FrontendOptions& fe = inv->getFrontendOpts();
  fe.ProgramAction = clang::frontend::GeneratePCH;
  for (clang::FrontendInputFile& in : fe.Inputs)
    in = clang::FrontendInputFile(kPreludeHeader, clang::InputKind(clang::Language::CXX, clang::InputKind::Source,
                                                                  false, clang::InputKind::HeaderUnit_None,
                                                                  /*IsHeader=*/true));

  clang::TextDiagnosticPrinter printer(diag_os, &inv->getDiagnosticOpts());
  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.setVerboseOutputStream(diag_os);
  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  mem->addFile(kPreludeHeader, 0, llvm::MemoryBuffer::getMemBuffer(pch.prelude, kPreludeHeader, false));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(mem);
  ci.createFileManager(overlay);

  auto buffer = std::make_shared<clang::PCHBuffer>();
  buffer->IsComplete = false;
  MemoryPchAction action(buffer);
  if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred() || !buffer->IsComplete) return false;
  pch.bytes.assign(buffer->Data.data(), buffer->Data.size());
  return true;
}

/// At most this many PCHs a process (a few hundred KB each): one per flag
/// set and prelude in use; beyond it compiles parse their prelude.
constexpr std::size_t kMaxPchs = 8;

/// The process's PCHs by flag set and prelude: null while one is being built
/// or when it could not be.
struct Store {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const PreludePch>> pchs;
  std::vector<std::thread> builders;

  /// Builders are joined before the process's statics (LLVM's among them)
  /// go: a function-local static, so constructed after them.
  ~Store() { join(); }
  void join() {
    std::vector<std::thread> running;
    {
      std::lock_guard lock(mu);
      running.swap(builders);
    }
    for (std::thread& t : running) t.join();
  }
};

Store& store() {
  static Store s;
  return s;
}

/// The cc1 args and the text. Without the working directory the driver
/// wrote into the args (debug and coverage info only, which a PCH does not
/// hold): the build's precompiled prelude serves programs started anywhere.
std::string memory_key(const DriverResult& driver, std::string_view prelude) {
  std::string key;
  for (const std::string& a : driver.cc1)
    if (a.rfind("-fdebug-compilation-dir=", 0) != 0 && a.rfind("-fcoverage-compilation-dir=", 0) != 0)
      key.append(a).push_back('\0');
  key.append(prelude);
  return key;
}

/// A PreludeStore's key: what decides the PCH's bytes (Clang's exact
/// version, our pipeline version, the cc1 args, the text).
std::string store_key(const std::string& memory_key) {
  return "prelude-pch\n" + clang_version() + "\n" + std::to_string(kPipelineVersion) + "\n" + memory_key;
}

std::shared_ptr<PreludePch> empty_pch(std::string_view prelude, const std::string& key) {
  auto pch = std::make_shared<PreludePch>();
  pch->prelude.assign(prelude);
  pch->lines = static_cast<int>(std::count(prelude.begin(), prelude.end(), '\n'));
  pch->store_key = store_key(key);
  return pch;
}

}  // namespace

std::size_t prelude_end(std::string_view source) {
  const std::size_t at = source.find(kPreludeEnd);
  if (at == std::string_view::npos || (at > 0 && source[at - 1] != '\n')) return 0;
  return at + kPreludeEnd.size();
}

std::shared_ptr<const PreludePch> prelude_pch(const DriverResult& driver, std::string_view prelude,
                                              const PreludeStore* persist) {
  Store& s = store();
  std::string key = memory_key(driver, prelude);
  {
    std::lock_guard lock(s.mu);
    if (auto it = s.pchs.find(key); it != s.pchs.end()) return it->second;
    if (s.pchs.size() >= kMaxPchs) return nullptr;
    s.pchs.emplace(key, nullptr);  // taken: this call loads or builds it
  }
  std::shared_ptr<PreludePch> pch = empty_pch(prelude, key);
  if (persist && persist->load) {
    std::optional<std::string> bytes;
    try {
      bytes = persist->load(pch->store_key);
    } catch (...) {
      bytes.reset();  // an unreadable store only costs the build below
    }
    if (bytes && !bytes->empty()) {
      pch->bytes = std::move(*bytes);
      std::lock_guard lock(s.mu);
      s.pchs[key] = pch;
      return pch;
    }
  }
  // Built beside the compile that asked, which parses its whole source: the
  // first compile of a process costs what it did, the ones after it less.
  std::shared_ptr<const PreludeStore> keep;
  if (persist) keep = std::make_shared<PreludeStore>(*persist);
  std::lock_guard lock(s.mu);
  s.builders.emplace_back([&s, driver_copy = driver, pch, key = std::move(key), keep] {
    bool ok = false;
    try {
      ok = build(driver_copy, *pch);
    } catch (...) {
      ok = false;
    }
    if (!ok) return;  // stays null: every compile parses its prelude
    if (keep && keep->save) {
      try {
        keep->save(pch->store_key, pch->bytes);
      } catch (...) {
        // not kept for other processes; this one still has it
      }
    }
    std::lock_guard lock(s.mu);
    s.pchs[key] = pch;
  });
  return nullptr;
}

void forget_prelude_pch(const PreludePch& pch, const PreludeStore* persist, const std::string& why) {
  {
    Store& s = store();
    std::lock_guard lock(s.mu);
    for (auto& [key, held] : s.pchs)
      if (held.get() == &pch) held = nullptr;  // not rebuilt in this process
  }
  if (persist && persist->evict) {
    try {
      persist->evict(pch.store_key, why);
    } catch (...) {
    }
  }
}

}  // namespace theano::codegen::detail

namespace theano::codegen {

void wait_for_prelude_builds() { detail::store().join(); }

std::size_t build_prelude_pch(const CompileOptions& options, std::string_view prelude, const PreludeStore& store) {
  THEANO_USER_CHECK(detail::prelude_end(prelude) == prelude.size(), ValueError)
      << "build_prelude_pch: the prelude must end with its end line ('" << kPreludeEnd.substr(0, kPreludeEnd.size() - 1)
      << "') and hold nothing after it";
  detail::init_native_target();
  std::shared_ptr<const detail::DriverResult> driver = detail::driver_result(options, nullptr);
  std::shared_ptr<detail::PreludePch> pch = detail::empty_pch(prelude, detail::memory_key(*driver, prelude));
  THEANO_USER_CHECK(detail::build(*driver, *pch), ValueError)
      << "build_prelude_pch: Clang could not precompile the prelude with the flags" << [&] {
           std::string f;
           for (const std::string& x : options.driver_flags()) f += " " + x;
           return f;
         }() << " (a compile of a whole unit reports why)";
  if (store.save) store.save(pch->store_key, pch->bytes);
  return pch->bytes.size();
}

}  // namespace theano::codegen

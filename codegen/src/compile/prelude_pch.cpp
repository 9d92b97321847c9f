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
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

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
  use_memory_files(ci, {{kPreludeHeader, pch.prelude}});

  auto buffer = std::make_shared<clang::PCHBuffer>();
  buffer->IsComplete = false;
  MemoryPchAction action(buffer);
  if (!ci.ExecuteAction(action) || ci.getDiagnostics().hasErrorOccurred() || !buffer->IsComplete) return false;
  pch.bytes.assign(buffer->Data.data(), buffer->Data.size());
  return true;
}

/// At most this many flag sets and preludes a process (a PCH is a few
/// hundred KB): beyond it the oldest goes (its compiles in flight hold it).
constexpr std::size_t kMaxPchs = 8;

/// What the process knows of one flag set and prelude.
struct Known {
  std::shared_ptr<const PreludePch> pch;  ///< null until loaded or built
  int asked = 0;         ///< compiles that found no PCH here
  bool busy = false;     ///< a compile is loading or building it
  bool loading = false;  ///< ... loading it from the store (a millisecond: others wait)
  bool refused = false;  ///< it cannot be built, or Clang refused it: parse
};

/// The process's PCHs by flag set and prelude.
struct Store {
  std::mutex mu;
  std::condition_variable loaded;  ///< a store look-up ended
  std::map<std::string, Known> known;
  std::deque<std::string> order;  ///< known's keys, oldest first
};

Store& store() {
  static Store* s = new Store();  // never destroyed: compiles may run until exit
  return *s;
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
  std::shared_ptr<PreludePch> pch = empty_pch(prelude, key);  // before `busy`: nothing below throws
  bool look_in_store = false;
  {
    std::unique_lock lock(s.mu);
    for (;;) {
      auto it = s.known.find(key);
      if (it == s.known.end()) {
        if (s.known.size() >= kMaxPchs) {
          s.known.erase(s.order.front());
          s.order.pop_front();
        }
        it = s.known.emplace(key, Known{}).first;
        s.order.push_back(key);
      }
      Known& k = it->second;
      // The units of one function start together: they wait for the store's
      // copy, but parse rather than wait for a build (about as long).
      if (k.loading) {
        s.loaded.wait(lock);
        continue;
      }
      if (k.pch || k.refused || k.busy) return k.pch;
      look_in_store = k.asked++ == 0;
      k.busy = true;
      k.loading = look_in_store;
      break;
    }
  }
  bool ok = false, failed = false;
  if (look_in_store) {
    // The first compile that asks: the store's copy, else it parses its
    // whole source (a process that compiles one unit builds nothing).
    if (persist && persist->load) {
      std::optional<std::string> bytes;
      try {
        bytes = persist->load(pch->store_key);
      } catch (...) {
        bytes.reset();  // an unreadable store only costs the build later
      }
      if (bytes && !bytes->empty()) {
        pch->bytes = std::move(*bytes);
        ok = true;
      }
    }
  } else {
    // The second: this process compiles more than one unit with these
    // flags, so it builds the PCH now (about 5 ms more than parsing the
    // prelude, 8-12 ms less for each compile after it) and keeps it.
    try {
      ok = build(driver, *pch);
    } catch (...) {
      ok = false;
    }
    failed = !ok;
    if (ok && persist && persist->save) {
      try {
        persist->save(pch->store_key, pch->bytes);
      } catch (...) {
        // not kept for other processes; this one still has it
      }
    }
  }
  std::lock_guard lock(s.mu);
  if (look_in_store) s.loaded.notify_all();
  auto it = s.known.find(key);  // gone if 8 others came meanwhile
  if (it == s.known.end()) return ok ? pch : nullptr;
  it->second.busy = it->second.loading = false;
  if (ok) it->second.pch = pch;
  if (failed) it->second.refused = true;
  return it->second.pch;
}

void forget_prelude_pch(const PreludePch& pch, const PreludeStore* persist, const std::string& why) {
  {
    Store& s = store();
    std::lock_guard lock(s.mu);
    for (auto& [key, k] : s.known)
      if (k.pch.get() == &pch) {
        k.pch = nullptr;
        k.refused = true;  // not rebuilt in this process
      }
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

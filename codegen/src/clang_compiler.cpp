/// \file
/// One in-process compile (JIT-NOTES.md section 1, step 3): cached cc1 args ->
/// fresh CompilerInvocation (both DisableFree flags cleared) -> CompilerInstance
/// with an overlay VFS holding the source -> a CodeGenAction writing to memory.
///
/// Why this shape: every compile owns its CompilerInstance and LLVMContext, so
/// compiles on different threads share nothing mutable; clearing DisableFree keeps
/// a long-running process flat (about 0.5 MB leaked per compile otherwise).
#include "clang_driver.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

namespace theano::codegen {

namespace {

enum class Action { Object, Assembly, LLVMIR };

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
}

std::size_t count_errors(const std::string& diags) {
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = diags.find(": error: ", pos)) != std::string::npos; ++pos) ++n;
  return n;
}

CompiledObject run(const CompileOptions& options, std::string_view source, std::string_view name,
                   Action action) {
  using clock = std::chrono::steady_clock;
  THEANO_USER_CHECK(!name.empty() && name.find('/') == std::string_view::npos, ValueError)
      << "ClangCompiler: the source name must be a plain file name, got '" << name << "'";
  detail::init_native_target();
  CompiledObject result;
  auto driver = detail::driver_result(options, &result.driver_ms);
  const auto t0 = clock::now();

  // The cc1 args name the driver's placeholder input; point them at our file.
  const std::string path = std::string(detail::kVirtualDir) + std::string(name);
  std::vector<std::string> args(driver->cc1.begin() + 1, driver->cc1.end());
  for (auto& a : args) {
    if (a == detail::kDriverInput) a = path;
    else if (a == "__input__.cpp") a = std::string(name);  // -main-file-name
  }
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());

  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  auto inv = std::make_shared<clang::CompilerInvocation>();
  {
    auto arg_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    clang::TextDiagnosticPrinter arg_printer(diag_os, arg_opts.get());
    clang::DiagnosticsEngine arg_diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), arg_opts,
                                       &arg_printer, /*ShouldOwnClient=*/false);
    bool ok = clang::CompilerInvocation::CreateFromArgs(*inv, argv, arg_diags);
    diag_os.flush();
    THEANO_USER_CHECK(ok, ValueError) << "clang rejected the cc1 arguments:\n" << diag_text;
  }
  // The driver passes -disable-free, which sets both flags; leaving either set
  // leaks the AST / the LLVM module on every compile.
  inv->getFrontendOpts().DisableFree = false;
  inv->getCodeGenOpts().DisableFree = false;

  // Declared before the CompilerInstance so they outlive it.
  llvm::LLVMContext context;
  llvm::SmallString<0> out;
  clang::TextDiagnosticPrinter printer(diag_os, &inv->getDiagnosticOpts());
  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.setVerboseOutputStream(diag_os);  // "N errors generated." goes with the diagnostics, not stderr

  auto mem = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  mem->addFile(path, 0, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(source.data(), source.size()), path));
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(mem);
  ci.createFileManager(overlay);

  ci.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(out));
  std::unique_ptr<clang::CodeGenAction> act;
  switch (action) {
    case Action::Object: act = std::make_unique<clang::EmitObjAction>(&context); break;
    case Action::Assembly: act = std::make_unique<clang::EmitAssemblyAction>(&context); break;
    case Action::LLVMIR: act = std::make_unique<clang::EmitLLVMAction>(&context); break;
  }
  bool ok = ci.ExecuteAction(*act);
  ok = ok && !ci.getDiagnostics().hasErrorOccurred();
  act.reset();
  diag_os.flush();

  if (!ok) {
    std::string kept = keep_failed_source(source, ".cpp");
    if (!kept.empty()) replace_all(diag_text, path, kept);
    std::size_t n = count_errors(diag_text);
    throw CompileError("C++ compile failed (clang " + std::to_string(n) + " error" +
                           (n == 1 ? "" : "s") + ") for '" + std::string(name) + "'",
                       std::move(diag_text), std::move(kept));
  }
  result.bytes.assign(out.data(), out.size());
  result.diagnostics = std::move(diag_text);
  result.compile_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  return result;
}

}  // namespace

ClangCompiler::ClangCompiler(CompileOptions options) : options_(std::move(options)) {}

CompiledObject ClangCompiler::compile(std::string_view source, std::string_view name) const {
  return run(options_, source, name, Action::Object);
}

CompiledObject ClangCompiler::emit_assembly(std::string_view source, std::string_view name) const {
  return run(options_, source, name, Action::Assembly);
}

CompiledObject ClangCompiler::emit_llvm_ir(std::string_view source, std::string_view name) const {
  return run(options_, source, name, Action::LLVMIR);
}

}  // namespace theano::codegen

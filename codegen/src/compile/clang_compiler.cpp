/// \file
/// One in-process compile (docs/jit-and-cache.md, "In-process Clang", step 2): cached cc1 args ->
/// fresh CompilerInvocation (both DisableFree flags cleared) -> CompilerInstance
/// with an overlay VFS holding the source -> a CodeGenAction writing to memory.
///
/// Why this shape: every compile owns its CompilerInstance and LLVMContext, so
/// compiles on different threads share nothing mutable; clearing DisableFree keeps
/// a long-running process flat (about 0.5 MB leaked per compile otherwise).
///
/// Big modules: Clang runs the front end and the optimizer once, then the
/// module is split (llvm::SplitModule, locals made hidden globals) and each
/// part gets machine code on its own thread, in its own LLVMContext (parts
/// travel as bitcode, as LLVM's parallel LTO code generation does): about half
/// of an -O2 compile is instruction selection and the rest of code
/// generation. The objects are bundled and loaded together.
///
/// A source that starts with the generated prelude (through kPreludeEnd)
/// has the prelude read from a PCH when one is at hand (prelude_pch.h); a
/// compile with it that fails is run again on the whole source, whose
/// diagnostics are the ones reported.
///
/// The -O pipeline is ours, not Clang's (the front end runs with LLVM passes
/// disabled): the PassBuilder pipeline Clang would build for the cc1 options,
/// with a TargetMachine for the exact CPU, and a library table that knows
/// every vector variant glibc's libmvec exports (vector_math.h).
#include "clang_driver.h"
#include "pass_gate.h"
#include "prelude_pch.h"
#include "vector_math.h"

#include <theano/runtime/thread_pool.h>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Frontend/Driver/CodeGenOptions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/SplitModule.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <theano/codegen/errors.h>

namespace theano::codegen {

namespace {

enum class Action { Object, Assembly, LLVMIR };

constexpr std::string_view kBundleMagic = "THEANO-OBJECTS\n";

/// Modules with fewer IR instructions than this are generated on one thread:
/// splitting costs a few ms (bitcode of each part, a thread start), which only
/// pays on modules whose code generation takes more.
constexpr std::size_t kSplitInstructions = 1500;

std::size_t instruction_count(const llvm::Module& m) {
  std::size_t n = 0;
  for (const llvm::Function& f : m)
    for (const llvm::BasicBlock& b : f) n += b.size();
  return n;
}

/// How many threads generate machine code for `m`.
int codegen_threads(const CompileOptions& options, const llvm::Module& m) {
  if (options.codegen_threads > 0) return options.codegen_threads;
  const int cores = hardware_threads();
  return instruction_count(m) >= kSplitInstructions ? std::min(cores, 2) : 1;
}

llvm::CodeGenOptLevel codegen_level(OptLevel opt) {
  return opt == OptLevel::O0   ? llvm::CodeGenOptLevel::None
         : opt == OptLevel::O1 ? llvm::CodeGenOptLevel::Less
         : opt == OptLevel::O3 ? llvm::CodeGenOptLevel::Aggressive
                               : llvm::CodeGenOptLevel::Default;
}

/// A TargetMachine for the module's triple and the invocation's CPU and
/// features.
std::unique_ptr<llvm::TargetMachine> target_machine(const std::string& triple, const clang::CompilerInvocation& inv,
                                                    OptLevel opt) {
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) throw CompileError("no LLVM target for " + triple + ": " + error, error, {});
  std::string features;
  for (const std::string& f : inv.getTargetOpts().Features) features += (features.empty() ? "" : ",") + f;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, inv.getTargetOpts().CPU, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      codegen_level(opt)));
  if (!tm) throw CompileError("cannot create an LLVM target machine for " + triple, {}, {});
  return tm;
}

/// Runs the -O pipeline Clang would run for `inv` on `m` (tuning options from
/// its code generation options: -fno-unroll-loops also turns off the
/// vectorizer's interleaving, as in Clang), with the target's cost model and
/// the library table of -fveclib, extended for libmvec by vector_math.h.
/// `target` is the unit's TargetMachine, which code generation then uses
/// too, as Clang does: each one parses the -march=native feature list again
/// (about 1 M instructions per MCSubtargetInfo).
void optimize(llvm::Module& m, const clang::CompilerInvocation& inv, OptLevel opt, llvm::TargetMachine& target) {
  const clang::CodeGenOptions& cg = inv.getCodeGenOpts();
  llvm::Triple triple(m.getTargetTriple());
  // libmvec on x86_64: our table only. LLVM 19's own libmvec table offers
  // the AVX2 variants (_ZGVdN4v_exp) whatever the target, and a loop with a
  // forced width (THEANO_LANES) on an SSE-only target then calls them with
  // their ymm arguments split over two xmm registers: garbage results
  // (log_softmax with cxxflags=-march=x86-64). vector_math.h gates each
  // width by the target's features.
  const bool own_libmvec =
      cg.getVecLib() == llvm::driver::VectorLibrary::LIBMVEC && triple.getArch() == llvm::Triple::x86_64;
  std::unique_ptr<llvm::TargetLibraryInfoImpl> tlii(
      llvm::driver::createTLII(triple, own_libmvec ? llvm::driver::VectorLibrary::NoLibrary : cg.getVecLib()));
  if (own_libmvec) detail::add_libmvec_functions(*tlii, *target.getMCSubtargetInfo());
  // libmvec's AVX-512 variants (_ZGVeN16v_expf) take and return zmm
  // registers, but where LLVM's tuning prefers 256-bit vectors (Intel's
  // AVX-512 CPUs, Skylake-SP to Sapphire Rapids) a 512-bit vector type is
  // legal in a function only if its "min-legal-vector-width" says 512. A
  // 16-lane float loop (THEANO_LANES) then passed its 16 floats in two ymm
  // registers and read garbage back: tanh, softmax and W3's float32 step
  // were wrong on those CPUs. With 512 on every function those calls pass
  // zmm; the vectorizer still picks its widths from the preferred width.
  //
  // And the loops use 512-bit vectors wherever the CPU has them. LLVM's
  // tuning for those Intel CPUs prefers 256 bits for code that runs vector
  // instructions in short bursts among scalar code, which a lower clock for
  // 512-bit work would slow. A unit is long elementwise loops and reductions
  // over arrays, which the wider vectors run in half the instructions: W5's
  // fused add and two products 0.72 of the time, W1's exp, tanh and division
  // 0.85 (its 10^7 elements near the memory's rate), W1s 0.85 (bench/ab,
  // bench/README.md). A prefer-vector-width the source's flags set
  // (cxxflags=-mprefer-vector-width=256) is kept.
  const bool avx512 = target.getMCSubtargetInfo()->checkFeatures("+avx512f,+evex512");
  const bool legal512 = own_libmvec && detail::libmvec_avx512(*target.getMCSubtargetInfo());  // implies avx512
  if (avx512)
    for (llvm::Function& f : m) {
      if (f.isDeclaration()) continue;
      if (legal512) {
        const llvm::Attribute w = f.getFnAttribute("min-legal-vector-width");
        unsigned width = 0;
        if (!w.isValid() || w.getValueAsString().getAsInteger(10, width) || width < 512)
          f.addFnAttr("min-legal-vector-width", "512");
      }
      if (!f.hasFnAttribute("prefer-vector-width")) f.addFnAttr("prefer-vector-width", "512");
    }

  llvm::PipelineTuningOptions pto;
  pto.LoopUnrolling = cg.UnrollLoops;
  pto.LoopInterleaving = cg.UnrollLoops;
  pto.LoopVectorization = cg.VectorizeLoop;
  pto.SLPVectorization = cg.VectorizeSLP;
  pto.MergeFunctions = cg.MergeFunctions;
  // The passes skip optnone functions (THEANO_UNOPTIMIZED) only when asked
  // by this instrumentation, which Clang registers among its standard ones.
  // Without it every node function was optimized, optnone or not: the
  // attribute only chose the fast instruction selector (W9 in one unit: its
  // optnone functions' 15,668 instructions of -O0 IR came out as 6237).
  llvm::PassInstrumentationCallbacks pic;
  llvm::OptNoneInstrumentation optnone(/*DebugLogging=*/false);
  optnone.registerCallbacks(pic);
  detail::skip_called_value_propagation(pic);  // pass_gate.h
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&target, pto, std::nullopt, &pic);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(*tlii); });  // before the defaults
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      opt == OptLevel::O0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                          : pb.buildPerModuleDefaultPipeline(opt == OptLevel::O1   ? llvm::OptimizationLevel::O1
                                                             : opt == OptLevel::O3 ? llvm::OptimizationLevel::O3
                                                                                   : llvm::OptimizationLevel::O2);
  mpm.run(m, mam);
}

/// Assembly text of the optimized module `m`.
std::string generate_assembly(llvm::Module& m, llvm::TargetMachine& target) {
  detail::install_pass_gate(m.getContext());
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (target.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw CompileError("the LLVM target for " + m.getTargetTriple() + " cannot emit assembly", {}, {});
  pm.run(m);
  return std::string(buffer.data(), buffer.size());
}

/// Machine code for the optimized module `m` (Clang's target and relocation
/// model, the function attributes carrying CPU and features), on `threads`
/// threads: one object per part. `target` (optimize's) generates the first
/// part; each other part's thread makes its own.
std::vector<std::string> generate_objects(llvm::Module& m, const clang::CompilerInvocation& inv, OptLevel opt,
                                          int threads, llvm::TargetMachine& target) {
  // One part: code generation here, in the module's own context.
  const std::string triple = m.getTargetTriple();
  auto emit = [&](llvm::Module& part, std::string& out, bool first) {
    std::unique_ptr<llvm::TargetMachine> own = first ? nullptr : target_machine(triple, inv, opt);
    llvm::TargetMachine* const tm = first ? &target : own.get();
    detail::install_pass_gate(part.getContext());
    llvm::SmallString<0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
      throw CompileError("the LLVM target for " + triple + " cannot emit object files", {}, {});
    pm.run(part);
    out.assign(buffer.data(), buffer.size());
  };
  std::vector<std::string> objects;
  if (threads <= 1) {
    objects.emplace_back();
    emit(m, objects.back(), /*first=*/true);
    return objects;
  }
  std::vector<llvm::SmallString<0>> parts;
  llvm::SplitModule(m, static_cast<unsigned>(threads), [&](std::unique_ptr<llvm::Module> part) {
    parts.emplace_back();
    llvm::raw_svector_ostream os(parts.back());
    llvm::WriteBitcodeToFile(*part, os);
  });
  objects.resize(parts.size());
  std::vector<std::string> errors(parts.size());
  auto run_part = [&](std::size_t k) {
    try {
      llvm::LLVMContext context;
      auto part = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(parts[k].data(), parts[k].size()), "part"),
                                         context);
      if (!part) throw CompileError("cannot read back part of the module: " + llvm::toString(part.takeError()), {}, {});
      emit(**part, objects[k], /*first=*/k == 0);
    } catch (const std::exception& e) {
      errors[k] = e.what();
    }
  };
  std::vector<std::thread> workers;
  for (std::size_t k = 1; k < parts.size(); ++k) workers.emplace_back(run_part, k);
  run_part(0);
  for (std::thread& t : workers) t.join();
  for (const std::string& e : errors)
    if (!e.empty()) throw CompileError("parallel code generation failed: " + e, e, {});
  return objects;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
}

// Errors and fatal errors (e.g. "bracket nesting level exceeded maximum",
// "file not found") in the printed diagnostics.
std::size_t count_errors(const std::string& diags) {
  std::size_t n = 0;
  for (const char* kind : {": error: ", ": fatal error: "})
    for (std::size_t pos = 0; (pos = diags.find(kind, pos)) != std::string::npos; ++pos) ++n;
  return n;
}

/// Whether `options` allow the precompiled prelude (CompileOptions::precompile_prelude).
bool use_prelude_pch(const CompileOptions& options) {
  if (!options.precompile_prelude || options.warnings) return false;
  for (const std::string& f : options.cxxflags)
    if (f.rfind("-include", 0) == 0 || f.rfind("-imacros", 0) == 0 || f.rfind("--include", 0) == 0) return false;
  return true;
}

/// A compile with the precompiled prelude failed (what Clang printed).
struct PchCompileFailed {
  std::string diagnostics;
};

/// One compile; `allow_pch`: with the precompiled prelude if there is one
/// (`*used` receives it).
CompiledObject run_once(const CompileOptions& options, std::string_view source, std::string_view name, Action action,
                        bool allow_pch, std::shared_ptr<const detail::PreludePch>* used) {
  using clock = std::chrono::steady_clock;
  THEANO_USER_CHECK(!name.empty() && name.find('/') == std::string_view::npos, ValueError)
      << "ClangCompiler: the source name must be a plain file name, got '" << name << "'";
  detail::init_native_target();
  CompiledObject result;
  auto driver = detail::driver_result(options, &result.driver_ms);
  const auto t0 = clock::now();

  const std::string path = std::string(detail::kVirtualDir) + std::string(name);
  std::string diag_text;
  llvm::raw_string_ostream diag_os(diag_text);
  std::shared_ptr<clang::CompilerInvocation> inv = detail::make_invocation(*driver, path, name, diag_os);

  // The prelude precompiled (prelude_pch.h): the front end reads the rest of
  // the source, numbered as in the whole.
  std::string body;
  std::string_view text = source;
  std::shared_ptr<const detail::PreludePch> pch;
  if (allow_pch && use_prelude_pch(options))
    if (const std::size_t end = detail::prelude_end(source)) {
      pch = detail::prelude_pch(*driver, source.substr(0, end), options.prelude_store.get());
      if (pch) {
        *used = pch;
        body = "#line " + std::to_string(pch->lines + 1) + " \"" + path + "\"\n";
        body.append(source.substr(end));
        text = body;
        inv->getPreprocessorOpts().ImplicitPCHInclude = detail::kPreludePch;
        result.precompiled_prelude = true;
      }
    }

  // Declared before the CompilerInstance so they outlive it.
  llvm::LLVMContext context;
  clang::TextDiagnosticPrinter printer(diag_os, &inv->getDiagnosticOpts());
  clang::CompilerInstance ci;
  ci.setInvocation(inv);
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.setVerboseOutputStream(diag_os);  // "N errors generated." goes with the diagnostics, not stderr

  std::vector<detail::MemoryFile> files{{path, text, /*copy=*/true}};
  if (pch) {
    files.push_back({detail::kPreludeHeader, pch->prelude});
    files.push_back({detail::kPreludePch, pch->bytes});
  }
  detail::use_memory_files(ci, files);

  // The module, optimized and turned into an object (or text) below.
  auto act = std::make_unique<clang::EmitLLVMOnlyAction>(&context);
  bool ok = ci.ExecuteAction(*act);
  ok = ok && !ci.getDiagnostics().hasErrorOccurred();
  std::unique_ptr<llvm::Module> module;
  if (ok) module = act->takeModule();
  ok = ok && module != nullptr;
  act.reset();
  diag_os.flush();

  if (!ok) {
    if (pch) throw PchCompileFailed{std::move(diag_text)};  // run() compiles the whole source
    std::string kept = keep_failed_source(source, ".cpp");
    if (!kept.empty()) replace_all(diag_text, path, kept);
    // The printer's count (what clang's "N errors generated." says) includes fatal errors.
    const std::size_t n = std::max<std::size_t>(count_errors(diag_text), printer.getNumErrors());
    throw CompileError("C++ compile failed (clang " + std::to_string(n) + " error" +
                           (n == 1 ? "" : "s") + ") for '" + std::string(name) + "'",
                       std::move(diag_text), std::move(kept));
  }
  const auto t1 = clock::now();
  result.frontend_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const std::unique_ptr<llvm::TargetMachine> tm = target_machine(module->getTargetTriple(), *inv, options.opt);
  optimize(*module, *inv, options.opt, *tm);
  const auto t2 = clock::now();
  result.optimize_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  switch (action) {
    case Action::Object:
      result.bytes =
          bundle_objects(generate_objects(*module, *inv, options.opt, codegen_threads(options, *module), *tm));
      break;
    case Action::Assembly: result.bytes = generate_assembly(*module, *tm); break;
    case Action::LLVMIR: {
      llvm::raw_string_ostream os(result.bytes);
      module->print(os, nullptr);
      break;
    }
  }
  result.machine_code_ms = std::chrono::duration<double, std::milli>(clock::now() - t2).count();
  result.diagnostics = std::move(diag_text);
  result.compile_ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  return result;
}

CompiledObject run(const CompileOptions& options, std::string_view source, std::string_view name, Action action) {
  std::shared_ptr<const detail::PreludePch> pch;
  try {
    return run_once(options, source, name, action, true, &pch);
  } catch (const PchCompileFailed& e) {
    // Whether the PCH or the source is wrong, the whole source decides; its
    // diagnostics are the ones reported.
    std::shared_ptr<const detail::PreludePch> none;
    CompiledObject r = run_once(options, source, name, action, false, &none);
    detail::forget_prelude_pch(*pch, options.prelude_store.get(),
                               "Clang refused the precompiled prelude:\n" + e.diagnostics);
    return r;
  }
}

}  // namespace

std::string bundle_objects(const std::vector<std::string>& objects) {
  if (objects.size() == 1) return objects.front();
  std::string r(kBundleMagic);
  for (const std::string& o : objects) {
    std::uint64_t n = o.size();
    for (int b = 0; b < 8; ++b) r.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
    r += o;
  }
  return r;
}

std::vector<std::string_view> unbundle_objects(std::string_view bytes) {
  if (bytes.substr(0, kBundleMagic.size()) != kBundleMagic) return {bytes};
  std::vector<std::string_view> r;
  std::size_t at = kBundleMagic.size();
  while (at < bytes.size()) {
    if (bytes.size() - at < 8) throw LoadError("a damaged object bundle (truncated size field)");
    std::uint64_t n = 0;
    for (int b = 0; b < 8; ++b) n |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + b])) << (8 * b);
    at += 8;
    if (n > bytes.size() - at) throw LoadError("a damaged object bundle (an object runs past the end)");
    r.push_back(bytes.substr(at, n));
    at += n;
  }
  if (r.empty()) throw LoadError("an empty object bundle");
  return r;
}

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

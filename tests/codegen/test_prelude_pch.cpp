/// \file
/// The precompiled prelude (codegen/src/compile/prelude_pch.h): a source whose
/// text through kPreludeEnd repeats has it read from a PCH (stored, or built
/// by a process's second compile); the code and the
/// diagnostics are those of the whole source; a store's PCH is used, and one
/// that Clang refuses is evicted without failing the compile; the compiledir's
/// store keeps it (test_cli.cpp: `theano-cache precompile`).
#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/jit_loader.h>
#include <theano/config.h>
#include <theano/theano.hpp>

#include "codegen/compiledir_test_util.h"
#include "codegen/jit_test_util.h"
#include "temp_dir.h"
#include "test_util.h"

#include <algorithm>
#include <filesystem>
#include <thread>
#include <unistd.h>
#include <vector>
#include <map>
#include <mutex>

using namespace theano::codegen;
namespace fs = std::filesystem;

namespace {

/// A prelude (a declaration, a macro, an inline function the body calls) and
/// a body using all three; `tag` makes the prelude text (so its PCH) distinct.
std::string prelude_text(const std::string& tag) {
  return "// test prelude " + tag + "\n#define PRELUDE_SCALE 3.0\n"
         "static inline double prelude_twice(double v) { return 2.0 * v; }\n"
         "struct PreludePair { double a, b; };\n" +
         std::string(kPreludeEnd);
}
std::string body_text(double offset) {
  return "extern \"C\" int jit_entry(void** inputs, void** outputs, long long n, char*, int) {\n"
         "  const double* x = (const double*)inputs[0];\n"
         "  double* z = (double*)outputs[0];\n"
         "  for (long long i = 0; i < n; ++i) {\n"
         "    PreludePair p{x[i], " +
         std::to_string(offset) +
         "};\n"
         "    z[i] = prelude_twice(p.a) * PRELUDE_SCALE + p.b;\n"
         "  }\n"
         "  return 0;\n"
         "}\n";
}

double run_entry(const CompiledObject& obj, const char* name, double x) {
  LoadedModule m = JitLoader::instance().load(obj.bytes, name);
  double z = 0;
  void* in[1] = {&x};
  void* out[1] = {&z};
  char msg[8];
  REQUIRE(m.function<theano_test::ElemwiseEntry>("jit_entry")(in, out, 1, msg, 8) == 0);
  return z;
}

/// A PreludeStore in memory that counts its calls.
struct CountingStore {
  std::mutex mu;
  std::map<std::string, std::string> kept;
  int loads = 0, saves = 0, evictions = 0;
  std::string evicted_why;

  std::shared_ptr<const PreludeStore> store() {
    auto s = std::make_shared<PreludeStore>();
    s->load = [this](const std::string& k) -> std::optional<std::string> {
      std::lock_guard lock(mu);
      ++loads;
      auto it = kept.find(k);
      return it == kept.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    s->save = [this](const std::string& k, const std::string& bytes) {
      std::lock_guard lock(mu);
      ++saves;
      kept[k] = bytes;
    };
    s->evict = [this](const std::string& k, const std::string& why) {
      std::lock_guard lock(mu);
      ++evictions;
      evicted_why = why;
      kept.erase(k);
    };
    return s;
  }
};

}  // namespace

TEST_CASE("precompiled prelude: built by a process's second compile, read by the ones after it, same code") {
  const std::string prelude = prelude_text("reuse");
  const ClangCompiler cc;
  const CompiledObject first = cc.compile(prelude + body_text(1.0), "first.cpp");
  CHECK_FALSE(first.precompiled_prelude);  // nothing stored: parsed whole
  const CompiledObject second = cc.compile(prelude + body_text(1.0), "second.cpp");
  CHECK(second.precompiled_prelude);
  const CompiledObject other_body = cc.compile(prelude + body_text(-4.0), "third.cpp");
  CHECK(other_body.precompiled_prelude);
  CHECK(run_entry(first, "pch_first", 5.0) == 31.0);
  CHECK(run_entry(second, "pch_second", 5.0) == 31.0);
  CHECK(run_entry(other_body, "pch_third", 5.0) == 26.0);

  // Another flag set has a PCH of its own; so has another prelude text.
  CompileOptions o0;
  o0.opt = OptLevel::O0;
  CHECK_FALSE(ClangCompiler(o0).compile(prelude + body_text(1.0)).precompiled_prelude);
  CHECK_FALSE(cc.compile(prelude_text("other") + body_text(1.0)).precompiled_prelude);
  CHECK(ClangCompiler(o0).compile(prelude + body_text(1.0)).precompiled_prelude);

  // Off when asked, when warnings are kept, and for sources without the line.
  CompileOptions off;
  off.precompile_prelude = false;
  CHECK_FALSE(ClangCompiler(off).compile(prelude + body_text(1.0)).precompiled_prelude);
  CompileOptions include;
  include.cxxflags = {"-include", "/dev/null"};
  CHECK_FALSE(ClangCompiler(include).compile(prelude + body_text(1.0)).precompiled_prelude);
  CHECK_FALSE(cc.compile(theano_test::elemwise_source()).precompiled_prelude);
}

TEST_CASE("precompiled prelude: errors in the body are reported at their line in the whole source") {
  const std::string prelude = prelude_text("errors");
  const ClangCompiler cc;
  cc.compile(prelude + body_text(0.0));
  REQUIRE(cc.compile(prelude + body_text(0.0)).precompiled_prelude);
  const std::string src = prelude + "extern \"C\" int f() {\n  return undeclared_y;\n}\n";
  const int line = 1 + static_cast<int>(std::count(prelude.begin(), prelude.end(), '\n')) + 1;
  try {
    cc.compile(src, "broken_body.cpp");
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    CHECK(e.diagnostics().find("undeclared identifier 'undeclared_y'") != std::string::npos);
    CHECK_MESSAGE(e.diagnostics().find(e.source_path() + ":" + std::to_string(line) + ":10: error") !=
                      std::string::npos,
                  e.diagnostics());
  }
}

TEST_CASE("precompiled prelude: a store's PCH is read at once, one Clang refuses is evicted and the compile succeeds") {
  CountingStore counting;
  CompileOptions o;
  o.prelude_store = counting.store();
  const std::string prelude = prelude_text("store");
  // Nothing stored: the first compile parses, the second builds and saves.
  CHECK_FALSE(ClangCompiler(o).compile(prelude + body_text(2.0)).precompiled_prelude);
  CHECK(counting.loads == 1);
  CHECK(counting.saves == 0);
  CHECK(ClangCompiler(o).compile(prelude + body_text(2.0)).precompiled_prelude);
  CHECK(counting.loads == 1);
  CHECK(counting.saves == 1);
  REQUIRE(counting.kept.size() == 1);
  const std::string key = counting.kept.begin()->first;
  CHECK(key.find(clang_version()) != std::string::npos);
  CHECK(key.find("-O2") != std::string::npos);
  CHECK(key.find("-fdebug-compilation-dir") == std::string::npos);  // the same PCH from any directory

  // A process that finds it stored (a third prelude text here, saved the
  // way `theano-cache precompile` saves it) reads it on its first compile.
  const std::string prelude3 = prelude_text("store-3");
  CHECK(build_prelude_pch(o, prelude3, *counting.store()) > 1000);
  const int saves = counting.saves;
  const CompiledObject read = ClangCompiler(o).compile(prelude3 + body_text(0.5), "read.cpp");
  CHECK(read.precompiled_prelude);
  CHECK(counting.saves == saves);  // read, not built
  CHECK(run_entry(read, "pch_read", 1.0) == 6.5);

  // The units of one function start together: both wait for the store's
  // copy rather than parse.
  const std::string prelude5 = prelude_text("store-5");
  build_prelude_pch(o, prelude5, *counting.store());
  std::vector<CompiledObject> units(2);
  {
    std::vector<std::thread> threads;
    for (int u = 0; u < 2; ++u)
      threads.emplace_back([&, u] { units[u] = ClangCompiler(o).compile(prelude5 + body_text(u), "unit.cpp"); });
    for (std::thread& t : threads) t.join();
  }
  CHECK(units[0].precompiled_prelude);
  CHECK(units[1].precompiled_prelude);

  // Garbage under a key: Clang refuses it, the whole source compiles, the
  // store loses it and this process stops asking.
  const std::string prelude4 = prelude_text("store-4");
  CountingStore bad;
  CompileOptions b = o;
  b.prelude_store = bad.store();
  build_prelude_pch(b, prelude4, *bad.store());
  REQUIRE(bad.kept.size() == 1);
  bad.kept.begin()->second = std::string(4096, 'x');
  const CompiledObject survived = ClangCompiler(b).compile(prelude4 + body_text(0.0), "survived.cpp");
  CHECK_FALSE(survived.precompiled_prelude);
  CHECK(run_entry(survived, "pch_survived", 1.0) == 6.0);
  CHECK(bad.evictions == 1);
  CHECK(bad.evicted_why.find("precompiled prelude") != std::string::npos);
  CHECK(bad.kept.empty());
  CHECK_FALSE(ClangCompiler(b).compile(prelude4 + body_text(0.0)).precompiled_prelude);
  CHECK_FALSE(ClangCompiler(b).compile(prelude4 + body_text(0.0)).precompiled_prelude);  // not rebuilt here
  CHECK(bad.saves == 1);  // only build_prelude_pch's

  CHECK_THROWS_AS(build_prelude_pch(o, "no end line\n", *counting.store()), theano::ValueError);
}

TEST_CASE("precompiled prelude: a compiledir's prelude entries keep it, one per flag set and text") {
  const fs::path base = fs::temp_directory_path() / ("theano-pch-" + std::to_string(::getpid()));
  fs::remove_all(base);
  struct Remove {
    fs::path p;
    ~Remove() { fs::remove_all(p); }
  } remove{base};
  const CompileOptions copts = CLinker(CompileOptions{}, "cpp").compile_options({});
  theano::cache::CacheOptions options;
  options.fallback = fs::path();
  theano::cache::CompileCache top(base, options);
  theano::cache::CompileCache preludes(base / kPreludeDir, options);
  CHECK(preludes.entries().empty());
  CHECK(build_prelude_pch(copts, CLinker::prelude(), *prelude_store(&preludes)) > 100000);
  const auto entries = preludes.entries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].kind == "pch");
  // Built again from the same flags and text: the same key, no second entry.
  build_prelude_pch(copts, CLinker::prelude(), *prelude_store(&preludes));
  CHECK(preludes.entries().size() == 1);
  // The same code either way: the optimized IR of a unit using the prelude's
  // helpers, with and without the PCH, byte for byte.
  const std::string user = std::string(CLinker::prelude()) +
                           "extern \"C\" int theano_probe(double* x, float* y, long long n) {\n"
                           "  for (long long i = 0; i < n; ++i) {\n"
                           "    x[i] = theano_f::theano_sigmoid(x[i]) + theano_f::theano_tanh(x[i]);\n"
                           "    y[i] = theano_s::theano_sigmoid(y[i]);\n"
                           "  }\n"
                           "  return THEANO_MAX_NDIM;\n"
                           "}\n";
  CompileOptions parse = copts;
  parse.precompile_prelude = false;
  CompileOptions pch_opts = copts;
  pch_opts.prelude_store = prelude_store(&preludes);
  const CompiledObject ir_with = ClangCompiler(pch_opts).emit_llvm_ir(user, "ir.cpp");
  REQUIRE(ir_with.precompiled_prelude);
  const CompiledObject ir_without = ClangCompiler(parse).emit_llvm_ir(user, "ir.cpp");
  CHECK_FALSE(ir_without.precompiled_prelude);
  CHECK(ir_with.bytes.find("theano_probe") != std::string::npos);
  CHECK(ir_with.bytes == ir_without.bytes);

  // What the store gives back is what Clang reads: a unit with the prelude
  // compiles with it on the first try.
  CompileOptions with = copts;
  with.prelude_store = prelude_store(&preludes);
  const std::string unit = std::string(CLinker::prelude()) + "extern \"C\" int theano_probe() { return THEANO_MAX_NDIM; }\n";
  CHECK(ClangCompiler(with).compile(unit, "probe.cpp").precompiled_prelude);
}

TEST_CASE("precompiled prelude: function() reads the build tree's on its first compile, caching off too") {
  using namespace theano::tensor;
  theano::Var x = dvector("x");
  {
    theano::Config c = theano::config();
    c.flags["compiledir"] = "off";
    theano::ConfigGuard guard(c);
    const theano::ThunkStats st = theano::function({x}, {x * 3.0 + 1.0}).profile().build;
    REQUIRE(st.translation_units >= 1);
    CHECK(st.precompiled_preludes == st.translation_units);  // the build's theano-cache precompile wrote it
  }
  theano::test::TempDir d;
  {
    theano::Config c = theano::test::with_compiledir(d.path);
    c.flags["precompile_prelude"] = "False";
    theano::ConfigGuard guard(c);
    const theano::ThunkStats st = theano::function({x}, {x * 4.0 + 1.0}).profile().build;
    CHECK(st.cache == "miss");
    CHECK(st.precompiled_preludes == 0);
  }
  theano::ConfigGuard guard(theano::test::with_compiledir(d.path));
  const theano::ThunkStats st = theano::function({x}, {x * 5.0 + 1.0}).profile().build;
  CHECK(st.cache == "miss");
  CHECK(st.precompiled_preludes == st.translation_units);
}

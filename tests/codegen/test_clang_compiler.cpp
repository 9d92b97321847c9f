/// \file
/// ClangCompiler: flags -> cc1 args, identity normalization, objects at -O0/-O2,
/// assembly/IR output, compile errors (diagnostics + kept source), refused options,
/// and compiles from several threads at once.
#include <theano/codegen/clang_compiler.h>

#include "../../codegen/src/compile/pass_gate.h"
#include "codegen/jit_test_util.h"
#include "test_util.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <link.h>

using namespace theano::codegen;

namespace {
bool is_elf_relocatable(const std::string& b) {
  return b.size() > 20 && b.compare(0, 4, "\x7f" "ELF") == 0 && b[16] == 1 /*ET_REL*/;
}
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

TEST_CASE("CompileOptions: default driver flags follow DESIGN 3.8/3.9") {
  auto f = CompileOptions{}.driver_flags();
  for (const char* want : {"-O2", "-march=native", "-fno-math-errno", "-fveclib=libmvec",
                           "-fno-exceptions", "-fno-rtti", "-std=c++17"})
    CHECK_MESSAGE(contains(f, want), want);
  CHECK_FALSE(contains(f, "-ffast-math"));
  CompileOptions o;
  o.opt = OptLevel::O0;
  o.cxxflags = {"-DFOO=1"};
  auto g = o.driver_flags();
  CHECK(contains(g, "-O0"));
  CHECK(g.back() == "-DFOO=1");
}

TEST_CASE("ClangCompiler: cc1 args and identity are normalized") {
  ClangCompiler cc;
  auto cc1 = cc.cc1_args();
  REQUIRE_FALSE(cc1.empty());
  CHECK(cc1[0] == "-cc1");
  CHECK(contains(cc1, "-target-cpu"));  // -march=native resolved by the driver

  std::string id = cc.identity();
  CHECK(id.find("clang=") == 0);
  CHECK(id.find("triple=x86_64") != std::string::npos);
  // Clang and LLVM by the build ids of the libraries loaded, as readelf reads
  // them from the files (docs/jit-and-cache.md, "Keys").
  std::vector<std::string> loaded;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        if (info->dlpi_name && *info->dlpi_name) static_cast<std::vector<std::string>*>(out)->push_back(info->dlpi_name);
        return 0;
      },
      &loaded);
  for (const std::string what : {"libclang-cpp", "libLLVM"}) {
    auto it = std::find_if(loaded.begin(), loaded.end(), [&](const std::string& path) {
      return std::filesystem::path(path).filename().string().rfind(what + ".so", 0) == 0 ||
             std::filesystem::path(path).filename().string().rfind(what + "-", 0) == 0;
    });
    REQUIRE_MESSAGE(it != loaded.end(), what << " is not loaded");
    const std::string command = "readelf -n '" + *it + "' 2>/dev/null";
    FILE* p = popen(command.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string notes;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) notes.append(buf, n);
    pclose(p);
    const auto at = notes.find("Build ID: ");
    REQUIRE_MESSAGE(at != std::string::npos, "readelf -n " << *it << " shows no build id");
    const std::string build = notes.substr(at + 10, notes.find('\n', at) - at - 10);
    CHECK(id.find(what + " build " + build) != std::string::npos);
  }
  CHECK(id.find("\ncpu=") != std::string::npos);
  // The CPUID fingerprint where it can stand for the features, else LLVM's list.
  CHECK((id.find("features=x86-cpuid:") != std::string::npos || id.find("features=+") != std::string::npos));
  CHECK(id.find("-march=native") != std::string::npos);
  // Independent of the working directory.
  auto cwd = std::filesystem::current_path();
  CHECK(id.find(cwd.string()) == std::string::npos);
  CHECK(id == compiler_identity());
  CompileOptions o0;
  o0.opt = OptLevel::O0;
  CHECK(ClangCompiler(o0).identity() != id);
  // Built without the driver: for -march=native it names the CPU the driver
  // targets, or, with the CPUID fingerprint (which determines that name),
  // names it by the fingerprint's hash without asking LLVM.
  const auto cpu_at = std::find(cc1.begin(), cc1.end(), "-target-cpu");
  REQUIRE(cpu_at + 1 < cc1.end());
  if (id.find("features=x86-cpuid:") != std::string::npos)
    CHECK(id.find("\ncpu=native-") != std::string::npos);
  else
    CHECK(id.find("\ncpu=" + *(cpu_at + 1) + "\n") != std::string::npos);
  CompileOptions v2;
  v2.march = "x86-64-v2";
  const std::string id2 = ClangCompiler(v2).identity();
  CHECK(id2 != id);
  CHECK(id2.find("\ncpu=x86-64-v2\n") != std::string::npos);
  CHECK(ClangCompiler(v2).cc1_args() != cc1);
}

TEST_CASE("ClangCompiler: -O0 and -O2 both give ELF relocatable objects") {
  const std::string src = theano_test::elemwise_source();
  for (OptLevel level : {OptLevel::O0, OptLevel::O2, OptLevel::O3}) {
    CompileOptions o;
    o.opt = level;
    CompiledObject obj = ClangCompiler(o).compile(src);
    CHECK(is_elf_relocatable(obj.bytes));
    CHECK(obj.compile_ms > 0);
  }
}

TEST_CASE("ClangCompiler: assembly and LLVM IR for debugging") {
  ClangCompiler cc;
  auto asm_text = cc.emit_assembly(theano_test::elemwise_source()).bytes;
  CHECK(asm_text.find("jit_entry:") != std::string::npos);
  auto ir = cc.emit_llvm_ir(theano_test::elemwise_source()).bytes;
  CHECK(ir.find("define") != std::string::npos);
  CHECK(ir.find("@jit_entry") != std::string::npos);
}

TEST_CASE("ClangCompiler: the -O pipeline leaves optnone functions unoptimized, as Clang does") {
  // THEANO_UNOPTIMIZED node functions are optnone: the passes must skip them
  // (they did not until the pipeline got Clang's optnone instrumentation:
  // every node function was optimized and only its instruction selection
  // was the fast one). An optimized function keeps no stack slot for a local
  // and folds the loop; an optnone one keeps both.
  const std::string src = R"(
static int sum_to(int n) { int a = 0; for (int i = 0; i < n; ++i) a += i; return a; }
extern "C" __attribute__((noinline, optnone)) int cold_fn(int n) {
  int a = 0;
  for (int i = 0; i < n; ++i) a += i;
  return a;
}
extern "C" int hot_fn(int n) { return sum_to(n); }
)";
  const std::string ir = ClangCompiler().emit_llvm_ir(src).bytes;
  auto body = [&](const std::string& name) {
    const auto at = ir.find("@" + name + "(");
    REQUIRE(at != std::string::npos);
    return ir.substr(at, ir.find("\n}", at) - at);
  };
  const std::string cold = body("cold_fn"), hot = body("hot_fn");
  CAPTURE(cold);
  CAPTURE(hot);
  CHECK(cold.find("alloca") != std::string::npos);
  CHECK(cold.find("br ") != std::string::npos);
  CHECK(hot.find("alloca") == std::string::npos);
  CHECK(hot.find("call") == std::string::npos);  // sum_to inlined
}

TEST_CASE("ClangCompiler: exp loops vectorize through libmvec") {
  auto asm_text = ClangCompiler().emit_assembly(theano_test::exp_source()).bytes;
  // _ZGVeN8v_exp with AVX-512, _ZGVdN4v_exp with AVX2, _ZGVbN2v_exp on SSE2
  // (test_vector_math.cpp checks the width against the host).
  bool vectorized = asm_text.find("_ZGVeN8v_exp") != std::string::npos ||
                    asm_text.find("_ZGVdN4v_exp") != std::string::npos ||
                    asm_text.find("_ZGVbN2v_exp") != std::string::npos;
  CHECK_MESSAGE(vectorized, "no libmvec call in:\n" << asm_text.substr(0, 4000));
  CompileOptions generic;
  generic.march.clear();
  auto generic_asm = ClangCompiler(generic).emit_assembly(theano_test::exp_source()).bytes;
  CHECK(generic_asm.find("_ZGVbN2v_exp") != std::string::npos);
}

TEST_CASE("ClangCompiler: Loop Strength Reduction is skipped, on every code generation path") {
  // pass_gate.h: the gate on each module's context refuses LSR by its pass
  // name. The count rises only if LLVM still asks the gate under that name,
  // so a renamed pass (LSR silently back on) fails here.
  const std::string src = R"(
extern "C" void strided_sum(const char* x, long s0, long s1, long n0, long n1, double* out) {
  double a = 0;
  for (long i = 0; i < n0; ++i)
    for (long j = 0; j < n1; ++j) a += *(const double*)(x + i * s0 + j * s1);
  *out = a;
}
extern "C" void twice(double* y, const double* x, long n) {
  for (long k = 0; k < n; ++k) y[k] = 2 * x[k];
}
)";
  auto refused = [] { return theano::codegen::detail::skipped_loop_strength_reductions(); };
  SUBCASE("one object") {
    const auto before = refused();
    CHECK(is_elf_relocatable(ClangCompiler().compile(src).bytes));
    CHECK(refused() > before);
  }
  SUBCASE("code generation split over two threads, each part in its own context") {
    CompileOptions o;
    o.codegen_threads = 2;
    const auto before = refused();
    CHECK(!ClangCompiler(o).compile(src).bytes.empty());
    // two loops in strided_sum, at least two (vector body, remainder) in twice
    CHECK(refused() >= before + 4);
  }
  SUBCASE("assembly") {
    const auto before = refused();
    CHECK(ClangCompiler().emit_assembly(src).bytes.find("strided_sum") != std::string::npos);
    CHECK(refused() > before);
  }
}

TEST_CASE("ClangCompiler: the -O pipeline skips CalledValuePropagation") {
  // pass_gate.h: refused by name through the pipeline's instrumentation. The
  // count rises only if LLVM still schedules it under that name, so a
  // renamed pass (silently back on) fails here.
  const std::string src = R"(
static double scale(double x, double k) { return x * k; }
extern "C" void apply(double* y, const double* x, long n) {
  for (long i = 0; i < n; ++i) y[i] = scale(x[i], 3.0);
}
)";
  auto skipped = [] { return theano::codegen::detail::skipped_called_value_propagations(); };
  const auto before = skipped();
  CHECK(is_elf_relocatable(ClangCompiler().compile(src).bytes));
  CHECK(skipped() > before);
}

TEST_CASE("ClangCompiler: a compile error throws CompileError with diagnostics and the kept source") {
  const std::string src = "extern \"C\" int jit_entry() {\n  return undeclared_variable_x + 1;\n}\n";
  try {
    ClangCompiler().compile(src, "broken.cpp");
    FAIL("expected CompileError");
  } catch (const CompileError& e) {
    std::string what = e.what();
    CHECK(what.find("C++ compile failed") != std::string::npos);
    CHECK(e.diagnostics().find("use of undeclared identifier 'undeclared_variable_x'") != std::string::npos);
    CHECK(e.diagnostics().find(":2:10: error") != std::string::npos);  // line and column
    REQUIRE_FALSE(e.source_path().empty());
    CHECK(what.find(e.source_path()) != std::string::npos);
    CHECK(e.diagnostics().find(e.source_path() + ":2:") != std::string::npos);
    std::ifstream in(e.source_path());
    std::stringstream kept;
    kept << in.rdbuf();
    CHECK(kept.str() == src);
    CHECK(dynamic_cast<const theano::Error*>(&e) != nullptr);
  }
}

TEST_CASE("ClangCompiler: unusable options are refused") {
  CompileOptions o;
  o.cxxflags = {"-mllvm", "-debug-pass=Structure"};
  CHECK_THROWS_AS(ClangCompiler(o).compile(theano_test::elemwise_source()), theano::ValueError);
  CompileOptions bad;
  bad.cxxflags = {"-fthis-flag-does-not-exist"};
  CHECK_THROWS_WITH_AS(ClangCompiler(bad).compile(theano_test::elemwise_source()),
                       doctest::Contains("rejected the compile flags -c"), theano::ValueError);
  // A second input: two compile jobs, where the driver step takes exactly one.
  CompileOptions two;
  two.cxxflags = {"second_input.cpp"};
  CHECK_THROWS_WITH_AS(ClangCompiler(two).compile(theano_test::elemwise_source()),
                       doctest::Contains("rejected the compile flags"), theano::ValueError);
  CHECK_THROWS_AS(ClangCompiler().compile("int x;", "dir/name.cpp"), theano::ValueError);
}

TEST_CASE("ClangCompiler: warnings are kept only when asked for") {
  const char* src = "extern \"C\" int f(int a) { int unused = 3; return a; }\n";
  CHECK(ClangCompiler().compile(src).diagnostics.empty());
  CompileOptions o;
  o.warnings = true;
  o.cxxflags = {"-Wunused-variable"};
  CHECK(ClangCompiler(o).compile(src).diagnostics.find("unused variable 'unused'") != std::string::npos);
}

TEST_CASE("ClangCompiler: several threads compile at once") {
  constexpr int kThreads = 4, kPerThread = 3;
  std::vector<std::string> failures(kThreads);
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        CompileOptions o;
        o.opt = t % 2 ? OptLevel::O2 : OptLevel::O0;
        for (int i = 0; i < kPerThread; ++i) {
          auto obj = ClangCompiler(o).compile(theano_test::elemwise_source(t * 10 + i));
          if (is_elf_relocatable(obj.bytes)) ++ok[t];
        }
        // A failing compile on one thread must not disturb the others.
        try {
          ClangCompiler(o).compile("int broken(", "broken.cpp");
        } catch (const CompileError&) {
          ++ok[t];
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CHECK_MESSAGE(failures[t].empty(), failures[t]);
    CHECK(ok[t] == kPerThread + 1);
  }
}

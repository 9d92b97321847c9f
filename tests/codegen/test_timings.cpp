/// \file
/// Informational: prints compile and load times for the elementwise test TU (first
/// and warm, -O0 and -O2). Asserts only that everything works; times are reported,
/// never checked (performance is measured in bench/). Run it alone for true
/// first-in-process numbers: `codegen_tests -tc="*timings*"`.
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>

#include "codegen/jit_test_util.h"
#include "test_util.h"

#include <algorithm>
#include <chrono>

using namespace theano::codegen;

namespace {
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

TEST_CASE("timings (informational): compile and load of the elementwise TU") {
  for (OptLevel level : {OptLevel::O0, OptLevel::O2}) {
    CompileOptions o;
    o.opt = level;
    ClangCompiler cc(o);
    auto first = cc.compile(theano_test::elemwise_source(-1.0));
    std::vector<double> warm, load;
    for (int i = 0; i < 9; ++i) {
      auto obj = cc.compile(theano_test::elemwise_source(i));
      warm.push_back(obj.compile_ms);
      auto t0 = std::chrono::steady_clock::now();
      LoadedModule m = JitLoader::instance().load(obj.bytes, "timing");
      CHECK(m.symbol("jit_entry") != nullptr);  // links the module
      load.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    MESSAGE("-O" << static_cast<int>(level) << ": driver " << first.driver_ms << " ms, first compile "
                 << first.compile_ms << " ms, warm compile median " << median(warm)
                 << " ms, load+link median " << median(load) << " ms, object " << first.bytes.size()
                 << " bytes; LLJIT creation " << JitLoader::instance().jit_creation_ms() << " ms");
  }
}

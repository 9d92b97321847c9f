// The CUDA kernel builder (codegen/src/emit/kernel_builder.h): a parameter
// declared once is packed by the host and read by the kernel from the same
// slot. The host packing and a kernel built on the block are compiled
// together as plain C++ (the kernel called as a function), so a value that
// lands in the wrong slot shows as a wrong number.
#include <doctest/doctest.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/jit_loader.h>
#include <theano/runtime/error.h>

#include <string>

#include "../../codegen/src/emit/cuda_unit.h"
#include "../../codegen/src/emit/kernel_builder.h"

using namespace theano;
using namespace theano::codegen;

TEST_CASE("cuda kernel builder: host packing and kernel reads agree on every parameter kind") {
  cuda::ParamBlock pb;
  const cuda::Param n = pb.int64("n", "n_host");
  const cuda::Param x = pb.real("x", "x_host * 2");
  const cuda::Param out = pb.pointer("out", "double*", "out_host");
  const cuda::Param a = pb.array("a", 3, [](int i) { return std::to_string(10 + i); });
  const cuda::Param b = pb.array_loop("b", 4, "d * 7 - 1");
  const cuda::Param late = pb.int64("late", "0");
  CHECK(pb.size() == 1 + 1 + 1 + 3 + 4 + 1);
  cuda::Kernel k(pb, "kern", {n, x, out});
  k.w.line(pb.read(late));
  k.w.line("out[0] = (double)n;");
  k.w.line("out[1] = x;");
  for (int i = 0; i < 3; ++i) k.w.line("out[" + std::to_string(2 + i) + "] = (double)" + pb.at(a, i) + ";");
  k.w.line("for (int64_t d = 0; d < 4; ++d) out[5 + d] = (double)" + pb.at(b, "d") + ";");
  k.w.line("out[9] = (double)late;");
  CodeWriter host;
  host.open("extern \"C\" void run(double* out_host)");
  host.line("const int64_t n_host = 42;");
  host.line("const double x_host = 0.125;");
  pb.declare(host);
  host.line(pb.set(late, "-5"));
  host.line(pb.struct_name() + " q;");
  host.line("__builtin_memcpy(q.v, p, sizeof p);");
  host.line("kern(q);");
  host.close();
  const std::string source = "typedef long long int64_t;\n#define __global__\nstruct " + pb.struct_name() +
                             " { int64_t v[" + std::to_string(pb.size()) + "]; };\n" +
                             "static double theano_bits_double(int64_t b) { double d; __builtin_memcpy(&d, &b, 8); "
                             "return d; }\n" +
                             k.text() + host.str();
  CAPTURE(source);
  const CompiledObject obj = ClangCompiler().compile(source, "kernel_builder_test.cpp");
  LoadedModule m = JitLoader::instance().load(obj.bytes, "kernel_builder_test");
  double got[10] = {};
  m.function<void (*)(double*)>("run")(got);
  const double want[10] = {42, 0.25, 10, 11, 12, -1, 6, 13, 20, -5};
  for (int i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

TEST_CASE("cuda kernel builder: misuse is an InternalError, never a wrong slot") {
  cuda::ParamBlock pb;
  const cuda::Param n = pb.int64("n", "1");
  const cuda::Param a = pb.array("a", 2, [](int) { return std::string("0"); });
  CHECK_THROWS_AS(pb.int64("n", "2"), InternalError);  // a name twice
  CHECK_THROWS_AS(pb.read(a), InternalError);          // an array has no single local
  CHECK_THROWS_AS(pb.at(a, 2), InternalError);         // past its end
  CHECK_THROWS_AS(pb.at(n, "0"), InternalError);       // not an array
  CHECK_THROWS_AS(pb.read(cuda::Param{}), InternalError);
  CHECK_THROWS_AS(pb.array("big", static_cast<int>(cuda::kMaxKernelParams), [](int) { return std::string("0"); }),
                  InternalError);  // past the block's limit
}

TEST_CASE("cuda kernel builder: the elementwise block has the size the GPU transfer rewrite counts") {
  for (int nd : {0, 1, 3})
    for (int arrays : {2, 3, 5}) {
      CAPTURE(nd);
      CAPTURE(arrays);
      const cuda::ElemwiseParams ep(nd, arrays);
      CHECK(ep.block.size() == gpu::elemwise_kernel_params(nd, arrays));
    }
}

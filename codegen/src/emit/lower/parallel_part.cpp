// The outlined parallel part of a CPU node function (parallel_part.h).
#include "parallel_part.h"

namespace theano::codegen::lower {

void ParallelPart::open(CodeWriter& f) const {
  f.open(std::string(noinline ? "__attribute__((noinline)) " : "") + "static void " + name +
         "(void* args_, int64_t lo, int64_t hi, int64_t" + (index.empty() ? "" : " " + index) + ")");
  f.line("const " + args_t + "* " + args + " = (const " + args_t + "*)args_;");
}

std::string ParallelPart::run(const std::string& n, const std::string& min_part, const std::string& args_value) const {
  return "theano_parallel(ctx, " + n + ", " + min_part + ", &" + name + ", &" + args_value + ")";
}

std::string ParallelPart::call(const std::string& n, const std::string& args_value) const {
  return name + "(&" + args_value + ", 0, " + n + ", 0);";
}

}  // namespace theano::codegen::lower

/// \file
/// The outlined parallel part of a CPU node function (internal to codegen/):
/// a file-scope function `void <name>(void* args_, int64_t lo, int64_t hi,
/// int64_t part)` over a range of a loop, reading the node's arrays and
/// sizes from a small struct, that the prelude's theano_parallel splits
/// across the loop threads (or calls once over the whole range).
///
/// Why one place: the elementwise, reduction and sparse lowerings all
/// outline their large loops this way (plain functions and a struct cost the
/// -O2 pipeline much less than lambdas); the part signature and the call are
/// the prelude's TheanoPart ABI, written here once.
#pragma once

#include <theano/codegen/code_writer.h>

#include <string>

namespace theano::codegen::lower {

struct ParallelPart {
  std::string name;           ///< the function's name
  std::string args_t;         ///< the struct its argument points to
  std::string args = "args";  ///< the local `const <args_t>*` the body reads
  std::string index;          ///< the part index parameter's name ("" when unused)
  bool noinline = false;      ///< keep it out of line (its loop stays one function)

  /// Opens the function in `f` (file scope) and declares `args`; the caller
  /// writes the loop over [lo, hi) and closes it (f.close()).
  void open(CodeWriter& f) const;
  /// The expression running the part over [0, n) in parts of at least
  /// `min_part` indices with the struct `args_value` (an lvalue); its value
  /// is the number of parts.
  std::string run(const std::string& n, const std::string& min_part, const std::string& args_value) const;
  /// The statement running it once, over [0, n), here.
  std::string call(const std::string& n, const std::string& args_value) const;
};

}  // namespace theano::codegen::lower

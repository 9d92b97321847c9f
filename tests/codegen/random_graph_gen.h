/// \file
/// The adversarial random-graph generator shared by the differential test
/// (tests/codegen/test_random_graphs.cpp, a CI slice) and the fuzz driver
/// (bench/fuzz.cpp, 10^5 graphs in child processes).
///
/// A `Program` is data: typed inputs with fixed shapes (0-size and 1-size
/// dimensions, 0-size arrays with a dimension near 2^62, static 1s that
/// broadcast), int64 size scalars with adversarial values (0, -1, 2^62+1,
/// INT64_MAX, ...) and a list of `Step`s. `build` turns it into a graph; a
/// step that does not type-check, or whose result would be a large array
/// (memory the reference would really allocate), is skipped, so any
/// subsequence of the steps is still a program and the shrinker can remove
/// steps freely. The generator follows every value's concrete shape (an
/// oracle) so that most steps are valid; steps whose sizes are wrong on
/// purpose (a reshape to (4, 2^62+1), alloc of (2^40, 2^40), split sizes
/// summing past int64, an index out of range) must raise the same error kind
/// from the cpp linker as from perform.
///
/// `check` compiles the graph with the cpp linker (generated code only, no
/// perform fallback) and compares it with the PerformLinker on three input
/// layouts (contiguous; strided, last dimension reversed; every dimension
/// reversed by a negative stride); with `Program::fast_run` also through
/// function() in fast_run (inplace rewrites, fusion, some inputs mutable);
/// with `Program::grad` the gradient of a scalar sum of the float outputs
/// with respect to the float inputs is compared too. Nothing here uses doctest.
#pragma once

#include <theano/graph/basic.h>
#include <theano/runtime/dtype.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace theano::fuzz {

/// One function input: dtype, concrete shape (the same in every round) and
/// which dimensions the type declares (static size, so size-1 ones broadcast).
struct InputSpec {
  DType dtype = DType::Float64;
  std::vector<std::int64_t> shape;
  std::vector<bool> declared;
};

/// One step: an op kind, two operand picks and a parameter.
struct Step {
  int kind = 0;
  std::uint32_t a = 0, b = 0, param = 0;
};

struct Program {
  std::vector<InputSpec> inputs;
  /// Values of the 0-d int64 size inputs (after the tensor inputs).
  std::vector<std::int64_t> sizes;
  std::vector<Step> steps;
  std::uint32_t out_pick = 0;
  /// Also compile through function() in fast_run (inplace rewrites), with
  /// the inputs whose bit is set in `mutable_mask` declared In(mutable).
  bool fast_run = false;
  std::uint32_t mutable_mask = 0;
  /// Also compare the gradient of sum(float outputs) w.r.t. the float inputs.
  bool grad = false;
};

/// Program number `index` of the stream `seed` (independent of the others, so
/// a driver can run any slice of a stream).
Program random_program(std::uint64_t seed, std::uint64_t index);

/// Seed of the input values of program `index` of stream `seed`.
std::uint64_t value_seed(std::uint64_t seed, std::uint64_t index);

/// What the checked graphs exercised (summed over `check` calls), so a run
/// can show that its graphs are not all trivial.
struct CheckStats {
  long graphs = 0;
  long steps = 0, steps_built = 0;     ///< steps generated / turned into a node
  std::map<std::string, long> built;   ///< per step kind name
  long rounds_compared = 0;            ///< layouts where both linkers returned values
  long empty_outputs = 0;              ///< outputs with no element compared there
  std::map<std::string, long> errors;  ///< layouts where both raised, by kind
  long fast_run = 0, grads = 0;        ///< graphs also run by function(fast_run) / with a gradient
  void add(const CheckStats& o);
  std::string text() const;            ///< one paragraph
  std::string serialize() const;       ///< one line, for a child to hand back
  static CheckStats deserialize(const std::string& line);
};

/// "" when every linker agrees with perform on every layout, else what differs.
std::string check(const Program& p, std::uint64_t values_seed, CheckStats* stats = nullptr);

/// Removes steps (and then the fast_run / grad parts) while `fails` still
/// holds; returns the smallest program found.
template <class Fails>
Program shrink(Program p, Fails&& fails) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      Program q = p;
      q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(k));
      if (fails(q)) {
        p = std::move(q);
        progress = true;
        break;
      }
    }
  }
  for (bool Program::*flag : {&Program::grad, &Program::fast_run}) {
    if (!(p.*flag)) continue;
    Program q = p;
    q.*flag = false;
    if (fails(q)) p = std::move(q);
  }
  return p;
}

/// The in-process shrinker: steps removed while `check` still fails.
Program shrink(const Program& p, std::uint64_t values_seed);

/// A readable description: the inputs (dtype, shape, declared dims), the size
/// values, the flags and the graph (debugprint).
std::string describe(const Program& p);

/// Text form of a program (one line) and its parser, so a driver can hand a
/// shrunk candidate to a child process.
std::string serialize(const Program& p);
Program deserialize(const std::string& text);

}  // namespace theano::fuzz

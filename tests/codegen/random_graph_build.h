/// \file
/// The graph builder of the random-graph generator (internal to the fuzzer:
/// random_graph_gen.cpp and random_graph_build.cpp): the value tables the
/// program generator and the builder share, and `build`, which turns a
/// Program into a graph while following every value's concrete shape.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "codegen/random_graph_gen.h"
#include "theano/tensor/type.h"

namespace theano::fuzz::detail {

inline constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
/// Step kinds past the original 27 (random_graph_control.cpp): a float32
/// round trip inside a float64 loop, scan with adversarial taps and n_steps,
/// a chain of ifelse.
inline constexpr int kKindCastF32 = 27, kKindScan = 28, kKindIfElseChain = 29;
inline constexpr int kKinds = 30;

/// The input dtypes (float64 twice: the first input is usually float64).
inline constexpr DType kDTypes[] = {DType::Float64, DType::Float64, DType::Float32, DType::Int8,
                                    DType::Int32,   DType::Int64,   DType::Bool,    DType::UInt8};
/// Values of the int64 size scalars: small, negative, and near the int64 limits.
inline constexpr std::int64_t kSizeValues[] = {0,
                                               1,
                                               2,
                                               3,
                                               4,
                                               -1,
                                               -2,
                                               std::int64_t{1} << 62,
                                               (std::int64_t{1} << 62) + 1,
                                               kMax,
                                               kMin,
                                               std::int64_t{1} << 32,
                                               (std::int64_t{1} << 31) - 1,
                                               std::int64_t{1} << 40,
                                               5,
                                               6};
/// Huge dimensions of empty inputs.
inline constexpr std::int64_t kHuge[] = {std::int64_t{1} << 62, kMax, std::int64_t{1} << 40,
                                         (std::int64_t{1} << 31) + 1};

/// A 64-bit mix (splitmix64's finalizer): seeds from (stream, index).
inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Element count of `shape`: nullopt when it (or its byte count) does not fit in int64.
inline std::optional<std::int64_t> element_count(const std::vector<std::int64_t>& shape, std::size_t itemsize = 8) {
  __int128 n = 1;
  bool zero = false;
  for (std::int64_t s : shape) {
    if (s < 0) return std::nullopt;
    if (s == 0) zero = true;
  }
  for (std::int64_t s : shape) {
    n *= s == 0 ? 1 : s;  // strides of the other dimensions must fit even when one is 0
    if (n * static_cast<__int128>(itemsize) > kMax) return std::nullopt;
  }
  return zero ? 0 : static_cast<std::int64_t>(n);
}

/// Larger non-empty results are skipped: the reference would really allocate them.
constexpr std::int64_t kMaxElements = 1 << 15;

/// One value of the pool: the variable and what the generator knows about it.
struct Entry {
  Var v;
  std::vector<std::int64_t> shape;   ///< its concrete shape (meaningless when poison)
  bool fuzzy = false;                ///< may differ by rounding between linkers (float32, dot, softmax)
  bool poison = false;               ///< computing it raises (a deliberate bad size or index)
  std::optional<std::int64_t> ival;  ///< 0-d int64 with a known value (size inputs, shape_i)
};

inline DType dtype_of(const Var& v) { return tensor::tensor_type(v)->dtype(); }

/// The graph of a Program: its inputs, outputs and what the comparison needs.
struct Built {
  std::vector<Var> inputs;   ///< tensor inputs then size scalars
  std::vector<Var> outputs;  ///< forward outputs, then gradients
  bool any_float32 = false;
  std::vector<bool> fuzzy;  ///< per output
  std::size_t n_grads = 0;  ///< the last outputs that are gradients
};

/// Builds the graph of `p`. Steps that do not type-check, or whose result
/// could not be allocated, are skipped.
Built build(const Program& p, CheckStats* stats = nullptr);

/// One step over the values built so far (`pool`: the inputs, then the
/// results of the earlier steps): its result, or an Entry whose `v` is null
/// when the step does not apply to those values.
Entry build_step(const Step& s, const std::vector<Entry>& pool);

/// The control-flow and precision steps (kinds kKindCastF32 and up), in
/// random_graph_control.cpp; build_step hands them on.
Entry build_control_step(const Step& s, const std::vector<Entry>& pool);

}  // namespace theano::fuzz::detail

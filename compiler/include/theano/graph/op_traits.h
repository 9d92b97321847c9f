/// \file
/// Facts an Op states about itself for the passes that would otherwise keep a
/// list of op classes: where its GPU form keeps each input and output
/// (GpuPlacement, asked by the GPU transfer rewrite) and which inplace forms
/// it has (InplaceVariant, asked by the inplace stages). The Op members that
/// return them (`Op::gpu_form`, `Op::inplace_variants`, `Op::foldable`) are
/// overridden beside each op's own declaration (theano/graph/op.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "theano/graph/intrusive.h"

namespace theano {

class Op;

/// Where a host op's GPU form (gpu::GpuOp) keeps a node's values.
struct GpuPlacement {
  std::vector<bool> inputs;   ///< per input: a GPU array (true) or a host value (shapes, indices, alpha)
  std::vector<bool> outputs;  ///< per output; empty: every output is a GPU array

  /// Every one of `nin` inputs on the GPU (`on_gpu`), or none (ops made
  /// from host scalars alone; the GpuOp then names its context).
  static GpuPlacement all(int nin, bool on_gpu = true) {
    return {std::vector<bool>(static_cast<std::size_t>(nin < 0 ? 0 : nin), on_gpu), {}};
  }
  /// Only the listed inputs (those below `nin`) on the GPU.
  static GpuPlacement only(int nin, std::initializer_list<int> gpu_inputs) {
    GpuPlacement p = all(nin, false);
    for (int i : gpu_inputs)
      if (i >= 0 && i < nin) p.inputs[static_cast<std::size_t>(i)] = true;
    return p;
  }
};

/// The inplace stage of the pipeline (rewrite/optdb_layout.cpp) that
/// offers an op its inplace form.
enum class InplaceStage : std::uint8_t {
  SetSubtensor,  ///< inplace_setsubtensor
  Blas,          ///< blas_opt_inplace
  Elemwise,      ///< inplace_elemwise
  Random,        ///< inplace_random
};

/// An inplace form of a node's op: `op`, whose output 0 overwrites input `input`.
struct InplaceVariant {
  InplaceStage stage;
  int input = 0;
  IntrusivePtr<const Op> op;
  /// The op itself requires the input's shape, so the input's type may
  /// differ from the output's in static detail.
  bool op_checks_shape = false;
};

}  // namespace theano

/// \file
/// Facts an Op states about itself for the passes that would otherwise keep a
/// list of op classes: where its GPU form keeps each input and output
/// (GpuPlacement, asked by the GPU transfer rewrite), which inplace forms
/// it has (InplaceVariant, asked by the inplace stages) and how generated
/// code computes it from kernel text alone (KernelForm, asked by codegen's
/// generic lowerings). The Op members that return them (`Op::gpu_form`,
/// `Op::inplace_variants`, `Op::foldable`, `Op::kernel_form`) are overridden
/// beside each op's own declaration (theano/graph/op.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "theano/graph/intrusive.h"
#include "theano/runtime/dtype.h"

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

/// The dtypes and ranks of a node's inputs and outputs: what an op's kernel
/// form depends on. The same for a host node and its GPU form's node.
struct KernelSignature {
  std::vector<DType> in_dtypes, out_dtypes;
  std::vector<int> in_ndims, out_ndims;
};

/// How generated code computes a node by calling one function of the shared
/// kernel text (runtime/include/theano/runtime/kernels/<file>), the text the
/// op's perform runs too. Codegen has one generic lowering per kind and
/// target (codegen/src/emit/lower/kernel_form.cpp), so an op with a kernel
/// form needs no lowering file of its own, on the CPU or the GPU
/// (docs/adding-an-op.md).
struct KernelForm {
  enum class Kind : std::uint8_t {
    /// One input, one output of the input's shape (its dtype may differ).
    /// `function` is called once per line along `axis`, as
    ///   void function(const char* x, int64_t x_stride, char* o, int64_t o_stride, int64_t n)
    /// with byte strides and n the axis's length (never called when the
    /// input is empty). It may read x only through its line and must write
    /// all n elements of o's; x and o may be the same line (perform may
    /// run it in place). On the GPU one thread runs one line.
    Lines,
    /// Lines whose output line has `out_len` elements (the output: the
    /// input's shape with `out_len` along the axis). `function` is called as
    ///   void function(const char* x, int64_t x_stride, char* o, int64_t o_stride, int64_t n, int64_t m)
    /// with m = out_len and must write all m elements; generated code fails
    /// with a ValueError when an input line is shorter than m (n < m), and
    /// never calls it when the output is empty. x and o are distinct.
    LinesResized,
  };
  Kind kind = Kind::Lines;
  std::string file;      ///< the kernel file's name in runtime/kernels/, e.g. "cumulative.h"
  std::string function;  ///< the C function the call names, e.g. "theano_cumsum_f64"
  int axis = 0;          ///< Lines: the axis the lines run along (non-negative, below the rank)
  std::int64_t out_len = -1;  ///< LinesResized: the output's length along the axis (>= 1)
};

/// The suffix the kernel files give the function of one element type:
/// "f64", "f32", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8"; empty
/// for bool, float16 and complex (no kernel takes them).
std::string_view kernel_dtype_suffix(DType d);

}  // namespace theano

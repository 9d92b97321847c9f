/// \file
/// Reductions: the `CAReduce` family (sum, prod, max, min, all, any and the
/// ProdWithoutZeros helper of prod's gradient), `Argmax` / `Argmin`, and
/// mean / var / std built as graphs of those primitives.
///
/// Why one Op for the family: Theano's CAReduce is "a commutative-associative
/// scalar op folded over some axes"; rewrites and code generation treat sum,
/// prod, max, ... uniformly, told apart by `scalar_op()` ("add", "mul",
/// "maximum", "minimum", "and", "or", "mul_without_zeros").
///
/// Invariants: a CAReduce node's axes are sorted, unique and in range for its
/// input; its output drops those axes (keepdims is a DimShuffle added after
/// the reduction, as Theano and PyTensor do, so rewrites see one form). The
/// output dtype follows NumPy: sum/prod of bool and signed ints narrower than
/// int64 give int64, of unsigned ints uint64, floats and complex keep their
/// dtype; the accumulator is the output dtype except float16, which
/// accumulates in float32. max/min keep the input dtype, all/any give bool.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/runtime/dtype.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/axes.h"
#include "theano/tensor/scalar.h"

namespace theano::tensor {

/// What a CAReduce computes, told by its scalar op's name; one table for
/// perform and the code generator.
enum class ReduceKind { Add, Mul, Max, Min, And, Or, MulNoZeros };
/// The kind of "add", "mul", "maximum", "minimum", "and", "or" or
/// "mul_without_zeros"; ValueError naming the valid ones for anything else.
ReduceKind reduce_kind(std::string_view scalar_op);
/// Sum and the products: they accumulate in acc_dtype.
inline bool is_arith(ReduceKind k) {
  return k == ReduceKind::Add || k == ReduceKind::Mul || k == ReduceKind::MulNoZeros;
}

class CAReduce final : public Op {
 public:
  /// `scalar_op`: one of "add", "mul", "maximum", "minimum", "and", "or",
  /// "mul_without_zeros" (ValueError otherwise). `axes`: the axes to reduce
  /// (checked against the input in make_node). `dtype` / `acc_dtype`: output and
  /// accumulator dtypes; unset means the NumPy defaults described above.
  ///
  /// `pre` (elemwise fusion into a reduction, `sum(x * y)` in one loop): a
  /// single-output scalar op applied elementwise to the node's inputs, whose
  /// result is what gets reduced; the inputs then all have one broadcast
  /// pattern. Without it the node takes exactly one input.
  CAReduce(std::string scalar_op, std::vector<int> axes, std::optional<DType> dtype = {},
           std::optional<DType> acc_dtype = {}, ScalarOpPtr pre = {});
  THEANO_OP_DECLARE("CAReduce")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  /// `Sum{axes=(0,)}`, `Max{axes=(0, 1)}`, `Sum{axes=(1,), acc_dtype=float64}`.
  std::string name() const override;

  ReduceKind kind() const { return reduce_kind(scalar_op_); }
  /// The same reduction without `pre`, and with `pre` set to `f`.
  OpPtr plain() const;
  OpPtr with_pre(ScalarOpPtr f) const;
  /// Output dtype for an input of dtype `in`.
  DType out_dtype(DType in) const;
  /// Accumulator dtype for an input of dtype `in`.
  DType acc_dtype(DType in) const;

  /// sum: gz broadcast back; prod: Theano's zero-aware rule; max/min: gz routed
  /// to the positions equal to the result; all/any, mul_without_zeros and
  /// integer inputs: no gradient (null Var).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

 private:
  /// With `pre`: the unfused pair (Elemwise(pre) over the inputs, then the
  /// plain reduction), for perform, shapes and the gradient.
  struct Unfused {
    ApplyPtr elemwise, reduce;
  };
  Unfused unfused(const std::vector<Var>& inputs) const;

  // dtype, acc_dtype (unset: the NumPy defaults) and pre (the fused elementwise
  // op, null for a plain reduction) are props only when set.
  THEANO_OP_PROPS((std::string, scalar_op), (std::vector<int>, axes), (std::optional<DType>, dtype, std::nullopt),
                  (std::optional<DType>, acc_dtype, std::nullopt), (ScalarOpPtr, pre, nullptr))
};

/// Index of the largest (Argmax) or smallest (Argmin) element along `axes`
/// (several axes are flattened in C order, as numpy does for axis=None); int64
/// output. The first occurrence wins, and NaN counts as the extreme value.
class ArgReduce final : public Op {
 public:
  /// `is_max`: Argmax, else Argmin.
  ArgReduce(bool is_max, std::vector<int> axes);
  std::string_view type_name() const override { return is_max_ ? "Argmax" : "Argmin"; }
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  bool is_max() const { return is_max_; }

  ApplyPtr make_node(std::vector<Var> inputs) const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& input_shapes) const override;
  /// Indices are piecewise constant: the input gets no gradient (null Var).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool is_max_;  // not a prop: it picks the type name, Argmax or Argmin

  THEANO_OP_PROPS((std::vector<int>, axes))
};

/// NumPy's default dtype of sum/prod for input dtype `in` (see the file comment).
DType sum_default_dtype(DType in);

/// `x.sum(axes)`; `acc_dtype` sets the accumulator, `dtype` the output (both
/// default as NumPy does).
Var sum(const TensorLike& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> acc_dtype = {},
        std::optional<DType> dtype = {});
Var prod(const TensorLike& x, const Axes& axes = {}, bool keepdims = false, std::optional<DType> acc_dtype = {},
         std::optional<DType> dtype = {});
Var max(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
Var min(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
/// Logical reductions (bool output). Spelled with a trailing underscore because
/// `tensor::all` is the `:` slice of index.h.
Var all_(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
Var any_(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
/// Theano's ProdWithoutZeros (product of the non-zero elements), used by prod's gradient.
Var prod_without_zeros(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);

/// `axis` unset: over the flattened array (numpy's axis=None).
Var argmax(const TensorLike& x, std::optional<int> axis = {}, bool keepdims = false);
Var argmin(const TensorLike& x, std::optional<int> axis = {}, bool keepdims = false);

/// sum / count. Integer inputs give float64; float32, float16 and complex64 keep
/// their dtype (float16 sums in float32).
Var mean(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
/// mean((x - mean(x))^2) with `ddof` subtracted from the count (numpy.var).
Var var(const TensorLike& x, const Axes& axes = {}, int ddof = 0, bool keepdims = false);
/// log(sum(exp(x), axes)) computed stably in every mode, fast_compile included:
/// x is shifted by its maximum m along `axes` (0 where m is infinite), so
/// log(sum(exp(x - m))) + m neither overflows nor loses the large terms. The
/// shift is a constant for the gradient (the terms it adds cancel exactly), so
/// the gradient is softmax(x) * g, finite where an entry is -inf. Float inputs.
Var logsumexp(const TensorLike& x, const Axes& axes = {}, bool keepdims = false);
/// sqrt(var(...)) (numpy.std).
Var std(const TensorLike& x, const Axes& axes = {}, int ddof = 0, bool keepdims = false);

/// The number of elements reduced when `x` is reduced over `axes`, as a scalar
/// of `dtype`: a constant when the static shape knows those sizes, else a
/// product of Shape_i.
Var reduced_count(const Var& x, const std::vector<int>& axes, DType dtype);

}  // namespace theano::tensor

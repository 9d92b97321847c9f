/// \file
/// The ops sparse graphs run as (after the stage "sparse_expand", see ops.h):
/// dense arrays in, dense arrays out. A matrix is given by its components
/// (data, indices, indptr: vectors; shape: an int64 vector of 2); every op
/// checks them with theano_csm_rule (runtime/kernels/shape_rules.h) before reading,
/// in perform and in generated code alike, so malformed components are a
/// ValueError and never an out-of-bounds access. The loops are the C
/// kernels of sparse_kernels.h, shared by perform and the lowering.
///
/// Values of float32, float64, int32 or int64 (is_sparse_value_dtype); the
/// dense operands of one op share data's dtype.
#pragma once

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/runtime/sparse_matrix.h"
#include "theano/sparse/type.h"

namespace theano::sparse {

/// Base of the component ops: a `format` prop.
class ComponentOp : public Op {
 public:
  explicit ComponentOp(SparseFormat format) : format_(format) {}
  bool csr() const { return format_ == SparseFormat::CSR; }

  THEANO_OP_PROPS((SparseFormat, format))
};

/// (data, indices, indptr, shape, D) -> S . D (dense, shape[0] x D's
/// columns). CSR: one output row per stored row; CSC: columns of the output
/// split between threads. Theano's StructuredDotCSR / StructuredDotCSC.
class SpMM final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("SpMM")
};

/// (indices, indptr, shape, X, Y) -> vals, vals[k] = X[r, :] . Y[c, :] at
/// each stored (r, c).
class SampledDot final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("SampledDot")
};

/// (indices, indptr, shape, M) -> vals, vals[k] = M[r, c] at each stored (r, c).
class SparseGather final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("SparseGather")
};

/// (data, indices, indptr, shape) -> the dense matrix (repeats added).
class ComponentsToDense final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("ComponentsToDense")
};

/// (data, indices, indptr, shape) of a matrix in `format` -> (data, indices,
/// indptr) of the same matrix in the other format (SciPy's csr_tocsc; one
/// serial counting sort). sparse_dot puts it before a CSC product, which then
/// runs as the CSR kernel: reading D's rows once per stored value and writing
/// each output row once costs less than scattering into random output rows.
class SwapFormat final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("SwapFormat")
};

/// M (dense matrix) -> (data, indices, indptr) of its non-zeros in `format`
/// (canonical indices). Output sizes depend on the values: perform only.
class DenseToComponents final : public ComponentOp {
 public:
  using ComponentOp::ComponentOp;
  THEANO_OP_DECLARE("DenseToComponents")
};

/// (x data, indices, indptr, shape, y data, indices, indptr, shape) of two
/// matrices in `format` -> (data, indices, indptr) of x + y (`mul` false:
/// the union of the patterns; Theano's add_s_s) or x * y (`mul` true: the
/// intersection; mul_s_s), rows with sorted indices (theano_sparse_merge:
/// stored zeros stay stored). The operands must have one shape; an operand
/// with an unsorted row is sorted first (theano_sparse_sort_rows, two
/// counting sorts; canonical operands, the usual case, are only checked).
/// Two passes over the rows (count, then fill), each split between threads.
class SparseMerge final : public ComponentOp {
 public:
  SparseMerge(SparseFormat format, bool mul) : ComponentOp(format), mul_(mul) {}
  THEANO_OP_DECLARE("SparseMerge")
  // By hand: the base's `format`, then `op` printed from the `mul` flag ("mul" / "add").
  Props props() const override {
    return {{"format", std::string(to_string(format()))}, {"op", std::string(mul_ ? "mul" : "add")}};
  }
  bool mul() const { return mul_; }

 private:
  bool mul_;
};

/// (data, indices, indptr, shape, v) -> vals, vals[k] = data[k] * v[c]
/// (`mul`: Theano's mul_s_v) or data[k] + v[c] (structured_add_s_v) at each
/// stored (r, c); v: a vector of the matrix's column count, data's dtype.
class SparseRowVector final : public ComponentOp {
 public:
  SparseRowVector(SparseFormat format, bool mul) : ComponentOp(format), mul_(mul) {}
  THEANO_OP_DECLARE("SparseRowVector")
  // By hand: the base's `format`, then `op` printed from the `mul` flag ("mul" / "add").
  Props props() const override {
    return {{"format", std::string(to_string(format()))}, {"op", std::string(mul_ ? "mul" : "add")}};
  }
  bool mul() const { return mul_; }

 private:
  bool mul_;
};

/// (alpha, data, indices, indptr, shape, D, Z) -> Z + alpha * S . D: what
/// local_usmm makes of `alpha * structured_dot(S, D) + Z` (Theano's Usmm).
/// alpha: a 0-d tensor (converted to Z's dtype); Z: S's rows x D's columns.
/// Each stored value adds (alpha * value) * D's row into Z's row, so the
/// rounding differs from the unfused graph's by a few ulps. `inplace`: the
/// output overwrites Z (destroy_map {0: [6]}; the blas_opt_inplace stage).
class Usmm final : public ComponentOp {
 public:
  explicit Usmm(SparseFormat format, bool inplace = false) : ComponentOp(format), inplace_(inplace) {}
  THEANO_OP_DECLARE("Usmm")
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  // By hand: the base's `format`, then `inplace`.
  Props props() const override {
    return {{"format", std::string(to_string(format()))}, {"inplace", inplace_}};
  }
  bool inplace() const { return inplace_; }
  /// `Usmm{csr,inplace}` / `Usmm{csc,no_inplace}`.
  std::string name() const override {
    return std::string("Usmm{") + to_string(format()) + (inplace_ ? ",inplace}" : ",no_inplace}");
  }
  ViewMap destroy_map() const override;

 private:
  bool inplace_;
};

namespace detail {
/// The checked (major, minor) of components for `op`: theano_csm_rule over
/// them, `n_data` stored values; throws the rule's error naming the op.
std::pair<int64_t, int64_t> check_components(const std::string& op, SparseFormat format, const NDArray& indices,
                                             const NDArray& indptr, const NDArray& shape, int64_t n_data);
}  // namespace detail

}  // namespace theano::sparse

/// \file
/// SparseType: a compressed sparse matrix (CSR or CSC) of float32, float64,
/// int32 or int64 values, Theano's SparseVariable type.
///
/// Why a graph-only type: a sparse matrix's value is its components (data,
/// indices, indptr, shape; runtime/sparse_matrix.h), and every linker moves
/// only dense arrays. Before a function is linked, the stage "sparse_expand"
/// (rewrite/sparse.cpp) rewrites each sparse op into ops over the components
/// (theano/sparse/components.h) and cancels csm_properties(CSM(...)), so no
/// SparseType variable survives into the compiled graph; what the user sees
/// (types, printing, grad) stays sparse.
#pragma once

#include <string>

#include "theano/graph/basic.h"
#include "theano/graph/type.h"
#include "theano/runtime/sparse_matrix.h"

namespace theano {
/// A SparseFormat as an op prop: "csr" / "csc" (theano/graph/op_props.h).
inline PropValue theano_prop_value(SparseFormat f) { return std::string(to_string(f)); }
}  // namespace theano

namespace theano::sparse {

class SparseType final : public Type {
 public:
  /// The interned type; TypeError unless is_sparse_value_dtype(dtype).
  static IntrusivePtr<const SparseType> make(SparseFormat format, DType dtype);

  SparseFormat format() const noexcept { return format_; }
  DType dtype() const noexcept { return dtype_; }

  /// `SparseType{csr, float64}`.
  std::string str() const override;
  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  /// A sparse value never travels as one NDArray: TypeError saying so.
  NDArray filter(const NDArray& value, bool strict = false, bool allow_downcast = false) const override;

 private:
  SparseType(SparseFormat format, DType dtype) : format_(format), dtype_(dtype) {}
  SparseFormat format_;
  DType dtype_;
};
using SparseTypePtr = IntrusivePtr<const SparseType>;

/// Whether a sparse matrix may hold values of `dtype`: float32, float64,
/// int32, int64 (the kernels of sparse_kernels.h exist for these).
bool is_sparse_value_dtype(DType dtype);
/// The SparseType of `v`, or nullptr.
const SparseType* sparse_type(const Var& v);
/// Whether any variable of the graph from `outputs` back is sparse.
bool graph_has_sparse(const std::vector<Var>& outputs);

}  // namespace theano::sparse

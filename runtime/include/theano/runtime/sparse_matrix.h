/// \file
/// A compressed sparse matrix value (SciPy's CSR and CSC formats): the four
/// components data, indices, indptr and shape, validated on construction.
///
/// Why four dense arrays and not a new kind of value: every value the runtime
/// moves (function arguments, thunk storage, generated code) is an NDArray.
/// A sparse matrix travels as its components, the way Theano's C code passes
/// CSM properties and JAX's BCOO is a pytree of dense arrays; the graph-level
/// SparseType (compiler/include/theano/sparse/type.h) is expanded into them
/// before linking.
///
/// Representation: indices and indptr are int64 (int32 input, SciPy's
/// default, is widened on construction); data has any real dtype. Indices
/// within a row (CSR) or column (CSC) may be unsorted and may repeat, as in
/// SciPy; repeats add up wherever the matrix is used. Malformed components
/// throw ValueError naming the broken invariant (theano_csm_rule).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "theano/runtime/ndarray.h"

namespace theano {

enum class SparseFormat { CSR, CSC };
/// "csr" / "csc".
const char* to_string(SparseFormat f);
/// "csr" / "csc" -> the format; ValueError otherwise.
SparseFormat sparse_format_from_string(const std::string& s);

class SparseMatrix {
 public:
  SparseMatrix() = default;
  /// Validates (theano_csm_rule) and keeps the components; indices and indptr
  /// become C-contiguous int64 vectors, data a C-contiguous vector.
  SparseMatrix(SparseFormat format, NDArray data, NDArray indices, NDArray indptr, std::array<int64_t, 2> shape);

  /// The stored entries of a 2-d array: its non-zeros, in row-major order for
  /// CSR, column-major for CSC (sorted indices, no repeats).
  static SparseMatrix from_dense(const NDArray& dense, SparseFormat format);
  /// A C-contiguous dense array of data's dtype (repeated entries added).
  NDArray to_dense() const;

  bool defined() const { return data_.defined(); }
  SparseFormat format() const { return format_; }
  DType dtype() const { return data_.dtype(); }
  const NDArray& data() const { return data_; }
  const NDArray& indices() const { return indices_; }
  const NDArray& indptr() const { return indptr_; }
  const std::array<int64_t, 2>& shape() const { return shape_; }
  /// The shape as an int64 vector of 2 (CSM's fourth input).
  NDArray shape_array() const;
  int64_t nnz() const { return data_.size(); }
  /// Whether the indices of every row (CSR) / column (CSC) strictly increase.
  bool has_canonical_indices() const;

  /// The transpose with no copy: a CSR matrix's components read as CSC of the
  /// transposed shape, and the reverse.
  SparseMatrix transposed() const;
  /// The same matrix in `format` (a copy when the format differs), canonical
  /// indices. MemoryError (never std::bad_alloc) when the copy cannot be
  /// allocated; to_dense likewise.
  SparseMatrix as_format(SparseFormat format) const;

  /// "SparseMatrix(csr, float64, shape=(3, 4), nnz=5)".
  std::string str() const;

 private:
  SparseMatrix converted(SparseFormat format) const;  // as_format's work

  SparseFormat format_ = SparseFormat::CSR;
  NDArray data_, indices_, indptr_;
  std::array<int64_t, 2> shape_{0, 0};
};

/// What load_npz decompresses at most by default (all members together): 4 GiB.
inline constexpr uint64_t kLoadNpzDefaultMaxBytes = uint64_t{4} << 30;

/// Reads a `scipy.sparse.save_npz` file (compressed or not; formats csr and
/// csc). IOError for an unreadable or malformed file, for duplicate member
/// names, for members declaring more than `max_bytes` uncompressed in all, and
/// for a member larger than its declared shape and nnz allow (all refused
/// before decompressing); ValueError for components that break the
/// invariants; MemoryError when a member cannot be allocated.
SparseMatrix load_npz(const std::string& path, uint64_t max_bytes = kLoadNpzDefaultMaxBytes);
/// Writes `m` as `scipy.sparse.save_npz` does (compressed), readable by
/// `scipy.sparse.load_npz`; indices and indptr as int32 when they fit, as
/// SciPy writes them.
void save_npz(const std::string& path, const SparseMatrix& m);

}  // namespace theano

/// \file
/// Sparse matrices in graphs (Theano's theano.sparse): building a sparse
/// variable from its components (CSM) and reading them back
/// (CSMProperties), dense conversion both ways, transpose,
/// structured_dot (sparse x dense -> dense) with its structured gradient,
/// and the elementwise sparse-sparse and sparse-vector ops (add_s_s,
/// mul_s_s, mul_s_v, structured_add_s_v).
///
/// These ops carry types, shapes and gradients; they never run as such. The
/// stage "sparse_expand" (rewrite/sparse.cpp; the seed's `sparse_dot` is one
/// of its rewrites) replaces them by the component ops of components.h
/// before linking, in every mode, so perform and generated code see dense
/// arrays only (see type.h).
///
/// Gradients are structured, as Theano's: the gradient with respect to a
/// sparse operand is sparse with that operand's stored positions (d/dS of
/// structured_dot(S, D) is sum_j g[r, j] * D[c, j] at each stored (r, c)),
/// and the gradient with respect to CSM's data reads that gradient's data.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "theano/compile/function.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/sparse/type.h"
#include "theano/tensor/as_tensor.h"

namespace theano::sparse {

#define THEANO_SPARSE_OP_DECLARE(TYPE_NAME)                                    \
  static constexpr std::string_view theano_declared_kind = TYPE_NAME;          \
  std::string_view type_name() const override { return theano_declared_kind; } \
  ApplyPtr make_node(std::vector<Var> inputs) const override;                  \
  std::vector<std::vector<Var>> infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const override;

/// (data, indices, indptr, shape) -> a sparse matrix of `format`. data: a
/// float32/float64/int32/int64 vector; indices, indptr: integer vectors (cast to int64);
/// shape: an integer vector of 2. The components are checked where they are
/// used (theano_csm_rule), at run time.
class CSM final : public Op {
 public:
  explicit CSM(SparseFormat format) : format_(format) {}
  THEANO_SPARSE_OP_DECLARE("CSM")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((SparseFormat, format))
};

/// A sparse matrix -> its (data, indices, indptr, shape).
class CSMProperties final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("CSMProperties")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// A sparse matrix -> the dense matrix (repeated entries added). Its
/// gradient is structured: the output gradient at the stored positions.
class DenseFromSparse final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("DenseFromSparse")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// A dense matrix -> its non-zeros as a sparse matrix of `format`.
class SparseFromDense final : public Op {
 public:
  explicit SparseFromDense(SparseFormat format) : format_(format) {}
  THEANO_SPARSE_OP_DECLARE("SparseFromDense")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((SparseFormat, format))
};

/// The transpose: CSR <-> CSC over the same components (no copy).
class Transpose final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("SparseTranspose")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// (S sparse m x n, D dense n x p) -> dense m x p, S's dtype = D's dtype.
class StructuredDot final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("StructuredDot")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// (S sparse m x n, X dense m x p, Y dense n x p) -> sparse with S's
/// structure, value sum_j X[r, j] * Y[c, j] at each stored (r, c): the
/// gradient of structured_dot with respect to S (X = the output gradient,
/// Y = D), and sampling_dot's product.
class SampledDotSparse final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("SampledDotSparse")
  /// d/dX = structured_dot(g, Y), d/dY = structured_dot(g^T, X); none for S
  /// (its structure only).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// (S sparse, M dense of S's shape) -> sparse with S's structure holding M's
/// values there (the structured gradient of dense_from_sparse).
class GatherSparse final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("GatherSparse")
  /// d/dM = dense_from_sparse(g); none for S (its structure only).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// (S sparse m x n, D dense n x p) -> dense m x p, as StructuredDot, but
/// Theano's true_dot gradient: d/dS is the whole product g . D^T as a sparse
/// matrix of S's format (every position, not only S's).
class TrueDot final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("TrueDot")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// (x, y) sparse of one dtype (and, at run time, one shape) -> x + y, sparse
/// in x's format (a y of the other format is converted): Theano's AddSS. Its
/// pattern is the union of the two (stored zeros and sums that cancel stay
/// stored, where SciPy drops them: theano_sparse_merge in
/// sparse_kernels.h). Gradient (gz, gz), as Theano's.
class AddSS final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("AddSS")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// x * y elementwise for two sparse matrices, as AddSS but the intersection
/// of the patterns: Theano's MulSS. Gradient (y * gz, x * gz).
class MulSS final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("MulSS")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// (x sparse m x n, y dense vector of n entries, x's dtype) -> x * y[None, :]
/// at x's stored entries, sparse with x's structure: Theano's MulSV.
/// Gradient (mul_s_v(gz, y), the column sums of x * gz at x's entries).
class MulSV final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("MulSV")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// x + y[None, :] at x's stored entries only (x's structure kept; an entry x
/// does not store stays zero): Theano's StructuredAddSV. Gradient (gz, the
/// column sums of gz at x's entries).
class StructuredAddSV final : public Op {
 public:
  THEANO_SPARSE_OP_DECLARE("StructuredAddSV")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

#undef THEANO_SPARSE_OP_DECLARE

Var csm(SparseFormat format, const Var& data, const Var& indices, const Var& indptr, const Var& shape);
/// {data, indices, indptr, shape} of a sparse variable.
std::vector<Var> csm_properties(const Var& s);
Var dense_from_sparse(const Var& s);
Var sparse_from_dense(const Var& d, SparseFormat format = SparseFormat::CSR);
Var transpose(const Var& s);
Var structured_dot(const Var& s, const Var& d);
Var true_dot(const Var& s, const Var& d);
/// Theano's sampling_dot: p * (x . y^T) at p's stored positions, sparse with
/// p's structure (x: m x k, y: n x k dense; p: m x n sparse).
Var sampling_dot(const Var& x, const Var& y, const Var& p);
/// x + y, one of them sparse (Theano's sparse.add): both sparse -> add_s_s
/// (sparse); a sparse and a dense matrix, in either order -> dense (the
/// gradient w.r.t. the sparse one is structured).
Var add(const Var& x, const Var& y);
/// Theano's add_s_s: x + y for two sparse matrices of one shape, sparse in
/// x's format, of the two dtypes' upcast (AddSS).
Var add_s_s(const Var& x, const Var& y);
/// Theano's mul_s_s: x * y elementwise for two sparse matrices, sparse in x's
/// format, of the two dtypes' upcast (MulSS).
Var mul_s_s(const Var& x, const Var& y);
/// Theano's mul_s_v: x * y[None, :] for a sparse x and a dense vector y of
/// x's column count, sparse with x's structure, of the dtypes' upcast (MulSV).
Var mul_s_v(const Var& x, const tensor::TensorLike& y);
/// Theano's structured_add_s_v: x + y[None, :] at x's stored entries only
/// (StructuredAddSV), sparse with x's structure, of the dtypes' upcast.
Var structured_add_s_v(const Var& x, const tensor::TensorLike& y);
/// S * a for a 0-d tensor a: sparse with S's structure, of S's dtype (an
/// integer S times a float a: of the float dtype).
Var mul_scalar(const Var& s, const Var& a);
/// x * y elementwise, one of them sparse (Theano's sparse.mul): both sparse
/// -> mul_s_s; a sparse S and a dense matrix D, in either order -> sparse with
/// S's structure, of the two dtypes' upcast (Theano's mul_s_d).
Var mul(const Var& x, const Var& y);
/// The sum of the stored values (axis unset; a 0-d tensor), of each column
/// (axis 0) or of each row (axis 1) (vectors).
Var sum(const Var& s, std::optional<int> axis = {});

/// Theano's structured ops (structured_monoid): the function of the stored
/// values only, the result sparse with S's structure and format; an entry S
/// does not store stays zero whatever f(0) is (structured_exp(S) is not
/// exp of the dense matrix). The value dtype follows the tensor function
/// (structured_exp of an int64 matrix is float64). Gradients reach S's
/// stored values. `y`: a scalar (0-d), e.g. `structured_add(x, 2)`.
Var structured_sigmoid(const Var& s);
Var structured_exp(const Var& s);
Var structured_log(const Var& s);
Var structured_pow(const Var& s, const tensor::TensorLike& y);
Var structured_minimum(const Var& s, const tensor::TensorLike& y);
Var structured_maximum(const Var& s, const tensor::TensorLike& y);
Var structured_add(const Var& s, const tensor::TensorLike& y);
/// Theano's sparse elementwise functions with f(0) = 0 (the same structured
/// form; `sgn` is sign, `sqr` the square).
Var sin(const Var& s);
Var tan(const Var& s);
Var arcsin(const Var& s);
Var arctan(const Var& s);
Var sinh(const Var& s);
Var arcsinh(const Var& s);
Var tanh(const Var& s);
Var arctanh(const Var& s);
Var sgn(const Var& s);
Var ceil(const Var& s);
Var floor(const Var& s);
Var trunc(const Var& s);
Var log1p(const Var& s);
Var expm1(const Var& s);
Var sqrt(const Var& s);
Var sqr(const Var& s);
Var neg(const Var& s);

/// `g`'s values at the stored positions of `s` (both sparse, one dtype), a
/// sparse matrix with s's structure: g itself when the graph shows that g
/// has s's stored positions (the structured gradients keep their operand's
/// structure), else read from g's dense form. The gradient of CSM's data.
Var values_at(const Var& s, const Var& g);

/// The sum of gradient terms of one sparse variable (grad() calls it for a
/// sparse matrix used more than once): when the graph shows every term has
/// the same stored positions, a CSM over their summed data; else the sparse
/// form of their dense sum.
Var add_gradient_terms(const std::vector<Var>& terms);

/// A sparse function input: the sparse variable and the four tensor inputs
/// it is built from (CSM). Pass `ins()` to function() where the matrix goes
/// and `arguments(m)` in the call.
struct SparseInput {
  Var var;  ///< the sparse matrix
  Var data, indices, indptr, shape;
  std::vector<In> ins() const { return {In(data), In(indices), In(indptr), In(shape)}; }
  operator Var() const { return var; }  // NOLINT: use it where a sparse Var goes
};
/// `name`_data (float vector), `name`_indices, `name`_indptr, `name`_shape
/// (int64 vectors) and the CSM over them.
SparseInput csr_matrix(const std::string& name, DType dtype = DType::Float64);
SparseInput csc_matrix(const std::string& name, DType dtype = DType::Float64);
/// The four call arguments of a SparseInput: data, indices, indptr, shape.
std::vector<NDArray> arguments(const SparseMatrix& m);

/// One output of sparse::call: a dense array, or a SparseMatrix for an output
/// of SparseType (SciPy's matrix in Theano). It converts to either, so
/// `SparseMatrix r = sparse::call(f, args)[0];` reads as Theano's `f(a)`.
class Value {
 public:
  Value(NDArray a) : dense_(std::move(a)) {}           // NOLINT: implicit
  Value(SparseMatrix m) : sparse_(std::move(m)) {}     // NOLINT: implicit
  bool is_sparse() const { return sparse_.defined(); }
  /// The sparse matrix; TypeError when this output is dense.
  const SparseMatrix& sparse() const;
  /// The dense array; TypeError when this output is sparse.
  const NDArray& dense() const;
  operator const SparseMatrix&() const { return sparse(); }  // NOLINT: implicit
  operator const NDArray&() const { return dense(); }        // NOLINT: implicit

 private:
  NDArray dense_;
  SparseMatrix sparse_;
};
/// Calls `f` (positionally, as operator() does) and returns one Value per
/// output: a sparse output comes back as a SparseMatrix of its format, a dense
/// one as its array. Works for every function; operator() refuses one with a
/// sparse output.
std::vector<Value> call(const Function& f, const std::vector<NDArray>& args);

}  // namespace theano::sparse

// Internal: the numeric kernels behind Dot, Dot22, Gemm, Gemv and Ger. Each
// takes arrays of ONE dtype (the callers cast) with any strides. float32 and
// float64 go to OpenBLAS through CBLAS (transposed views are passed with a
// transpose flag, other layouts are copied); every other dtype uses a plain
// loop in that dtype (integers wrap like NumPy). Shapes are checked by the
// callers. Not a public header.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/type.h"

namespace theano::tensor::blas_detail {

/// C (m x n) <- alpha * A (m x k) . B (k x n) + beta * C. C may have any
/// writable layout; when beta == 0 its previous values are not read.
void gemm(const NDArray& a, const NDArray& b, NDArray& c, double alpha, double beta);
/// y (m) <- alpha * A (m x n) . x (n) + beta * y (beta == 0: y not read).
void gemv(const NDArray& a, const NDArray& x, NDArray& y, double alpha, double beta);
/// A (m x n) <- A + alpha * outer(x (m), y (n)).
void ger(const NDArray& x, const NDArray& y, NDArray& a, double alpha);
/// The inner product of two equal-length vectors, as a 0-d array.
NDArray dot_vv(const NDArray& x, const NDArray& y);

/// True when the last gemm/gemv/ger/dot_vv call on this thread went to CBLAS
/// (tests check that float matrices really reach OpenBLAS).
bool last_call_used_blas();

// ---- graph-level helpers shared by the BLAS ops (dot.cpp, dot22.cpp, gemm.cpp, gemv_ger.cpp) ----

/// ShapeError when the static inner dimensions of x (last axis) and y (axis 0) differ.
void check_static_alignment(const char* op, const Var& x, const Var& y);
/// Run-time version of check_static_alignment.
void check_alignment(std::string_view op, const NDArray& x, const NDArray& y);
/// `v` must be an `ndim`-d float32/float64 tensor (of `dtype` when given);
/// TypeError naming the op, the operand's role and the variable.
const TensorType& check_blas_operand(const char* op, const char* role, const Var& v, int ndim,
                                     std::optional<DType> dtype);
/// `v` must be a real 0-d tensor (alpha, beta).
void check_blas_scalar(const char* op, const char* role, const Var& v);
/// ShapeError when two known static dimensions differ.
void check_static_dim(const char* op, const Dim& a, const Dim& b, const Var& va, const Var& vb, const char* what);
/// The known one of two static dimensions.
Dim merge_dim(const Dim& a, const Dim& b);
/// Gradient term `g` for input `v`: cast to v's dtype; null for non-float inputs.
Var fit_grad(const Var& g, const Var& v);
/// `a`, or a copy of it when it shares memory with `destroyed` (inplace ops).
NDArray unaliased(const NDArray& a, const NDArray& destroyed);
/// Theano's Dot.grad for vector/matrix operands (null for integer inputs).
std::vector<Var> dot_grad(const Var& x, const Var& y, const Var& gz);
/// The GPU form (cuBLAS) of a BLAS node with `data` on the GPU: only for a
/// float32 / float64 output whose GPU inputs all have its dtype
/// (defined in dot.cpp).
std::optional<GpuPlacement> blas_gpu_form(const Apply& node, GpuPlacement data);

}  // namespace theano::tensor::blas_detail

// BLAS kernels: CBLAS (OpenBLAS) for float32/float64, exact loops otherwise.
//
// Operand layouts follow the BLAS layout rule of
// theano/runtime/kernels/blas_layout.h (the generated code's rule too): an
// operand BLAS cannot read in place is copied first; a size above the 32-bit
// interface is a ValueError, raised before anything is copied. Outputs that
// are not row-major are computed into a temporary and assigned.
#include "blas_kernels.h"

#include <cblas.h>

#include <complex>
#include <algorithm>
#include <climits>
#include <cstddef>
#include <type_traits>

#include "../reduction/kernel_util.h"
#include "theano/runtime/blas_library.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/blas_layout.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/tensor/blas.h"

namespace theano::tensor::blas_detail {
namespace {

thread_local bool g_used_blas = false;

int to_blas_int(int64_t v, const char* what) {
  THEANO_USER_CHECK(v <= THEANO_BLAS_INT_MAX, ValueError) << what << ": dimension " << v << THEANO_BLAS_TOO_BIG_TEXT;
  return static_cast<int>(v);
}

// A matrix operand as CBLAS wants it.
struct MatArg {
  NDArray keep;  // owns a copy when one was needed
  const void* ptr = nullptr;
  int ld = 1;
  CBLAS_TRANSPOSE trans = CblasNoTrans;
};

static_assert(THEANO_BLAS_NO_TRANS == CblasNoTrans && THEANO_BLAS_TRANS == CblasTrans);

MatArg matrix_arg(const NDArray& a) {
  const int64_t m = a.shape()[0], k = a.shape()[1];
  int trans = THEANO_BLAS_NO_TRANS, ld = 1;
  int64_t bad = 0;
  const int r = theano_blas_matrix_rule(m, k, a.strides()[0], a.strides()[1], static_cast<int64_t>(a.itemsize()),
                                        &trans, &ld, &bad);
  if (r == THEANO_BLAS_TOO_BIG) to_blas_int(bad, "dot");  // throws: bad > INT_MAX
  if (r == THEANO_BLAS_DIRECT) return {a, a.data(), ld, static_cast<CBLAS_TRANSPOSE>(trans)};
  NDArray c = a.copy();  // k <= INT_MAX: the rule checked it
  return {c, c.data(), static_cast<int>(theano_blas_contiguous_ld(k)), CblasNoTrans};
}

// A vector operand: positive increment, else a contiguous copy.
struct VecArg {
  NDArray keep;
  const void* ptr = nullptr;
  int inc = 1;
};

VecArg vector_arg(const NDArray& v) {
  int inc = 1;
  int64_t bad = 0;
  const int r = theano_blas_vector_rule(v.shape()[0], v.strides()[0], static_cast<int64_t>(v.itemsize()), &inc, &bad);
  if (r == THEANO_BLAS_TOO_BIG) to_blas_int(bad, "dot");  // throws: bad > INT_MAX
  if (r == THEANO_BLAS_DIRECT) return {v, v.data(), inc};
  NDArray c = v.copy();
  return {c, c.data(), 1};
}

// The leading dimension BLAS writes the row-major matrix output `c` with in
// place (blas_layout.h's row-major rule), or 0 when c must be computed in a
// C-contiguous temporary; a ValueError naming `what` past the 32-bit
// interface.
int row_major_ld(const NDArray& c, const char* what) {
  int ld = 0;
  int64_t bad = 0;
  const int r = theano_blas_row_major_rule(c.shape()[0], c.shape()[1], c.strides()[0], c.strides()[1],
                                           static_cast<int64_t>(c.itemsize()), &ld, &bad);
  if (r == THEANO_BLAS_TOO_BIG) to_blas_int(bad, what);  // throws: bad > INT_MAX
  return r == THEANO_BLAS_DIRECT ? ld : 0;
}

template <class T>
T& elem(const NDArray& a, int64_t i) {
  return *reinterpret_cast<T*>(static_cast<std::byte*>(const_cast<void*>(a.data())) + i * a.strides()[0]);
}
template <class T>
T& elem(const NDArray& a, int64_t i, int64_t j) {
  return *reinterpret_cast<T*>(static_cast<std::byte*>(const_cast<void*>(a.data())) + i * a.strides()[0] +
                               j * a.strides()[1]);
}

template <class T>
T from_double(double v) {
  if constexpr (is_complex_type<T>::value) return T(static_cast<typename T::value_type>(v));
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return scalar_cast<T>(v);
}

// result = alpha * acc + beta * old, with beta == 0 not reading `old`.
template <class T>
T combine(T acc, T alpha, T beta, const T* old, double beta_d) {
  using detail::add_wrap;
  using detail::mul_wrap;
  T r = mul_wrap(alpha, acc);
  if (beta_d != 0) r = add_wrap(r, mul_wrap(beta, *old));
  return r;
}

template <class T>
void gemm_loop(const NDArray& a, const NDArray& b, NDArray& c, double alpha_d, double beta_d) {
  using detail::add_wrap;
  using detail::mul_wrap;
  const T alpha = from_double<T>(alpha_d), beta = from_double<T>(beta_d);
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) acc = add_wrap(acc, mul_wrap(elem<T>(a, i, p), elem<T>(b, p, j)));
      T& out = elem<T>(c, i, j);
      out = combine(acc, alpha, beta, &out, beta_d);
    }
}

template <class T>
void gemv_loop(const NDArray& a, const NDArray& x, NDArray& y, double alpha_d, double beta_d) {
  using detail::add_wrap;
  using detail::mul_wrap;
  const T alpha = from_double<T>(alpha_d), beta = from_double<T>(beta_d);
  const int64_t m = a.shape()[0], n = a.shape()[1];
  for (int64_t i = 0; i < m; ++i) {
    T acc = T(0);
    for (int64_t p = 0; p < n; ++p) acc = add_wrap(acc, mul_wrap(elem<T>(a, i, p), elem<T>(x, p)));
    T& out = elem<T>(y, i);
    out = combine(acc, alpha, beta, &out, beta_d);
  }
}

template <class T>
void ger_loop(const NDArray& x, const NDArray& y, NDArray& a, double alpha_d) {
  using detail::add_wrap;
  using detail::mul_wrap;
  const T alpha = from_double<T>(alpha_d);
  for (int64_t i = 0; i < a.shape()[0]; ++i)
    for (int64_t j = 0; j < a.shape()[1]; ++j)
      elem<T>(a, i, j) = add_wrap(elem<T>(a, i, j), mul_wrap(alpha, mul_wrap(elem<T>(x, i), elem<T>(y, j))));
}

bool blas_dtype(DType d) { return d == DType::Float32 || d == DType::Float64; }

// Runs `f(c, ldc)` on `out` when BLAS writes it in place (row_major_ld), else
// on a C-contiguous temporary (initialised from `out` when `read_old`) that
// is assigned back.
template <class F>
void with_row_major(NDArray& out, bool read_old, const char* what, F&& f) {
  if (const int ld = row_major_ld(out, what)) {
    f(out, ld);
    return;
  }
  NDArray tmp = read_old ? out.copy() : NDArray::empty(out.shape(), out.dtype());
  f(tmp, row_major_ld(tmp, what));
  out.assign(tmp);
}

template <class F>
void dispatch_loop(DType d, const char* what, F&& f) {
  visit_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, half>) {
      THEANO_INTERNAL_CHECK(false) << what << " kernel called with float16 (callers compute in float32)";
    } else {
      f(tag);
    }
  });
}

}  // namespace

bool last_call_used_blas() { return g_used_blas; }

namespace {

// c <- beta * c (beta == 0 clears without reading, as BLAS does).
void scale_inplace(NDArray& c, double beta) {
  if (beta == 1) return;
  if (beta == 0) {
    c.fill(0);
    return;
  }
  dispatch_loop(c.dtype(), "scale", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T b = from_double<T>(beta);
    detail::for_each_element(c, [&](const std::byte* p) {
      T* q = reinterpret_cast<T*>(const_cast<std::byte*>(p));
      *q = detail::mul_wrap(*q, b);
    });
  });
}

}  // namespace

void gemm(const NDArray& a, const NDArray& b, NDArray& c, double alpha, double beta) {
  g_used_blas = false;
  const int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == 0) return scale_inplace(c, beta);
  if (!blas_dtype(c.dtype())) {
    dispatch_loop(c.dtype(), "gemm", [&](auto tag) { gemm_loop<typename decltype(tag)::type>(a, b, c, alpha, beta); });
    return;
  }
  runtime::load_blas();
  const MatArg A = matrix_arg(a), B = matrix_arg(b);
  const int M = to_blas_int(m, "gemm"), N = to_blas_int(n, "gemm"), K = to_blas_int(k, "gemm");
  with_row_major(c, beta != 0, "gemm", [&](NDArray& out, int ldc) {
    if (c.dtype() == DType::Float64)
      cblas_dgemm(CblasRowMajor, A.trans, B.trans, M, N, K, alpha, static_cast<const double*>(A.ptr), A.ld,
                  static_cast<const double*>(B.ptr), B.ld, beta, static_cast<double*>(out.data()), ldc);
    else
      cblas_sgemm(CblasRowMajor, A.trans, B.trans, M, N, K, static_cast<float>(alpha),
                  static_cast<const float*>(A.ptr), A.ld, static_cast<const float*>(B.ptr), B.ld,
                  static_cast<float>(beta), static_cast<float*>(out.data()), ldc);
  });
  g_used_blas = true;
}

void gemv(const NDArray& a, const NDArray& x, NDArray& y, double alpha, double beta) {
  g_used_blas = false;
  const int64_t m = a.shape()[0], n = a.shape()[1];
  if (m == 0) return;
  if (n == 0 || alpha == 0) return scale_inplace(y, beta);
  if (!blas_dtype(y.dtype())) {
    dispatch_loop(y.dtype(), "gemv", [&](auto tag) { gemv_loop<typename decltype(tag)::type>(a, x, y, alpha, beta); });
    return;
  }
  runtime::load_blas();
  const MatArg A = matrix_arg(a);
  const VecArg X = vector_arg(x);
  // Stored (row-major) dimensions of A: a transposed view swaps them.
  const int M = to_blas_int(A.trans == CblasNoTrans ? m : n, "gemv");
  const int N = to_blas_int(A.trans == CblasNoTrans ? n : m, "gemv");
  // y in place by the vector rule, else a contiguous temporary.
  int incy = 1;
  int64_t bad = 0;
  const int ry = theano_blas_vector_rule(m, y.strides()[0], static_cast<int64_t>(y.itemsize()), &incy, &bad);
  if (ry == THEANO_BLAS_TOO_BIG) to_blas_int(bad, "gemv");  // throws: bad > INT_MAX
  const bool y_ok = ry == THEANO_BLAS_DIRECT;
  NDArray out = y_ok ? y : (beta != 0 ? y.copy() : NDArray::empty(y.shape(), y.dtype()));  // incy: still 1
  if (y.dtype() == DType::Float64)
    cblas_dgemv(CblasRowMajor, A.trans, M, N, alpha, static_cast<const double*>(A.ptr), A.ld,
                static_cast<const double*>(X.ptr), X.inc, beta, static_cast<double*>(out.data()), incy);
  else
    cblas_sgemv(CblasRowMajor, A.trans, M, N, static_cast<float>(alpha), static_cast<const float*>(A.ptr), A.ld,
                static_cast<const float*>(X.ptr), X.inc, static_cast<float>(beta), static_cast<float*>(out.data()),
                incy);
  if (!y_ok) y.assign(out);
  g_used_blas = true;
}

void ger(const NDArray& x, const NDArray& y, NDArray& a, double alpha) {
  g_used_blas = false;
  const int64_t m = a.shape()[0], n = a.shape()[1];
  if (m == 0 || n == 0 || alpha == 0) return;
  if (!blas_dtype(a.dtype())) {
    dispatch_loop(a.dtype(), "ger", [&](auto tag) { ger_loop<typename decltype(tag)::type>(x, y, a, alpha); });
    return;
  }
  runtime::load_blas();
  const VecArg X = vector_arg(x), Y = vector_arg(y);
  const int M = to_blas_int(m, "ger"), N = to_blas_int(n, "ger");
  with_row_major(a, true, "ger", [&](NDArray& out, int lda) {
    if (a.dtype() == DType::Float64)
      cblas_dger(CblasRowMajor, M, N, alpha, static_cast<const double*>(X.ptr), X.inc,
                 static_cast<const double*>(Y.ptr), Y.inc, static_cast<double*>(out.data()), lda);
    else
      cblas_sger(CblasRowMajor, M, N, static_cast<float>(alpha), static_cast<const float*>(X.ptr), X.inc,
                 static_cast<const float*>(Y.ptr), Y.inc, static_cast<float*>(out.data()), lda);
  });
  g_used_blas = true;
}

NDArray dot_vv(const NDArray& x, const NDArray& y) {
  g_used_blas = false;
  const int64_t n = x.shape()[0];
  NDArray r = NDArray::empty({}, x.dtype());
  if (blas_dtype(x.dtype()) && n > 0) {
    runtime::load_blas();
    const VecArg X = vector_arg(x), Y = vector_arg(y);
    const int N = to_blas_int(n, "dot");
    if (x.dtype() == DType::Float64)
      *r.data_as<double>() =
          cblas_ddot(N, static_cast<const double*>(X.ptr), X.inc, static_cast<const double*>(Y.ptr), Y.inc);
    else
      *r.data_as<float>() =
          cblas_sdot(N, static_cast<const float*>(X.ptr), X.inc, static_cast<const float*>(Y.ptr), Y.inc);
    g_used_blas = true;
    return r;
  }
  dispatch_loop(x.dtype(), "dot", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T acc = T(0);
    for (int64_t i = 0; i < n; ++i) acc = detail::add_wrap(acc, detail::mul_wrap(elem<T>(x, i), elem<T>(y, i)));
    *static_cast<T*>(r.data()) = acc;
  });
  return r;
}

}  // namespace theano::tensor::blas_detail

namespace theano::tensor {

int blas_threads() {
  runtime::load_blas();
  return openblas_get_num_threads();
}

void set_blas_threads(int n) {
  THEANO_USER_CHECK(n >= 1, ValueError) << "set_blas_threads: the thread count must be at least 1, got " << n;
  // Before OpenBLAS is open, the count is kept for it (runtime/blas_library.h):
  // asking the library for its count would open it.
  if (!runtime::blas_loaded() || openblas_get_num_threads() != n) openblas_set_num_threads(n);
}

}  // namespace theano::tensor

/* \file
 * The kernels of the sparse component ops (theano/sparse/components.h),
 * written ONCE, as plain C, compiled once into the library: their perform
 * calls them, and generated code calls the same functions through the host's
 * kernel table (host_kernels.h, filled by codegen/src/run/host_kernels.cpp),
 * so a compiled graph computes exactly what perform computes.
 *
 * A compressed matrix is (data, indices, indptr) over `major` rows (CSR) or
 * columns (CSC); the components were checked by theano_csm_rule
 * (shape_rules.h) before any kernel runs, so every index is in bounds. Dense
 * operands are read through element strides (rs: row, cs: column). Each
 * kernel covers a half-open range [lo, hi) of independent work (rows of the
 * output, or columns for the CSC product), so callers split it over threads
 * (perform: the runtime's pool; generated code: theano_parallel) with no two
 * parts writing the same element. Sums run in the data's type (float32 in
 * float), in stored order, so every split gives the same bits.
 *
 * Each kernel exists for the four value types a sparse matrix may hold:
 * float64 (suffix f64), float32 (f32), int64 (i64) and int32 (i32); integer
 * sums run in the values' type, as SciPy's do (the end of this file
 * instantiates all four). Units used to embed this text and instantiate the
 * types their nodes used: that was about 40% of W8's unit's compile.
 */
#ifndef THEANO_SPARSE_KERNELS_H
#define THEANO_SPARSE_KERNELS_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* How many stored values ahead the CSR products prefetch D's row, and how
 * much of it: D's rows are read in the order of the column indices, at
 * random for a typical matrix, and the loads of one row alone leave the
 * memory system mostly idle (W8: 36 -> 28 ms on the 2-core EPYC, measured
 * with a stand-alone copy of the loop). The row's own bytes are prefetched,
 * at most its first 512 (the hardware prefetcher follows the rest), its last
 * line included when the row does not start a line: a float32 row of 64
 * values is 256 bytes, and prefetching 512 fetched the next row too: twice
 * the lines each random read needs (W8 float32's loop: 12.3-12.9 ->
 * 9.2-10.2 ms on the 2-core Intel VM, the same stand-alone copy; float64's
 * rows of 512 bytes: unchanged). */
#define THEANO_SPARSE_PREFETCH 6
#define THEANO_SPARSE_PREFETCH_BYTES 512
#define THEANO_SPARSE_PREFETCH_ROW(T, d, d_rs, d_cs, ncols, indices, k, end)                                     \
  do {                                                                                                            \
    if ((d_cs) == 1 && (k) + THEANO_SPARSE_PREFETCH < (end)) {                                                    \
      const char* pf_ = (const char*)((d) + indices[(k) + THEANO_SPARSE_PREFETCH] * (d_rs));                     \
      const int64_t pb_ = (ncols) < THEANO_SPARSE_PREFETCH_BYTES / (int64_t)sizeof(T)                             \
                              ? (ncols) * (int64_t)sizeof(T)                                                      \
                              : THEANO_SPARSE_PREFETCH_BYTES;                                                     \
      int64_t l_;                                                                                                 \
      for (l_ = 0; l_ < pb_; l_ += 64) __builtin_prefetch(pf_ + l_);                                              \
      if (pb_ > 0) __builtin_prefetch(pf_ + pb_ - 1);                                                             \
    }                                                                                                             \
  } while (0)

#define THEANO_SPARSE_KERNELS(T, SUFFIX)                                                                          \
  /* out[r, :] (+)= sum over row r's stored (k, c): (alpha * data[k]) * D[c, :], r in [lo, hi): the CSR     \
     product. `zero`: the rows start at 0 (SpMM, alpha 1, whose products are then exact data[k] * D), else    \
     they hold Z (Usmm). out has unit column stride. */                                                          \
  static inline void theano_csr_product_##SUFFIX(T alpha, int zero, const T* data, const int64_t* indices,       \
                                                 const int64_t* indptr, const T* d, int64_t d_rs, int64_t d_cs,  \
                                                 int64_t ncols, T* out, int64_t out_rs, int64_t lo, int64_t hi) { \
    int64_t r, k, j;                                                                                              \
    const int64_t end = hi > lo ? indptr[hi] : 0;                                                                 \
    for (r = lo; r < hi; ++r) {                                                                                   \
      T* o = out + r * out_rs;                                                                                    \
      if (zero)                                                                                                   \
        for (j = 0; j < ncols; ++j) o[j] = 0;                                                                     \
      for (k = indptr[r]; k < indptr[r + 1]; ++k) {                                                               \
        THEANO_SPARSE_PREFETCH_ROW(T, d, d_rs, d_cs, ncols, indices, k, end);                                     \
        const T v = alpha * data[k];                                                                              \
        const T* dr = d + indices[k] * d_rs;                                                                      \
        if (d_cs == 1)                                                                                            \
          for (j = 0; j < ncols; ++j) o[j] += v * dr[j];                                                          \
        else                                                                                                      \
          for (j = 0; j < ncols; ++j) o[j] += v * dr[j * d_cs];                                                   \
      }                                                                                                           \
    }                                                                                                             \
  }                                                                                                               \
  /* out[:, lo:hi] (+)= alpha * S * D[:, lo:hi] for a CSC S of `major` columns (out has S's `out_rows` rows;    \
     `zero` as above). */                                                                                         \
  static inline void theano_csc_product_##SUFFIX(T alpha, int zero, const T* data, const int64_t* indices,       \
                                                 const int64_t* indptr, int64_t major, const T* d, int64_t d_rs, \
                                                 int64_t d_cs, int64_t out_rows, T* out, int64_t out_rs,         \
                                                 int64_t lo, int64_t hi) {                                        \
    int64_t c, k, j, r;                                                                                           \
    if (zero)                                                                                                     \
      for (r = 0; r < out_rows; ++r)                                                                              \
        for (j = lo; j < hi; ++j) out[r * out_rs + j] = 0;                                                        \
    for (c = 0; c < major; ++c) {                                                                                 \
      const T* dr = d + c * d_rs;                                                                                 \
      for (k = indptr[c]; k < indptr[c + 1]; ++k) {                                                               \
        const T v = alpha * data[k];                                                                              \
        T* o = out + indices[k] * out_rs;                                                                         \
        if (d_cs == 1)                                                                                            \
          for (j = lo; j < hi; ++j) o[j] += v * dr[j];                                                            \
        else                                                                                                      \
          for (j = lo; j < hi; ++j) o[j] += v * dr[j * d_cs];                                                     \
      }                                                                                                           \
    }                                                                                                             \
  }                                                                                                               \
  /* vals[k] = dot(X[r, :], Y[c, :]) for each stored (r, c) of major index in [lo, hi). */                       \
  static inline void theano_sampled_dot_##SUFFIX(const int64_t* indices, const int64_t* indptr, int csr,         \
                                                 const T* x, int64_t x_rs, int64_t x_cs, const T* y, int64_t y_rs, \
                                                 int64_t y_cs, int64_t n, T* vals, int64_t lo, int64_t hi) {     \
    int64_t m, k, j;                                                                                              \
    for (m = lo; m < hi; ++m)                                                                                     \
      for (k = indptr[m]; k < indptr[m + 1]; ++k) {                                                               \
        const int64_t r = csr ? m : indices[k], c = csr ? indices[k] : m;                                         \
        const T* xr = x + r * x_rs;                                                                               \
        const T* yr = y + c * y_rs;                                                                               \
        T s = 0;                                                                                                  \
        for (j = 0; j < n; ++j) s += xr[j * x_cs] * yr[j * y_cs];                                                 \
        vals[k] = s;                                                                                              \
      }                                                                                                           \
  }                                                                                                               \
  /* vals[k] = M[r, c] for each stored (r, c) of major index in [lo, hi). */                                     \
  static inline void theano_sparse_gather_##SUFFIX(const int64_t* indices, const int64_t* indptr, int csr,       \
                                                   const T* m, int64_t m_rs, int64_t m_cs, T* vals, int64_t lo,  \
                                                   int64_t hi) {                                                 \
    int64_t a, k;                                                                                                 \
    for (a = lo; a < hi; ++a)                                                                                     \
      for (k = indptr[a]; k < indptr[a + 1]; ++k) {                                                               \
        const int64_t r = csr ? a : indices[k], c = csr ? indices[k] : a;                                         \
        vals[k] = m[r * m_rs + c * m_cs];                                                                         \
      }                                                                                                           \
  }                                                                                                               \
  /* The dense matrix's rows (CSR) / columns (CSC) of major index in [lo, hi): zeroed, then each stored value    \
     added at its place (repeats add up). out is C-contiguous with out_rs elements a row. */                      \
  static inline void theano_sparse_to_dense_##SUFFIX(const T* data, const int64_t* indices,                      \
                                                     const int64_t* indptr, int csr, int64_t minor, T* out,      \
                                                     int64_t out_rs, int64_t lo, int64_t hi) {                   \
    int64_t a, k, i;                                                                                              \
    for (a = lo; a < hi; ++a) {                                                                                   \
      for (i = 0; i < minor; ++i) out[csr ? a * out_rs + i : i * out_rs + a] = 0;                                 \
      for (k = indptr[a]; k < indptr[a + 1]; ++k)                                                                 \
        out[csr ? a * out_rs + indices[k] : indices[k] * out_rs + a] += data[k];                                  \
    }                                                                                                             \
  }

/* The other format of the same matrix (SciPy's csr_tocsc): (data, indices,
 * indptr) over `major` compressed rows of `minor` entries become the
 * components over `minor` compressed rows; within each new row the entries
 * keep the order of their old rows (so canonical in, canonical out). A
 * counting sort: out_indptr counts, then serves as the write cursor, then is
 * shifted back. One pass, not split. */
#define THEANO_SPARSE_SWAP(T, SUFFIX)                                                                             \
  static inline void theano_sparse_swap_##SUFFIX(int64_t major, int64_t minor, const T* data,                    \
                                                 const int64_t* indices, const int64_t* indptr, T* out_data,     \
                                                 int64_t* out_indices, int64_t* out_indptr) {                    \
    int64_t a, k, i, last = 0;                                                                                    \
    for (i = 0; i <= minor; ++i) out_indptr[i] = 0;                                                               \
    for (k = 0; k < indptr[major]; ++k) ++out_indptr[indices[k]];                                                 \
    for (i = 0; i < minor; ++i) {                                                                                 \
      const int64_t n = out_indptr[i];                                                                            \
      out_indptr[i] = last;                                                                                       \
      last += n;                                                                                                  \
    }                                                                                                             \
    out_indptr[minor] = last;                                                                                     \
    for (a = 0; a < major; ++a)                                                                                   \
      for (k = indptr[a]; k < indptr[a + 1]; ++k) {                                                               \
        const int64_t dest = out_indptr[indices[k]]++;                                                            \
        out_indices[dest] = a;                                                                                    \
        out_data[dest] = data[k];                                                                                 \
      }                                                                                                           \
    last = 0;                                                                                                     \
    for (i = 0; i <= minor; ++i) {                                                                                \
      const int64_t t = out_indptr[i];                                                                            \
      out_indptr[i] = last;                                                                                       \
      last = t;                                                                                                   \
    }                                                                                                             \
  }                                                                                                               \
  /* The same matrix with each compressed row's indices sorted (repeats kept, in stored order): the other       \
     format's components (t_*: nnz, nnz and minor + 1 entries of scratch), read back (out_*: nnz, nnz and       \
     major + 1 entries). Two counting sorts, serial. */                                                          \
  static inline void theano_sparse_sort_rows_##SUFFIX(int64_t major, int64_t minor, const T* data,               \
                                                      const int64_t* indices, const int64_t* indptr, T* t_data,  \
                                                      int64_t* t_indices, int64_t* t_indptr, T* out_data,        \
                                                      int64_t* out_indices, int64_t* out_indptr) {               \
    theano_sparse_swap_##SUFFIX(major, minor, data, indices, indptr, t_data, t_indices, t_indptr);               \
    theano_sparse_swap_##SUFFIX(minor, major, t_data, t_indices, t_indptr, out_data, out_indices, out_indptr);   \
  }

/* The elementwise kernels of two sparse operands (theano/sparse/components.h: SparseMerge, SparseRowVector).
 *
 * theano_sparse_merge: x (op) y, row by row (CSR) or column by column (CSC), for two matrices of one shape and
 * format whose compressed rows have sorted indices (repeats adjacent; theano_sparse_first_unsorted tells,
 * theano_sparse_sort_rows sorts; SwapFormat's output is so). An index x
 * stores k times counts its k values' sum, as in the dense matrix. `mul` 0: every index either stores, value
 * x + y (the union of the patterns, Theano's add_s_s); `mul` 1: the indices both store, value x * y (the
 * intersection, mul_s_s). The result's pattern follows the operands' patterns, not their values: a stored zero
 * or a sum that cancels stays stored (SciPy drops them), so the number of entries is known before any value is
 * read and the gradient reaches every stored entry. With out_data null: out_indptr[a + 1] = the number of
 * entries of row a (the count pass; theano_sparse_offsets turns the counts into indptr); else the entries of
 * row a are written from out_indptr[a], sorted, one per index. Rows [lo, hi) are independent.
 *
 * theano_sparse_row_vector: vals[k] = data[k] * v[c] (`mul` 1, Theano's mul_s_v) or data[k] + v[c] (`mul` 0,
 * structured_add_s_v) at each stored (r, c) of major index in [lo, hi): the vector broadcast along the rows,
 * at the stored entries only (v: v_s elements apart). */
#define THEANO_SPARSE_ELEMWISE(T, SUFFIX)                                                                         \
  static inline void theano_sparse_merge_##SUFFIX(int mul, const T* xd, const int64_t* xi, const int64_t* xp,    \
                                                  const T* yd, const int64_t* yi, const int64_t* yp, T* out_data, \
                                                  int64_t* out_indices, int64_t* out_indptr, int64_t lo,          \
                                                  int64_t hi) {                                                   \
    int64_t a;                                                                                                    \
    for (a = lo; a < hi; ++a) {                                                                                   \
      int64_t p = xp[a], q = yp[a], n = 0;                                                                        \
      const int64_t pe = xp[a + 1], qe = yp[a + 1];                                                               \
      int64_t o = out_data ? out_indptr[a] : 0;                                                                   \
      while (p < pe || q < qe) {                                                                                  \
        const int64_t j = q >= qe || (p < pe && xi[p] < yi[q]) ? xi[p] : yi[q];                                   \
        const int in_x = p < pe && xi[p] == j, in_y = q < qe && yi[q] == j;                                       \
        T sx = 0, sy = 0;                                                                                         \
        while (p < pe && xi[p] == j) sx += xd[p++];                                                               \
        while (q < qe && yi[q] == j) sy += yd[q++];                                                               \
        if (mul && !(in_x && in_y)) continue;                                                                     \
        if (out_data) {                                                                                           \
          out_indices[o] = j;                                                                                     \
          out_data[o++] = mul ? (T)(sx * sy) : (T)(sx + sy);                                                      \
        }                                                                                                         \
        ++n;                                                                                                      \
      }                                                                                                           \
      if (!out_data) out_indptr[a + 1] = n;                                                                       \
    }                                                                                                             \
  }                                                                                                               \
  static inline void theano_sparse_row_vector_##SUFFIX(int mul, const T* data, const int64_t* indices,           \
                                                       const int64_t* indptr, int csr, const T* v, int64_t v_s,   \
                                                       T* vals, int64_t lo, int64_t hi) {                         \
    int64_t a, k;                                                                                                 \
    for (a = lo; a < hi; ++a)                                                                                     \
      for (k = indptr[a]; k < indptr[a + 1]; ++k) {                                                               \
        const T c = v[(csr ? indices[k] : a) * v_s];                                                              \
        vals[k] = mul ? (T)(data[k] * c) : (T)(data[k] + c);                                                      \
      }                                                                                                           \
  }

/* The first of rows [lo, hi) whose indices are not sorted (a repeat is sorted), or -1: whether
 * theano_sparse_merge's operand must be sorted first. */
static inline int64_t theano_sparse_first_unsorted(const int64_t* indices, const int64_t* indptr, int64_t lo,
                                                   int64_t hi) {
  int64_t a, k;
  for (a = lo; a < hi; ++a)
    for (k = indptr[a] + 1; k < indptr[a + 1]; ++k)
      if (indices[k - 1] > indices[k]) return a;
  return -1;
}

/* indptr[0] = 0 and indptr[a + 1] = indptr[a] + the count the merge's count pass left there, a < major: the
 * counts are at most the operands' stored entries together, so the sums do not overflow. */
static inline void theano_sparse_offsets(int64_t* indptr, int64_t major) {
  int64_t a;
  indptr[0] = 0;
  for (a = 0; a < major; ++a) indptr[a + 1] += indptr[a];
}

THEANO_SPARSE_SWAP(double, f64)
THEANO_SPARSE_SWAP(float, f32)
THEANO_SPARSE_SWAP(int64_t, i64)
THEANO_SPARSE_SWAP(int32_t, i32)
THEANO_SPARSE_KERNELS(double, f64)
THEANO_SPARSE_KERNELS(float, f32)
THEANO_SPARSE_KERNELS(int64_t, i64)
THEANO_SPARSE_KERNELS(int32_t, i32)
THEANO_SPARSE_ELEMWISE(double, f64)
THEANO_SPARSE_ELEMWISE(float, f32)
THEANO_SPARSE_ELEMWISE(int64_t, i64)
THEANO_SPARSE_ELEMWISE(int32_t, i32)

#endif /* THEANO_SPARSE_KERNELS_H */

/* \file
 * The kernels generated code calls compiled once, into the host library,
 * through TheanoContext::kernels (codegen/src/thunk_abi.h), instead of
 * compiling its own copy in every unit that uses them
 * (docs/jit-and-cache.md, "Host kernels").
 *
 * Why: the same text for every graph (no node's constant, type or
 * expression in it), enough work a call for one indirect call not to show,
 * and costly to compile. conv.h's three algorithms were 10-20% of the Clang
 * time of each of W10's two units (each unit still embeds conv.h for its
 * shape rules, without instantiating its algorithms there); the LAPACK
 * layer's rule, workspace query and run (linalg.h, with linalg_eig.h,
 * linalg_expm.h and linalg_gpu.h behind it) were about two thirds of the -O
 * time of each of W11's (the units now embed linalg_call.h only: the call
 * record and its small helpers); sort.h's sort and argsort of one dtype
 * (radix, intro- and heapsort) about a third of W12's unit's Clang time;
 * the BLAS ops' calls (blas_calls.h: the layout rule, the OpenBLAS call and
 * the loops for other layouts) 3-7% of the Clang work of every unit with a
 * dot; strided_copy.h's copy templates (Reshape's copy, Join, a scan's
 * rows) 5-8% of W9's units; sparse_kernels.h's text and one value type's
 * kernels about 40% of W8's unit (standalone clang++ -O2: 95 -> 73 ms).
 * The error reports and the checked allocation that every unit calls (the
 * first nine entries) were most of a small unit's -O2 time: one addition,
 * 58 ms -> 15-19 ms of Clang. The prelude embeds this header, so every unit
 * reaches the table.
 *
 * The kernel entries are the functions perform calls (the BLAS calls and
 * the same-type copy: the lowerings' own): the host fills the table
 * with their addresses (codegen/src/run/host_kernels.cpp), so the compiler
 * checks every signature below against the kernels'. The layout is part
 * of the prelude's text and so of every cache key; a cached object calls the
 * host's current kernels.
 */
#ifndef THEANO_RUNTIME_HOST_KERNELS_H
#define THEANO_RUNTIME_HOST_KERNELS_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

struct TheanoConvGeom;
struct TheanoLaCall;
struct TheanoContext;
struct TheanoArray;

/* conv.h's algorithms over images [n0, n1): (g, n0, n1, a, a's element
 * strides, b, b's element strides, out, scratch); and its pack (a strided
 * array copied C-contiguous). */
#define THEANO_HOST_CONV_ENTRIES(T, S)                                                                          \
  void (*corr_fwd_##S)(const struct TheanoConvGeom*, int64_t, int64_t, const T*, const int64_t*, const T*,     \
                       const int64_t*, T*, T*);                                                                 \
  void (*corr_grad_weights_##S)(const struct TheanoConvGeom*, int64_t, int64_t, const T*, const int64_t*,       \
                                const T*, const int64_t*, T*, T*);                                              \
  void (*corr_grad_inputs_##S)(const struct TheanoConvGeom*, int64_t, int64_t, const T*, const int64_t*,        \
                               const T*, const int64_t*, T*, T*);                                               \
  void (*conv_pack_##S)(int64_t, const int64_t*, const T*, const int64_t*, T*);

/* linalg.h's: the workspace query (bytes) and the run, per element type;
 * 0 (THEANO_LA_OK) or a THEANO_LA_* code with the call's message. */
#define THEANO_HOST_LA_ENTRIES(S)                          \
  int (*la_work_##S)(struct TheanoLaCall*, int64_t*);      \
  int (*la_run_##S)(struct TheanoLaCall*);

/* sort.h's line kernels (SortOp's and ArgSortOp's kernel form): (x, x's
 * byte stride, o, o's byte stride, n). */
#define THEANO_HOST_SORT_ENTRIES(S)                                  \
  void (*sort_##S)(const char*, int64_t, char*, int64_t, int64_t); \
  void (*argsort_##S)(const char*, int64_t, char*, int64_t, int64_t);

/* blas_calls.h's: the BLAS ops' gemm, gemv, ger and dot on byte strides
 * (OpenBLAS where the layout rule allows, else loops). */
#define THEANO_HOST_BLAS_ENTRIES(S)                                                                             \
  void (*blas_gemm_##S)(int64_t, int64_t, int64_t, double, const char*, int64_t, int64_t, const char*, int64_t, \
                        int64_t, double, char*, int64_t, int64_t);                                              \
  void (*blas_gemv_##S)(int64_t, int64_t, double, const char*, int64_t, int64_t, const char*, int64_t, double,  \
                        char*, int64_t);                                                                        \
  void (*blas_ger_##S)(int64_t, int64_t, double, const char*, int64_t, const char*, int64_t, char*, int64_t,    \
                       int64_t);                                                                                \
  double (*blas_dot_##S)(int64_t, const char*, int64_t, const char*, int64_t);

/* sparse_kernels.h's, per value type (the sparse lowerings' calls, perform's
 * kernels): the CSR and CSC products, the sampled dot, the gather, the dense
 * form, the format swap, the row sort, the merge and the row-vector op. */
#define THEANO_HOST_SPARSE_ENTRIES(T, S)                                                                        \
  void (*csr_product_##S)(T, int, const T*, const int64_t*, const int64_t*, const T*, int64_t, int64_t, int64_t, \
                          T*, int64_t, int64_t, int64_t);                                                       \
  void (*csc_product_##S)(T, int, const T*, const int64_t*, const int64_t*, int64_t, const T*, int64_t, int64_t, \
                          int64_t, T*, int64_t, int64_t, int64_t);                                              \
  void (*sampled_dot_##S)(const int64_t*, const int64_t*, int, const T*, int64_t, int64_t, const T*, int64_t,    \
                          int64_t, int64_t, T*, int64_t, int64_t);                                              \
  void (*sparse_gather_##S)(const int64_t*, const int64_t*, int, const T*, int64_t, int64_t, T*, int64_t,        \
                            int64_t);                                                                           \
  void (*sparse_to_dense_##S)(const T*, const int64_t*, const int64_t*, int, int64_t, T*, int64_t, int64_t,      \
                              int64_t);                                                                         \
  void (*sparse_swap_##S)(int64_t, int64_t, const T*, const int64_t*, const int64_t*, T*, int64_t*, int64_t*);   \
  void (*sparse_sort_rows_##S)(int64_t, int64_t, const T*, const int64_t*, const int64_t*, T*, int64_t*,         \
                               int64_t*, T*, int64_t*, int64_t*);                                               \
  void (*sparse_merge_##S)(int, const T*, const int64_t*, const int64_t*, const T*, const int64_t*,              \
                           const int64_t*, T*, int64_t*, int64_t*, int64_t, int64_t);                           \
  void (*sparse_row_vector_##S)(int, const T*, const int64_t*, const int64_t*, int, const T*, int64_t, T*,       \
                                int64_t, int64_t);

/* X(type, suffix) for every value type a sparse matrix may hold, in the
 * table's order; X(entry, suffix) for each typed entry, in its order (entry E
 * is sparse_kernels.h's theano_E_<suffix>). */
#define THEANO_HOST_SPARSE_TYPES(X) X(double, f64) X(float, f32) X(int64_t, i64) X(int32_t, i32)
#define THEANO_HOST_SPARSE_NAMES(X, S)                                                                    \
  X(csr_product, S) X(csc_product, S) X(sampled_dot, S) X(sparse_gather, S) X(sparse_to_dense, S)           \
  X(sparse_swap, S) X(sparse_sort_rows, S) X(sparse_merge, S) X(sparse_row_vector, S)

struct TheanoHostKernels {
  /* Every unit's error reports and checked allocations (the prelude's
   * theano_fail* and theano_alloc_checked forward to these): each writes
   * its message into the context's error buffer and returns the error
   * code, as codegen/src/run/unit_errors.cpp says. */
  int (*fail)(struct TheanoContext*, int, const char*, const struct TheanoArray* const*, int);
  int (*fail_broadcast)(struct TheanoContext*, int, const char*, int64_t, int64_t, int64_t,
                        const struct TheanoArray* const*, int);
  int (*fail_ints)(struct TheanoContext*, int, int, const char*, int64_t, const char*, int64_t, const char*, int64_t,
                   const char*, const struct TheanoArray* const*, int);
  int (*fail_rule)(struct TheanoContext*, int, const char*, int64_t, const struct TheanoArray* const*, int);
  int (*alloc_checked)(struct TheanoContext*, struct TheanoArray*, int64_t, int64_t, const char*,
                       const struct TheanoArray* const*, int);
  int (*gpu_alloc_checked)(struct TheanoContext*, struct TheanoArray*, int64_t, int64_t, const char*,
                           const struct TheanoArray* const*, int);
  /* A scan's error reports (codegen/src/emit/scan_lowering.cpp's forwarders). */
  int (*scan_fail_shape)(struct TheanoContext*, const char*, int64_t, int64_t, const struct TheanoArray*,
                         const char*, const struct TheanoArray*, const char*);
  int (*scan_fail_rows)(struct TheanoContext*, const char*, int64_t, int64_t, int64_t, int64_t, int64_t);
  int (*scan_step_error)(struct TheanoContext*, int, const char*, int64_t);
  THEANO_HOST_CONV_ENTRIES(float, f32)
  THEANO_HOST_CONV_ENTRIES(double, f64)
  /* linalg_call.h's shape rule: the outputs' shapes into the call record. */
  int (*la_rule)(struct TheanoLaCall*);
  THEANO_HOST_LA_ENTRIES(f32)
  THEANO_HOST_LA_ENTRIES(f64)
  THEANO_HOST_SORT_ENTRIES(f64)
  THEANO_HOST_SORT_ENTRIES(f32)
  THEANO_HOST_SORT_ENTRIES(i64)
  THEANO_HOST_SORT_ENTRIES(i32)
  THEANO_HOST_SORT_ENTRIES(i16)
  THEANO_HOST_SORT_ENTRIES(i8)
  THEANO_HOST_SORT_ENTRIES(u64)
  THEANO_HOST_SORT_ENTRIES(u32)
  THEANO_HOST_SORT_ENTRIES(u16)
  THEANO_HOST_SORT_ENTRIES(u8)
  THEANO_HOST_BLAS_ENTRIES(f32)
  THEANO_HOST_BLAS_ENTRIES(f64)
  /* strided_copy.h's same-type copy of a strided block: (dst, dst's byte
   * strides, src, src's byte strides (0 to broadcast), shape, ndim, the
   * element size); 1 for an element size no dtype has. */
  int (*copy_strided)(char*, const int64_t*, const char*, const int64_t*, const int64_t*, int64_t, int64_t);
  /* Contiguous scratch copies (codegen/src/run/scratch_copies.h): one array
   * (ctx, tmp, src, item size; 0, or 1 when the allocation failed), and the
   * operands of a loop outside the layout each one's mode asks (ctx, in,
   * tmp, n, modes: 0 any, 1 C-contiguous, 2 last dimension contiguous, item
   * sizes; 0, or 1 + the first array whose copy failed). */
  int (*scratch_copy)(struct TheanoContext*, struct TheanoArray*, const struct TheanoArray*, int64_t);
  int (*scratch_inputs)(struct TheanoContext*, const struct TheanoArray**, struct TheanoArray*, int,
                        const unsigned char*, const int64_t*);
  /* reshape_view.h's no-copy reshape rule: (ndim, shape, strides, new ndim,
   * new shape, new strides (out), item size); 1 when a view has the shape. */
  int (*nocopy_reshape)(int64_t, const int64_t*, const int64_t*, int64_t, const int64_t*, int64_t*, int64_t);
  /* OpenBLAS's own thread count (runtime/blas_library.h: the library opens
   * on its first use): a node that splits its gemms across the loop threads
   * runs them on one BLAS thread each (codegen/src/emit/lower/conv.cpp). */
  int (*blas_threads)(void);
  void (*set_blas_threads)(int);
  THEANO_HOST_SPARSE_TYPES(THEANO_HOST_SPARSE_ENTRIES)
  /* sparse_kernels.h's untyped helpers: the first unsorted row of [lo, hi)
   * or -1, and the merge's counts turned into indptr. */
  int64_t (*sparse_first_unsorted)(const int64_t*, const int64_t*, int64_t, int64_t);
  void (*sparse_offsets)(int64_t*, int64_t);
};

#endif /* THEANO_RUNTIME_HOST_KERNELS_H */

/* \file
 * The thunk ABI: how the host and a generated translation unit exchange arrays,
 * errors and callbacks. Defined ONCE here: the host (c_linker.cpp, c_thunk.cpp) includes this
 * header and the code generator embeds its text in the prelude of every
 * generated translation unit (codegen/CMakeLists.txt), so the two sides cannot
 * disagree on a layout. The static_asserts pin the layout itself: changing it
 * must come with a new kRuntimeAbiVersion (compiledir.h), which renames every
 * compiledir. Plain C-compatible text: the prelude includes no standard header
 * (THEANO_GENERATED_CODE is defined there, and int64_t is the prelude's own).
 */
#ifndef THEANO_CODEGEN_THUNK_ABI_H
#define THEANO_CODEGEN_THUNK_ABI_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#include <theano/runtime/kernels/shape_rules.h> /* THEANO_MAX_NDIM; the prelude embeds it before this text */
#endif

/* The host's precompiled kernels (runtime/kernels/host_kernels.h, embedded
 * by the units that call them). */
struct TheanoHostKernels;

/* Error codes a node function returns (0: success); the host rethrows each as
 * the matching theano::Error (lowering.h's ErrorCode names them). */
#define THEANO_ERR_SHAPE 1  /* ShapeError */
#define THEANO_ERR_VALUE 2  /* ValueError */
#define THEANO_ERR_INDEX 3  /* IndexError */
#define THEANO_ERR_ASSERT 4 /* AssertionError from a failed Assert */
#define THEANO_ERR_HOST 5   /* an exception from a host callback, rethrown as it was */
#define THEANO_ERR_MEMORY 6 /* MemoryError: an allocation of a valid size failed */
/* theano_step (OpWise): the node's IfElse guard was false, it did not run. */
#define THEANO_STEP_SKIPPED (-1)

struct TheanoArray {
  char* data;
  int64_t ndim;
  int64_t dtype;
  int64_t owner;
  int64_t shape[THEANO_MAX_NDIM];
  int64_t strides[THEANO_MAX_NDIM]; /* bytes */
};

struct TheanoContext {
  const struct TheanoArray* inputs;
  struct TheanoArray* outputs;
  const struct TheanoArray* constants;
  void* host;
  /* in: ndim, dtype, shape; out: data, strides (C order), owner. slot >= 0: a
   * buffer the memory plan shares between intermediates whose lives do not
   * overlap. 0, THEANO_ERR_VALUE when the size is invalid or memory is short,
   * or THEANO_ERR_HOST (the host keeps the error) for a slot the plan lacks. */
  int (*alloc)(void* host, struct TheanoArray* a, int64_t slot);
  char* error;
  int64_t error_size;
  /* Runs the reference `perform` of fallback node `node` (an op without a
   * lowering) on the host; fills the outputs like alloc does. 0 or an error code. */
  int (*perform)(void* host, int64_t node, const struct TheanoArray* const* in, struct TheanoArray* const* out);
  struct TheanoArray* vars; /* OpWise linker only: the storage of every node output */
  /* Runs body(closure, begin, end, part) over consecutive parts of [0, n) on
   * up to `threads` threads (the caller included) and returns the number of
   * parts; the cut depends only on n, min_part and threads (runtime/thread_pool.h). */
  int64_t (*parallel_for)(int64_t threads, int64_t n, int64_t min_part,
                          void (*body)(void*, int64_t, int64_t, int64_t), void* closure);
  int64_t threads; /* THEANO_FLAGS threads: 1 runs every loop on the caller */
  /* The GPU side (functions with GPU nodes; null otherwise). Device arrays are
   * TheanoArrays whose data is a device address, never dereferenced here.
   * Each returns 0, or THEANO_ERR_HOST with the error (naming the node) kept
   * by the host. gpu_alloc: as alloc, in the function's GPU memory.
   * gpu_copy: dst <- src, same shape and dtype; direction 0: host -> device,
   * 1: device -> host (dst C-contiguous; src any strides). gpu_launch: runs
   * kernel `kernel` of the function's CUDA translation unit over `n`
   * elements with its parameter block (nparams int64 values). gpu_gemm:
   * C (m x n, ldc) <- alpha op(A) op(B) + beta C on GPU arrays of `dtype`
   * (float32 / float64) with row-major CBLAS semantics (trans_*: 0 or 1,
   * leading dimensions in elements): cuBLAS, or OpenBLAS on the emulated
   * device. */
  int (*gpu_alloc)(void* host, struct TheanoArray* a, int64_t slot);
  int (*gpu_copy)(void* host, struct TheanoArray* dst, const struct TheanoArray* src, int64_t direction);
  int (*gpu_launch)(void* host, int64_t kernel, int64_t n, const int64_t* params, int64_t nparams);
  int (*gpu_gemm)(void* host, int64_t dtype, int64_t trans_a, int64_t trans_b, int64_t m, int64_t n, int64_t k,
                  double alpha, const char* a, int64_t lda, const char* b, int64_t ldb, double beta, char* c,
                  int64_t ldc);
  /* Collective communication over MPI (runtime/collectives.h): `kind` is a
   * theano::runtime::Collective (0-2 allreduce sum / mean / max, 3 broadcast
   * from rank `root`, 4 allgather, 5 rank, 6 size) on communicator `comm`.
   * `in` any strides; `out` allocated C-contiguous by the caller with the
   * collective's shape (a 0-d int64 for rank / size). `label` starts error
   * messages. 0, or THEANO_ERR_HOST with the error kept by the host. */
  int (*collective)(void* host, int64_t kind, int64_t comm, int64_t root, const struct TheanoArray* in,
                    struct TheanoArray* out, const char* label);
  /* The arrays alloc, gpu_alloc and perform made during this call, which the
   * host keeps by `owner` until the call returns: returns how many there are,
   * after releasing, when keep >= 0, all but the first `keep` (no array among
   * them may be used again). A scan's loop releases what each step made once
   * its outputs are copied out, so a loop's memory does not grow with its
   * steps. */
  int64_t (*release)(void* host, int64_t keep);
  /* gpu_lapack: one dense linear algebra routine on column-major GPU
   * matrices of `dtype` (float32 / float64), asynchronous like a kernel:
   * cuSOLVER / cuBLAS on a GPU (run/cuda/cusolver.h), the LAPACK routines
   * the CPU form calls on the emulated device. `routine` is a
   * THEANO_GPU_LA_* below, `flags` its THEANO_GPU_LA_F_* bits; a is n x n
   * (lda), b n x nrhs (ldb; flag RIGHT: nrhs x n; SYEVD: the n
   * eigenvalues), ipiv n int32 (LAPACK's 1-based pivots), info one int32
   * the routine sets to LAPACK's info (0, or > 0: not positive definite /
   * singular / no convergence; TRSM and TRMM leave it: TRSM's caller checks
   * the diagonal). 0, or THEANO_ERR_HOST (a size past
   * the 32-bit interface, a failed library call) with the error kept by
   * the host. */
  int (*gpu_lapack)(void* host, int64_t routine, int64_t dtype, int64_t flags, int64_t n, int64_t nrhs, char* a,
                    int64_t lda, char* b, int64_t ldb, char* ipiv, char* info);
  /* Kernels compiled once into the host library, which generated code calls
   * instead of compiling its own copy (runtime/kernels/host_kernels.h);
   * never null. */
  const struct TheanoHostKernels* kernels;
  /* gpu_gemm_batched: `batch` gemms as gpu_gemm's, item i reading A at
   * a + i * stride_a, B at b + i * stride_b and writing C at c + i * stride_c
   * (strides in elements; 0 repeats an operand): cuBLAS's
   * ?gemmStridedBatched on a GPU, a loop of OpenBLAS gemms on the emulated
   * device (BatchedDot's GPU form, when its batch walk has one stride). */
  int (*gpu_gemm_batched)(void* host, int64_t dtype, int64_t trans_a, int64_t trans_b, int64_t m, int64_t n,
                          int64_t k, double alpha, const char* a, int64_t lda, int64_t stride_a, const char* b,
                          int64_t ldb, int64_t stride_b, double beta, char* c, int64_t ldc, int64_t stride_c,
                          int64_t batch);
};

/* gpu_lapack's routines and flags (the semantics of LAPACK's routine of that name). */
#define THEANO_GPU_LA_POTRF 1 /* a <- its Cholesky factor in the triangle of flag LOWER */
#define THEANO_GPU_LA_POTRS 2 /* b <- A^-1 b, a the factor from POTRF */
#define THEANO_GPU_LA_GETRF 3 /* a <- L U with row pivots ipiv */
#define THEANO_GPU_LA_GETRS 4 /* b <- op(A)^-1 b from GETRF's a and ipiv (flag TRANS) */
#define THEANO_GPU_LA_TRSM 5  /* b <- op(A)^-1 b, A triangular (LOWER, TRANS, UNIT; RIGHT: b <- b op(A)^-1) */
#define THEANO_GPU_LA_SYEVD 6 /* b <- eigenvalues ascending; a <- eigenvectors with VECTORS (LOWER read) */
#define THEANO_GPU_LA_TRMM 7  /* b <- op(A) b, A triangular (LOWER, TRANS, UNIT; RIGHT: b <- b op(A)); info left */
/* The non-square routines: a is n x nrhs (lda). */
#define THEANO_GPU_LA_GEQRF 8 /* a <- its QR factorization (R, the reflectors below); b <- min(n, nrhs) taus */
#define THEANO_GPU_LA_ORGQR 9 /* a <- Q's first nrhs columns, from the ldb reflectors GEQRF left in a and b */
/* n >= nrhs (a destroyed): b <- the nrhs singular values, descending; with VECTORS, ipiv (a buffer of dtype's
 * elements here) <- U (n x n with FULL, else n x nrhs; leading dimension n), then Vt (nrhs x nrhs) */
#define THEANO_GPU_LA_GESVD 10
#define THEANO_GPU_LA_F_LOWER 1
#define THEANO_GPU_LA_F_TRANS 2
#define THEANO_GPU_LA_F_UNIT 4
#define THEANO_GPU_LA_F_VECTORS 8
#define THEANO_GPU_LA_F_RIGHT 16
#define THEANO_GPU_LA_F_FULL 32

/* A failed shape rule (shape_rules.h) returns its error kind as the code. */
static_assert(THEANO_RULE_SHAPE_ERROR == THEANO_ERR_SHAPE && THEANO_RULE_VALUE_ERROR == THEANO_ERR_VALUE &&
                  THEANO_RULE_INDEX_ERROR == THEANO_ERR_INDEX,
              "shape rule error kinds are thunk error codes");

/* The layout both sides were written for (x86-64 / AArch64 LP64). */
static_assert(sizeof(int64_t) == 8 && sizeof(void*) == 8, "the thunk ABI assumes LP64");
static_assert(sizeof(struct TheanoArray) == 8 * (4 + 2 * THEANO_MAX_NDIM), "TheanoArray layout");
static_assert(__builtin_offsetof(struct TheanoArray, shape) == 32, "TheanoArray layout");
static_assert(__builtin_offsetof(struct TheanoArray, strides) == 32 + 8 * THEANO_MAX_NDIM, "TheanoArray layout");
static_assert(sizeof(struct TheanoContext) == 8 * 20, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, error_size) == 48, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, threads) == 80, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, gpu_launch) == 104, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, gpu_gemm) == 112, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, collective) == 120, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, release) == 128, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, gpu_lapack) == 136, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, kernels) == 144, "TheanoContext layout");
static_assert(__builtin_offsetof(struct TheanoContext, gpu_gemm_batched) == 152, "TheanoContext layout");

#endif /* THEANO_CODEGEN_THUNK_ABI_H */

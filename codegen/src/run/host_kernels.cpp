/// \file
/// Fills TheanoHostKernels with every unit's error reports and checked
/// allocation (unit_errors.h), the scratch copies (scratch_copies.h) and blas_calls.h's (the gemm in
/// blas_split.h's row blocks or parts), conv.h's, linalg.h's,
/// reshape_view.h's, sort.h's and strided_copy.h's functions, the text perform (or, for the
/// BLAS calls and the copy, the lowerings) runs, and sparse_kernels.h's, compiled here once;
/// assigning each to its entry checks its signature. The sort and typed sparse
/// kernels are host_kernels_v4.h's where the CPU runs x86-64-v4.
#include "host_kernels.h"

#include "blas_split.h"
#include "host_kernels_v4.h"
#include "scratch_copies.h"
#include "unit_errors.h"

#include <theano/runtime/kernels/blas_calls.h>
#include <theano/runtime/kernels/conv.h>
#include <theano/runtime/kernels/host_kernels.h>
#include <theano/runtime/kernels/linalg.h>
#include <theano/runtime/kernels/reshape_view.h>
#include <theano/runtime/kernels/sort.h>
#include <theano/runtime/kernels/sparse_kernels.h>
#include <theano/runtime/kernels/strided_copy.h>

#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define THEANO_HOST_X86_FEATURES 1
#endif

namespace theano::codegen::detail {

// glibc's record of the CPU, read without a CPUID of our own (each traps to
// the hypervisor on a VM; docs/jit-and-cache.md, "Keys").
bool host_runs_x86_64_v4() {
#if defined(THEANO_HOST_X86_FEATURES)
  return CPU_FEATURE_ACTIVE(AVX) && CPU_FEATURE_ACTIVE(AVX2) && CPU_FEATURE_ACTIVE(BMI1) &&
         CPU_FEATURE_ACTIVE(BMI2) && CPU_FEATURE_ACTIVE(FMA) && CPU_FEATURE_ACTIVE(F16C) &&
         CPU_FEATURE_ACTIVE(LZCNT) && CPU_FEATURE_ACTIVE(MOVBE) && CPU_FEATURE_ACTIVE(POPCNT) &&
         CPU_FEATURE_ACTIVE(SSE4_2) && CPU_FEATURE_ACTIVE(SSSE3) && CPU_FEATURE_ACTIVE(CMPXCHG16B) &&
         CPU_FEATURE_ACTIVE(LAHF64_SAHF64) && CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512BW) &&
         CPU_FEATURE_ACTIVE(AVX512CD) && CPU_FEATURE_ACTIVE(AVX512DQ) && CPU_FEATURE_ACTIVE(AVX512VL);
#else
  return false;
#endif
}

namespace {

/// blas_calls.h's gemm, whole, in row blocks or in parts (blas_split.h).
void gemm_host_f32(int64_t m, int64_t n, int64_t k, double alpha, const char* a, int64_t as0, int64_t as1,
                   const char* b, int64_t bs0, int64_t bs1, double beta, char* c, int64_t cs0, int64_t cs1) {
  blas_gemm_host(&theano_blas_gemm_f32, 4, m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1);
}
void gemm_host_f64(int64_t m, int64_t n, int64_t k, double alpha, const char* a, int64_t as0, int64_t as1,
                   const char* b, int64_t bs0, int64_t bs1, double beta, char* c, int64_t cs0, int64_t cs1) {
  blas_gemm_host(&theano_blas_gemm_f64, 8, m, n, k, alpha, a, as0, as1, b, bs0, bs1, beta, c, cs0, cs1);
}

/// The sort and typed sparse entries from the x86-64-v4 build.
void use_v4_kernels(TheanoHostKernels& t, const SortKernels& sort, const SparseKernels& sparse) {
#define THEANO_COPY_SORT_ENTRY(S) t.sort_##S = sort.sort_##S, t.argsort_##S = sort.argsort_##S;
  THEANO_HOST_SORT_DTYPES(THEANO_COPY_SORT_ENTRY)
#undef THEANO_COPY_SORT_ENTRY
#define THEANO_COPY_SPARSE_ENTRY(E, S) t.E##_##S = sparse.E##_##S;
#define THEANO_COPY_SPARSE_TYPE(T, S) THEANO_HOST_SPARSE_NAMES(THEANO_COPY_SPARSE_ENTRY, S)
  THEANO_HOST_SPARSE_TYPES(THEANO_COPY_SPARSE_TYPE)
#undef THEANO_COPY_SPARSE_TYPE
#undef THEANO_COPY_SPARSE_ENTRY
}

TheanoHostKernels make_table() {
  TheanoHostKernels table = {
      .fail = &theano_fail,
      .fail_broadcast = &theano_fail_broadcast,
      .fail_ints = &theano_fail_ints,
      .fail_rule = &theano_fail_rule,
      .alloc_checked = &theano_alloc_checked,
      .gpu_alloc_checked = &theano_gpu_alloc_checked,
      .scan_fail_shape = &theano_scan_fail_shape,
      .scan_fail_rows = &theano_scan_fail_rows,
      .scan_step_error = &theano_scan_step_error,
      .corr_fwd_f32 = &theano_corr_fwd_f32,
      .corr_grad_weights_f32 = &theano_corr_grad_weights_f32,
      .corr_grad_inputs_f32 = &theano_corr_grad_inputs_f32,
      .conv_pack_f32 = &theano_conv_pack_f32,
      .corr_fwd_f64 = &theano_corr_fwd_f64,
      .corr_grad_weights_f64 = &theano_corr_grad_weights_f64,
      .corr_grad_inputs_f64 = &theano_corr_grad_inputs_f64,
      .conv_pack_f64 = &theano_conv_pack_f64,
      .la_rule = &theano_la_rule,
      .la_work_f32 = &theano_la_work_f32,
      .la_run_f32 = &theano_la_run_f32,
      .la_work_f64 = &theano_la_work_f64,
      .la_run_f64 = &theano_la_run_f64,
      .sort_f64 = &theano_sort_f64,
      .argsort_f64 = &theano_argsort_f64,
      .sort_f32 = &theano_sort_f32,
      .argsort_f32 = &theano_argsort_f32,
      .sort_i64 = &theano_sort_i64,
      .argsort_i64 = &theano_argsort_i64,
      .sort_i32 = &theano_sort_i32,
      .argsort_i32 = &theano_argsort_i32,
      .sort_i16 = &theano_sort_i16,
      .argsort_i16 = &theano_argsort_i16,
      .sort_i8 = &theano_sort_i8,
      .argsort_i8 = &theano_argsort_i8,
      .sort_u64 = &theano_sort_u64,
      .argsort_u64 = &theano_argsort_u64,
      .sort_u32 = &theano_sort_u32,
      .argsort_u32 = &theano_argsort_u32,
      .sort_u16 = &theano_sort_u16,
      .argsort_u16 = &theano_argsort_u16,
      .sort_u8 = &theano_sort_u8,
      .argsort_u8 = &theano_argsort_u8,
      .blas_gemm_f32 = &gemm_host_f32,
      .blas_gemv_f32 = &theano_blas_gemv_f32,
      .blas_ger_f32 = &theano_blas_ger_f32,
      .blas_dot_f32 = &theano_blas_dot_f32,
      .blas_gemm_f64 = &gemm_host_f64,
      .blas_gemv_f64 = &theano_blas_gemv_f64,
      .blas_ger_f64 = &theano_blas_ger_f64,
      .blas_dot_f64 = &theano_blas_dot_f64,
      .copy_strided = &theano_copy_strided,
      .scratch_copy = &theano_scratch_copy,
      .scratch_inputs = &theano_scratch_inputs,
      .nocopy_reshape = &theano_nocopy_reshape,
      .blas_threads = &openblas_get_num_threads,
      .set_blas_threads = &openblas_set_num_threads,
      THEANO_HOST_SPARSE_INITS
      .sparse_first_unsorted = &theano_sparse_first_unsorted,
      .sparse_offsets = &theano_sparse_offsets,
  };
  if (kSortKernelsV4 != nullptr && kSparseKernelsV4 != nullptr && host_runs_x86_64_v4())
    use_v4_kernels(table, *kSortKernelsV4, *kSparseKernelsV4);
  return table;
}

}  // namespace

const TheanoHostKernels* host_kernels() {
  static const TheanoHostKernels table = make_table();
  return &table;
}

}  // namespace theano::codegen::detail

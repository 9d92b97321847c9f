/// \file
/// Fills TheanoHostKernels with every unit's error reports and checked
/// allocation (unit_errors.h), the scratch copies (scratch_copies.h) and blas_calls.h's, conv.h's, linalg.h's,
/// reshape_view.h's, sort.h's and strided_copy.h's functions, the text perform (or, for the
/// BLAS calls and the copy, the lowerings) runs, compiled here once;
/// assigning each to its entry checks its signature.
#include "host_kernels.h"

#include "scratch_copies.h"
#include "unit_errors.h"

#include <theano/runtime/kernels/blas_calls.h>
#include <theano/runtime/kernels/conv.h>
#include <theano/runtime/kernels/host_kernels.h>
#include <theano/runtime/kernels/linalg.h>
#include <theano/runtime/kernels/reshape_view.h>
#include <theano/runtime/kernels/sort.h>
#include <theano/runtime/kernels/strided_copy.h>

namespace theano::codegen::detail {

const TheanoHostKernels* host_kernels() {
  static const TheanoHostKernels table = {
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
      .blas_gemm_f32 = &theano_blas_gemm_f32,
      .blas_gemv_f32 = &theano_blas_gemv_f32,
      .blas_ger_f32 = &theano_blas_ger_f32,
      .blas_dot_f32 = &theano_blas_dot_f32,
      .blas_gemm_f64 = &theano_blas_gemm_f64,
      .blas_gemv_f64 = &theano_blas_gemv_f64,
      .blas_ger_f64 = &theano_blas_ger_f64,
      .blas_dot_f64 = &theano_blas_dot_f64,
      .copy_strided = &theano_copy_strided,
      .scratch_copy = &theano_scratch_copy,
      .scratch_inputs = &theano_scratch_inputs,
      .nocopy_reshape = &theano_nocopy_reshape,
      .blas_threads = &openblas_get_num_threads,
      .set_blas_threads = &openblas_set_num_threads,
  };
  return &table;
}

}  // namespace theano::codegen::detail

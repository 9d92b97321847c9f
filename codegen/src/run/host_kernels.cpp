/// \file
/// Fills TheanoHostKernels with conv.h's and linalg.h's functions, the text
/// perform runs, compiled here once; assigning each to its entry checks its
/// signature.
#include "host_kernels.h"

#include <theano/runtime/kernels/conv.h>
#include <theano/runtime/kernels/host_kernels.h>
#include <theano/runtime/kernels/linalg.h>

namespace theano::codegen::detail {

const TheanoHostKernels* host_kernels() {
  static const TheanoHostKernels table = {
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
  };
  return &table;
}

}  // namespace theano::codegen::detail

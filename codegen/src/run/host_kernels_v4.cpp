/// \file
/// sort.h and conv.h compiled for x86-64-v4 (host_kernels_v4.h): CMake gives
/// this file -march=x86-64-v4, -ffp-contract=off and THEANO_HOST_KERNELS_V4
/// where the compiler takes the flag on an x86-64 build; elsewhere it defines
/// a null table. Only static functions are compiled here (the kernels are
/// `static inline`; what they call of external linkage, OpenBLAS and
/// theano_blas_split_rows, is compiled elsewhere): an inline function of
/// external linkage built for x86-64-v4 could be the copy the linker keeps
/// for the whole library, and run on a CPU without AVX-512.
#include "host_kernels_v4.h"

#if defined(THEANO_HOST_KERNELS_V4)
#include <theano/runtime/kernels/conv.h>
#include <theano/runtime/kernels/sort.h>
#endif

namespace theano::codegen::detail {

#if defined(THEANO_HOST_KERNELS_V4)
namespace {
#define THEANO_V4_SORT_ENTRY(S) .sort_##S = &theano_sort_##S, .argsort_##S = &theano_argsort_##S,
#define THEANO_V4_CONV_ENTRY(T, S)                                                                      \
  .corr_fwd_##S = &theano_corr_fwd_##S, .corr_grad_weights_##S = &theano_corr_grad_weights_##S,        \
  .corr_grad_inputs_##S = &theano_corr_grad_inputs_##S, .conv_pack_##S = &theano_conv_pack_##S,
constexpr KernelsV4 kV4 = {THEANO_HOST_SORT_DTYPES(THEANO_V4_SORT_ENTRY) THEANO_HOST_CONV_DTYPES(THEANO_V4_CONV_ENTRY)};
#undef THEANO_V4_CONV_ENTRY
#undef THEANO_V4_SORT_ENTRY
}  // namespace
const KernelsV4* const kKernelsV4 = &kV4;
#else
const KernelsV4* const kKernelsV4 = nullptr;
#endif

}  // namespace theano::codegen::detail

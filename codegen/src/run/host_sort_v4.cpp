/// \file
/// sort.h compiled for x86-64-v4 (host_sort_v4.h): CMake gives this file
/// -march=x86-64-v4 and THEANO_HOST_SORT_V4 where the compiler takes the
/// flag on an x86-64 build; elsewhere it defines a null table. Only static
/// functions are compiled here (sort.h's are `static inline`): an inline
/// function of external linkage built for x86-64-v4 could be the copy the
/// linker keeps for the whole library, and run on a CPU without AVX-512.
#include "host_sort_v4.h"

#if defined(THEANO_HOST_SORT_V4)
#include <theano/runtime/kernels/sort.h>
#endif

namespace theano::codegen::detail {

#if defined(THEANO_HOST_SORT_V4)
namespace {
constexpr SortKernels kV4 = {
    &theano_sort_f64, &theano_argsort_f64, &theano_sort_f32, &theano_argsort_f32, &theano_sort_i64,
    &theano_argsort_i64, &theano_sort_i32, &theano_argsort_i32, &theano_sort_i16, &theano_argsort_i16,
    &theano_sort_i8, &theano_argsort_i8, &theano_sort_u64, &theano_argsort_u64, &theano_sort_u32,
    &theano_argsort_u32, &theano_sort_u16, &theano_argsort_u16, &theano_sort_u8, &theano_argsort_u8,
};
}  // namespace
const SortKernels* const kSortKernelsV4 = &kV4;
#else
const SortKernels* const kSortKernelsV4 = nullptr;
#endif

}  // namespace theano::codegen::detail

/// \file
/// sort.h's and sparse_kernels.h's kernels compiled for x86-64-v4
/// (host_kernels_v4.h): CMake gives this file -march=x86-64-v4,
/// -ffp-contract=off and THEANO_HOST_KERNELS_V4 where the compiler takes the
/// flag on an x86-64 build; elsewhere it defines null tables. Only static
/// functions are compiled here (the headers' are `static inline`): an inline
/// function of external linkage built for x86-64-v4 could be the copy the
/// linker keeps for the whole library, and run on a CPU without AVX-512.
#include "host_kernels_v4.h"

#if defined(THEANO_HOST_KERNELS_V4)
#include <theano/runtime/kernels/sort.h>
#include <theano/runtime/kernels/sparse_kernels.h>
#endif

namespace theano::codegen::detail {

#if defined(THEANO_HOST_KERNELS_V4)
namespace {
#define THEANO_V4_SORT_ENTRY(S) .sort_##S = &theano_sort_##S, .argsort_##S = &theano_argsort_##S,
constexpr SortKernels kSortV4 = {THEANO_HOST_SORT_DTYPES(THEANO_V4_SORT_ENTRY)};
#undef THEANO_V4_SORT_ENTRY
constexpr SparseKernels kSparseV4 = {THEANO_HOST_SPARSE_INITS};
}  // namespace
const SortKernels* const kSortKernelsV4 = &kSortV4;
const SparseKernels* const kSparseKernelsV4 = &kSparseV4;
#else
const SortKernels* const kSortKernelsV4 = nullptr;
const SparseKernels* const kSparseKernelsV4 = nullptr;
#endif

}  // namespace theano::codegen::detail

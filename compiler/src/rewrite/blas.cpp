/// \file
/// dot22, gemm / gemv / ger and the inplace rewrites (work in progress).
#include "rewrites.h"

namespace theano::rewrite::detail {

void register_blas_inplace_rewrites(SequenceDB&) {}

}  // namespace theano::rewrite::detail

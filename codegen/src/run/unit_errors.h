/// \file
/// The error reports and checked allocations generated code calls through
/// TheanoContext::kernels (runtime/kernels/host_kernels.h; the prelude's
/// theano_fail* and theano_alloc_checked forward to them), compiled once
/// into this library.
#pragma once

#include "../thunk_abi.h"

namespace theano::codegen::detail {

int theano_fail(TheanoContext* c, int code, const char* msg, const TheanoArray* const* in, int n);
int theano_fail_broadcast(TheanoContext* c, int rule, const char* msg, int64_t input, int64_t dim, int64_t other,
                          const TheanoArray* const* in, int n);
int theano_fail_ints(TheanoContext* c, int code, int k, const char* msg, int64_t a, const char* mid, int64_t b,
                     const char* mid2, int64_t v, const char* tail, const TheanoArray* const* in, int n);
int theano_fail_rule(TheanoContext* c, int rule, const char* msg, int64_t value, const TheanoArray* const* in, int n);
int theano_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize, const char* msg,
                         const TheanoArray* const* in, int n);
int theano_gpu_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize, const char* msg,
                             const TheanoArray* const* in, int n);
int theano_scan_fail_shape(TheanoContext* c, const char* msg, int64_t t, int64_t k, const TheanoArray* got,
                           const char* middle, const TheanoArray* want, const char* tail);
int theano_scan_fail_rows(TheanoContext* c, const char* msg, int64_t rows, int64_t steps, int64_t lo, int64_t hi,
                          int64_t need);
int theano_scan_step_error(TheanoContext* c, int e, const char* what, int64_t t);

}  // namespace theano::codegen::detail

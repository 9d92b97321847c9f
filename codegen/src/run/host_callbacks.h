/// \file
/// The host side of TheanoContext's callbacks (thunk_abi.h) for a CThunk's
/// call: `host` is the call's Workspace (workspace.h). Each is noexcept and
/// returns the ABI's codes; an exception becomes THEANO_ERR_HOST with the
/// exception kept in the Workspace for the thunk to rethrow.
#pragma once

#include <cstdint>

#include "../thunk_abi.h"

namespace theano::codegen::detail {

int host_perform(void* host, std::int64_t index, const TheanoArray* const* in, TheanoArray* const* out) noexcept;
int host_alloc(void* host, TheanoArray* a, std::int64_t slot) noexcept;
std::int64_t host_release(void* host, std::int64_t keep) noexcept;
int host_gpu_alloc(void* host, TheanoArray* a, std::int64_t slot) noexcept;
int host_gpu_copy(void* host, TheanoArray* dst, const TheanoArray* src, std::int64_t direction) noexcept;
int host_gpu_launch(void* host, std::int64_t kernel, std::int64_t n, const std::int64_t* params,
                    std::int64_t nparams) noexcept;
int host_gpu_gemm(void* host, std::int64_t dtype, std::int64_t trans_a, std::int64_t trans_b, std::int64_t m,
                  std::int64_t n, std::int64_t k, double alpha, const char* a, std::int64_t lda, const char* b,
                  std::int64_t ldb, double beta, char* c, std::int64_t ldc) noexcept;
int host_gpu_gemm_batched(void* host, std::int64_t dtype, std::int64_t trans_a, std::int64_t trans_b, std::int64_t m,
                          std::int64_t n, std::int64_t k, double alpha, const char* a, std::int64_t lda,
                          std::int64_t stride_a, const char* b, std::int64_t ldb, std::int64_t stride_b, double beta,
                          char* c, std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) noexcept;
int host_gpu_lapack(void* host, std::int64_t routine, std::int64_t dtype, std::int64_t flags, std::int64_t n,
                    std::int64_t nrhs, char* a, std::int64_t lda, char* b, std::int64_t ldb, char* ipiv,
                    char* info) noexcept;
int host_collective(void* host, std::int64_t kind, std::int64_t comm, std::int64_t root, const TheanoArray* in,
                    TheanoArray* out, const char* label) noexcept;

}  // namespace theano::codegen::detail

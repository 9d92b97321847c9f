/// \file
/// The table of kernels compiled into this library that generated code calls
/// through TheanoContext::kernels (runtime/kernels/host_kernels.h says which
/// and why; docs/jit-and-cache.md, "Host kernels").
#pragma once

struct TheanoHostKernels;

namespace theano::codegen::detail {

/// The process's table: every entry set, alive for the process.
const TheanoHostKernels* host_kernels();

}  // namespace theano::codegen::detail

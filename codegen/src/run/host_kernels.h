/// \file
/// The table of kernels compiled into this library that generated code calls
/// through TheanoContext::kernels (runtime/kernels/host_kernels.h says which
/// and why; docs/jit-and-cache.md, "Host kernels").
#pragma once

struct TheanoHostKernels;

namespace theano::codegen::detail {

/// The process's table: every entry set, alive for the process.
const TheanoHostKernels* host_kernels();

/// Whether this CPU (and the OS, for the vector registers) runs x86-64-v4
/// code, as glibc recorded it at process start: where it does, the table's
/// sort and typed sparse kernels are host_kernels_v4.h's.
bool host_runs_x86_64_v4();

}  // namespace theano::codegen::detail

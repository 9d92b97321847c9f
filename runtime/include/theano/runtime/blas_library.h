/// \file
/// OpenBLAS (BLAS and LAPACK), opened on its first use instead of at process
/// start.
///
/// Why: OpenBLAS starts its server threads in its library constructor, and
/// they spin in sched_yield for about 0.1 s. Linked directly, every process
/// paid that, with or without a BLAS call, and a warm start ran beside the
/// spinning thread (bench/README.md, "Warm starts: OpenBLAS's spinning
/// thread"). theano-cpp's own libraries do not link OpenBLAS: runtime defines
/// the CBLAS, LAPACK and openblas_* functions it calls as forwarders to the
/// library, which the first call opens (docs/architecture.md, "External
/// libraries"). A program that links OpenBLAS itself works as before: a
/// forwarder calls the same library's function.
///
/// OpenBLAS chooses its kernels by the CPU's model. For a model it does not
/// know it falls back to its Prescott (SSE3) kernels whatever the CPU can run
/// (Debian 12's 0.3.21 on Intel's Emerald Rapids: dgemm 5x slower). Opening
/// it here, theano-cpp checks: when the user has not set OPENBLAS_CORETYPE
/// and OpenBLAS chose Prescott on a CPU with AVX2 and FMA (or AVX-512), it
/// closes the library and opens it again with OPENBLAS_CORETYPE set, for that
/// dlopen only, to Haswell, SkylakeX or Cooperlake by the CPU's features.
/// setenv is not safe against a getenv on another thread at that moment;
/// a program that cannot have that sets OPENBLAS_CORETYPE itself.
#pragma once

#include <span>

namespace theano::runtime {

/// The library's file name, looked up as the dynamic linker looks up a
/// DT_NEEDED entry (Debian's alternatives link picks the build).
inline constexpr const char* kBlasLibrary = "libopenblas.so.0";

/// Opens the library and resolves every function the forwarders call, once
/// per process. Throws IOError naming the library and what is missing. A
/// forwarder that finds the library missing prints the same message and
/// aborts (it is called from plain C kernels that cannot throw), so code that
/// can throw calls this first.
void load_blas();

/// Whether load_blas has succeeded in this process (no load is attempted).
bool blas_loaded() noexcept;

/// A forwarder: the function's name and its address in this process.
struct BlasFunction {
  const char* name;
  void* address;
};
/// Every forwarder: the JIT loader binds a loaded object's calls of these
/// names to them, so that loading code does not open the library
/// (codegen/src/load/jit_loader.cpp).
std::span<const BlasFunction> blas_functions() noexcept;

}  // namespace theano::runtime

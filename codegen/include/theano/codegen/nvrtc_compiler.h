/// \file
/// CUDA source -> PTX / CUBIN with NVRTC, in the process.
///
/// Why: the CUDA back end compiles generated kernels at run time the same way the
/// CPU back end does: a CUBIN for the device's exact architecture plus PTX as
/// the forward-compatible fallback (docs/jit-and-cache.md, "CUDA: NVRTC and the
/// emulated device"). NVRTC works without a GPU, so this part is testable on
/// every machine that has the toolkit. When theano-cpp was
/// built without the CUDA toolkit, `nvrtc_available()` is false and compiling
/// throws a clear error instead of failing to link.
#pragma once

#include <theano/codegen/errors.h>

#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen {

/// NVRTC flags. `arch` "sm_XX" gives PTX + CUBIN, "compute_XX" gives PTX only.
struct NvrtcOptions {
  std::string arch = "compute_90";
  std::string std = "c++17";
  bool fast_math = false;  ///< `--use_fast_math`
  bool debug = false;      ///< `-G` (device debug info, slow code)
  /// `--Ofast-compile=<level>` ("0", "min", "mid", "max"): how much device
  /// optimization NVRTC trades for compile time. "min" (the default, NVIDIA:
  /// "minimal impact on runtime") compiled W3's training-step unit in 0.37 s
  /// instead of 1.75 s (sm_80) here; THEANO_FLAGS nvrtc_fast_compile picks
  /// another level for the GPU back end's functions.
  std::string fast_compile = "min";
  std::vector<std::string> extra;  ///< appended last

  /// The NVRTC option strings these options stand for.
  std::vector<std::string> flags() const;
};

/// The result of one NVRTC compile.
struct NvrtcResult {
  std::string ptx;    ///< always filled
  std::string cubin;  ///< filled when `arch` is "sm_XX"
  std::string log;    ///< NVRTC's program log (warnings), often empty
  /// For each name expression given to compile: its lowered (mangled) name.
  std::vector<std::string> lowered_names;
  double compile_ms = 0;
};

/// True when this build links NVRTC (the CUDA toolkit was found at configure time).
bool nvrtc_available();
/// Why NVRTC is unavailable ("" when it is available).
std::string nvrtc_unavailable_reason();
/// NVRTC's version as "major.minor", or "" when unavailable.
std::string nvrtc_version();
/// The `sm_XX` numbers this NVRTC supports (e.g. 75, 80, ..., 120); empty when
/// unavailable.
std::vector<int> nvrtc_supported_archs();

/// Compiles `source` (named `name` in diagnostics). `name_expressions` are C++
/// names of `__global__` templates to instantiate and report lowered names for
/// (`extern "C"` kernels need none). Throws CompileError with the NVRTC log (and
/// the kept source path) when the source does not compile, ValueError for bad
/// options, and Error when NVRTC is unavailable.
NvrtcResult nvrtc_compile(std::string_view source, const NvrtcOptions& options = {},
                          std::string_view name = "kernel.cu",
                          const std::vector<std::string>& name_expressions = {});

/// Whether a CUDA driver and at least one device can be used: dlopens
/// `libcuda.so.1` (never linked), calls cuInit(0) and cuDeviceGetCount. Fills
/// `reason` when the answer is false (library missing, the toolkit's stub library,
/// cuInit error, no device).
bool cuda_driver_available(std::string* reason = nullptr);

}  // namespace theano::codegen

/// \file
/// NVRTC output (CUBIN or PTX) cached in the compiledir, beside the CPU objects.
///
/// Why: an NVRTC compile of a small kernel costs 50-250 ms (PTX, then ptxas for
/// a CUBIN; docs/jit-and-cache.md, "Measured costs"), and a process that builds the same CUDA
/// graph as the last one should pay none of it. The CUDA images therefore go
/// through the same cache::CompileCache as host objects: the same compiledir,
/// the same trust checks on every file, the same CRC against damage, the same
/// striped locks (a key is compiled once even when threads or processes race
/// for it), the same cleanup and the same `theano-cache` listing.
///
/// What is cached: for a device of compute capability `cc`, the CUBIN for
/// `sm_<cc>` when this NVRTC supports that architecture, else the PTX for the
/// highest supported `compute_XX` <= cc, which the driver JIT-compiles (forward
/// compatibility for devices newer than the toolkit). One entry per image:
/// `<key>.o` holds the CUBIN (an ELF) or the PTX text (no trailing NUL; a
/// std::string's data() is NUL-terminated, as cuModuleLoadData wants),
/// `<key>.cpp` the CUDA source (the cache's file naming, kept for all kinds),
/// and `<key>.meta` the kind: "cuda sm_90 cubin" or "cuda compute_121 ptx".
///
/// Invariants: the key is BLAKE3 (160 bits, hex) over length-prefixed fields:
/// a schema tag of its own (a CUDA key never equals a host key), the NVRTC
/// version, the architecture, the complete NVRTC flag list (with that
/// architecture), the program name and the source. Nothing depends on the
/// working directory or the environment. A toolkit upgrade changes the version
/// field, so stale images are never reused; they age out with the cleanup.
#pragma once

#include <theano/cache/compile_cache.h>
#include <theano/codegen/nvrtc_compiler.h>

#include <string>
#include <string_view>

namespace theano::codegen {

/// A CUDA image ready for the driver (cuModuleLoadData / cuLibraryLoadData).
struct CudaImage {
  std::string bytes;       ///< the CUBIN, or the PTX text without trailing NULs
  bool cubin = false;      ///< true: a CUBIN for `arch` (sm_XX); false: PTX for `arch` (compute_XX)
  std::string arch;        ///< "sm_90" or "compute_90"
  std::string key;         ///< the cache key (cuda_cache_key), also when not cached
  bool cache_hit = false;  ///< read from the compiledir; NVRTC did not run
  double compile_ms = 0;   ///< NVRTC time when compiled here, the time the entry recorded on a hit
};

/// The architecture compile_cuda_cached targets on a device of compute
/// capability `cc` (major * 10 + minor, e.g. 90): "sm_<cc>" when this NVRTC
/// supports it, else "compute_<a>" for the highest supported a <= cc.
/// ValueError when cc is not positive or lower than every supported
/// architecture; Error when NVRTC is unavailable.
std::string cuda_image_arch(int cc);

/// The `kind` of the cache entry of an image for `arch`: "cuda sm_90 cubin",
/// "cuda compute_90 ptx".
std::string cuda_entry_kind(const std::string& arch);

/// The cache key (40 hex digits) of compiling `source` for `arch` ("sm_XX" or
/// "compute_XX") with `options` (whose own `arch` is ignored: `arch` replaces
/// it). Works without NVRTC (its version field is then empty).
std::string cuda_cache_key(std::string_view source, const std::string& arch, const NvrtcOptions& options);

/// The image to load on a device of compute capability `cc` (see
/// cuda_image_arch), from `cache` when it holds it, else compiled with NVRTC
/// (under the key's stripe lock: threads and processes racing for one key
/// compile it once) and published there with `origin` (a one-line summary for
/// `theano-cache list`; "" gives one naming the source size). `cache` nullptr:
/// no caching. `options.arch` is ignored. For `extern "C"` kernels (no name
/// expressions, no lowered names). Throws what nvrtc_compile throws
/// (CompileError with the NVRTC log; nothing is cached then), ValueError as
/// cuda_image_arch, and Error naming the reason when NVRTC is unavailable.
CudaImage compile_cuda_cached(std::string_view source, int cc, const NvrtcOptions& options, cache::CompileCache* cache,
                              std::string_view origin = "");

}  // namespace theano::codegen

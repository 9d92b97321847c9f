// NVRTC images in the compiledir (see cuda_cache.h): choosing the
// architecture for a compute capability, the cache key, and compile-or-hit.
#include <fcntl.h>
#include <sys/stat.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/cuda_cache.h>
#include <theano/runtime/error.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace theano::codegen {
namespace {

/// The NVRTC program name: fixed, because with `-G` it is written into the
/// output (and so it is part of the key too).
constexpr const char* kProgramName = "theano_kernel.cu";


NvrtcOptions with_arch(const NvrtcOptions& options, const std::string& arch) {
  NvrtcOptions o = options;
  o.arch = arch;
  return o;
}

/// The compile time an entry recorded (its `.meta`), read for reporting only:
/// the object itself came verified through CompileCache. 0 when unreadable.
double recorded_compile_ms(const cache::CompileCache& cache, const std::string& key) {
  const std::filesystem::path meta = cache.dir() / key.substr(0, 2) / (key + ".meta");
  const int fd = ::open(meta.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return 0;
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    char buf[4096];
    ssize_t n = 0;
    while (text.size() < 65536 && ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
      if (n > 0) text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  const auto p = text.find("\ncompile_ms=");
  return p == std::string::npos ? 0 : std::atof(text.c_str() + p + 12);
}

}  // namespace

std::string cuda_image_arch(int cc) {
  if (!nvrtc_available()) throw Error("cuda_image_arch: " + nvrtc_unavailable_reason());
  THEANO_USER_CHECK(cc > 0, ValueError) << "CUDA compute capability must be positive (major * 10 + minor), got " << cc;
  std::vector<int> archs = nvrtc_supported_archs();
  std::sort(archs.begin(), archs.end());
  if (std::binary_search(archs.begin(), archs.end(), cc)) return "sm_" + std::to_string(cc);
  const auto below = std::upper_bound(archs.begin(), archs.end(), cc);
  THEANO_USER_CHECK(below != archs.begin(), ValueError)
      << "CUDA compute capability " << cc / 10 << "." << cc % 10 << " is older than every architecture NVRTC "
      << nvrtc_version() << " supports (the oldest is sm_" << (archs.empty() ? 0 : archs.front())
      << "); use an older CUDA toolkit for this device";
  return "compute_" + std::to_string(*std::prev(below));
}

std::string cuda_entry_kind(const std::string& arch) {
  return "cuda " + arch + (arch.rfind("sm_", 0) == 0 ? " cubin" : " ptx");
}

std::string cuda_cache_key(std::string_view source, const std::string& arch, const NvrtcOptions& options) {
  const std::string version = nvrtc_version();
  const std::vector<std::string> flags = with_arch(options, arch).flags();
  const std::string nflags = std::to_string(flags.size());
  std::vector<std::string_view> fields = {"theano-cpp cuda cache key 1", version, arch, nflags};
  for (const std::string& f : flags) fields.push_back(f);
  fields.push_back(kProgramName);
  fields.push_back(source);
  return hash_fields(fields);
}

CudaImage compile_cuda_cached(std::string_view source, int cc, const NvrtcOptions& options, cache::CompileCache* cache,
                              std::string_view origin) {
  // The same Error (type and reason) nvrtc_compile throws.
  if (!nvrtc_available()) throw Error("compile_cuda_cached: " + nvrtc_unavailable_reason());
  CudaImage image;
  image.arch = cuda_image_arch(cc);
  image.cubin = image.arch.rfind("sm_", 0) == 0;
  image.key = cuda_cache_key(source, image.arch, options);
  const NvrtcOptions opts = with_arch(options, image.arch);
  double compiled_ms = -1;  // set when NVRTC ran here
  auto compile = [&] {
    NvrtcResult r = nvrtc_compile(source, opts, kProgramName);
    compiled_ms = r.compile_ms;
    return image.cubin ? std::move(r.cubin) : std::move(r.ptx);
  };
  if (!cache) {
    image.bytes = compile();
    image.compile_ms = compiled_ms;
    return image;
  }
  bool hit = false;
  image.bytes = cache->get_or_produce(
      image.key,
      [&] {
        cache::Entry e;
        e.object = compile();
        e.source = std::string(source);
        e.compile_ms = compiled_ms;
        e.origin = origin.empty() ? "CUDA kernel, " + std::to_string(source.size()) + " bytes of source"
                                  : std::string(origin.substr(0, 300));
        e.kind = cuda_entry_kind(image.arch);
        return e;
      },
      &hit);
  image.cache_hit = hit;
  image.compile_ms = compiled_ms >= 0 ? compiled_ms : hit ? recorded_compile_ms(*cache, image.key) : 0;
  return image;
}

}  // namespace theano::codegen

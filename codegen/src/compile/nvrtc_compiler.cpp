/// \file
/// NVRTC: CUDA source -> PTX (+ CUBIN for sm_XX), and the "is there a usable GPU"
/// probe (docs/jit-and-cache.md, "CUDA: NVRTC and the emulated device").
///
/// Why compiled out rather than dlopened: NVRTC comes with the toolkit the build
/// found (CUDA::nvrtc); without it THEANO_HAVE_NVRTC is 0 and every entry point
/// reports "unavailable" instead of failing to link.
#include <theano/codegen/cuda_driver.h>
#include <theano/codegen/nvrtc_compiler.h>

#include <chrono>

#if THEANO_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace theano::codegen {

std::vector<std::string> NvrtcOptions::flags() const {
  std::vector<std::string> f = {"--gpu-architecture=" + arch, "--std=" + std, "-default-device"};
  if (fast_math) f.push_back("--use_fast_math");
  if (debug) f.push_back("-G");
  if (!fast_compile.empty() && fast_compile != "0") f.push_back("--Ofast-compile=" + fast_compile);
  f.insert(f.end(), extra.begin(), extra.end());
  return f;
}

bool cuda_driver_available(std::string* reason) {
  const CudaDriver& d = CudaDriver::instance();
  if (!d.available() && reason) *reason = d.unavailable_reason();
  return d.available();
}

#if THEANO_HAVE_NVRTC

namespace {

struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

void check(nvrtcResult r, const char* call) {
  if (r != NVRTC_SUCCESS) throw Error(std::string("NVRTC ") + call + " failed: " + nvrtcGetErrorString(r));
}

std::string program_log(nvrtcProgram p) {
  std::size_t n = 0;
  if (nvrtcGetProgramLogSize(p, &n) != NVRTC_SUCCESS || n <= 1) return {};
  std::string log(n, '\0');
  nvrtcGetProgramLog(p, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

bool nvrtc_available() { return true; }
std::string nvrtc_unavailable_reason() { return {}; }

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_archs() {
  int n = 0;
  check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (n > 0) check(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

NvrtcResult nvrtc_compile(std::string_view source, const NvrtcOptions& options, std::string_view name,
                          const std::vector<std::string>& name_expressions) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string src(source), file(name);
  Program prog;
  check(nvrtcCreateProgram(&prog.p, src.c_str(), file.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  for (const auto& e : name_expressions) check(nvrtcAddNameExpression(prog.p, e.c_str()), "nvrtcAddNameExpression");

  const std::vector<std::string> flags = options.flags();
  std::vector<const char*> argv;
  for (const auto& f : flags) argv.push_back(f.c_str());
  nvrtcResult r = nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());
  NvrtcResult result;
  result.log = program_log(prog.p);
  if (r == NVRTC_ERROR_COMPILATION) {
    std::string kept = keep_failed_source(source, ".cu");
    throw CompileError("CUDA compile failed (NVRTC) for '" + file + "'", result.log, std::move(kept));
  }
  if (r == NVRTC_ERROR_INVALID_OPTION) {
    std::string joined;
    for (const auto& f : flags) joined += " " + f;
    throw ValueError("NVRTC rejected the options" + joined + "\n" + result.log);
  }
  check(r, "nvrtcCompileProgram");

  std::size_t n = 0;
  check(nvrtcGetPTXSize(prog.p, &n), "nvrtcGetPTXSize");
  result.ptx.resize(n);
  check(nvrtcGetPTX(prog.p, result.ptx.data()), "nvrtcGetPTX");
  while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();
  if (options.arch.rfind("sm_", 0) == 0) {
    check(nvrtcGetCUBINSize(prog.p, &n), "nvrtcGetCUBINSize");
    result.cubin.resize(n);
    check(nvrtcGetCUBIN(prog.p, result.cubin.data()), "nvrtcGetCUBIN");
  }
  for (const auto& e : name_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog.p, e.c_str(), &lowered), "nvrtcGetLoweredName");
    result.lowered_names.emplace_back(lowered);
  }
  result.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

#else  // !THEANO_HAVE_NVRTC

bool nvrtc_available() { return false; }
std::string nvrtc_unavailable_reason() {
  return "theano-cpp was built without the CUDA toolkit (NVRTC not found at configure time)";
}
std::string nvrtc_version() { return {}; }
std::vector<int> nvrtc_supported_archs() { return {}; }

NvrtcResult nvrtc_compile(std::string_view, const NvrtcOptions&, std::string_view,
                          const std::vector<std::string>&) {
  throw Error("nvrtc_compile: " + nvrtc_unavailable_reason());
}

#endif

}  // namespace theano::codegen

// Device selection from THEANO_FLAGS device (gpu/context.h).
#include "theano/gpu/context.h"

#include <atomic>
#include <iostream>
#include <mutex>

#include "theano/config_flags.h"
#include "theano/gpu/type.h"
#include "theano/runtime/error.h"

namespace theano::gpu {
namespace {
std::atomic<ContextProbe> g_probe{nullptr};
}  // namespace

void register_context_probe(ContextProbe probe) { g_probe.store(probe); }

std::string context_unusable_reason(const std::string& context) {
  ContextProbe p = g_probe.load();
  if (!p) return "the CUDA back end (theano_codegen) is not linked into this program";
  return p(context);
}

std::optional<std::string> context_for_device(const std::string& device) {
  if (device.empty() || device == "cpu") return std::nullopt;
  if (device == kEmulatedContext) return std::string(kEmulatedContext);
  if (device == "auto") {
    const std::string why = context_unusable_reason("cuda0");
    static std::once_flag said;
    std::call_once(said, [&] {
      if (why.empty())
        std::cerr << "theano-cpp: device=auto: using the GPU cuda0\n";
      else
        std::cerr << "theano-cpp: device=auto: using the CPU (no usable GPU: " << why << ")\n";
    });
    if (why.empty()) return std::string("cuda0");
    return std::nullopt;
  }
  const std::string context = device == "cuda" ? "cuda0" : device;
  int index = 0;
  THEANO_USER_CHECK(context != kEmulatedContext && parse_context(context, &index), ValueError)
      << "THEANO_FLAGS device='" << device << "': expected cpu, cuda, cuda<N> (e.g. cuda1), auto or emulated";
  const std::string why = context_unusable_reason(context);
  THEANO_USER_CHECK(why.empty(), ValueError)
      << "THEANO_FLAGS device='" << device << "': the GPU " << context << " cannot be used: " << why
      << ". Use device=cpu, or device=auto to fall back to the CPU when no GPU is usable";
  return context;
}

std::optional<std::string> selected_context() {
  return context_for_device(flag_value("device").value_or(""));
}

}  // namespace theano::gpu

/// \file
/// Which GPU, if any, THEANO_FLAGS `device` selects for compiled functions.
///
///   device=cpu (or unset)  no GPU: graphs stay on the CPU
///   device=cuda, cuda<N>   the driver's device 0 / N; a clear ValueError
///                          naming why when it cannot be used (no
///                          libcuda.so.1, the toolkit's stub driver, no
///                          device, a driver older than the toolkit, ...)
///   device=auto            cuda0 when usable, else the CPU; says which on
///                          stderr once per process
///   device=emulated        the host-emulated CUDA device: the generated CUDA
///                          source runs on the CPU through the emulation shim
///                          (testing the kernels on machines without a GPU)
///
/// Why a probe hook: the compiler cannot call the CUDA driver (codegen, which
/// dlopens it, sits above the compiler in the layering); codegen registers the
/// probe at start-up as it registers its linkers.
#pragma once

#include <optional>
#include <string>

namespace theano::gpu {

/// Why GPU context `context` cannot be used now ("" when it can).
using ContextProbe = std::string (*)(const std::string& context);
/// Installs the probe (codegen does, at start-up).
void register_context_probe(ContextProbe probe);
/// The probe's answer; without a probe (codegen not linked in), a reason saying so.
std::string context_unusable_reason(const std::string& context);

/// The GPU context the device flag selects (see the file comment); nullopt
/// for the CPU. Throws ValueError for an unusable device=cuda* and for an
/// unknown value.
std::optional<std::string> selected_context();
/// The same for a given flag value (tests).
std::optional<std::string> context_for_device(const std::string& device);

}  // namespace theano::gpu

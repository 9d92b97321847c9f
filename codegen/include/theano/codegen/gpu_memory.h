/// \file
/// What the caching allocator of a GPU context holds (device_allocator.h):
/// bytes in use and cached, chunks, raw allocations, hits. For users watching
/// GPU memory (Theano's `theano.sandbox.cuda` memory info) and for tests
/// checking that repeated calls reuse blocks instead of allocating.
#pragma once

#include <theano/runtime/device_allocator.h>

#include <cstddef>
#include <optional>
#include <string>

namespace theano::codegen {

/// The allocator statistics of GPU context `context` ("cuda0", "emulated"),
/// or nullopt when this process has not opened that device yet.
std::optional<DeviceAllocatorStats> gpu_memory_stats(const std::string& context);

/// Gives the wholly free cached chunks of `context` back to the driver;
/// returns the bytes freed (0 when the device is not open).
std::size_t gpu_release_cached(const std::string& context);

}  // namespace theano::codegen

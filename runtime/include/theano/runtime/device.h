/// \file
/// Where an array's elements live: `Device` (the host, a CUDA device, or the
/// host-emulated CUDA device), and `DeviceMemory`, what a GPU back end does for
/// arrays (allocate, copy between host and device, copy on the device, wait).
///
/// Why here: NDArray carries its Device, so host code that reaches for the
/// elements of a GPU array gets a clear error instead of dereferencing a
/// device address, and `NDArray::to(device)` moves values across. The runtime
/// cannot call the CUDA driver itself (codegen dlopens it, and the emulated
/// device lives there too), so the back end registers a provider at start-up,
/// as it registers its linkers; without one, moving an array to a GPU is a
/// ValueError saying so.
///
/// Streams: every GPU operation of theano-cpp (kernel launches, copies) runs
/// on the device's legacy default stream, so an array needs no stream of its
/// own: work is ordered, and a copy to the host waits for the kernels before
/// it. `DeviceMemory::synchronize` waits for all of it, for consumers on other
/// streams (DLPack export does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace theano {

enum class DeviceKind : std::uint8_t {
  CPU = 0,
  CUDA = 1,      // a CUDA device of the driver ("cuda0", "cuda1", ...)
  Emulated = 2,  // the host-emulated CUDA device ("emulated"): host memory, used as device memory
};

struct Device {
  DeviceKind kind = DeviceKind::CPU;
  int index = 0;  // the driver's device number (CUDA), 0 otherwise

  static constexpr Device cpu() { return {}; }
  static constexpr Device cuda(int index) { return {DeviceKind::CUDA, index}; }
  static constexpr Device emulated() { return {DeviceKind::Emulated, 0}; }

  bool is_cpu() const { return kind == DeviceKind::CPU; }
  /// "cpu", "cuda0", "emulated": the spelling of THEANO_FLAGS device and of
  /// GPU context names.
  std::string str() const;
  friend bool operator==(const Device&, const Device&) = default;

  /// Parses "cpu", "cuda<N>" (N without a leading zero, at most 3 digits) or
  /// "emulated"; false for anything else.
  static bool parse(std::string_view text, Device* out);
};

/// What a GPU back end does for arrays on one device. Addresses are device
/// addresses (for the emulated device, host memory that only its kernels and
/// these calls touch). Each throws theano::Error naming the device and the
/// call on failure.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  /// At least `bytes` bytes of device memory; the stored pointer is the device
  /// address, the deleter gives the block back.
  virtual std::shared_ptr<void> allocate(std::size_t bytes) = 0;
  virtual void copy_to_device(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copy_to_host(void* host_dst, const void* src, std::size_t bytes) = 0;
  virtual void copy_on_device(void* dst, const void* src, std::size_t bytes) = 0;
  /// Waits until every operation queued on the device has finished.
  virtual void synchronize() = 0;
};

/// The back end's lookup: the memory of `device` (a GPU device). With `open`,
/// the device is opened on first use (a thrown ValueError names why it cannot
/// be); without, nullptr when this process has not opened it. The returned
/// object lives as long as the process.
using DeviceMemoryProvider = DeviceMemory* (*)(const Device& device, bool open);
/// Installs the provider (the GPU back end does, at start-up; the last one wins).
void register_device_memory_provider(DeviceMemoryProvider provider);
/// The memory of GPU device `device`: ValueError for the CPU, when no back end
/// is registered, or when the provider cannot use the device.
DeviceMemory& device_memory(const Device& device);
/// The memory of `device` if this process opened it (nullptr otherwise: no
/// work of ours can be queued there).
DeviceMemory* opened_device_memory(const Device& device);

}  // namespace theano

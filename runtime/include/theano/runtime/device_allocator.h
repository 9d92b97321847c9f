/// \file
/// A caching allocator of device memory (CuPy's MemoryPool and PyTorch's
/// CUDACachingAllocator, sized down) for the CUDA back end.
///
/// Why: cuMemAlloc/cuMemFree synchronize the device and cost tens of
/// microseconds, and a compiled function allocates its outputs and temporaries
/// on every call. The allocator asks the raw allocator only for large chunks,
/// carves blocks out of them and keeps freed blocks for the next request, so a
/// steady workload makes no raw call at all. It does not know where memory
/// comes from: the raw alloc/free are injected (the real driver, or host memory
/// for a host-emulated GPU), and addresses are plain `std::uint64_t`s it never
/// dereferences.
///
/// How it behaves:
///  * Requests are rounded up to a multiple of 512 bytes (a 0-byte request gets
///    a distinct 512-byte block). Rounding is checked: a request that would
///    overflow is a ValueError, never a wrap-around.
///  * Raw memory is taken in chunks of max(2 MiB, rounded request). A request is
///    served best fit (smallest free block that fits, then lowest address) from
///    free lists binned by power-of-two size class; the remainder of the block
///    is split off as a free block.
///  * A freed block is merged with its free neighbours in the same chunk, so
///    the free blocks of a chunk are never adjacent and a chunk with no live
///    block is a single free block.
///  * When the raw alloc fails (returns 0 or throws), the wholly free chunks
///    are given back (release_cached) and the alloc is retried once; a second
///    failure is a ValueError naming the size asked, the bytes in use and the
///    bytes cached.
///  * Every block address is a multiple of 256 (cuMemAlloc's guarantee): raw
///    chunks must be 256-aligned (a ValueError otherwise) and block sizes are
///    multiples of 512.
///  * `allocate` returns a `std::shared_ptr<void>` whose deleter returns the
///    block; the deleter keeps the pool alive, so blocks may outlive the
///    DeviceAllocator. Once the allocator is gone, each chunk goes back to the
///    raw free as soon as its last block is freed.
///  * Thread-safe: one mutex guards the pool, and the raw alloc/free are called
///    under it (they must not call back into the allocator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace theano {

/// The raw device operations the allocator is built on.
struct RawDeviceMemory {
  /// Returns the address of `bytes` bytes of device memory, 256-aligned; 0 or
  /// an exception on failure.
  std::function<std::uint64_t(std::size_t)> alloc;
  /// Frees an address `alloc` returned. Must not throw (an exception from it
  /// is swallowed and the chunk leaked: deleters cannot report it).
  std::function<void(std::uint64_t)> free;
  /// The device's total memory in bytes, for `preallocate`; 0 = unknown.
  std::size_t total_bytes = 0;
};

struct DeviceAllocatorStats {
  std::size_t bytes_in_use = 0;          ///< bytes of live blocks (rounded sizes)
  std::size_t bytes_cached = 0;          ///< free bytes inside chunks (reserved - in use)
  std::size_t bytes_reserved = 0;        ///< bytes of all chunks held from the raw allocator
  std::size_t peak_in_use = 0;           ///< the most bytes_in_use has ever been
  std::size_t chunks = 0;                ///< chunks held from the raw allocator
  std::uint64_t requests = 0;            ///< successful allocate calls
  std::uint64_t hits = 0;                ///< requests served without a raw alloc
  std::uint64_t raw_allocs = 0;          ///< successful raw alloc calls
  std::uint64_t raw_alloc_failures = 0;  ///< raw alloc calls that returned 0 or threw
  std::uint64_t raw_frees = 0;           ///< raw free calls
};

class DeviceAllocator {
 public:
  static constexpr std::size_t kBlockRounding = 512;                   ///< block sizes are multiples of this
  static constexpr std::size_t kMinChunkBytes = std::size_t{2} << 20;  ///< smallest raw request
  static constexpr std::uint64_t kAlignment = 256;                     ///< every address is a multiple of this

  /// ValueError if `raw.alloc` or `raw.free` is empty.
  explicit DeviceAllocator(RawDeviceMemory raw);
  /// Gives back every wholly free chunk (preallocated ones included); chunks
  /// with live blocks go back when their last block is freed.
  ~DeviceAllocator();
  DeviceAllocator(const DeviceAllocator&) = delete;
  DeviceAllocator& operator=(const DeviceAllocator&) = delete;

  /// A block of at least `bytes` bytes; the stored pointer is the device
  /// address (see `address`), the deleter returns the block to the pool.
  /// ValueError when the request overflows or the device is out of memory.
  std::shared_ptr<void> allocate(std::size_t bytes);

  /// The device address of a block `allocate` returned.
  static std::uint64_t address(const std::shared_ptr<void>& block) {
    return reinterpret_cast<std::uintptr_t>(block.get());
  }

  /// Reserves `fraction` (0 < fraction <= 1) of the device's total memory,
  /// rounded down to 512 bytes, as one chunk that later requests are served
  /// from (Theano's `gpu_preallocate`). ValueError on a fraction out of range,
  /// an unknown total, or a failed raw alloc. A preallocated chunk is kept by
  /// `release_cached` and the out-of-memory retry: it is given back only with
  /// the allocator.
  void preallocate(double fraction);

  /// Gives every wholly free chunk that was not preallocated back to the raw
  /// free; returns the bytes given back.
  std::size_t release_cached();

  DeviceAllocatorStats stats() const;

 private:
  struct Pool;
  std::shared_ptr<Pool> pool_;
};

}  // namespace theano

/// \file
/// The process-wide cache of large array buffers.
///
/// Why: a function that returns a fresh 80 MB array on every call (Theano's
/// default output policy) would otherwise get it from glibc as a new mmap and
/// give it back with munmap, so every call pays ~20,000 page faults and the
/// kernel's zeroing: about half of an elementwise pass at 10^7 doubles. Large
/// buffers (>= 1 MiB) that are freed are therefore kept, resident, in a small
/// cache (at most 16 buffers and `limit` bytes, default 1 GiB) and handed out
/// again to a request of a similar size (the buffer is at most 25 % larger
/// than asked). New large buffers are marked MADV_HUGEPAGE (transparent huge
/// pages in "madvise" mode), which cuts TLB misses in streaming loops.
/// Thread-safe. Off (limit 0) in AddressSanitizer builds, where reuse would
/// hide use-after-free bugs.
///
/// Buffers of up to 64 KiB are kept per thread instead (buffer_cache.cpp: a few
/// of each size class, at most 1 MiB a thread, also off under
/// AddressSanitizer): glibc's aligned allocation of them is a slow path, a
/// third of a call on three 256-element vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace theano {

/// A 64-byte-aligned buffer of at least `bytes` bytes (NDArray's storage).
std::shared_ptr<void> allocate_buffer(std::size_t bytes);

struct BufferCacheStats {
  std::uint64_t hits = 0;    ///< large requests served from the cache
  std::uint64_t misses = 0;  ///< large requests that allocated
  std::size_t cached_bytes = 0;
  std::size_t cached_buffers = 0;
  std::size_t limit = 0;
};
BufferCacheStats buffer_cache_stats();
/// Frees every cached buffer (memory goes back to the system allocator).
void release_buffer_cache();
/// Sets the cache's byte limit (0 disables caching); frees what no longer fits.
void set_buffer_cache_limit(std::size_t bytes);

}  // namespace theano

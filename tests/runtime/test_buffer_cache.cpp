// The buffer caches behind NDArray storage: reuse of freed large buffers of
// a similar size, the size window, the byte limit, release; the per-thread
// size classes of medium buffers.
#include <doctest/doctest.h>

#include <theano/runtime/buffer_cache.h>
#include <theano/runtime/ndarray.h>

#include <cstdint>
#include <thread>

#include "sanitized.h"

using namespace theano;

namespace {
// The cache is off by default under AddressSanitizer; the tests turn it on.
struct CacheOn {
  std::size_t saved = buffer_cache_stats().limit;
  CacheOn() { set_buffer_cache_limit(std::size_t{1} << 30); }
  ~CacheOn() { set_buffer_cache_limit(saved); }
};
}  // namespace

TEST_SUITE("buffer cache") {
  TEST_CASE("a freed large buffer is reused for a request of similar size, not for a much smaller one") {
    CacheOn on;
    release_buffer_cache();
    const BufferCacheStats s0 = buffer_cache_stats();
    const void* first;
    {
      NDArray a = NDArray::empty({1 << 20}, DType::Float64);  // 8 MiB
      first = a.data();
    }
    CHECK(buffer_cache_stats().cached_buffers == 1);
    {
      NDArray b = NDArray::empty({(1 << 20) - 1000}, DType::Float64);  // slightly smaller: fits the window
      CHECK(b.data() == first);
      CHECK(buffer_cache_stats().hits == s0.hits + 1);
      NDArray c = NDArray::empty({1 << 18}, DType::Float64);  // 2 MiB: would waste 75 %, not served from it
      CHECK(c.data() != first);
    }
    CHECK(buffer_cache_stats().cached_buffers == 2);
    release_buffer_cache();
    CHECK(buffer_cache_stats().cached_buffers == 0);
    CHECK(buffer_cache_stats().cached_bytes == 0);
  }

  TEST_CASE("small buffers bypass the cache, the limit bounds it, limit 0 disables it") {
    CacheOn on;
    release_buffer_cache();
    { NDArray small = NDArray::empty({100}, DType::Float64); }
    CHECK(buffer_cache_stats().cached_buffers == 0);
    const std::size_t old_limit = buffer_cache_stats().limit;
    set_buffer_cache_limit(20u << 20);  // 20 MiB
    {
      NDArray a = NDArray::empty({2 << 20}, DType::Float64);  // 16 MiB
      NDArray b = NDArray::empty({2 << 20}, DType::Float64);
    }
    CHECK(buffer_cache_stats().cached_buffers == 1);
    CHECK(buffer_cache_stats().cached_bytes <= (20u << 20));
    set_buffer_cache_limit(0);
    CHECK(buffer_cache_stats().cached_buffers == 0);
    { NDArray c = NDArray::empty({2 << 20}, DType::Float64); }
    CHECK(buffer_cache_stats().cached_buffers == 0);
    set_buffer_cache_limit(old_limit);
  }

  TEST_CASE("a reused buffer holds the new array's values") {
    CacheOn on;
    release_buffer_cache();
    { NDArray a = NDArray::full({300000}, 7.0, DType::Float64); }
    NDArray z = NDArray::zeros({300000}, DType::Float64);
    CHECK(z.data_as<double>()[12345] == 0.0);
    NDArray f = NDArray::full({300000}, 2.5, DType::Float64);
    CHECK(f.data_as<double>()[299999] == 2.5);
    release_buffer_cache();
  }

  TEST_CASE("medium buffers come back to their thread by size class, at most 25 % larger, 64-byte aligned") {
    const void* first;
    {
      NDArray a = NDArray::empty({125}, DType::Float64);  // 1000 bytes: the class of 1024
      first = a.data();
      CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
    }
    {
      NDArray same = NDArray::zeros({120}, DType::Float64);  // 960 bytes: the same class
      NDArray other = NDArray::empty({75}, DType::Float64);   // 600 bytes: the class of 640
#if !defined(THEANO_TESTS_SANITIZED)
      CHECK(same.data() == first);  // (no reuse under AddressSanitizer)
#endif
      CHECK(other.data() != same.data());
      CHECK(reinterpret_cast<std::uintptr_t>(other.data()) % 64 == 0);
      for (int i = 0; i < 120; ++i) CHECK(same.data_as<double>()[i] == 0.0);
    }
    // Freed on another thread: kept there (or freed when it exits), never
    // handed to two arrays at once.
    NDArray moved = NDArray::full({5000}, 1.5, DType::Float64);  // 40000 bytes
    std::thread([a = std::move(moved)]() mutable { a = NDArray(); }).join();
    NDArray x = NDArray::full({5000}, 2.0, DType::Float64);
    NDArray y = NDArray::full({5000}, 3.0, DType::Float64);
    CHECK(x.data() != y.data());
    CHECK(x.data_as<double>()[4999] == 2.0);
    CHECK(y.data_as<double>()[0] == 3.0);
    // Every size up to 64 KiB and just above it: capacity covers the request.
    for (std::int64_t n = 1; n <= 8200; n += 37) {
      NDArray v = NDArray::full({n}, 4.0, DType::Float64);
      CHECK(v.data_as<double>()[n - 1] == 4.0);
    }
  }
}

// The caching device-memory allocator over a fake raw allocator backed by host
// memory: reuse without raw calls in a steady loop, splitting and merging, best
// fit, 0-byte and overflowing requests, the out-of-memory release-and-retry path
// and its error, preallocation, handles outliving the allocator, alignment,
// non-overlapping live blocks and concurrent use.
#include <doctest/doctest.h>
#include <theano/runtime/device_allocator.h>
#include <theano/runtime/error.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace theano;

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

/// Host memory pretending to be a device of `capacity` bytes: counts calls, fails
/// when told to (returning 0 or throwing) or when the capacity would be exceeded.
struct FakeDevice {
  std::size_t capacity = 256 * MiB;
  int fail_next = 0;  // the next this-many allocs fail
  bool fail_by_throwing = false;
  std::atomic<int> allocs{0}, frees{0};
  std::mutex mu;
  std::map<std::uint64_t, std::size_t> live;  // address -> size
  std::size_t outstanding = 0;

  std::uint64_t alloc(std::size_t bytes) {
    std::lock_guard lock(mu);
    ++allocs;
    const bool fail = fail_next > 0 || bytes > capacity - outstanding;
    if (fail_next > 0) --fail_next;
    if (fail) {
      if (fail_by_throwing) throw std::runtime_error("CUDA_ERROR_OUT_OF_MEMORY");
      return 0;
    }
    void* p = std::aligned_alloc(256, bytes);
    if (!p) return 0;
    live.emplace(reinterpret_cast<std::uintptr_t>(p), bytes);
    outstanding += bytes;
    return reinterpret_cast<std::uintptr_t>(p);
  }
  void free(std::uint64_t addr) {
    std::lock_guard lock(mu);
    ++frees;
    auto it = live.find(addr);
    CHECK(it != live.end());  // (raw free is called where exceptions are swallowed: no REQUIRE)
    if (it == live.end()) return;
    outstanding -= it->second;
    live.erase(it);
    std::free(reinterpret_cast<void*>(static_cast<std::uintptr_t>(addr)));
  }
  RawDeviceMemory raw(std::size_t total = 0) {
    return {[this](std::size_t n) { return alloc(n); }, [this](std::uint64_t a) { free(a); }, total};
  }
};

unsigned char* host(const std::shared_ptr<void>& block) { return static_cast<unsigned char*>(block.get()); }

std::string error_message(DeviceAllocator& a, std::size_t bytes) {
  try {
    a.allocate(bytes);
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_SUITE("device allocator") {
  TEST_CASE("a steady loop of mixed sizes stops calling the raw allocator") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    const std::vector<std::size_t> sizes = {0, 1, 700, 4096, 100000, 1 * MiB, 3 * MiB, 513, 64 * KiB, 5 * MiB, 300};
    std::vector<std::shared_ptr<void>> window(7);  // the last 7 blocks stay live
    std::size_t step = 0;
    auto cycle = [&] {
      for (std::size_t s : sizes) window[step++ % window.size()] = a.allocate(s);
    };
    for (int i = 0; i < 10; ++i) cycle();
    const DeviceAllocatorStats warm = a.stats();
    for (int i = 0; i < 200; ++i) cycle();
    const DeviceAllocatorStats s = a.stats();
    CHECK(s.raw_allocs == warm.raw_allocs);
    CHECK(s.raw_frees == 0);
    CHECK(s.hits - warm.hits == 200 * sizes.size());
    CHECK(s.requests == 210 * sizes.size());
    CHECK(s.raw_allocs <= 8);
    window.clear();
    CHECK(a.stats().bytes_in_use == 0);
    CHECK(a.stats().bytes_cached == a.stats().bytes_reserved);
    CHECK(a.release_cached() == s.bytes_reserved);
    CHECK(a.stats().chunks == 0);
    CHECK(dev.outstanding == 0);
  }

  TEST_CASE("blocks are carved from one chunk, and freed neighbours merge") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    auto x = a.allocate(1 * MiB);
    auto y = a.allocate(512 * KiB);
    auto z = a.allocate(256 * KiB);
    CHECK(a.stats().raw_allocs == 1);
    CHECK(a.stats().chunks == 1);
    CHECK(a.stats().bytes_reserved == DeviceAllocator::kMinChunkBytes);
    const std::uint64_t ax = DeviceAllocator::address(x);
    CHECK(DeviceAllocator::address(y) == ax + 1 * MiB);
    CHECK(DeviceAllocator::address(z) == ax + 1536 * KiB);
    x.reset();
    y.reset();
    // The two neighbours merged: their combined size comes from the same place.
    auto xy = a.allocate(1536 * KiB);
    CHECK(DeviceAllocator::address(xy) == ax);
    CHECK(a.stats().raw_allocs == 1);
    CHECK(a.stats().hits == 3);  // y, z and xy
    // Freeing everything leaves one free block covering the chunk, given back whole.
    xy.reset();
    z.reset();
    CHECK(a.stats().bytes_cached == DeviceAllocator::kMinChunkBytes);
    auto whole = a.allocate(DeviceAllocator::kMinChunkBytes);
    CHECK(DeviceAllocator::address(whole) == ax);
    CHECK(a.stats().raw_allocs == 1);
    whole.reset();
    CHECK(a.release_cached() == DeviceAllocator::kMinChunkBytes);
    CHECK(a.stats().raw_frees == 1);
    CHECK(dev.outstanding == 0);
  }

  TEST_CASE("a request is served from the smallest free block that fits") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    auto big = a.allocate(64 * KiB);
    auto sep1 = a.allocate(0);
    auto small = a.allocate(16 * KiB);
    auto sep2 = a.allocate(0);
    auto mid = a.allocate(32 * KiB);
    auto sep3 = a.allocate(0);
    const std::uint64_t a_big = DeviceAllocator::address(big), a_small = DeviceAllocator::address(small),
                        a_mid = DeviceAllocator::address(mid);
    big.reset();
    small.reset();
    mid.reset();                    // free: 64 KiB, 16 KiB, 32 KiB holes and the chunk's large tail
    auto p = a.allocate(20 * KiB);  // the 32 KiB hole; 12 KiB split off
    CHECK(DeviceAllocator::address(p) == a_mid);
    auto q = a.allocate(14 * KiB);  // the 16 KiB hole (12 KiB is too small); 2 KiB split off
    CHECK(DeviceAllocator::address(q) == a_small);
    auto r = a.allocate(40 * KiB);
    CHECK(DeviceAllocator::address(r) == a_big);
    auto s = a.allocate(12 * KiB);  // an exact fit: the remainder of the 32 KiB hole
    CHECK(DeviceAllocator::address(s) == a_mid + 20 * KiB);
    auto t = a.allocate(1 * KiB);  // the remainder of the 16 KiB hole
    CHECK(DeviceAllocator::address(t) == a_small + 14 * KiB);
    CHECK(a.stats().raw_allocs == 1);
  }

  TEST_CASE("0-byte requests give distinct 512-byte blocks, every address is 256-aligned") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    auto p = a.allocate(0);
    auto q = a.allocate(0);
    CHECK(p.get() != nullptr);
    CHECK(DeviceAllocator::address(q) - DeviceAllocator::address(p) == 512);
    CHECK(a.stats().bytes_in_use == 1024);
    std::vector<std::shared_ptr<void>> blocks;
    for (std::size_t n : {1, 255, 256, 257, 511, 512, 513, 1000, 3 * 1024 * 1024 + 1}) blocks.push_back(a.allocate(n));
    for (const auto& b : blocks) CHECK(DeviceAllocator::address(b) % DeviceAllocator::kAlignment == 0);
    CHECK(a.stats().bytes_in_use == 1024 + 512 * 6 + 1024 + 1024 + (3 * MiB + 512));
  }

  TEST_CASE("a request whose rounding would overflow is a ValueError, not a wrap-around") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    const std::size_t max = std::numeric_limits<std::size_t>::max();
    for (std::size_t n : {max, max - 1, max - 510}) {
      const std::string msg = error_message(a, n);
      CHECK(msg.find("too large") != std::string::npos);
      CHECK(msg.find(std::to_string(n)) != std::string::npos);
    }
    // The largest request that rounds exactly is an ordinary out-of-memory error.
    CHECK(error_message(a, max - 511).find("out of memory") != std::string::npos);
    CHECK(dev.outstanding == 0);
    CHECK(a.stats().bytes_in_use == 0);
  }

  TEST_CASE("a failed raw alloc gives back the cached chunks and retries once") {
    for (bool throwing : {false, true}) {
      CAPTURE(throwing);
      FakeDevice dev;
      dev.capacity = 8 * MiB;
      dev.fail_by_throwing = throwing;
      DeviceAllocator a(dev.raw());
      {
        auto p = a.allocate(2 * MiB);
        auto q = a.allocate(2 * MiB);
      }
      CHECK(a.stats().chunks == 2);
      CHECK(a.stats().bytes_cached == 4 * MiB);
      auto big = a.allocate(6 * MiB);  // 4 + 6 > 8 MiB: fails, releases the two chunks, fits
      CHECK(a.stats().raw_alloc_failures == 1);
      CHECK(a.stats().raw_frees == 2);
      CHECK(a.stats().chunks == 1);
      CHECK(a.stats().bytes_in_use == 6 * MiB);
      CHECK(dev.outstanding == 6 * MiB);
      // A transient failure: the retry succeeds even with nothing to give back.
      dev.fail_next = 1;
      auto small = a.allocate(1 * MiB);
      CHECK(a.stats().raw_alloc_failures == 2);
      CHECK(a.stats().chunks == 2);
    }
  }

  TEST_CASE("a raw alloc that fails twice is a ValueError naming the request, use and cache") {
    for (bool throwing : {false, true}) {
      CAPTURE(throwing);
      FakeDevice dev;
      dev.capacity = 8 * MiB;
      dev.fail_by_throwing = throwing;
      DeviceAllocator a(dev.raw());
      auto live1 = a.allocate(1536 * KiB);  // a 2 MiB chunk: 512 KiB of it stay cached
      auto live2 = a.allocate(5 * MiB);     // a 5 MiB chunk: 7 of the 8 MiB are taken
      const std::string msg = error_message(a, 4 * MiB);
      CHECK(msg.find("out of memory") != std::string::npos);
      CHECK(msg.find("4194304 bytes") != std::string::npos);
      CHECK(msg.find("6815744 bytes in use") != std::string::npos);
      CHECK(msg.find("524288 bytes cached") != std::string::npos);
      if (throwing) CHECK(msg.find("CUDA_ERROR_OUT_OF_MEMORY") != std::string::npos);
      CHECK(a.stats().raw_alloc_failures == 2);
      CHECK(a.stats().bytes_in_use == 6 * MiB + 512 * KiB);
      // The pool is still usable.
      auto ok = a.allocate(256);
      CHECK(a.stats().raw_allocs == 2);
    }
  }

  TEST_CASE("a raw allocator that returns misaligned addresses is refused") {
    std::vector<std::uint64_t> freed;
    DeviceAllocator a(
        {[](std::size_t) { return std::uint64_t{0x10040}; }, [&](std::uint64_t p) { freed.push_back(p); }});
    const std::string msg = error_message(a, 100);
    CHECK(msg.find("aligned") != std::string::npos);
    CHECK(freed == std::vector<std::uint64_t>{0x10040});
    CHECK(a.stats().chunks == 0);
    CHECK_THROWS_AS(DeviceAllocator(RawDeviceMemory{}), ValueError);
  }

  TEST_CASE("preallocate reserves a fraction of device memory and serves from it") {
    FakeDevice dev;
    {
      DeviceAllocator a(dev.raw(64 * MiB));
      for (double f : {0.0, -0.5, 1.5, std::nan("")}) CHECK_THROWS_AS(a.preallocate(f), ValueError);
      CHECK(a.stats().raw_allocs == 0);
      a.preallocate(0.5);
      CHECK(a.stats().raw_allocs == 1);
      CHECK(a.stats().bytes_reserved == 32 * MiB);
      std::vector<std::shared_ptr<void>> blocks;
      for (int i = 0; i < 30; ++i) blocks.push_back(a.allocate(i * 37 * KiB));
      CHECK(a.stats().raw_allocs == 1);
      CHECK(a.stats().hits == 30);
      blocks.clear();
      // release_cached keeps the reservation; the allocator gives it back when destroyed.
      CHECK(a.release_cached() == 0);
      CHECK(a.stats().chunks == 1);
    }
    CHECK(dev.frees.load() == 1);
    CHECK(dev.outstanding == 0);
    {
      DeviceAllocator whole(dev.raw(64 * MiB));
      whole.preallocate(1.0);
      CHECK(whole.stats().bytes_reserved == 64 * MiB);
    }
    DeviceAllocator unknown(dev.raw(0));
    CHECK_THROWS_AS(unknown.preallocate(0.5), ValueError);
  }

  TEST_CASE("a block keeps the pool alive after the allocator is destroyed") {
    FakeDevice dev;
    std::shared_ptr<void> kept;
    {
      DeviceAllocator a(dev.raw());
      kept = a.allocate(1000);
      auto other = a.allocate(3 * MiB);  // its own chunk, freed before the allocator
    }
    CHECK(dev.frees.load() == 1);  // the wholly free chunk went back with the allocator
    std::memset(kept.get(), 0xab, 1000);
    CHECK(host(kept)[999] == 0xab);
    kept.reset();  // the last block of the last chunk: it goes back now
    CHECK(dev.frees.load() == 2);
    CHECK(dev.outstanding == 0);
  }

  TEST_CASE("distinct live blocks never overlap") {
    FakeDevice dev;
    DeviceAllocator a(dev.raw());
    std::vector<std::shared_ptr<void>> blocks;
    std::vector<std::size_t> sizes;
    unsigned state = 12345;
    auto next = [&] { return state = state * 1103515245u + 12345u; };
    for (int round = 0; round < 400; ++round) {
      // Free a pseudo-random third of the live blocks, then add some.
      for (std::size_t i = 0; i < blocks.size(); ++i)
        if (next() % 3 == 0) blocks[i].reset();
      for (int k = 0; k < 4; ++k) {
        const std::size_t n = (next() >> 8) % (next() % 4 == 0 ? 3 * MiB : 20 * KiB);
        auto b = a.allocate(n);
        std::memset(b.get(), static_cast<int>(blocks.size() & 0xff), n);
        blocks.push_back(b);
        sizes.push_back(n);
      }
    }
    // Every live block still holds its own pattern, and their ranges are disjoint.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (!blocks[i]) continue;
      const unsigned char* p = host(blocks[i]);
      CHECK(std::all_of(p, p + sizes[i], [&](unsigned char c) { return c == static_cast<unsigned char>(i & 0xff); }));
      const std::uint64_t begin = DeviceAllocator::address(blocks[i]);
      ranges.emplace_back(begin, begin + std::max<std::size_t>(sizes[i], 1));
    }
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].second <= ranges[i].first);
    blocks.clear();
    CHECK(a.stats().bytes_in_use == 0);
    CHECK(a.stats().peak_in_use > 0);
  }

  TEST_CASE("threads hammering allocate and free leave every byte returned") {
    FakeDevice dev;
    {
      DeviceAllocator a(dev.raw());
      std::atomic<int> corrupt{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
          unsigned state = 777u + static_cast<unsigned>(t);
          std::vector<std::pair<std::shared_ptr<void>, std::size_t>> live(8);
          for (int i = 0; i < 3000; ++i) {
            state = state * 1103515245u + 12345u;
            auto& slot = live[state % live.size()];
            if (slot.first) {
              const unsigned char* p = host(slot.first);
              if (!std::all_of(p, p + slot.second, [&](unsigned char c) { return c == t + 1; })) ++corrupt;
            }
            const std::size_t n = (state >> 10) % (i % 50 == 0 ? 3 * MiB : 64 * KiB);
            slot = {a.allocate(n), n};
            std::memset(slot.first.get(), t + 1, n);
          }
        });
      }
      for (auto& th : threads) th.join();
      CHECK(corrupt.load() == 0);
      const DeviceAllocatorStats s = a.stats();
      CHECK(s.bytes_in_use == 0);
      CHECK(s.requests == 4 * 3000);
      CHECK(s.hits + s.raw_allocs == s.requests);
      a.release_cached();
      CHECK(a.stats().chunks == 0);
      CHECK(a.stats().raw_frees == s.raw_allocs);
    }
    CHECK(dev.outstanding == 0);
    CHECK(dev.allocs.load() == dev.frees.load());
  }
}

// The large-buffer cache (see buffer_cache.h).
#include "theano/runtime/buffer_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <mutex>
#include <new>
#include <vector>

namespace theano {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kLargeBytes = std::size_t{1} << 20;  // 1 MiB
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMaxBuffers = 16;

void* raw_allocate(std::size_t bytes) { return ::operator new(bytes, std::align_val_t{kAlignment}); }
void raw_free(void* p) noexcept { ::operator delete(p, std::align_val_t{kAlignment}); }

struct Cached {
  void* p;
  std::size_t capacity;
};

struct Cache {
  std::mutex mu;
  std::vector<Cached> buffers;  // oldest first
  std::size_t bytes = 0;
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer a cache would hide use-after-free of large arrays.
  std::size_t limit = 0;
#else
  std::size_t limit = std::size_t{1} << 30;
#endif
  std::uint64_t hits = 0, misses = 0;

  // Removes the oldest buffers until `extra` more bytes and one more buffer fit; returns them.
  std::vector<Cached> evict_for(std::size_t extra, std::size_t count_extra) {
    std::vector<Cached> out;
    while (!buffers.empty() && (bytes + extra > limit || buffers.size() + count_extra > kMaxBuffers)) {
      out.push_back(buffers.front());
      bytes -= buffers.front().capacity;
      buffers.erase(buffers.begin());
    }
    return out;
  }
};

// Never destroyed: arrays freed during static destruction still find it.
Cache& cache() {
  static Cache* c = new Cache;
  return *c;
}

void give_back(void* p, std::size_t capacity) noexcept {
  Cache& c = cache();
  std::vector<Cached> drop;
  bool kept = false;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (capacity <= c.limit) {
      try {
        drop = c.evict_for(capacity, 1);
        c.buffers.push_back({p, capacity});
        c.bytes += capacity;
        kept = true;
      } catch (...) {
      }
    }
  }
  for (const Cached& d : drop) raw_free(d.p);
  if (!kept) raw_free(p);
}

std::shared_ptr<void> large_buffer(std::size_t bytes) {
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto best = c.buffers.end();
    for (auto it = c.buffers.begin(); it != c.buffers.end(); ++it)
      if (it->capacity >= bytes && it->capacity - bytes <= bytes / 4 &&
          (best == c.buffers.end() || it->capacity < best->capacity))
        best = it;
    if (best != c.buffers.end()) {
      const Cached hit = *best;
      c.buffers.erase(best);
      c.bytes -= hit.capacity;
      ++c.hits;
      return std::shared_ptr<void>(hit.p, [cap = hit.capacity](void* q) { give_back(q, cap); });
    }
    ++c.misses;
  }
  void* p = raw_allocate(bytes);
  if (bytes >= kHugePage) {
    // Advise the whole 2 MiB pages inside the buffer (alignment rounds inwards).
    const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  }
  return std::shared_ptr<void>(p, [bytes](void* q) { give_back(q, bytes); });
}

// Small buffers (one 64-byte block: 0-d arrays and tiny vectors, the values
// of scalar-heavy calls) are kept per thread, a few dozen at most: glibc's
// aligned allocation bypasses its fast per-thread caches, and a call that
// returns a scalar would otherwise pay it every time. Off under
// AddressSanitizer, like the large cache.
constexpr int kSmallKept = 32;
struct SmallBlocks {
  void* blocks[kSmallKept];
  int count = 0;
  bool alive = true;  // false once this thread's copy is destroyed (thread or process exit)
  ~SmallBlocks() {
    alive = false;
    while (count > 0) raw_free(blocks[--count]);
  }
};
thread_local SmallBlocks t_small;

void release_small(void* p) noexcept {
#if !defined(__SANITIZE_ADDRESS__)
  SmallBlocks& s = t_small;
  if (s.alive && s.count < kSmallKept) {
    s.blocks[s.count++] = p;
    return;
  }
#endif
  raw_free(p);
}

std::shared_ptr<void> small_buffer() {
  void* p = nullptr;
#if !defined(__SANITIZE_ADDRESS__)
  SmallBlocks& s = t_small;
  if (s.count > 0) p = s.blocks[--s.count];
#endif
  if (!p) p = raw_allocate(kAlignment);
  return std::shared_ptr<void>(p, &release_small);  // on failure it calls release_small(p)
}

// Medium buffers (65 B to 64 KiB: the vectors and small matrices of a call
// on small arrays) are kept per thread too, by size class: four classes per
// power of two (a buffer is at most 25 % larger than asked), at most
// kMediumKept a class and kMediumBytes a thread. glibc serves a 64-byte
// aligned request of 1 KiB or more from its large-chunk path, which first
// merges every small chunk freed since (malloc_consolidate): a third of a
// call's time for a function of three 256-element vectors.
constexpr std::size_t kMediumMax = std::size_t{64} << 10;
constexpr int kMediumClasses = 40;  // 2^6 < n <= 2^16, four per power of two
constexpr int kMediumKept = 4;
constexpr std::size_t kMediumBytes = std::size_t{1} << 20;

struct MediumClass {
  int index;
  std::size_t capacity;
};

/// The class of a request of n bytes, 64 < n <= kMediumMax.
MediumClass medium_class(std::size_t n) {
  const int e = std::bit_width(n - 1) - 1;  // 2^e < n <= 2^(e+1)
  const std::size_t base = std::size_t{1} << e, step = base / 4;
  const std::size_t quarter = (n - base + step - 1) / step;  // 1..4
  return {(e - 6) * 4 + static_cast<int>(quarter) - 1, base + quarter * step};
}

struct MediumBlocks {
  void* blocks[kMediumClasses][kMediumKept];
  int count[kMediumClasses] = {};
  std::size_t bytes = 0;
  bool alive = true;
  ~MediumBlocks() {
    alive = false;
    for (int c = 0; c < kMediumClasses; ++c)
      while (count[c] > 0) raw_free(blocks[c][--count[c]]);
  }
};
thread_local MediumBlocks t_medium;

struct ReleaseMedium {
  MediumClass cls;
  void operator()(void* p) const noexcept {
#if !defined(__SANITIZE_ADDRESS__)
    MediumBlocks& m = t_medium;
    if (m.alive && m.count[cls.index] < kMediumKept && m.bytes + cls.capacity <= kMediumBytes) {
      m.blocks[cls.index][m.count[cls.index]++] = p;
      m.bytes += cls.capacity;
      return;
    }
#endif
    raw_free(p);
  }
};

std::shared_ptr<void> medium_buffer(std::size_t n) {
  const MediumClass cls = medium_class(n);
  void* p = nullptr;
#if !defined(__SANITIZE_ADDRESS__)
  MediumBlocks& m = t_medium;
  if (m.count[cls.index] > 0) {
    p = m.blocks[cls.index][--m.count[cls.index]];
    m.bytes -= cls.capacity;
  }
#endif
  if (!p) p = raw_allocate(cls.capacity);
  return std::shared_ptr<void>(p, ReleaseMedium{cls});  // on failure it calls the deleter
}

}  // namespace

std::shared_ptr<void> allocate_buffer(std::size_t bytes) {
  const std::size_t n = std::max(bytes, kAlignment);
  if (n >= kLargeBytes) return large_buffer(n);
  if (n == kAlignment) return small_buffer();
  if (n <= kMediumMax) return medium_buffer(n);
  void* p = raw_allocate(n);
  return std::shared_ptr<void>(p, [](void* q) { raw_free(q); });
}

BufferCacheStats buffer_cache_stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return {c.hits, c.misses, c.bytes, c.buffers.size(), c.limit};
}

void release_buffer_cache() {
  Cache& c = cache();
  std::vector<Cached> drop;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    drop.swap(c.buffers);
    c.bytes = 0;
  }
  for (const Cached& d : drop) raw_free(d.p);
}

void set_buffer_cache_limit(std::size_t limit) {
  Cache& c = cache();
  std::vector<Cached> drop;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.limit = limit;
    drop = c.evict_for(0, 0);
  }
  for (const Cached& d : drop) raw_free(d.p);
}

}  // namespace theano

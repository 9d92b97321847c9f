// The large-buffer cache (see buffer_cache.h).
#include "theano/runtime/buffer_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <mutex>
#include <new>
#include <utility>
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

// Buffers of up to 64 KiB are kept per thread, by size class, and handed
// out again on that thread: glibc's aligned allocation bypasses its fast
// per-thread caches, and serves an aligned request of 1 KiB or more from its
// large-chunk path, which first merges every small chunk freed since
// (malloc_consolidate, a third of a call's time for a function of three
// 256-element vectors). Class 0 is one 64-byte block (0-d arrays and tiny
// vectors, the values of scalar-heavy calls, and every kept buffer's
// shared_ptr control block: up to 64 kept); above it four
// classes per power of two (a buffer at most 25 % larger than asked, 4 kept
// a class); at most 1 MiB a thread. A kept buffer is a link of its class's
// free list (its first bytes point to the next). Off under AddressSanitizer,
// like the large cache.
constexpr std::size_t kThreadMax = std::size_t{64} << 10;
constexpr int kThreadClasses = 41;  // 64; then 2^6 < n <= 2^16, four per power of two
constexpr std::size_t kThreadBytes = std::size_t{1} << 20;

struct SizeClass {
  int index;
  std::size_t capacity;
  int kept;  // at most this many kept
};

/// The class of a request of n bytes, 64 <= n <= kThreadMax.
SizeClass size_class(std::size_t n) {
  if (n <= kAlignment) return {0, kAlignment, 64};
  const int e = std::bit_width(n - 1) - 1;  // 2^e < n <= 2^(e+1)
  const std::size_t base = std::size_t{1} << e, step = base / 4;
  const std::size_t quarter = (n - base + step - 1) / step;  // 1..4
  return {1 + (e - 6) * 4 + static_cast<int>(quarter) - 1, base + quarter * step, 4};
}

struct FreeBlock {
  FreeBlock* next;
};

struct ThreadBlocks {
  FreeBlock* head[kThreadClasses] = {};
  int count[kThreadClasses] = {};
  std::size_t bytes = 0;
  bool alive = true;  // false once this thread's copy is destroyed (thread or process exit)
  ~ThreadBlocks() {
    alive = false;
    for (FreeBlock*& h : head)
      while (h) raw_free(std::exchange(h, h->next));
  }
};
thread_local ThreadBlocks t_blocks;

struct ReleaseToThread {
  SizeClass cls;
  void operator()(void* p) const noexcept {
#if !defined(__SANITIZE_ADDRESS__)
    ThreadBlocks& t = t_blocks;
    if (t.alive && t.count[cls.index] < cls.kept && t.bytes + cls.capacity <= kThreadBytes) {
      t.head[cls.index] = new (p) FreeBlock{t.head[cls.index]};
      ++t.count[cls.index];
      t.bytes += cls.capacity;
      return;
    }
#endif
    raw_free(p);
  }
};

/// A kept block of class `cls`, or a new one.
void* take_block(const SizeClass& cls) {
#if !defined(__SANITIZE_ADDRESS__)
  ThreadBlocks& t = t_blocks;
  if (FreeBlock* b = t.head[cls.index]) {
    t.head[cls.index] = b->next;
    --t.count[cls.index];
    t.bytes -= cls.capacity;
    return b;
  }
#endif
  return raw_allocate(cls.capacity);
}

/// The allocator of a thread buffer's shared_ptr control block (a pointer,
/// two counts and the deleter: 40 bytes): the 64-byte class's free list, so
/// that a small array costs no malloc/free pair besides its buffer's.
template <class T>
struct ControlBlockAllocator {
  using value_type = T;
  ControlBlockAllocator() = default;
  template <class U>
  ControlBlockAllocator(const ControlBlockAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    static_assert(sizeof(T) <= kAlignment, "a control block fits a 64-byte block");
    if (n != 1) throw std::bad_alloc();
    return static_cast<T*>(take_block(size_class(kAlignment)));
  }
  void deallocate(T* p, std::size_t) noexcept { ReleaseToThread{size_class(kAlignment)}(p); }
  template <class U>
  bool operator==(const ControlBlockAllocator<U>&) const noexcept {
    return true;
  }
};

std::shared_ptr<void> thread_buffer(std::size_t n) {
  const SizeClass cls = size_class(n);
  // On failure (the control block's allocation) the deleter keeps the buffer.
  return std::shared_ptr<void>(take_block(cls), ReleaseToThread{cls}, ControlBlockAllocator<void>());
}

}  // namespace

std::shared_ptr<void> allocate_buffer(std::size_t bytes) {
  const std::size_t n = std::max(bytes, kAlignment);
  if (n >= kLargeBytes) return large_buffer(n);
  if (n <= kThreadMax) return thread_buffer(n);
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

// The caching device-memory allocator (see device_allocator.h).
//
// The pool is three ordered containers, all keyed by device address:
//   chunks_: every chunk held from the raw allocator (base -> size, preallocated);
//   blocks_: every block, live or free, of every chunk (address -> size, chunk, free);
//   bins_:   the free blocks only, as (size, address) in one set per size class
//            floor(log2(size / 512)), so the first entry >= (size, 0) found from the
//            request's class upwards is the best fit.
// Invariants (at every unlock): the blocks of a chunk tile it exactly; a block is
// in bins_ iff it is free; no two free blocks of one chunk are adjacent; in_use_ is
// the sum of the live blocks' sizes and reserved_ the sum of the chunks' sizes.
#include "theano/runtime/device_allocator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <exception>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "theano/runtime/error.h"

namespace theano {

struct DeviceAllocator::Pool {
  explicit Pool(RawDeviceMemory r) : raw(std::move(r)) {}
  ~Pool() {
    // Every live block holds the pool, so every chunk is wholly free by now.
    for (const auto& [base, chunk] : chunks_) raw_free(base);
  }

  std::uint64_t allocate(std::size_t bytes);
  void deallocate(std::uint64_t addr) noexcept;
  void preallocate(double fraction);
  std::size_t release_cached();
  DeviceAllocatorStats stats() const;
  void orphan();

  const RawDeviceMemory raw;

 private:
  struct Chunk {
    std::size_t size;
    bool preallocated;
  };
  struct Block {
    std::size_t size;
    std::uint64_t chunk;  // base address of the chunk it was carved from
    bool free;
  };
  using BlockMap = std::map<std::uint64_t, Block>;
  using Bin = std::set<std::pair<std::size_t, std::uint64_t>>;  // (size, address)
  static constexpr int kBins = std::numeric_limits<std::size_t>::digits;

  static int bin_of(std::size_t size) { return std::bit_width(size / kBlockRounding) - 1; }
  void bin_insert(std::uint64_t addr, std::size_t size) { bins_[bin_of(size)].emplace(size, addr); }
  void bin_erase(std::uint64_t addr, std::size_t size) { bins_[bin_of(size)].erase({size, addr}); }

  std::size_t release_free_chunks(bool include_preallocated);
  std::uint64_t take_best_fit(std::size_t size);
  void add_chunk(std::size_t size, bool preallocated, std::size_t asked);
  std::uint64_t try_raw_alloc(std::size_t size, std::string& why);
  bool wholly_free(std::uint64_t base, const Chunk& chunk) const;
  void release_chunk(std::uint64_t base);
  void raw_free(std::uint64_t addr) noexcept;

  mutable std::mutex mu_;
  std::map<std::uint64_t, Chunk> chunks_;
  BlockMap blocks_;
  std::array<Bin, kBins> bins_;
  bool orphaned_ = false;  // the DeviceAllocator is gone: chunks go back once wholly free
  std::size_t in_use_ = 0, reserved_ = 0, peak_ = 0;
  std::uint64_t requests_ = 0, hits_ = 0, raw_allocs_ = 0, raw_failures_ = 0, raw_frees_ = 0;
};

namespace {

// `bytes` rounded up to a multiple of 512 (at least 512); ValueError on overflow.
std::size_t round_request(std::size_t bytes) {
  constexpr std::size_t r = DeviceAllocator::kBlockRounding;
  THEANO_USER_CHECK(bytes <= std::numeric_limits<std::size_t>::max() - (r - 1), ValueError)
      << "device allocator: a request of " << bytes << " bytes is too large (rounding it up to a multiple of " << r
      << " bytes overflows)";
  return bytes == 0 ? r : (bytes + r - 1) / r * r;
}

}  // namespace

// Removes the best-fitting free block of at least `size` bytes from the free lists,
// splits off what it does not need, marks it live; 0 if no free block fits.
std::uint64_t DeviceAllocator::Pool::take_best_fit(std::size_t size) {
  for (int b = bin_of(size); b < kBins; ++b) {
    auto it = bins_[b].lower_bound({size, 0});
    if (it == bins_[b].end()) continue;
    const auto [found_size, addr] = *it;
    bins_[b].erase(it);
    Block& block = blocks_.at(addr);
    block.free = false;
    // Sizes are multiples of 512, so any remainder is a usable block: keep it.
    if (const std::size_t rest = found_size - size; rest > 0) {
      block.size = size;
      blocks_.emplace(addr + size, Block{rest, block.chunk, true});
      bin_insert(addr + size, rest);
    }
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    return addr;
  }
  return 0;
}

std::uint64_t DeviceAllocator::Pool::try_raw_alloc(std::size_t size, std::string& why) {
  std::uint64_t addr = 0;
  try {
    addr = raw.alloc(size);
    if (addr == 0) why = "the raw allocator returned 0";
  } catch (const std::exception& e) {
    why = std::string("the raw allocator threw: ") + e.what();
  } catch (...) {
    why = "the raw allocator threw a non-standard exception";
  }
  ++(addr ? raw_allocs_ : raw_failures_);
  return addr;
}

// Takes a chunk of `size` bytes from the raw allocator (retrying once after giving
// back the cached chunks) and adds it as one free block. `asked` is the user's
// request, for the error message.
void DeviceAllocator::Pool::add_chunk(std::size_t size, bool preallocated, std::size_t asked) {
  std::string why;
  std::uint64_t base = try_raw_alloc(size, why);
  if (base == 0) {
    release_free_chunks(false);
    base = try_raw_alloc(size, why);
  }
  THEANO_USER_CHECK(base != 0, ValueError)
      << "device allocator: out of memory: could not allocate " << asked << " bytes (a chunk of " << size << " bytes); "
      << in_use_ << " bytes in use, " << reserved_ - in_use_ << " bytes cached in " << chunks_.size() << " chunks ("
      << why << ")";
  if (base % kAlignment != 0 || base > std::numeric_limits<std::uint64_t>::max() - size) {
    raw_free(base);
    THEANO_USER_CHECK(false, ValueError) << "device allocator: the raw allocator returned address " << base << " for "
                                         << size << " bytes, which is not " << kAlignment
                                         << "-byte aligned or wraps around the address space";
  }
  chunks_.emplace(base, Chunk{size, preallocated});
  blocks_.emplace(base, Block{size, base, true});
  bin_insert(base, size);
  reserved_ += size;
}

std::uint64_t DeviceAllocator::Pool::allocate(std::size_t bytes) {
  const std::size_t size = round_request(bytes);
  std::lock_guard lock(mu_);
  std::uint64_t addr = take_best_fit(size);
  if (addr != 0) {
    ++hits_;
  } else {
    add_chunk(std::max(size, kMinChunkBytes), false, bytes);
    addr = take_best_fit(size);
    THEANO_INTERNAL_CHECK(addr != 0) << "device allocator: a fresh chunk did not fit its request";
  }
  ++requests_;
  return addr;
}

void DeviceAllocator::Pool::deallocate(std::uint64_t addr) noexcept {
  std::lock_guard lock(mu_);
  auto it = blocks_.find(addr);
  // Only our own deleters call this, with the address of a live block.
  if (it == blocks_.end() || it->second.free) std::terminate();
  Block& block = it->second;
  in_use_ -= block.size;
  block.free = true;
  // Merge with the next block, then with the previous one, when free and in the same chunk.
  if (auto next = std::next(it); next != blocks_.end() && next->second.free && next->second.chunk == block.chunk) {
    bin_erase(next->first, next->second.size);
    block.size += next->second.size;
    blocks_.erase(next);
  }
  if (it != blocks_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.free && prev->second.chunk == block.chunk) {
      bin_erase(prev->first, prev->second.size);
      prev->second.size += block.size;
      blocks_.erase(it);
      it = prev;
    }
  }
  bin_insert(it->first, it->second.size);
  if (orphaned_) {
    const std::uint64_t base = it->second.chunk;
    if (wholly_free(base, chunks_.at(base))) release_chunk(base);
  }
}

bool DeviceAllocator::Pool::wholly_free(std::uint64_t base, const Chunk& chunk) const {
  const Block& first = blocks_.at(base);
  return first.free && first.size == chunk.size;
}

// Gives a wholly free chunk back to the raw allocator.
void DeviceAllocator::Pool::release_chunk(std::uint64_t base) {
  auto chunk = chunks_.find(base);
  bin_erase(base, chunk->second.size);
  blocks_.erase(base);
  reserved_ -= chunk->second.size;
  chunks_.erase(chunk);
  raw_free(base);
}

void DeviceAllocator::Pool::raw_free(std::uint64_t addr) noexcept {
  ++raw_frees_;
  try {
    raw.free(addr);
  } catch (...) {
    // Documented: a throwing raw free leaks the chunk (deleters cannot throw).
  }
}

std::size_t DeviceAllocator::Pool::release_free_chunks(bool include_preallocated) {
  std::vector<std::uint64_t> bases;
  for (const auto& [base, chunk] : chunks_)
    if ((include_preallocated || !chunk.preallocated) && wholly_free(base, chunk)) bases.push_back(base);
  std::size_t released = 0;
  for (std::uint64_t base : bases) {
    released += chunks_.at(base).size;
    release_chunk(base);
  }
  return released;
}

void DeviceAllocator::Pool::preallocate(double fraction) {
  THEANO_USER_CHECK(fraction > 0 && fraction <= 1, ValueError)
      << "device allocator: preallocate takes a fraction of device memory in (0, 1], got " << fraction;
  THEANO_USER_CHECK(raw.total_bytes > 0, ValueError)
      << "device allocator: cannot preallocate a fraction of device memory: its total size is unknown";
  // fraction <= 1, but the double product may round above total_bytes: clamp.
  const double want = std::floor(fraction * static_cast<double>(raw.total_bytes));
  std::size_t bytes = want >= static_cast<double>(raw.total_bytes) ? raw.total_bytes : static_cast<std::size_t>(want);
  bytes = bytes / kBlockRounding * kBlockRounding;
  THEANO_USER_CHECK(bytes > 0, ValueError)
      << "device allocator: preallocating " << fraction << " of " << raw.total_bytes << " bytes gives less than "
      << kBlockRounding << " bytes";
  std::lock_guard lock(mu_);
  add_chunk(bytes, true, bytes);
}

void DeviceAllocator::Pool::orphan() {
  std::lock_guard lock(mu_);
  orphaned_ = true;
  release_free_chunks(true);
}

std::size_t DeviceAllocator::Pool::release_cached() {
  std::lock_guard lock(mu_);
  return release_free_chunks(false);
}

DeviceAllocatorStats DeviceAllocator::Pool::stats() const {
  std::lock_guard lock(mu_);
  DeviceAllocatorStats s;
  s.bytes_in_use = in_use_;
  s.bytes_cached = reserved_ - in_use_;
  s.bytes_reserved = reserved_;
  s.peak_in_use = peak_;
  s.chunks = chunks_.size();
  s.requests = requests_;
  s.hits = hits_;
  s.raw_allocs = raw_allocs_;
  s.raw_alloc_failures = raw_failures_;
  s.raw_frees = raw_frees_;
  return s;
}

DeviceAllocator::DeviceAllocator(RawDeviceMemory raw) {
  THEANO_USER_CHECK(raw.alloc && raw.free, ValueError)
      << "device allocator: the raw device memory needs both an alloc and a free function";
  pool_ = std::make_shared<Pool>(std::move(raw));
}

DeviceAllocator::~DeviceAllocator() { pool_->orphan(); }

std::shared_ptr<void> DeviceAllocator::allocate(std::size_t bytes) {
  const std::uint64_t addr = pool_->allocate(bytes);
  // If the control block cannot be allocated, shared_ptr calls the deleter: no leak.
  return std::shared_ptr<void>(reinterpret_cast<void*>(static_cast<std::uintptr_t>(addr)),
                               [pool = pool_](void* p) { pool->deallocate(reinterpret_cast<std::uintptr_t>(p)); });
}

void DeviceAllocator::preallocate(double fraction) { pool_->preallocate(fraction); }

std::size_t DeviceAllocator::release_cached() { return pool_->release_cached(); }

DeviceAllocatorStats DeviceAllocator::stats() const { return pool_->stats(); }

}  // namespace theano

// PointerMap: a map from node pointers (Variable*, Apply*) to a small value,
// for the graph walks that every function() runs (traversal.cpp's
// ancestors / inputs, toposort.cpp's io_toposort). Open addressing with
// linear probing in two flat arrays: no allocation per element, where
// std::unordered_map's node per insert made those walks' hashing most of
// their cost in a warm start. Not a general container: keys are never
// removed and null is not a key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace theano::detail {

template <class V>
class PointerMap {
 public:
  explicit PointerMap(std::size_t expected = 32) { grow_to(capacity_for(expected)); }

  /// The value of `key`, inserting `value` when absent; whether it inserted.
  std::pair<V*, bool> try_emplace(const void* key, V value) {
    if (2 * (size_ + 1) > keys_.size()) grow_to(keys_.size() * 2);
    std::size_t i = slot(key);
    if (keys_[i] == key) return {&values_[i], false};
    keys_[i] = key;
    values_[i] = std::move(value);
    ++size_;
    return {&values_[i], true};
  }
  /// The value of `key`, or null.
  V* find(const void* key) {
    const std::size_t i = slot(key);
    return keys_[i] == key ? &values_[i] : nullptr;
  }
  bool contains(const void* key) const {
    const std::size_t i = slot(key);
    return keys_[i] == key;
  }
  std::size_t size() const { return size_; }

 private:
  static std::size_t capacity_for(std::size_t n) {
    std::size_t c = 16;
    while (c < 2 * n) c *= 2;
    return c;
  }
  // The slot holding `key`, or the empty one where it would go.
  std::size_t slot(const void* key) const {
    auto h = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
    h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;  // mixes the allocator's aligned low bits away
    std::size_t i = static_cast<std::size_t>(h >> 32) & (keys_.size() - 1);
    while (keys_[i] != nullptr && keys_[i] != key) i = (i + 1) & (keys_.size() - 1);
    return i;
  }
  void grow_to(std::size_t capacity) {
    std::vector<const void*> old_keys(capacity, nullptr);
    std::vector<V> old_values(capacity);
    old_keys.swap(keys_);
    old_values.swap(values_);
    for (std::size_t j = 0; j < old_keys.size(); ++j)
      if (old_keys[j] != nullptr) {
        const std::size_t i = slot(old_keys[j]);
        keys_[i] = old_keys[j];
        values_[i] = std::move(old_values[j]);
      }
  }

  std::vector<const void*> keys_;
  std::vector<V> values_;
  std::size_t size_ = 0;
};

}  // namespace theano::detail

/// \file
/// `SmallMap<K, V>`: an ordered map of a few entries kept as a sorted vector,
/// with the part of std::map's interface that its users need (ordered
/// iteration with structured bindings, find, contains, operator[], erase, ==).
/// `ViewMap` (an Op's view_map / destroy_map), Elemwise's inplace pattern and
/// the THEANO_FLAGS pairs of `Config` are SmallMaps.
///
/// Why not std::map: these types are members of the Op interface and Config,
/// which every user translation unit sees, and <map> would cost each of them;
/// the maps have a few entries (one or two for ops, a few dozen flags), where a
/// vector is also the faster container.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace theano {

template <class K, class V>
class SmallMap {
 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  SmallMap() = default;
  /// A repeated key keeps its first entry (as std::map's initializer list does).
  SmallMap(std::initializer_list<value_type> entries) {
    for (const value_type& e : entries)
      if (!contains(e.first)) (*this)[e.first] = e.second;
  }

  /// The value of `key`, inserted value-initialized when absent.
  V& operator[](const K& key) {
    std::size_t i = position(key);
    if (i == entries_.size() || entries_[i].first != key)
      entries_.insert(entries_.begin() + static_cast<std::ptrdiff_t>(i), value_type(key, V{}));
    return entries_[i].second;
  }
  const_iterator find(const K& key) const {
    std::size_t i = position(key);
    return i != entries_.size() && entries_[i].first == key ? begin() + static_cast<std::ptrdiff_t>(i) : end();
  }
  bool contains(const K& key) const { return find(key) != end(); }
  /// The value of `key`; std::out_of_range when absent (as std::map::at).
  const V& at(const K& key) const {
    const_iterator it = find(key);
    if (it == end()) throw std::out_of_range("SmallMap::at: no entry for the key");
    return it->second;
  }
  /// Removes `key`'s entry; the number removed (0 or 1).
  std::size_t erase(const K& key) {
    std::size_t i = position(key);
    if (i == entries_.size() || entries_[i].first != key) return 0;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    return 1;
  }
  std::size_t count(const K& key) const { return contains(key) ? 1 : 0; }

  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }

  friend bool operator==(const SmallMap&, const SmallMap&) = default;

 private:
  // Index of the first entry whose key is not less than `key` (a linear scan:
  // the maps hold a handful of entries).
  std::size_t position(const K& key) const {
    std::size_t i = 0;
    while (i < entries_.size() && entries_[i].first < key) ++i;
    return i;
  }

  std::vector<value_type> entries_;  // sorted by key, no repeats
};

}  // namespace theano

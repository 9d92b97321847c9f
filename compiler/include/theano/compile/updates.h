/// \file
/// `Updates`: (shared variable -> new value) pairs, Theano's OrderedUpdates.
/// What `scan` returns (ScanResult::updates), what a scan step may return,
/// and what `function()` takes (FunctionOptions::updates), so a user moves
/// them from one to the other unchanged and looks one up as in Python:
///
///     auto r = scan(step, ScanArgs().n_steps(5));
///     Var next_k = r.updates[k];                 // or .at(k), .contains(k)
///     FunctionOptions o{.updates = r.updates};
///     o.updates[w] = w - 0.1 * g;                // add one more
///     for (const auto& [shared, value] : o.updates) ...
///
/// Invariants: each key appears once and is not null; iteration is in
/// insertion order (the order function() applies them and debugprint lists
/// them). A list with a key twice (`{{w, a}, {w, b}}`) is a ValueError naming
/// it, as Theano rejects two updates of one shared variable. Lookup is a
/// linear search: a model's updates are tens of pairs.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"

namespace theano {

class Updates {
 public:
  using value_type = std::pair<Var, Var>;
  using const_iterator = std::vector<value_type>::const_iterator;

  Updates() = default;
  Updates(std::initializer_list<value_type> pairs);  // NOLINT: implicit, `{{w, w - g}}`
  Updates(std::vector<value_type> pairs);            // NOLINT: implicit, from a list of pairs

  /// The new value of `shared`, inserted (null) at the end when absent.
  Var& operator[](const Var& shared);
  /// The new value of `shared`; IndexError naming it when absent.
  const Var& at(const Var& shared) const;
  bool contains(const Var& shared) const;
  /// Adds (shared, value); ValueError naming `shared` when it already has one.
  void insert(const Var& shared, const Var& value);
  /// Every pair of `other`, in order (ValueError on a key present in both,
  /// like Theano's OrderedUpdates.update).
  void insert(const Updates& other);
  /// Removes `shared`'s update; whether there was one.
  bool erase(const Var& shared);

  void clear() noexcept { pairs_.clear(); }
  std::size_t size() const noexcept { return pairs_.size(); }
  bool empty() const noexcept { return pairs_.empty(); }
  const_iterator begin() const noexcept { return pairs_.begin(); }
  const_iterator end() const noexcept { return pairs_.end(); }
  /// The pairs in order, as a list.
  const std::vector<value_type>& pairs() const noexcept { return pairs_; }
  operator const std::vector<value_type>&() const noexcept { return pairs_; }  // NOLINT: where a list is taken

  friend bool operator==(const Updates&, const Updates&) = default;

 private:
  std::vector<value_type> pairs_;
};

}  // namespace theano

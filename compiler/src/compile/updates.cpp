/// \file
/// Updates (compile/updates.h): an insertion-ordered map from shared
/// variables to their new values, over a vector of pairs.
#include "theano/compile/updates.h"

#include <algorithm>

#include "theano/runtime/error.h"

namespace theano {

namespace {

auto find_key(const std::vector<Updates::value_type>& pairs, const Var& shared) {
  return std::find_if(pairs.begin(), pairs.end(), [&](const Updates::value_type& p) { return p.first == shared; });
}

std::string key_text(const Var& shared) { return shared ? shared.str() : std::string("<null Var>"); }

}  // namespace

Updates::Updates(std::initializer_list<value_type> pairs) {
  for (const auto& [shared, value] : pairs) insert(shared, value);
}

Updates::Updates(std::vector<value_type> pairs) {
  pairs_.reserve(pairs.size());
  for (auto& [shared, value] : pairs) insert(shared, value);
}

Var& Updates::operator[](const Var& shared) {
  THEANO_USER_CHECK(shared, ValueError) << "updates: the shared variable is a null Var";
  auto it = find_key(pairs_, shared);
  if (it != pairs_.end()) return pairs_[static_cast<std::size_t>(it - pairs_.begin())].second;
  pairs_.emplace_back(shared, Var());
  return pairs_.back().second;
}

const Var& Updates::at(const Var& shared) const {
  auto it = find_key(pairs_, shared);
  THEANO_USER_CHECK(it != pairs_.end(), IndexError) << "updates: " << key_text(shared) << " has no update";
  return it->second;
}

bool Updates::contains(const Var& shared) const { return find_key(pairs_, shared) != pairs_.end(); }

void Updates::insert(const Var& shared, const Var& value) {
  THEANO_USER_CHECK(shared, ValueError) << "updates: the shared variable is a null Var";
  auto it = find_key(pairs_, shared);
  THEANO_USER_CHECK(it == pairs_.end(), ValueError)
      << "updates: " << shared.str() << " is given two update expressions (" << key_text(it->second) << " and "
      << key_text(value) << "); a shared variable takes one update";
  pairs_.emplace_back(shared, value);
}

void Updates::insert(const Updates& other) {
  for (const auto& [shared, value] : other) insert(shared, value);
}

bool Updates::erase(const Var& shared) {
  auto it = find_key(pairs_, shared);
  if (it == pairs_.end()) return false;
  pairs_.erase(it);
  return true;
}

}  // namespace theano

// Helpers shared by the sparse test files.
#pragma once

#include <vector>

namespace theano::test {

/// `a` followed by `b` (argument lists built from a sparse matrix's components).
template <class T>
std::vector<T> concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace theano::test

/// \file
/// `Axes`: Theano's `axis` argument (None, an int, or a tuple) as one C++ type:
/// `x.sum()` (all axes), `x.sum(0)`, `x.sum({0, 2})`. Negative axes count from
/// the end; `resolve` normalizes them against a rank with a clear error.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace theano::tensor {

struct Axes {
  /// All axes (Theano's axis=None).
  Axes() = default;
  Axes(int axis) : axes(std::vector<int>{axis}) {}  // NOLINT: implicit by design
  Axes(std::initializer_list<int> list) : axes(std::vector<int>(list)) {}
  Axes(std::vector<int> list) : axes(std::move(list)) {}  // NOLINT
  static Axes all() { return Axes(); }

  bool is_all() const { return !axes.has_value(); }
  /// Sorted, non-negative, unique axes for a tensor of rank `ndim`; ValueError
  /// naming `what` (the op) for an axis out of range or repeated.
  std::vector<int> resolve(int ndim, const std::string& what) const;

  std::optional<std::vector<int>> axes;
};

}  // namespace theano::tensor

// Internal: numpy's FloatingFormat (arrayprint.py) for repr of float and complex arrays.
// fill() looks at every value that will be shown and fixes one layout (positional vs
// scientific, digits, padding); format() renders one value in that layout, so columns
// line up exactly as numpy's do (floatmode "maxprec", precision 8).
#pragma once

#include <string>
#include <vector>

#include "theano/runtime/dtype.h"

namespace theano::detail {

class FloatFormat {
 public:
  /// `type` (Float16/32/64) decides the shortest round-trip digits; `plus_sign` prints
  /// '+' on non-negative values (used for imaginary parts).
  FloatFormat(DType type, bool plus_sign) : type_(type), plus_(plus_sign) {}
  void fill(const std::vector<double>& values);
  std::string format(double v) const;

 private:
  DType type_;
  bool plus_;
  bool exp_format_ = false;
  int precision_ = 8;
  int min_digits_ = 0;
  bool trim_k_ = false;  // keep trailing zeros up to min_digits (numpy trim='k')
  int pad_left_ = 0;
  int pad_right_ = 0;
  int exp_size_ = -1;
};

}  // namespace theano::detail

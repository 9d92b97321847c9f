/// \file
/// Index builders for `x[...]`: an integer (constant or symbolic scalar), a
/// `slice(start, stop, step)` with missing parts, an integer or boolean array
/// (advanced indexing), `newaxis` or `ellipsis`, with NumPy's rules
/// (docs/array-ops.md, "Indexing"). Used as `x[1]`, `x[{slice(1, none), 0}]`,
/// `x[{ellipsis, newaxis}]`, `x[idx_matrix]`, `x[mask]`; the resulting variable
/// can be passed to `set_subtensor` / `inc_subtensor`.
#pragma once

#include <cstdint>

#include "theano/graph/basic.h"

namespace theano::tensor {

namespace detail {
/// Throws InternalError: an accessor of Bound or Index was called for another kind.
[[noreturn]] void throw_wrong_index_kind(const char* accessor);
}  // namespace detail

/// A missing slice bound (Python's None).
struct NoneT {};
inline constexpr NoneT none{};

/// One slice bound: absent, a constant, or a symbolic integer scalar.
class Bound {
 public:
  Bound() = default;
  Bound(NoneT) {}                                                                  // NOLINT
  Bound(std::int64_t v) : kind_(Kind::Constant), constant_(v) {}                  // NOLINT
  Bound(int v) : kind_(Kind::Constant), constant_(static_cast<std::int64_t>(v)) {}  // NOLINT
  Bound(const Var& v) : kind_(Kind::Symbolic), symbolic_(v) {}                    // NOLINT
  bool is_none() const { return kind_ == Kind::None; }
  bool is_constant() const { return kind_ == Kind::Constant; }
  /// The constant (InternalError when the bound is not one).
  std::int64_t constant() const {
    if (kind_ != Kind::Constant) detail::throw_wrong_index_kind("Bound::constant");
    return constant_;
  }
  bool is_symbolic() const { return kind_ == Kind::Symbolic; }
  /// The symbolic scalar (InternalError when the bound is not one).
  const Var& symbolic() const {
    if (kind_ != Kind::Symbolic) detail::throw_wrong_index_kind("Bound::symbolic");
    return symbolic_;
  }

 private:
  // A tagged union by hand: std::variant costs every user translation unit
  // its instantiations (this header is in theano.hpp).
  enum class Kind : char { None, Constant, Symbolic };
  Kind kind_ = Kind::None;
  std::int64_t constant_ = 0;
  Var symbolic_;
};

struct Slice {
  Bound start, stop, step;
};
/// Python's `start:stop:step`.
inline Slice slice(Bound start = {}, Bound stop = {}, Bound step = {}) { return Slice{start, stop, step}; }
/// Python's `:`.
inline const Slice all{};

/// NumPy's `np.newaxis` (None in an index): a new axis of size 1.
struct NewAxisT {};
inline constexpr NewAxisT newaxis{};
/// Python's `...`: as many full slices as the other indices leave axes.
struct EllipsisT {};
inline constexpr EllipsisT ellipsis{};

class Index {
 public:
  Index(std::int64_t i) : kind_(Kind::Constant), bound_(i) {}  // NOLINT: implicit by design
  Index(int i) : kind_(Kind::Constant), bound_(i) {}           // NOLINT
  Index(const Var& v) : kind_(Kind::Variable), variable_(v) {}  // NOLINT: integer scalar, integer or boolean array
  Index(const Slice& s) : kind_(Kind::Slice), slice_(s) {}      // NOLINT
  Index(NewAxisT) : kind_(Kind::NewAxis) {}                     // NOLINT
  Index(EllipsisT) : kind_(Kind::Ellipsis) {}                   // NOLINT
  bool is_newaxis() const { return kind_ == Kind::NewAxis; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  /// The slice (InternalError when the index is not one).
  const Slice& as_slice() const {
    if (kind_ != Kind::Slice) detail::throw_wrong_index_kind("Index::as_slice");
    return slice_;
  }
  bool is_scalar_constant() const { return kind_ == Kind::Constant; }
  /// The constant (InternalError when the index is not one).
  std::int64_t scalar_constant() const {
    if (kind_ != Kind::Constant) detail::throw_wrong_index_kind("Index::scalar_constant");
    return bound_.constant();
  }
  bool is_variable() const { return kind_ == Kind::Variable; }
  /// The variable (InternalError when the index is not one).
  const Var& variable() const {
    if (kind_ != Kind::Variable) detail::throw_wrong_index_kind("Index::variable");
    return variable_;
  }

 private:
  // A tagged union by hand (see Bound).
  enum class Kind : char { Constant, Variable, Slice, NewAxis, Ellipsis };
  Kind kind_;
  Bound bound_;
  Var variable_;
  Slice slice_;
};

}  // namespace theano::tensor

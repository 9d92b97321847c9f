/// \file
/// Index builders for `x[...]`: an integer (constant or symbolic scalar), a
/// `slice(start, stop, step)` with missing parts, or an integer vector
/// (advanced indexing, AdvancedSubtensor1). Used as `x[1]`, `x[{slice(1, none),
/// 0}]`, `x[idx_vector]`; the resulting variable can be passed to
/// `set_subtensor` / `inc_subtensor`.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "theano/graph/basic.h"

namespace theano::tensor {

/// A missing slice bound (Python's None).
struct NoneT {};
inline constexpr NoneT none{};

/// One slice bound: absent, a constant, or a symbolic integer scalar.
class Bound {
 public:
  Bound() = default;
  Bound(NoneT) {}                                                   // NOLINT
  Bound(std::int64_t v) : value_(v) {}                              // NOLINT
  Bound(int v) : value_(static_cast<std::int64_t>(v)) {}            // NOLINT
  Bound(const Var& v) : value_(v) {}                                // NOLINT
  bool is_none() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_constant() const { return std::holds_alternative<std::int64_t>(value_); }
  std::int64_t constant() const { return std::get<std::int64_t>(value_); }
  bool is_symbolic() const { return std::holds_alternative<Var>(value_); }
  const Var& symbolic() const { return std::get<Var>(value_); }

 private:
  std::variant<std::monostate, std::int64_t, Var> value_;
};

struct Slice {
  Bound start, stop, step;
};
/// Python's `start:stop:step`.
inline Slice slice(Bound start = {}, Bound stop = {}, Bound step = {}) { return Slice{start, stop, step}; }
/// Python's `:`.
inline const Slice all{};

class Index {
 public:
  Index(std::int64_t i) : v_(Bound(i)) {}   // NOLINT: implicit by design
  Index(int i) : v_(Bound(i)) {}            // NOLINT
  Index(const Var& v) : v_(v) {}            // NOLINT: integer scalar, or integer vector (advanced)
  Index(const Slice& s) : v_(s) {}          // NOLINT
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }
  const Slice& as_slice() const { return std::get<Slice>(v_); }
  bool is_scalar_constant() const { return std::holds_alternative<Bound>(v_); }
  std::int64_t scalar_constant() const { return std::get<Bound>(v_).constant(); }
  bool is_variable() const { return std::holds_alternative<Var>(v_); }
  const Var& variable() const { return std::get<Var>(v_); }

 private:
  std::variant<Bound, Var, Slice> v_;
};

}  // namespace theano::tensor

/// \file
/// Private helpers of the shape, creation, join and indexing ops: reading
/// integer constants out of graphs, `SymInt` (an int64 that is a known constant
/// or a symbolic scalar, folding arithmetic on constants so shape graphs stay
/// small), gradient helpers that undo broadcasting, and an in-place strided add
/// on NDArray.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/type.h"

namespace theano::tensor::detail {

/// The 0-d int64 constant `v`.
Var int64_const(std::int64_t v);
/// The value of a 0-d integer (or bool) Constant, else nullopt.
std::optional<std::int64_t> constant_int(const Var& v);
/// The values of an integer vector known at graph-build time: a 1-d integer
/// Constant, or a MakeVector whose inputs are all constants.
std::optional<std::vector<std::int64_t>> constant_int_vector(const Var& v);
/// Per-entry known values of an integer vector of static length n: entries of a
/// constant, of a MakeVector's constant inputs, or of Shape(x) where x's static
/// shape knows them. nullopt when the length is unknown.
std::optional<std::vector<std::optional<std::int64_t>>> partial_int_vector(const Var& v);
/// `v` cast to int64 when it is another integer dtype.
Var as_int64(const Var& v);
/// TypeError naming `op` and `what` unless `v` is a 0-d integer tensor.
void check_int_scalar(const Var& v, const std::string& op, const std::string& what);
/// "(2, ?, 3)" for a static shape.
std::string static_shape_str(const StaticShape& s);

/// An int64 known now or at run time. Arithmetic on two constants folds.
class SymInt {
 public:
  SymInt(std::int64_t c) : c_(c) {}  // NOLINT: implicit by design
  /// Reads a constant out of `v` (an integer scalar) when it is one.
  static SymInt of(const Var& v);
  bool is_constant() const { return c_.has_value(); }
  std::int64_t constant() const { return *c_; }
  /// An int64 scalar Var (a Constant when known).
  Var var() const;

 private:
  SymInt() = default;
  std::optional<std::int64_t> c_;
  Var v_;
};

SymInt operator+(const SymInt& a, const SymInt& b);
SymInt operator-(const SymInt& a, const SymInt& b);
SymInt operator*(const SymInt& a, const SymInt& b);
/// Python's floor division.
SymInt floordiv(const SymInt& a, const SymInt& b);
SymInt min(const SymInt& a, const SymInt& b);
SymInt max(const SymInt& a, const SymInt& b);

/// A bool known now or at run time.
class SymBool {
 public:
  SymBool(bool c) : c_(c) {}  // NOLINT
  /// A symbolic bool scalar (folded when it is a constant).
  static SymBool of(const Var& v);
  bool is_constant() const { return c_.has_value(); }
  bool constant() const { return *c_; }
  const Var& var() const { return v_; }  ///< only when not constant

 private:
  SymBool() = default;
  std::optional<bool> c_;
  Var v_;
};

SymBool lt(const SymInt& a, const SymInt& b);
SymBool gt(const SymInt& a, const SymInt& b);
SymBool eq(const SymInt& a, const SymInt& b);
/// `c ? a : b` (a switch when c is symbolic).
SymInt select(const SymBool& c, const SymInt& a, const SymInt& b);

/// The length of `x[start:stop:step]` for a dimension of size n (Python's
/// slice.indices then the element count), bounds absent as nullopt.
SymInt slice_length(const SymInt& n, const std::optional<SymInt>& start, const std::optional<SymInt>& stop,
                    const std::optional<SymInt>& step);

/// The gradient `g` of a value broadcast from `like` (by Elemwise-style left
/// padding and size-1 dimensions) summed back to `like`'s rank and static
/// broadcast pattern (Theano's _sum_grad_over_bcasted_dims).
Var sum_to_like(const Var& g, const Var& like);
/// `g` wrapped in specify_shape when `like`'s static shape knows sizes g's type
/// does not, so a gradient has its variable's type.
Var match_static_shape(const Var& g, const Var& like);

/// `dst += src` elementwise (src broadcast to dst's shape and converted to its
/// dtype); dst may be a strided view.
void add_into(NDArray dst, const NDArray& src);

}  // namespace theano::tensor::detail

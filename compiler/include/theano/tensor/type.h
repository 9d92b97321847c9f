/// \file
/// `TensorType`: dtype + static shape, each dimension a known size or unknown
/// (docs/architecture.md, "Types are values"). `broadcastable(i)` is derived as `shape[i] == 1`: only a
/// dimension whose type says size 1 may broadcast at run time. Instances are
/// interned, so equal TensorTypes are one object and pointer equality is exact.
///
/// Also the variable makers Theano users know: `dmatrix("x")`, `ivector()`,
/// `frow()`, ..., `tensor(dtype, shape, name)`, and `matrix()` etc. that follow
/// `config().floatX`; and their plurals, `auto [x, y] = dmatrices("x", "y");`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/type.h"
#include "theano/runtime/dtype.h"

namespace theano::tensor {

/// A static dimension: a known size, or nullopt for unknown.
using Dim = std::optional<std::int64_t>;
using StaticShape = std::vector<Dim>;

class TensorType final : public Type {
 public:
  /// The interned TensorType with this dtype and static shape (sizes >= 0).
  static IntrusivePtr<const TensorType> make(DType dtype, StaticShape shape);
  /// Theano's spelling: `broadcastable[i]` true means size 1, false unknown.
  static IntrusivePtr<const TensorType> from_broadcastable(DType dtype, const std::vector<bool>& broadcastable);

  DType dtype() const noexcept { return dtype_; }
  int ndim() const noexcept { return static_cast<int>(shape_.size()); }
  const StaticShape& shape() const noexcept { return shape_; }
  std::vector<bool> broadcastable() const;

  /// Theano's `TensorType(float64, matrix)` (`scalar`, `vector`, `row`, `col`,
  /// `(True, False, False)`, `3D`); `TensorType(float64, (3, ?))` when a size
  /// other than 1 is known.
  std::string str() const override;
  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  /// Accepts a host NDArray of the right ndim whose known dims match (a device
  /// array is a TypeError saying to call to_host()). A different dtype is
  /// refused with `strict`, cast when NumPy's safe casting allows it, and
  /// otherwise cast only with `allow_downcast`.
  NDArray filter(const NDArray& value, bool strict = false, bool allow_downcast = false) const override;
  std::optional<NDArray> filter_converted(const NDArray& value, bool strict, bool allow_downcast) const override;
  /// TypeError unless `shape` has this type's rank and its known dims.
  void check_shape(const std::vector<int64_t>& shape) const;
  bool values_eq(const NDArray& a, const NDArray& b) const override;
  /// Same dtype and ndim, and each dim of this type is unknown or equal.
  bool is_super(const Type& other) const override;
  /// `var` when this type is its super type; a GPU array whose host type
  /// fits becomes `HostFromGpu(var)`; else a null Var.
  Var convert_variable(const Var& var) const override;

 private:
  TensorType(DType dtype, StaticShape shape) : dtype_(dtype), shape_(std::move(shape)) {}
  DType dtype_;
  StaticShape shape_;
};
using TensorTypePtr = IntrusivePtr<const TensorType>;

/// The TensorType of `v`, or nullptr when `v` is not a tensor.
const TensorType* tensor_type(const Var& v);

/// The dtypes and ranks of `node`'s inputs and outputs (the argument of
/// Op::kernel_form), reading a GPU array as its host twin; nullopt when a
/// value is neither a tensor nor a GPU array (a sparse matrix, a random
/// state, ...).
std::optional<KernelSignature> kernel_signature(const Apply& node);

/// A tensor Variable of any dtype and static shape.
Var tensor(DType dtype, StaticShape shape, std::string name = {});

/// Makers by rank; dtype defaults to config().floatX.
Var scalar(std::string name = {}, std::optional<DType> dtype = {});
Var vector(std::string name = {}, std::optional<DType> dtype = {});
Var matrix(std::string name = {}, std::optional<DType> dtype = {});
Var row(std::string name = {}, std::optional<DType> dtype = {});
Var col(std::string name = {}, std::optional<DType> dtype = {});
Var tensor3(std::string name = {}, std::optional<DType> dtype = {});
Var tensor4(std::string name = {}, std::optional<DType> dtype = {});

// Theano's prefixed makers: b int8, w int16, i int32, l int64, f float32,
// d float64, c complex64, z complex128.
#define THEANO_DECLARE_TENSOR_MAKERS(p)   \
  Var p##scalar(std::string name = {}); \
  Var p##vector(std::string name = {}); \
  Var p##matrix(std::string name = {}); \
  Var p##row(std::string name = {});    \
  Var p##col(std::string name = {});    \
  Var p##tensor3(std::string name = {}); \
  Var p##tensor4(std::string name = {});
THEANO_DECLARE_TENSOR_MAKERS(b)
THEANO_DECLARE_TENSOR_MAKERS(w)
THEANO_DECLARE_TENSOR_MAKERS(i)
THEANO_DECLARE_TENSOR_MAKERS(l)
THEANO_DECLARE_TENSOR_MAKERS(f)
THEANO_DECLARE_TENSOR_MAKERS(d)
THEANO_DECLARE_TENSOR_MAKERS(c)
THEANO_DECLARE_TENSOR_MAKERS(z)
#undef THEANO_DECLARE_TENSOR_MAKERS

/// Theano's plural makers (`x, y = T.dmatrices('x', 'y')`), for the ranks and
/// dtypes Theano has them: `scalars`, `vectors`, `matrices`, `rows`, `cols`,
/// `tensor3s`, `tensor4s` (dtype floatX) and the same with prefix f, d, i, l.
///   auto [x, y] = dmatrices("x", "y");     // names: a std::array, one per name
///   std::vector<Var> ws = fvectors(3);      // a count: unnamed variables
///   std::vector<Var> hs = matrices(names);  // a std::vector<std::string> of names
/// A negative count is a ValueError.
#define THEANO_DECLARE_PLURAL_MAKER(plural, singular)                                          \
  template <class... Names>                                                                    \
    requires(sizeof...(Names) > 0 && (std::is_convertible_v<const Names&, std::string_view> && ...)) \
  std::array<Var, sizeof...(Names)> plural(const Names&... names) {                            \
    return {singular(std::string(std::string_view(names)))...};                                \
  }                                                                                            \
  std::vector<Var> plural(int count);                                                          \
  std::vector<Var> plural(const std::vector<std::string>& names);
#define THEANO_DECLARE_PLURAL_MAKERS(p)                \
  THEANO_DECLARE_PLURAL_MAKER(p##scalars, p##scalar)   \
  THEANO_DECLARE_PLURAL_MAKER(p##vectors, p##vector)   \
  THEANO_DECLARE_PLURAL_MAKER(p##matrices, p##matrix)  \
  THEANO_DECLARE_PLURAL_MAKER(p##rows, p##row)         \
  THEANO_DECLARE_PLURAL_MAKER(p##cols, p##col)         \
  THEANO_DECLARE_PLURAL_MAKER(p##tensor3s, p##tensor3) \
  THEANO_DECLARE_PLURAL_MAKER(p##tensor4s, p##tensor4)
THEANO_DECLARE_PLURAL_MAKERS()
THEANO_DECLARE_PLURAL_MAKERS(f)
THEANO_DECLARE_PLURAL_MAKERS(d)
THEANO_DECLARE_PLURAL_MAKERS(i)
THEANO_DECLARE_PLURAL_MAKERS(l)
#undef THEANO_DECLARE_PLURAL_MAKERS
#undef THEANO_DECLARE_PLURAL_MAKER

}  // namespace theano::tensor

// TensorType: interning, filtering run-time values, and the variable makers.
#include "theano/tensor/type.h"

#include <functional>
#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano::tensor {
namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

}  // namespace

TensorTypePtr TensorType::make(DType dtype, StaticShape shape) {
  THEANO_USER_CHECK(shape.size() <= THEANO_MAX_NDIM, TypeError)
      << "TensorType: " << shape.size() << " dimensions asked for; tensors have at most " << THEANO_MAX_NDIM
      << " (THEANO_MAX_NDIM, the limit of the compiled-code ABI)";
  for (std::size_t i = 0; i < shape.size(); ++i)
    THEANO_USER_CHECK(!shape[i] || *shape[i] >= 0, ValueError)
        << "TensorType: static dimension " << i << " is " << *shape[i] << "; sizes must be >= 0 or unknown";
  // Interned forever: a program uses few distinct tensor types.
  static std::mutex mu;
  static std::map<std::pair<DType, StaticShape>, TensorTypePtr> table;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(dtype, shape);
  auto it = table.find(key);
  if (it != table.end()) return it->second;
  TensorTypePtr t(new TensorType(dtype, std::move(shape)));
  table.emplace(std::move(key), t);
  return t;
}

TensorTypePtr TensorType::from_broadcastable(DType dtype, const std::vector<bool>& broadcastable) {
  StaticShape shape;
  for (bool b : broadcastable) shape.push_back(b ? Dim(1) : Dim());
  return make(dtype, std::move(shape));
}

std::vector<bool> TensorType::broadcastable() const {
  std::vector<bool> r;
  for (const Dim& d : shape_) r.push_back(d && *d == 1);
  return r;
}

std::string TensorType::str() const {
  // Theano 1.0's TensorType.__str__ when the static shape is only a broadcast
  // pattern (each dimension unknown or 1): `scalar`, `vector`, `row`, `col`,
  // `matrix`, else the pattern `(False, True, False)`, or `3D` when no
  // dimension is 1. A known size other than 1, which Theano's types cannot
  // say, prints the static shape instead: `(3, ?)`, so different types never
  // print the same.
  // Written in place: a request's text prints every distinct type of the
  // graph (request_text.cpp), the warm start's path.
  std::string r = "TensorType(";
  r += dtype_name(dtype_);
  r += ", ";
  const bool pattern_only = std::all_of(shape_.begin(), shape_.end(), [](const Dim& d) { return !d || *d == 1; });
  if (!pattern_only) {
    r += '(';
    for (std::size_t i = 0; i < shape_.size(); ++i) {
      if (i) r += ", ";
      r += shape_[i] ? std::to_string(*shape_[i]) : std::string("?");
    }
    r += shape_.size() == 1 ? ",))" : "))";
    return r;
  }
  // Here every known size is 1: a known dimension is a broadcastable one.
  auto ones = [&](std::size_t i) { return shape_[i].has_value(); };
  const std::size_t n = shape_.size();
  const bool any_one = std::any_of(shape_.begin(), shape_.end(), [](const Dim& d) { return d.has_value(); });
  if (n == 0) return r + "scalar)";
  if (n == 1 && !ones(0)) return r + "vector)";
  if (n == 2 && !ones(0) && ones(1)) return r + "col)";
  if (n == 2 && ones(0) && !ones(1)) return r + "row)";
  if (n == 2 && !any_one) return r + "matrix)";
  if (!any_one) return r + std::to_string(n) + "D)";
  r += '(';
  for (std::size_t i = 0; i < n; ++i) {
    if (i) r += ", ";
    r += ones(i) ? "True" : "False";
  }
  r += n == 1 ? ",))" : "))";
  return r;
}

bool TensorType::equals(const Type& other) const {
  if (this == &other) return true;
  const auto* o = dynamic_cast<const TensorType*>(&other);
  return o && o->dtype_ == dtype_ && o->shape_ == shape_;
}

std::size_t TensorType::hash() const {
  std::size_t h = std::hash<int>()(static_cast<int>(dtype_)) * 31 + shape_.size();
  for (const Dim& d : shape_) h = h * 1000003 ^ (d ? static_cast<std::size_t>(*d) + 1 : 0);
  return h;
}

void TensorType::check_shape(const std::vector<int64_t>& shape) const {
  THEANO_USER_CHECK(static_cast<int>(shape.size()) == ndim(), TypeError)
      << "expected a " << ndim() << "-d array for " << str() << ", got a " << shape.size()
      << "-d array of shape " << shape_text(shape);
  for (int i = 0; i < ndim(); ++i) {
    const Dim& d = shape_[static_cast<std::size_t>(i)];
    THEANO_USER_CHECK(!d || *d == shape[static_cast<std::size_t>(i)], TypeError)
        << "expected an array of static shape matching " << str() << ", got shape " << shape_text(shape)
        << " (dimension " << i << " must be " << *d << ")";
  }
}

NDArray TensorType::filter(const NDArray& value, bool strict, bool allow_downcast) const {
  if (std::optional<NDArray> converted = filter_converted(value, strict, allow_downcast)) return std::move(*converted);
  return value;
}

std::optional<NDArray> TensorType::filter_converted(const NDArray& value, bool strict, bool allow_downcast) const {
  THEANO_USER_CHECK(value.defined(), TypeError) << "expected a value of " << str() << ", got an undefined array";
  THEANO_USER_CHECK(value.on_host(), TypeError)
      << "expected a host array for " << str() << ", got a " << dtype_name(value.dtype()) << " array on the GPU "
      << value.device().str() << " (call to_host() on it)";
  check_shape(value.shape());
  if (value.dtype() == dtype_) return std::nullopt;
  THEANO_USER_CHECK(!strict, TypeError)
      << "expected dtype " << dtype_name(dtype_) << " for " << str() << ", got " << dtype_name(value.dtype())
      << " (strict: no conversion allowed)";
  THEANO_USER_CHECK(allow_downcast || can_cast(value.dtype(), dtype_, Casting::Safe), TypeError)
      << "cannot convert a " << dtype_name(value.dtype()) << " array to " << str()
      << " without losing precision; cast it first or pass allow_downcast=true";
  return value.astype(dtype_);
}

bool TensorType::values_eq(const NDArray& a, const NDArray& b) const {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && array_equal(a, b);
}

bool TensorType::is_super(const Type& other) const {
  const auto* o = dynamic_cast<const TensorType*>(&other);
  if (!o || o->dtype_ != dtype_ || o->ndim() != ndim()) return false;
  for (std::size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] && shape_[i] != o->shape_[i]) return false;
  return true;
}

Var TensorType::convert_variable(const Var& var) const {
  if (var && is_super(*var.type())) return var;
  // A value off the host (a GPU array) of this type's host form: its transfer.
  if (const TypePtr h = var ? var.type()->host_counterpart() : nullptr; h && is_super(*h)) return var.type()->to_host(var);
  return Var();
}

const TensorType* tensor_type(const Var& v) { return v ? dynamic_cast<const TensorType*>(v.type().get()) : nullptr; }

std::optional<KernelSignature> kernel_signature(const Apply& node) {
  KernelSignature sig;
  auto add = [](const Var& v, std::vector<DType>& dtypes, std::vector<int>& ndims) {
    if (!v) return false;
    TypePtr t = v.type();
    if (TypePtr host = t->host_counterpart()) t = host;  // a GPU array: its host twin
    const auto* tt = dynamic_cast<const TensorType*>(t.get());
    if (!tt) return false;
    dtypes.push_back(tt->dtype());
    ndims.push_back(tt->ndim());
    return true;
  };
  for (const Var& v : node.inputs())
    if (!add(v, sig.in_dtypes, sig.in_ndims)) return std::nullopt;
  for (const Var& v : node.outputs())
    if (!add(v, sig.out_dtypes, sig.out_ndims)) return std::nullopt;
  return sig;
}

Var tensor(DType dtype, StaticShape shape, std::string name) {
  return TensorType::make(dtype, std::move(shape))->make_variable(std::move(name));
}

namespace {
Var make_ranked(std::string name, std::optional<DType> dtype, StaticShape shape) {
  return tensor(dtype.value_or(config().floatX), std::move(shape), std::move(name));
}
}  // namespace

Var scalar(std::string name, std::optional<DType> dtype) { return make_ranked(std::move(name), dtype, {}); }
Var vector(std::string name, std::optional<DType> dtype) { return make_ranked(std::move(name), dtype, {Dim()}); }
Var matrix(std::string name, std::optional<DType> dtype) {
  return make_ranked(std::move(name), dtype, {Dim(), Dim()});
}
Var row(std::string name, std::optional<DType> dtype) { return make_ranked(std::move(name), dtype, {Dim(1), Dim()}); }
Var col(std::string name, std::optional<DType> dtype) { return make_ranked(std::move(name), dtype, {Dim(), Dim(1)}); }
Var tensor3(std::string name, std::optional<DType> dtype) {
  return make_ranked(std::move(name), dtype, {Dim(), Dim(), Dim()});
}
Var tensor4(std::string name, std::optional<DType> dtype) {
  return make_ranked(std::move(name), dtype, {Dim(), Dim(), Dim(), Dim()});
}

#define THEANO_DEFINE_TENSOR_MAKERS(p, DT)                                               \
  Var p##scalar(std::string name) { return scalar(std::move(name), DType::DT); }         \
  Var p##vector(std::string name) { return vector(std::move(name), DType::DT); }         \
  Var p##matrix(std::string name) { return matrix(std::move(name), DType::DT); }         \
  Var p##row(std::string name) { return row(std::move(name), DType::DT); }               \
  Var p##col(std::string name) { return col(std::move(name), DType::DT); }               \
  Var p##tensor3(std::string name) { return tensor3(std::move(name), DType::DT); }       \
  Var p##tensor4(std::string name) { return tensor4(std::move(name), DType::DT); }
THEANO_DEFINE_TENSOR_MAKERS(b, Int8)
THEANO_DEFINE_TENSOR_MAKERS(w, Int16)
THEANO_DEFINE_TENSOR_MAKERS(i, Int32)
THEANO_DEFINE_TENSOR_MAKERS(l, Int64)
THEANO_DEFINE_TENSOR_MAKERS(f, Float32)
THEANO_DEFINE_TENSOR_MAKERS(d, Float64)
THEANO_DEFINE_TENSOR_MAKERS(c, Complex64)
THEANO_DEFINE_TENSOR_MAKERS(z, Complex128)
#undef THEANO_DEFINE_TENSOR_MAKERS

}  // namespace theano::tensor

// GpuArrayType: interning, context names, and the host-value semantics of
// gpu/type.h.
#include "theano/gpu/type.h"

#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "theano/gpu/ops.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano::gpu {

bool parse_context(const std::string& context, int* index) {
  Device d;
  if (!Device::parse(context, &d) || d.is_cpu()) return false;  // one spelling: runtime/device.h
  if (index) *index = d.kind == DeviceKind::Emulated ? -1 : d.index;
  return true;
}

bool gpu_dtype_supported(DType dtype) {
  switch (dtype) {
    case DType::Bool:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::UInt8:
    case DType::UInt16:
    case DType::UInt32:
    case DType::UInt64:
    case DType::Float32:
    case DType::Float64:
      return true;
    default:
      return false;
  }
}

GpuArrayTypePtr GpuArrayType::make(DType dtype, tensor::StaticShape shape, std::string context) {
  THEANO_USER_CHECK(parse_context(context), ValueError)
      << "GpuArrayType: unknown GPU context '" << context << "'; expected cuda<N> (e.g. cuda0) or " << kEmulatedContext;
  THEANO_USER_CHECK(gpu_dtype_supported(dtype), TypeError)
      << "GpuArrayType: dtype " << dtype_name(dtype) << " has no GPU kernels yet (bool, integers, float32 and "
      << "float64 do)";
  // Validates the shape as TensorType does (rank limit, sizes >= 0).
  (void)tensor::TensorType::make(dtype, shape);
  static std::mutex mu;
  static std::map<std::tuple<DType, tensor::StaticShape, std::string>, GpuArrayTypePtr> table;
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_tuple(dtype, shape, context);
  auto it = table.find(key);
  if (it != table.end()) return it->second;
  GpuArrayTypePtr t(new GpuArrayType(dtype, std::move(shape), std::move(context)));
  table.emplace(std::move(key), t);
  return t;
}

GpuArrayTypePtr GpuArrayType::of(const tensor::TensorType& t, std::string context) {
  return make(t.dtype(), t.shape(), std::move(context));
}

tensor::TensorTypePtr GpuArrayType::host_type() const { return tensor::TensorType::make(dtype_, shape_); }

std::string GpuArrayType::str() const {
  // "TensorType(float32, matrix)" -> "GpuArrayType<cuda0>(float32, matrix)" (Theano's spelling) and
  // "TensorType(float32, (?, 3))" -> "GpuArrayType<cuda0>(float32, (?, 3))": one spelling of the shape.
  const std::string host = host_type()->str();
  return "GpuArrayType<" + context_ + ">" + host.substr(host.find('('));
}

bool GpuArrayType::equals(const Type& other) const {
  if (this == &other) return true;
  const auto* o = dynamic_cast<const GpuArrayType*>(&other);
  return o && o->dtype_ == dtype_ && o->shape_ == shape_ && o->context_ == context_;
}

std::size_t GpuArrayType::hash() const {
  return host_type()->hash() * 31 + std::hash<std::string>()(context_) + 0x6770;
}

NDArray GpuArrayType::filter(const NDArray& value, bool strict, bool allow_downcast) const {
  THEANO_USER_CHECK(value.defined(), TypeError) << "expected a value of " << str() << ", got an undefined array";
  if (value.on_host()) return host_type()->filter(value, strict, allow_downcast);
  THEANO_USER_CHECK(value.device().str() == context_, TypeError)
      << "expected a value of " << str() << ", got an array on " << value.device().str()
      << " (move it with to(), or give the variable that GPU's context)";
  THEANO_USER_CHECK(value.dtype() == dtype_, TypeError)
      << "expected dtype " << dtype_name(dtype_) << " for " << str() << ", got a " << dtype_name(value.dtype())
      << " array on " << context_ << " (dtypes are not converted on the GPU: convert on the host first)";
  host_type()->check_shape(value.shape());  // rank and static shape, by the host type's rule
  return value;
}

bool GpuArrayType::values_eq(const NDArray& a, const NDArray& b) const {
  return host_type()->values_eq(a.to_host(), b.to_host());
}

bool GpuArrayType::is_super(const Type& other) const {
  const auto* o = dynamic_cast<const GpuArrayType*>(&other);
  return o && o->context_ == context_ && host_type()->is_super(*o->host_type());
}

Var GpuArrayType::convert_variable(const Var& var) const {
  if (var && is_super(*var.type())) return var;
  // A host tensor of this type's host form moves here (an update of a GPU
  // shared variable computed on the host, a `givens` replacement).
  if (const tensor::TensorType* t = tensor::tensor_type(var); t && host_type()->is_super(*t))
    return gpu_from_host(var, context_);
  return Var();
}

TypePtr GpuArrayType::host_counterpart() const { return host_type(); }

Var GpuArrayType::to_host(const Var& var) const { return host_from_gpu(var); }

const GpuArrayType* gpu_type(const Var& v) { return v ? dynamic_cast<const GpuArrayType*>(v.type().get()) : nullptr; }

}  // namespace theano::gpu

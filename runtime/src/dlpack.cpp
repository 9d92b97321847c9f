// DLPack export/import (zero-copy). Export keeps an NDArray handle alive inside the
// DLManagedTensor's manager_ctx; import wraps the producer's tensor in a shared_ptr
// whose deleter calls the producer's deleter, so it runs once, when the last view dies.
#include "theano/runtime/dlpack.h"
#include "theano/runtime/kernels/shape_rules.h"

#include <memory>

namespace theano {
namespace {

struct ExportContext {
  NDArray array;  // keeps the buffer alive
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements, as DLPack wants
  DLManagedTensor managed{};
};

void delete_export(DLManagedTensor* t) {
  if (t != nullptr) delete static_cast<ExportContext*>(t->manager_ctx);
}

void call_deleter(DLManagedTensor* t) {
  if (t != nullptr && t->deleter != nullptr) t->deleter(t);
}

DLDevice to_dl_device(const Device& d) {
  switch (d.kind) {
    case DeviceKind::CPU: return DLDevice{kDLCPU, 0};
    case DeviceKind::CUDA: return DLDevice{kDLCUDA, d.index};
    case DeviceKind::Emulated: return DLDevice{kDLExtDev, 0};
  }
  return DLDevice{kDLCPU, 0};
}

/// The Device of an imported tensor; ValueError for memory we cannot address.
Device from_dl_device(const DLManagedTensor& m) {
  const DLDevice d = m.dl_tensor.device;
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost:  // pinned host memory: an ordinary host pointer
      return Device::cpu();
    case kDLCUDA:
      THEANO_USER_CHECK(d.device_id >= 0 && d.device_id < 1000, ValueError)
          << "from_dlpack: invalid CUDA device id " << d.device_id;
      return Device::cuda(d.device_id);
    case kDLExtDev:
      // Only our own export of an emulated-device array: another producer's
      // extension device is memory we know nothing of.
      THEANO_USER_CHECK(m.deleter == &delete_export, ValueError)
          << "from_dlpack: a tensor on an extension device (kDLExtDev) from another library cannot be used; "
          << "theano-cpp reads kDLExtDev only as its own emulated GPU";
      return Device::emulated();
    default: break;
  }
  THEANO_USER_CHECK(false, ValueError)
      << "from_dlpack: unsupported device type " << static_cast<int>(d.device_type)
      << "; expected kDLCPU (1), kDLCUDA (2) or kDLCUDAHost (3)";
  return Device::cpu();
}

}  // namespace

DLDataType to_dlpack_dtype(DType dtype) {
  DLDataType t;
  t.bits = static_cast<uint8_t>(dtype_size(dtype) * 8);
  t.lanes = 1;
  switch (dtype_kind(dtype)) {
    case 'b': t.code = kDLPackBoolCode; break;
    case 'i': t.code = kDLInt; break;
    case 'u': t.code = kDLUInt; break;
    case 'f': t.code = kDLFloat; break;
    default: t.code = kDLComplex; break;
  }
  return t;
}

DType from_dlpack_dtype(DLDataType t) {
  THEANO_USER_CHECK(t.lanes == 1, ValueError)
      << "DLPack: vector types are not supported (expected lanes == 1, got " << t.lanes << ")";
  const int bits = t.bits;
  auto bad = [&]() {
    THEANO_USER_CHECK(false, ValueError)
        << "DLPack: unsupported data type (code " << int(t.code) << ", bits " << bits
        << "); expected bool (code 6, 8 bits), int/uint 8..64, float 16/32/64 or complex 64/128";
  };
  switch (t.code) {
    case kDLPackBoolCode:
      if (bits == 8) return DType::Bool;
      break;
    case kDLInt:
      if (bits == 8) return DType::Int8;
      if (bits == 16) return DType::Int16;
      if (bits == 32) return DType::Int32;
      if (bits == 64) return DType::Int64;
      break;
    case kDLUInt:
      if (bits == 8) return DType::UInt8;
      if (bits == 16) return DType::UInt16;
      if (bits == 32) return DType::UInt32;
      if (bits == 64) return DType::UInt64;
      break;
    case kDLFloat:
      if (bits == 16) return DType::Float16;
      if (bits == 32) return DType::Float32;
      if (bits == 64) return DType::Float64;
      break;
    case kDLComplex:
      if (bits == 64) return DType::Complex64;
      if (bits == 128) return DType::Complex128;
      break;
    default: break;
  }
  bad();
  return DType::Float64;
}

DLManagedTensor* to_dlpack(const NDArray& a) {
  THEANO_USER_CHECK(a.defined(), ValueError) << "to_dlpack: null NDArray handle";
  // The consumer may read on any stream: let the kernels writing it finish first.
  if (!a.on_host() && a.size() > 0)
    if (DeviceMemory* m = opened_device_memory(a.device())) m->synchronize();  // (unopened: nothing of ours queued)
  auto ctx = std::make_unique<ExportContext>();
  ctx->array = a;
  ctx->shape = a.shape();
  const auto item = static_cast<int64_t>(a.itemsize());
  for (std::size_t i = 0; i < a.shape().size(); ++i) {
    const int64_t s = a.strides()[i];
    THEANO_USER_CHECK(s % item == 0, ValueError)
        << "to_dlpack: stride " << s << " bytes on axis " << i << " is not a multiple of the item size "
        << item << "; DLPack strides count elements";
    ctx->strides.push_back(s / item);
  }
  DLTensor& t = ctx->managed.dl_tensor;
  t.data = a.address();
  t.device = to_dl_device(a.device());
  t.ndim = a.ndim();
  t.dtype = to_dlpack_dtype(a.dtype());
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = &delete_export;
  return &ctx.release()->managed;
}

NDArray from_dlpack(DLManagedTensor* tensor) {
  THEANO_USER_CHECK(tensor != nullptr, ValueError) << "from_dlpack: null DLManagedTensor";
  // Own the tensor first, so the deleter runs exactly once even if validation throws.
  std::shared_ptr<void> owner(tensor, [](void* p) { call_deleter(static_cast<DLManagedTensor*>(p)); });
  const DLTensor& t = tensor->dl_tensor;
  const Device device = from_dl_device(*tensor);
  const DType dtype = from_dlpack_dtype(t.dtype);
  THEANO_USER_CHECK(t.ndim >= 0 && (t.ndim == 0 || t.shape != nullptr), ValueError)
      << "from_dlpack: invalid ndim " << t.ndim << " or null shape";
  THEANO_USER_CHECK(t.ndim <= THEANO_MAX_NDIM, TypeError)
      << "from_dlpack: the tensor has " << t.ndim << " dimensions; arrays have at most " << THEANO_MAX_NDIM;
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  std::vector<int64_t> strides;
  const auto item = static_cast<int64_t>(dtype_size(dtype));
  if (t.strides == nullptr) {
    for (int64_t s : shape)
      THEANO_USER_CHECK(s >= 0, ValueError) << "from_dlpack: negative dimension in shape " << shape_to_string(shape);
    strides = NDArray::c_strides(shape, static_cast<std::size_t>(item));
  } else {
    for (int i = 0; i < t.ndim; ++i) {
      int64_t bytes = 0;
      THEANO_USER_CHECK(!__builtin_mul_overflow(t.strides[i], item, &bytes), ValueError)
          << "from_dlpack: stride " << t.strides[i] << " elements on axis " << i << " of a "
          << dtype_name(dtype) << " tensor is " << t.strides[i] << " * " << item
          << " bytes, which does not fit in 64 bits";
      strides.push_back(bytes);
    }
  }
  auto* data = static_cast<std::byte*>(t.data) + t.byte_offset;
  return NDArray::from_strided(std::move(owner), data, dtype, std::move(shape), std::move(strides), device);
}

}  // namespace theano

/// \file
/// `GpuArrayType`: the type of a value that lives in a GPU's memory (Theano's
/// gpuarray back end): a dtype, a static shape like TensorType's, and the GPU
/// context it lives on ("cuda0", "cuda1", ... the CUDA driver's devices, or
/// "emulated", a host-emulated CUDA device whose kernels run on the CPU through
/// the emulation shim; codegen/include/theano/codegen/cuda_emulation.h).
///
/// Why a Type of its own and not a TensorType with a device field: every CPU op
/// checks its inputs with `tensor_type()`, so a GPU value can never reach a CPU
/// op by mistake; only the transfer ops (GpuFromHost / HostFromGpu, gpu/ops.h)
/// cross the boundary, and the GPU transfer rewrite places them.
///
/// Values. A value of this type is a device NDArray on its context (what
/// compiled code takes and returns, what a GPU shared variable stores), or the
/// host NDArray it stands for: the reference implementations (`perform`, the
/// "py" linker, DebugMode's reference run) compute on host values (a
/// transfer's perform is the identity on values, a GPU op's perform computes
/// what its kernel computes), and compiled code uploads a host value it is
/// given. So `filter` accepts host arrays as TensorType's does, and device
/// arrays of this context and dtype (no conversion on the device).
#pragma once

#include <optional>
#include <string>

#include "theano/graph/basic.h"
#include "theano/graph/type.h"
#include "theano/tensor/type.h"

namespace theano::gpu {

/// The context name of the host-emulated CUDA device.
inline constexpr const char* kEmulatedContext = "emulated";

class GpuArrayType final : public Type {
 public:
  /// The interned type. `context`: "cuda<N>" or "emulated" (ValueError otherwise).
  static IntrusivePtr<const GpuArrayType> make(DType dtype, tensor::StaticShape shape, std::string context);
  /// The GPU twin of a TensorType.
  static IntrusivePtr<const GpuArrayType> of(const tensor::TensorType& t, std::string context);

  DType dtype() const noexcept { return dtype_; }
  int ndim() const noexcept { return static_cast<int>(shape_.size()); }
  const tensor::StaticShape& shape() const noexcept { return shape_; }
  const std::string& context() const noexcept { return context_; }
  /// The host TensorType with the same dtype and static shape.
  tensor::TensorTypePtr host_type() const;

  /// `GpuArrayType<cuda0>(float32, (?, ?))`.
  std::string str() const override;
  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  /// The host value this type's values stand for (see the file comment): as
  /// TensorType::filter of host_type().
  NDArray filter(const NDArray& value, bool strict = false, bool allow_downcast = false) const override;
  bool values_eq(const NDArray& a, const NDArray& b) const override;
  /// Same context, dtype and ndim; each dim of this type unknown or equal.
  bool is_super(const Type& other) const override;
  /// `var` when this type is its super type; a host tensor whose type fits
  /// host_type() becomes `GpuFromHost(var)`; else a null Var.
  Var convert_variable(const Var& var) const override;
  /// host_type(), and HostFromGpu(var).
  TypePtr host_counterpart() const override;
  Var to_host(const Var& var) const override;

 private:
  GpuArrayType(DType dtype, tensor::StaticShape shape, std::string context)
      : dtype_(dtype), shape_(std::move(shape)), context_(std::move(context)) {}
  DType dtype_;
  tensor::StaticShape shape_;
  std::string context_;
};
using GpuArrayTypePtr = IntrusivePtr<const GpuArrayType>;

/// The GpuArrayType of `v`, or nullptr.
const GpuArrayType* gpu_type(const Var& v);

/// Whether GPU kernels handle `dtype` (bool, integers, float32, float64;
/// not float16 nor complex yet).
bool gpu_dtype_supported(DType dtype);

/// Whether `context` names a GPU context: "cuda<N>" (N a small non-negative
/// integer) or "emulated". Its device number in `*index` (-1 for emulated).
bool parse_context(const std::string& context, int* index = nullptr);

}  // namespace theano::gpu

/// \file
/// The GPU ops: the transfers GpuFromHost / HostFromGpu, and GpuElemwise (an
/// Elemwise, Composite included, computed by one CUDA kernel).
///
/// Why these first: with them the GPU transfer rewrite (rewrite/gpu_transfer)
/// turns an elementwise program into "copy the inputs to the GPU, compute
/// there, copy the outputs back", and codegen lowers it to one CUDA
/// translation unit. Each op's `perform` is its reference semantics on host
/// values (gpu/type.h): transfers are the identity, GpuElemwise computes what
/// the host Elemwise computes, so the perform linker and DebugMode check the
/// kernels against the same reference as the CPU back end.
#pragma once

#include <string>

#include "theano/gpu/type.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/tensor/elemwise.h"

namespace theano::gpu {

/// Host tensor -> GPU array on `context` (cuMemcpyHtoD of a contiguous copy).
class GpuFromHost final : public Op {
 public:
  explicit GpuFromHost(std::string context);
  THEANO_OP_DECLARE("GpuFromHost")
  Props props() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  const std::string& context() const { return context_; }

 private:
  std::string context_;
};

/// GPU array -> host tensor (a contiguous device copy where needed, then
/// cuMemcpyDtoH).
class HostFromGpu final : public Op {
 public:
  THEANO_OP_DECLARE("HostFromGpu")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// `GpuFromHost(context)(x)`; TypeError unless x is a host tensor.
Var gpu_from_host(const Var& x, const std::string& context);
/// `HostFromGpu()(x)`; TypeError unless x is a GPU array.
Var host_from_gpu(const Var& x);
/// The transfer node `v` comes from, or nullptr.
const Apply* as_host_from_gpu(const Var& v);
const Apply* as_gpu_from_host(const Var& v);

/// An Elemwise over GPU arrays of one context. Inputs have the output's rank
/// (the host Elemwise already padded them); the broadcasting rule, output
/// dtypes and static shapes are the host Elemwise's.
class GpuElemwise final : public Op {
 public:
  /// `host`: the Elemwise it computes (no inplace pattern: GPU outputs are
  /// fresh buffers).
  explicit GpuElemwise(IntrusivePtr<const tensor::Elemwise> host);
  THEANO_OP_DECLARE("GpuElemwise")
  Props props() const override;
  /// `GpuElemwise{Composite{...}}`.
  std::string name() const override;
  bool equals(const Op& other) const override;
  std::size_t hash() const override;
  const tensor::Elemwise& host_op() const { return *host_; }
  /// The host Elemwise node this GPU node computes: the same op over host
  /// variables of the inputs' host types (what the lowering and perform use).
  ApplyPtr host_node(const Apply& node) const;

 private:
  IntrusivePtr<const tensor::Elemwise> host_;
};

}  // namespace theano::gpu

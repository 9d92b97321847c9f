/// \file
/// The GPU ops: the transfers GpuFromHost / HostFromGpu, and GpuElemwise (an
/// Elemwise, Composite included, computed by one CUDA kernel).
///
/// Why these first: with them the GPU transfer rewrite (rewrite/gpu_transfer)
/// turns an elementwise program into "copy the inputs to the GPU, compute
/// there, copy the outputs back", and codegen lowers it to one CUDA
/// translation unit. Each op's `perform` is its reference semantics on host
/// values (gpu/type.h): transfers copy (the identity on values, a new
/// buffer as on the device), GpuElemwise computes what
/// the host Elemwise computes, so the perform linker and DebugMode check the
/// kernels against the same reference as the CPU back end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theano/gpu/type.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/elemwise.h"

namespace theano::gpu {

/// A CUDA kernel of the back end takes one block of int64 parameters; CUDA
/// guarantees 4 KiB of kernel parameters on every architecture, so at most
/// this many.
inline constexpr std::int64_t kMaxKernelParams = 4096 / 8;
/// The parameters of an elementwise kernel of `nd` dimensions over `narrays`
/// arrays (codegen's cuda_unit.h layout): the element count, the shape, and
/// per array its address and `nd` strides.
inline std::int64_t elemwise_kernel_params(int nd, int narrays) {
  return 1 + nd + static_cast<std::int64_t>(narrays) * (1 + nd);
}

/// Host tensor -> GPU array on `context` (cuMemcpyHtoD of a contiguous copy).
class GpuFromHost final : public Op {
 public:
  explicit GpuFromHost(std::string context);
  THEANO_OP_DECLARE("GpuFromHost")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  THEANO_OP_PROPS((std::string, context))
};

/// GPU array -> host tensor (a contiguous device copy where needed, then
/// cuMemcpyDtoH).
class HostFromGpu final : public Op {
 public:
  THEANO_OP_DECLARE("HostFromGpu")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
};

/// ValueError unless `shapes` has one entry per input of `node`, each with the
/// input's rank (infer_shape's callers pass placeholders; a wrong count must
/// not index past them). `op` names the op in the message.
void check_input_shapes(const std::string& op, const Apply& node, const std::vector<std::vector<Var>>& shapes);

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
  // By hand: the wrapped host op's scalar op name (equality and hash are the host op's).
  Props props() const override;
  /// `GpuElemwise{Composite{...}}`.
  std::string name() const override;
  bool equals(const Op& other) const override;
  bool keyed_by_props() const override { return false; }  // identified by the wrapped host op
  std::size_t hash() const override;
  const tensor::Elemwise& host_op() const { return *host_; }
  /// The host Elemwise node this GPU node computes: the same op over host
  /// variables of the inputs' host types (what the lowering and perform use).
  ApplyPtr host_node(const Apply& node) const;

 private:
  IntrusivePtr<const tensor::Elemwise> host_;
};

/// A host op whose GPU form keeps its semantics and only moves its data
/// inputs and outputs to the GPU: DimShuffle (a view of a GPU array) and
/// Alloc (a GPU array filled from a GPU value; the shape stays host scalars).
/// Typing, view_map, shapes and the reference perform are the host op's, on
/// the host twin node (the GPU inputs replaced by host variables of their
/// host types, the other inputs as they are).
class GpuOp final : public Op {
 public:
  /// `host`: the op; `gpu_inputs[i]`: whether input i is a GPU array;
  /// `gpu_outputs[k]`: whether output k is one (empty: every output; a
  /// random op's advanced state stays a host value); `context`: the GPU of
  /// an op without GPU inputs (ARange, Eye: "" takes the inputs' context).
  GpuOp(OpPtr host, std::vector<bool> gpu_inputs, std::vector<bool> gpu_outputs = {}, std::string context = {});
  std::string_view type_name() const override { return type_name_; }
  bool foldable() const override;
  ApplyPtr make_node(std::vector<Var> inputs) const override;
  // By hand: the wrapped host op's props, then where its data lives.
  Props props() const override;
  /// `GpuDimShuffle{x,0}`: "Gpu" and the host op's name.
  std::string name() const override;
  bool equals(const Op& other) const override;
  bool keyed_by_props() const override { return false; }  // identified by the wrapped host op
  std::size_t hash() const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& input_shapes) const override;
  ViewMap view_map() const override { return host_->view_map(); }
  const Op& host_op() const { return *host_; }
  const std::vector<bool>& gpu_inputs() const { return gpu_inputs_; }
  /// Whether output k is a GPU array.
  bool gpu_output(int k) const {
    return gpu_outputs_.empty() || gpu_outputs_[static_cast<std::size_t>(k)];
  }
  ApplyPtr host_node(const Apply& node) const;

 private:
  OpPtr host_;
  std::vector<bool> gpu_inputs_;
  std::vector<bool> gpu_outputs_;  // empty: all
  std::string context_;            // for an op without GPU inputs
  std::string type_name_;  // "Gpu" + the host op's type name
};

/// Whether `host_node`'s op has a GPU form as a GpuOp (codegen lowers each:
/// codegen/src/emit/lower/gpu*.cpp), and which of its inputs then become GPU
/// arrays: the data (arrays reduced, multiplied, indexed); shapes, Subtensor
/// indices and the scalars alpha / beta of the BLAS ops stay host values.
/// Each op says so itself (Op::gpu_form, beside its declaration); nullopt
/// for ops without one and for inplace forms (a GpuOp writes fresh buffers
/// or views). The GPU transfer rewrite moves exactly these.
std::optional<std::vector<bool>> gpu_op_inputs(const Apply& host_node);
/// Which outputs of such a node become GPU arrays (empty: all; Op::gpu_form):
/// a random op's advanced state stays on the host, where the next call reads it.
std::vector<bool> gpu_op_outputs(const Apply& host_node);

}  // namespace theano::gpu

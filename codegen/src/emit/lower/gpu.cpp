// Host-side lowerings of the GPU ops (gpu/ops.h). A GPU node's function runs
// on the host like any other node function:
// * the transfers call ctx->gpu_copy (HostFromGpu first gathers a view into
//   a contiguous buffer with a copy kernel);
// * the GpuOps run the host op's CUDA lowering (NodeLowering::op is the host
//   op; Target::Cuda): views are the CPU's metadata code, copies launch a
//   copy kernel (emit_strided_copy);
// * GpuElemwise checks shapes by the broadcasting rule the CPU Elemwise uses
//   (emit_elemwise_shape), allocates its outputs in GPU memory
//   (NodeLowering::alloc does for a GPU output), packs the kernel's
//   parameter block (cuda_unit.h) and launches the contiguous or the strided
//   kernel through ctx->gpu_launch.
// The kernels themselves go into the function's CUDA translation unit (L.cuda).
#include <theano/gpu/ops.h>
#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>

#include "../cuda_unit.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

void copy_shape(NodeLowering& L) {
  for (int d = 0; d < L.out(0).ndim(); ++d) L.body.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
}

void lower_gpu_from_host(NodeLowering& L) {
  L.cold = true;
  copy_shape(L);
  L.body.line(L.alloc(0));
  L.body.line("return ctx->gpu_copy(ctx->host, o0, x0, 0);");
}

void lower_host_from_gpu(NodeLowering& L) {
  L.cold = true;
  const int nd = L.out(0).ndim();
  const DType dt = L.out(0).dtype();
  const std::int64_t itemsize = static_cast<std::int64_t>(dtype_size(dt));
  copy_shape(L);
  L.body.line(L.alloc(0));
  // Only a view (an op with a view_map: GpuDimShuffle) can be non-contiguous;
  // the other GPU ops write fresh C-contiguous buffers, and the thunk hands
  // GPU graph inputs over C-contiguous (c_thunk.cpp).
  const Apply* producer = L.node.input(0).owner();
  if (!producer || producer->op()->view_map().empty()) {
    L.body.line("return ctx->gpu_copy(ctx->host, o0, x0, 1);");
    return;
  }
  // A non-contiguous view is first copied into a C-contiguous GPU buffer by
  // a kernel, then downloaded in one piece.
  L.body.open("if (theano_size(x0) > 0 && !theano_c_contiguous(x0, " + str(itemsize) + "))");
  L.body.line("TheanoArray t;");
  L.body.line("t.ndim = " + str(nd) + "; t.dtype = " + str(static_cast<int>(dt)) + "; t.owner = -1;");
  for (int d = 0; d < nd; ++d) L.body.line("t.shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  L.body.line("if (int e = theano_gpu_alloc_checked(ctx, &t, -1, " + str(itemsize) + ", " +
              c_string(L.label + ": a contiguous copy: ") + ", all, 1)) return e;");
  emit_gpu_copy(L, dt, nd, "t.data", "t.strides", "x0->data", "x0->strides", "x0->shape");
  L.body.line("return ctx->gpu_copy(ctx->host, o0, &t, 1);");
  L.body.close();
  L.body.line("return ctx->gpu_copy(ctx->host, o0, x0, 1);");
}

/// A GpuOp runs its host op's CUDA form (Target::Cuda; L.op is the host op):
/// the GPU lowerings of the reductions, nnet, BLAS, indexing and random ops
/// (emit/lower/gpu_<family>.cpp), or, for the views (DimShuffle, Subtensor, Split,
/// Reshape when the strides allow) and the copies (Alloc, Join, Reshape
/// otherwise), the host lowering registered for Target::Cuda as well beside
/// it: the CPU's metadata code on device addresses, and a copy kernel for a
/// GPU output (emit_strided_copy, emit_gpu_copy).
void lower_gpu_op(NodeLowering& L) {
  const Op& host = L.op;
  const LowerFn fn = find_lowering(host, Target::Cuda);
  if (!fn) refuse(L.node, LoweringReason::NoLowering, " (no GPU lowering for " + host.name() + ")");
  fn(L);
}

void lower_gpu_elemwise(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const gpu::GpuElemwise&>(*L.node.op());
  const ApplyPtr host = op.host_node(L.node);
  const ElemwiseExprs ex = elemwise_exprs(*host);
  const int nd = L.out(0).ndim(), nin = L.nin(), nout = L.nout();
  const std::int64_t np = gpu::elemwise_kernel_params(nd, nin + nout);  // the transfer rewrite's count
  THEANO_INTERNAL_CHECK(np <= gpu::kMaxKernelParams)
      << L.label << ": " << np << " kernel parameters (the GPU transfer rewrite leaves such nodes on the CPU)";
  std::vector<DType> in, out;
  for (int i = 0; i < nin; ++i) in.push_back(L.in(i).dtype());
  for (int k = 0; k < nout; ++k) out.push_back(L.out(k).dtype());
  const int kernel = L.cuda->add_elemwise(L.fn + "_k", L.label, nd, in, out, ex);

  L.cold = true;  // the host side does no per-element work
  CodeWriter& w = L.body;
  emit_elemwise_shape(L, nd);
  for (int k = 0; k < nout; ++k) {
    for (int d = 0; d < nd; ++d) w.line(L.o(k) + "->shape[" + str(d) + "] = shape[" + str(d) + "];");
    w.line(L.alloc(k));
  }
  w.line("if (n == 0) return 0;");
  cuda::ElemwiseParams::Host values;
  values.n = "n";
  values.shape = [](int d) { return "shape[" + str(d) + "]"; };
  values.data = [&](int j) { return (j < nin ? L.x(j) : L.o(j - nin)) + "->data"; };
  values.stride = [&](int j, int d) {
    return j < nin ? elemwise_input_stride(L, j, d) : L.o(j - nin) + "->strides[" + str(d) + "]";
  };
  const cuda::ElemwiseParams ep(nd, nin + nout, values);
  ep.block.declare(w);
  // Outputs are fresh C-contiguous buffers: the flat kernel needs only the inputs to be.
  w.line("const int64_t kernel = (" + elemwise_contiguous_condition(L, nd) + ") ? " + str(kernel + 1) + " : " +
         str(kernel) + ";");
  w.line("return ctx->gpu_launch(ctx->host, kernel, n, p, " + str(ep.block.size()) + ");");
}

}  // namespace

void add_gpu_lowerings(LoweringTable& t) {
  t.add<gpu::GpuFromHost>(Target::Cpu, &lower_gpu_from_host);
  t.add<gpu::HostFromGpu>(Target::Cpu, &lower_host_from_gpu);
  t.add<gpu::GpuElemwise>(Target::Cpu, &lower_gpu_elemwise);
  t.add<gpu::GpuOp>(Target::Cpu, &lower_gpu_op);
}

}  // namespace theano::codegen::lower

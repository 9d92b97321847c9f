// Host-side lowerings of the GPU ops (gpu/ops.h). A GPU node's function runs
// on the host like any other node function: the transfers call
// ctx->gpu_copy; GpuElemwise checks shapes by the broadcasting rule the CPU
// Elemwise uses (emit_elemwise_shape), allocates its outputs in GPU memory
// (NodeLowering::alloc does for a GPU output), packs the kernel's parameter
// block (cuda_unit.h) and launches the contiguous or the strided kernel
// through ctx->gpu_launch. The kernels themselves go into the function's
// CUDA translation unit (L.cuda).
#include <theano/gpu/ops.h>
#include <theano/runtime/error.h>

#include "../cuda/cuda_unit.h"
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
  copy_shape(L);
  L.body.line(L.alloc(0));
  L.body.line("return ctx->gpu_copy(ctx->host, o0, x0, 1);");
}

void lower_gpu_elemwise(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const gpu::GpuElemwise&>(*L.node.op());
  const ApplyPtr host = op.host_node(L.node);
  const ElemwiseExprs ex = elemwise_exprs(*host);
  const int nd = L.out(0).ndim(), nin = L.nin(), nout = L.nout();
  const std::int64_t np = cuda::elemwise_param_count(nd, nin + nout);
  if (np > cuda::kMaxParams)
    refuse(L.node, " (" + str(np) + " kernel parameters, more than CUDA's " + str(cuda::kMaxParams) + ")");
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
  w.line("int64_t p[" + str(np) + "];");
  w.line("p[0] = n;");
  for (int d = 0; d < nd; ++d) w.line("p[" + str(1 + d) + "] = shape[" + str(d) + "];");
  for (int j = 0; j < nin + nout; ++j) {
    const std::int64_t b = 1 + nd + static_cast<std::int64_t>(j) * (1 + nd);
    const std::string a = j < nin ? L.x(j) : L.o(j - nin);
    w.line("p[" + str(b) + "] = (int64_t)" + a + "->data;");
    for (int d = 0; d < nd; ++d)
      w.line("p[" + str(b + 1 + d) +
             "] = " + (j < nin ? elemwise_input_stride(L, j, d) : a + "->strides[" + str(d) + "]") + ";");
  }
  // Outputs are fresh C-contiguous buffers: the flat kernel needs only the inputs to be.
  w.line("const int64_t kernel = (" + elemwise_contiguous_condition(L, nd) + ") ? " + str(kernel + 1) + " : " +
         str(kernel) + ";");
  w.line("return ctx->gpu_launch(ctx->host, kernel, n, p, " + str(np) + ");");
}

}  // namespace

void add_gpu_lowerings(LoweringTable& t) {
  t[typeid(gpu::GpuFromHost)] = &lower_gpu_from_host;
  t[typeid(gpu::HostFromGpu)] = &lower_host_from_gpu;
  t[typeid(gpu::GpuElemwise)] = &lower_gpu_elemwise;
}

}  // namespace theano::codegen::lower

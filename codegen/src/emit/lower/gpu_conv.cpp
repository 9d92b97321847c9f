// The GPU lowering of CorrMM / Corr3dMM and their gradients: the host part is
// the C++ lowering's (emit_conv_geometry: conv.h's rule and messages), the
// work is im2col + gemm per image and group as on the CPU. im2col runs one
// element a thread through theano_conv_col_source and col2im one input
// element a thread through its gather form theano_col2im_at_* (both written
// once in theano/runtime/kernels/conv.h, which the CUDA unit embeds); the
// gemms go through ctx->gpu_gemm (cuBLAS, or OpenBLAS on the emulated device;
// emit/lower/gpu_blas.cpp), on contiguous copies of the filters and of the
// output gradient (a flipped or strided view is gathered by a copy kernel).
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/conv.h>
#include <theano/tensor/conv.h>

#include "../cuda_unit.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

namespace N = tensor::nnet;

/// The geometry's fields, in the order the kernels rebuild it.
const char* const kGeomFields[] = {"nsp", "batch", "channels", "filters", "groups", "in[0]", "in[1]", "in[2]",
                                   "k[0]", "k[1]", "k[2]", "out[0]", "out[1]", "out[2]", "pad[0]", "pad[1]",
                                   "pad[2]", "stride[0]", "stride[1]", "stride[2]", "dil[0]", "dil[1]", "dil[2]",
                                   "ksize", "osize", "isize", "crows"};
constexpr int kGeomCount = sizeof(kGeomFields) / sizeof(kGeomFields[0]);

/// The parameters of the conv kernels: the geometry, the source's element
/// strides (channel and spatial axes), the source and destination and the
/// element count.
struct ConvParams {
  explicit ConvParams(const std::string& t)
      : geo(pb.array("geo", kGeomCount, [](int i) { return "g." + std::string(kGeomFields[i]); })),
        xs(pb.array_loop("xs", THEANO_CONV_MAX_SP + 1, "d <= g.nsp ? as[d + 1] : 0")),
        src(pb.pointer("src", "const " + t + "*", "0")),
        dst(pb.pointer("dst", t + "*", "0")),
        n(pb.int64("n", "0")) {}
  cuda::ParamBlock pb;
  cuda::Param geo, xs, src, dst, n;
};

/// The kernel statements rebuilding `TheanoConvGeom g` from the parameters.
void read_geometry(cuda::Kernel& k, const ConvParams& cp) {
  k.w.line("TheanoConvGeom g;");
  for (int i = 0; i < kGeomCount; ++i) k.w.line("g." + std::string(kGeomFields[i]) + " = " + cp.pb.at(cp.geo, i) + ";");
}

void lower_gpu_conv(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const N::ConvBase&>(L.op);
  const DType dt = L.out(0).dtype();
  if (dt != DType::Float32 && dt != DType::Float64)
    refuse(L.node, LoweringReason::Dtype, " (GPU convolution of " + std::string(dtype_name(dt)) + ")");
  L.cold = true;
  const int nd = op.convdim() + 2;
  const N::ConvDirection dir = op.direction();
  const std::string T = c_type(dt), S = dt == DType::Float64 ? "f64" : "f32", item = item_of(dt),
                    dcode = str(static_cast<int>(dt)), nds = str(nd);
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  L.cuda->need("conv kernels", std::string(kernel_text("conv.h")));
  CodeWriter& w = L.body;
  emit_conv_geometry(L);
  w.line(L.alloc(0));
  w.line("if (theano_size(o0) == 0) return 0;");

  const ConvParams cp(T);
  const std::string fn = L.fn;
  cuda::Kernel im(cp.pb, fn + "_im2col", {cp.src, cp.dst, cp.n});
  read_geometry(im, cp);
  im.w.line("int64_t xs[" + str(THEANO_CONV_MAX_SP + 1) + "];");
  im.w.line("for (int d = 0; d <= g.nsp; ++d) xs[d] = " + cp.pb.at(cp.xs, "d") + ";");
  cuda::grid_stride_loop(im.w, "e", "n");
  im.w.line("int64_t off = 0;");
  im.w.line("dst[e] = theano_conv_col_source(&g, e / g.osize, e % g.osize, xs, &off) ? src[off] : (" + T + ")0;");
  im.w.close();
  const int k_im = L.cuda->add_kernel(im, L.label);
  cuda::Kernel gather(cp.pb, fn + "_col2im", {cp.src, cp.dst, cp.n});
  read_geometry(gather, cp);
  cuda::grid_stride_loop(gather.w, "e", "n");
  gather.w.line("dst[e] = theano_col2im_at_" + S + "(&g, src, e / g.isize, e % g.isize);");
  gather.w.close();
  const int k_gather = L.cuda->add_kernel(gather, L.label);
  cuda::Kernel zero(cp.pb, fn + "_zero", {cp.dst, cp.n});
  cuda::grid_stride_loop(zero.w, "e", "n");
  zero.w.line("dst[e] = (" + T + ")0;");
  zero.w.close();
  const int k_zero = L.cuda->add_kernel(zero, L.label);
  cp.pb.declare(w);

  // A contiguous GPU copy of input i (its data at `src`, byte strides `st`): `name`.
  auto packed = [&](const std::string& name, int i, const std::string& src, const std::string& st) {
    w.line("TheanoArray " + name + ";");
    w.line(name + ".ndim = " + nds + "; " + name + ".dtype = " + dcode + "; " + name + ".owner = -1;");
    w.line("for (int d = 0; d < " + nds + "; ++d) " + name + ".shape[d] = " + L.x(i) + "->shape[d];");
    w.line("if (int e = theano_gpu_alloc_checked(ctx, &" + name + ", -1, " + item + ", " +
           c_string(L.label + ": a contiguous copy of input " + str(i) + ": ") + ", all, " + str(L.nin()) +
           ")) return e;");
    emit_gpu_copy(L, dt, nd, name + ".data", name + ".strides", src, st, L.x(i) + "->shape");
  };
  // The filters (input `i`). CorrMM correlates (filter_flip is always false: a true convolution reaches
  // the GPU as the rewrite's reversed view of the filters, gathered by `packed` like any strided input).
  THEANO_INTERNAL_CHECK(!op.filter_flip()) << L.label << ": the GPU form computes CorrMM, a correlation";
  auto packed_filters = [&](int i) { packed("wt", i, L.x(i) + "->data", L.x(i) + "->strides"); };
  auto launch = [&](int kernel, const std::string& src, const std::string& dst, const std::string& count) {
    w.line(cp.pb.set(cp.src, "(int64_t)(" + src + ")"));
    w.line(cp.pb.set(cp.dst, "(int64_t)(" + dst + ")"));
    w.line(cp.pb.set(cp.n, count));
    w.line("if (int e = " + cp.pb.launch(kernel, count) + ") return e;");
  };
  auto gemm = [&](const std::string& ta, const std::string& tb, const std::string& m, const std::string& n,
                  const std::string& k, const std::string& a, const std::string& lda, const std::string& b,
                  const std::string& ldb, const std::string& beta, const std::string& c) {
    w.line("if (int e = ctx->gpu_gemm(ctx->host, " + dcode + ", " + ta + ", " + tb + ", " + m + ", " + n + ", " + k +
           ", 1.0, " + a + ", " + lda + ", " + b + ", " + ldb + ", " + beta + ", " + c + ", " + n + ")) return e;");
  };
  w.line("const int64_t G = g.groups, fg = g.filters / G, cg = g.channels / G, it = " + item + ";");
  // An empty inner dimension: a zero output (the gemm would only scale).
  const std::string inner = dir == N::ConvDirection::Forward ? "g.crows" : dir == N::ConvDirection::GradInputs ? "fg"
                                                                                                                : "g.batch";
  w.open("if (" + inner + " == 0)");
  launch(k_zero, "0", "o0->data", "theano_size(o0)");
  w.line("return 0;");
  w.close();
  w.line("TheanoArray col;");
  w.line("col.ndim = 2; col.dtype = " + dcode + "; col.owner = -1; col.shape[0] = g.crows; col.shape[1] = g.osize;");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &col, -1, " + item + ", " +
         c_string(L.label + ": the column buffer: ") + ", all, " + str(L.nin()) + ")) return e;");
  if (dir == N::ConvDirection::Forward) {  // (x, w): out[n, group] = W_g (fg x crows) . col (crows x osize)
    packed_filters(1);
    w.open("for (int64_t n = 0; n < g.batch; ++n)");
    w.open("for (int64_t gi = 0; gi < G; ++gi)");
    launch(k_im, "x0->data + n * x0->strides[0] + gi * cg * x0->strides[1]", "col.data", "g.crows * g.osize");
    gemm("0", "0", "fg", "g.osize", "g.crows", "wt.data + gi * fg * g.crows * it", "g.crows", "col.data", "g.osize",
         "0.0", "o0->data + (n * g.filters + gi * fg) * g.osize * it");
    w.close();
    w.close();
  } else if (dir == N::ConvDirection::GradInputs) {  // (w, top): col = W_g^T . top_g, folded into dx[n, group]
    packed_filters(0);
    packed("tt", 1, "x1->data", "x1->strides");
    w.open("for (int64_t n = 0; n < g.batch; ++n)");
    w.open("for (int64_t gi = 0; gi < G; ++gi)");
    gemm("1", "0", "g.crows", "g.osize", "fg", "wt.data + gi * fg * g.crows * it", "g.crows",
         "tt.data + (n * g.filters + gi * fg) * g.osize * it", "g.osize", "0.0", "col.data");
    launch(k_gather, "col.data", "o0->data + (n * g.channels + gi * cg) * g.isize * it", "cg * g.isize");
    w.close();
    w.close();
  } else {  // (x, top): dW_g += top_g (fg x osize) . col^T
    packed("tt", 1, "x1->data", "x1->strides");
    const std::string dw = "o0->data";
    w.open("for (int64_t n = 0; n < g.batch; ++n)");
    w.open("for (int64_t gi = 0; gi < G; ++gi)");
    launch(k_im, "x0->data + n * x0->strides[0] + gi * cg * x0->strides[1]", "col.data", "g.crows * g.osize");
    gemm("0", "1", "fg", "g.crows", "g.osize", "tt.data + (n * g.filters + gi * fg) * g.osize * it", "g.osize",
         "col.data", "g.osize", "n == 0 ? 0.0 : 1.0", dw + " + gi * fg * g.crows * it");
    w.close();
    w.close();
  }
  w.line("return 0;");
}

}  // namespace

void add_gpu_conv_lowerings(LoweringTable& t) { t.add<N::CorrMM>(Target::Cuda, &lower_gpu_conv); }

}  // namespace theano::codegen::lower

// GPU lowerings of the nnet ops: Softmax and LogSoftmax as lane kernels
// (gpu_lanes.h; a lane is the run along the op's axis), and the categorical
// cross-entropy with its gradient, one thread a row.
//
// Softmax follows the CPU lowering's stable passes (lower/nnet.cpp) lane by
// lane, in double: m = the lane maximum (NaN ignored), exp(x - m) written to
// the output and summed as stored, then the output divided by the total, or
// x - (m + log(total)) for LogSoftmax. Short lanes (<= 32) and many lanes
// along a non-innermost axis take one thread a lane; others one block a
// lane, whose threads split the lane and combine the maximum and the total
// with __syncthreads trees (the association order depends only on the shape).
//
// The cross-entropies check labels on the device: a label outside [0, k)
// makes its row's thread record the smallest such row (atomicMin into a
// one-element GPU buffer), which the host downloads after the launch and
// reports as perform does: an IndexError naming the label.
#include <theano/runtime/error.h>
#include <theano/tensor/nnet.h>

#include "../cuda/cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

using cuda::kLaneBlock;

/// perform's message for a label outside [0, k): "label <l>" + this.
constexpr const char* kLabelError = " is out of range for the number of classes (coding_dist's columns)";

void lower_gpu_softmax_any(NodeLowering& L, int axis, bool log) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const int nd = L.in(0).ndim();
  const std::string it = c_type(L.in(0).dtype()), ot = c_type(L.out(0).dtype()), fn = L.fn;
  CodeWriter& w = L.body;
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  std::vector<int> kept;
  for (int d = 0; d < nd; ++d)
    if (d != axis) kept.push_back(d);
  const LaneLayout l = emit_lane_params(L, kept, {axis}, {"x0", "o0"}, 0);
  const std::int64_t np = l.extra_base();
  const std::string P = "theano_params_" + str(np);
  const std::string load = "(double)*(const " + it + "*)at0";
  const std::string out = "*(" + ot + "*)at1";
  const std::string last = log ? out + " = (" + ot + ")(" + load + " - lse);" : out + " = (" + ot + ")((double)" + out +
                                                                                   " / total);";
  const std::string lse = log ? "const double lse = m + log(total);\n" : "";
  auto element = [&](const std::string& stmt) { return lane_element(l, "e") + stmt + "\n"; };
  // thread: one lane a thread.
  std::string t = "extern \"C\" __global__ void " + fn + "_thread(const " + P + " p) {\n";
  t += "  const int64_t lanes = p.v[0], len = p.v[1];\n";
  t += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  t += "  for (int64_t lane = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; lane < lanes; "
       "lane += step) {\n";
  t += indent_code(lane_bases(l, "lane"), 4);
  t += "    double m = -THEANO_INF, total = 0;\n";
  t += "    for (int64_t e = 0; e < len; ++e) {\n" +
       indent_code(element("const double v = " + load + "; m = m < v ? v : m;"), 6) + "    }\n";
  t += "    for (int64_t e = 0; e < len; ++e) {\n" +
       indent_code(element(out + " = (" + ot + ")exp(" + load + " - m); total += (double)" + out + ";"), 6) +
       "    }\n";
  t += indent_code(lse, 4);
  t += "    for (int64_t e = 0; e < len; ++e) {\n" + indent_code(element(last), 6) + "    }\n";
  t += "  }\n}\n";
  const int k_thread = L.cuda->add_kernel(fn + "_thread", L.label, np, 0, "", t);
  // block: one lane a block; the maximum and the total through __syncthreads trees.
  std::string b = "extern \"C\" __global__ void " + fn + "_block(const " + P + " p) {\n";
  b += "  __shared__ double sh[" + str(kLaneBlock) + "];\n";
  b += "  const int64_t lanes = p.v[0], len = p.v[1];\n";
  b += "  const unsigned t = threadIdx.x;\n";
  b += "  for (int64_t lane = blockIdx.x; lane < lanes; lane += gridDim.x) {\n";
  b += indent_code(lane_bases(l, "lane"), 4);
  b += "    double m = -THEANO_INF;\n";
  b += "    for (int64_t e = t; e < len; e += blockDim.x) {\n" +
       indent_code(element("const double v = " + load + "; m = m < v ? v : m;"), 6) + "    }\n";
  b += "    sh[t] = m;\n    __syncthreads();\n";
  b += "    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {\n";
  b += "      if (t < w) sh[t] = sh[t] < sh[t + w] ? sh[t + w] : sh[t];\n      __syncthreads();\n    }\n";
  b += "    m = sh[0];\n    __syncthreads();\n";
  b += "    double total = 0;\n";
  b += "    for (int64_t e = t; e < len; e += blockDim.x) {\n" +
       indent_code(element(out + " = (" + ot + ")exp(" + load + " - m); total += (double)" + out + ";"), 6) +
       "    }\n";
  b += "    sh[t] = total;\n    __syncthreads();\n";
  b += "    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {\n";
  b += "      if (t < w) sh[t] += sh[t + w];\n      __syncthreads();\n    }\n";
  b += "    total = sh[0];\n    __syncthreads();  // sh is the next lane's\n";
  b += indent_code(lse, 4);
  b += "    for (int64_t e = t; e < len; e += blockDim.x) {\n" + indent_code(element(last), 6) + "    }\n";
  b += "  }\n}\n";
  const int k_block = L.cuda->add_kernel(fn + "_block", L.label, np, kLaneBlock, "", b);
  w.line("if (lanes == 0 || len == 0) return 0;");
  w.line("if (" + lane_per_thread_condition() + ") return ctx->gpu_launch(ctx->host, " +
         str(k_thread) + ", lanes, p, " + str(np) + ");");
  w.line("return ctx->gpu_launch(ctx->host, " + str(k_block) + ", lanes, p, " + str(np) + ");");
}

void lower_gpu_softmax(NodeLowering& L) {
  lower_gpu_softmax_any(L, static_cast<const tensor::nnet::Softmax&>(L.op).axis(), false);
}

void lower_gpu_log_softmax(NodeLowering& L) {
  lower_gpu_softmax_any(L, static_cast<const tensor::nnet::LogSoftmax&>(L.op).axis(), true);
}

std::string label_load(const NodeLowering& L, int li) {
  return "(int64_t)*(const " + L.in_ctype(li) + "*)((const char*)p.v[" + str(li == 1 ? 5 : 6) + "] + i * p.v[" +
         str(li == 1 ? 6 : 7) + "])";
}

void lower_gpu_crossentropy(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string ct = L.in_ctype(0), ot = L.out_ctype(0), fn = L.fn;
  CodeWriter& w = L.body;
  w.line("if (x1->shape[0] != x0->shape[0]) " +
         L.fail(kErrShape, "coding_dist and labels have different numbers of rows (one label per row is expected)"));
  w.line("const int64_t rows = x0->shape[0], k = x0->shape[1];");
  w.line("o0->shape[0] = rows;");
  w.line(L.alloc(0));
  w.line("if (rows == 0) return 0;");
  // p: rows, k, coding (address, strides), labels (address, stride), out, err.
  std::string kc = "extern \"C\" __global__ void " + fn + "_rows(const theano_params_9 p) {\n";
  kc += "  const int64_t rows = p.v[0], k = p.v[1];\n";
  kc += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  kc += "  for (int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; i < rows; i += step) {\n";
  kc += "    const int64_t lab = " + label_load(L, 1) + ";\n";
  kc += "    if (lab < 0 || lab >= k) { atomicMin((long long*)p.v[8], (long long)i); continue; }\n";
  kc += "    const double v = (double)*(const " + ct + "*)((const char*)p.v[2] + i * p.v[3] + lab * p.v[4]);\n";
  kc += "    ((" + ot + "*)p.v[7])[i] = (" + ot + ")(-log(v));\n  }\n}\n";
  const int kernel = L.cuda->add_kernel(fn + "_rows", L.label, 9, 0, "", kc);
  emit_device_checked(L, 1, 9, 8,
                    "int64_t p[9] = {rows, k, (int64_t)x0->data, x0->strides[0], x0->strides[1], (int64_t)x1->data, "
                    "x1->strides[0], (int64_t)o0->data, (int64_t)err.data};",
                    "if (int e = ctx->gpu_launch(ctx->host, " + str(kernel) + ", rows, p, 9)) return e;",
                      kLabelError);
  w.line("return 0;");
}

void lower_gpu_crossentropy_grad(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const std::string gt = L.in_ctype(0), ct = L.in_ctype(1), ot = L.out_ctype(0), fn = L.fn;
  CodeWriter& w = L.body;
  w.line("if (x2->shape[0] != x1->shape[0]) " +
         L.fail(kErrShape, "coding_dist and labels have different numbers of rows (one label per row is expected)"));
  w.line("const int64_t rows = x1->shape[0], k = x1->shape[1];");
  w.line("if (x0->shape[0] != rows) " + L.fail(kErrShape, "g_y and coding_dist have different numbers of rows"));
  w.line("o0->shape[0] = rows;");
  w.line("o0->shape[1] = k;");
  w.line(L.alloc(0));
  w.line("if (rows == 0) return 0;");
  // p: rows, k, coding (address, strides), g_y (address, stride) -- labels at 6, 7 --, out, err.
  std::string z = "extern \"C\" __global__ void " + fn + "_zero(const theano_params_11 p) {\n";
  z += "  const int64_t n = p.v[0] * p.v[1];\n  " + ot + "* o = (" + ot + "*)p.v[9];\n";
  z += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  z += "  for (int64_t j = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; j < n; j += step) "
       "o[j] = 0;\n}\n";
  std::string r = "extern \"C\" __global__ void " + fn + "_rows(const theano_params_11 p) {\n";
  r += "  const int64_t rows = p.v[0], k = p.v[1];\n";
  r += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  r += "  for (int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; i < rows; i += step) {\n";
  r += "    const int64_t lab = " + label_load(L, 2) + ";\n";
  r += "    if (lab < 0 || lab >= k) { atomicMin((long long*)p.v[10], (long long)i); continue; }\n";
  r += "    const double g = (double)*(const " + gt + "*)((const char*)p.v[5] + i * p.v[8]);\n";
  r += "    const double c = (double)*(const " + ct + "*)((const char*)p.v[2] + i * p.v[3] + lab * p.v[4]);\n";
  r += "    ((" + ot + "*)p.v[9])[i * k + lab] = (" + ot + ")(-g / c);\n  }\n}\n";
  const int kz = L.cuda->add_kernel(fn + "_zero", L.label, 11, 0, "", z);
  const int kr = L.cuda->add_kernel(fn + "_rows", L.label, 11, 0, "", r);
  emit_device_checked(L, 2, 11, 10,
                    "int64_t p[11] = {rows, k, (int64_t)x1->data, x1->strides[0], x1->strides[1], (int64_t)x0->data, "
                    "(int64_t)x2->data, x2->strides[0], x0->strides[0], (int64_t)o0->data, (int64_t)err.data};",
                    "if (int e = ctx->gpu_launch(ctx->host, " + str(kz) + ", rows * k, p, 11)) return e;\n" +
                        "if (int e = ctx->gpu_launch(ctx->host, " + str(kr) + ", rows, p, 11)) return e;",
                      kLabelError);
  w.line("return 0;");
}

}  // namespace

void add_gpu_nnet_lowerings(LoweringTable& t) {
  t.add<tensor::nnet::Softmax>(Target::Cuda, &lower_gpu_softmax);
  t.add<tensor::nnet::LogSoftmax>(Target::Cuda, &lower_gpu_log_softmax);
  t.add<tensor::nnet::CrossentropyCategorical1Hot>(Target::Cuda, &lower_gpu_crossentropy);
  t.add<tensor::nnet::CrossentropyCategorical1HotGrad>(Target::Cuda, &lower_gpu_crossentropy_grad);
}

}  // namespace theano::codegen::lower

// GPU lowerings of the reductions: CAReduce (every kind, any axis set, a
// fused elementwise `pre`) and ArgReduce (Argmax / Argmin), as lane kernels
// (gpu_lanes.h): each output element folds one lane of the input.
//
// Three kernels per node, chosen at run time from the merged shape:
// * thread: one thread a lane, the lane folded in order. For short lanes
//   (<= 32 elements) and for many lanes whose kept axis is the input's
//   innermost (a column sum: neighbouring threads read neighbouring columns);
// * block: one block of kLaneBlock threads a lane (or a part of one): thread
//   t folds elements t, t + 256, ...; a tree of __syncthreads halvings then
//   combines the 256 partial folds;
// * parts: with parts > 1 (few long lanes), one thread a lane combines its
//   parts' folds in part order.
// The fold, the combination, the identity and the conversions are the CPU
// lowering's (reduce_code.h), so both back ends compute perform's semantics;
// the association order differs (a float sum differs in its last bits) but
// depends only on the shape, so every call gives the same bits. ArgReduce
// folds (value, index) pairs: the first NaN wins, then the strictly better
// value, ties to the lowest index, which any association order preserves.
#include <theano/gpu/ops.h>
#include <theano/runtime/error.h>
#include <theano/tensor/reduction.h>

#include <algorithm>

#include "../cuda/cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"
#include "reduce_code.h"

namespace theano::codegen::lower {
namespace {

using cuda::kLaneBlock;

/// What a lane reduction kernel folds and stores.
struct LaneReduce {
  std::string ns;          ///< kernels' namespace (the prelude's theano_f / theano_i), or ""
  std::string acc_t;       ///< accumulator C type
  std::string init;        ///< its identity
  std::string fold;        ///< statement: a = <fold of a and the element>, over loads l<i> and index e
  std::string combine;     ///< function combining two accumulators (support code)
  std::string store;       ///< statement storing accumulator a for lane `lane` through `po`
  std::string out_t;       ///< output element C type
  std::vector<std::string> in_t;  ///< walked arrays' element C types
};

struct LaneKernels {
  int thread = 0, block = 0, parts = 0;
};

std::string loads(const LaneReduce& r) {
  std::string s;
  for (std::size_t i = 0; i < r.in_t.size(); ++i) {
    const std::string is = str(static_cast<std::int64_t>(i));
    s += "const " + r.in_t[i] + " l" + is + " = *(const " + r.in_t[i] + "*)at" + is + ";\n";
  }
  return s;
}

LaneKernels add_lane_reduce(NodeLowering& L, const LaneLayout& l, const LaneReduce& r) {
  cuda::CudaUnit& u = *L.cuda;
  const std::int64_t np = l.extra_base() + 2;
  const std::string P = "theano_params_" + str(np), out = str(l.extra_base()), partial = str(l.extra_base() + 1);
  const std::string fn = L.fn;
  const std::string element = lane_element(l, "e") + loads(r) + r.fold + "\n";
  LaneKernels k;
  // thread: one lane a thread.
  std::string t = "extern \"C\" __global__ void " + fn + "_thread(const " + P + " p) {\n";
  t += "  " + r.out_t + "* po = (" + r.out_t + "*)p.v[" + out + "];\n";
  t += "  const int64_t lanes = p.v[0], len = p.v[1];\n";
  t += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  t += "  for (int64_t lane = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; lane < lanes; "
       "lane += step) {\n";
  t += indent_code(lane_bases(l, "lane"), 4);
  t += "    " + r.acc_t + " a = " + r.init + ";\n";
  t += "    for (int64_t e = 0; e < len; ++e) {\n" + indent_code(element, 6) + "    }\n";
  t += indent_code(r.store, 4) + "  }\n}\n";
  k.thread = u.add_kernel(fn + "_thread", L.label, np, 0, r.ns, t);
  // block: one lane (or part) a block, a tree of halvings.
  std::string b = "extern \"C\" __global__ void " + fn + "_block(const " + P + " p) {\n";
  b += "  __shared__ " + r.acc_t + " sh[" + str(kLaneBlock) + "];\n";
  b += "  " + r.out_t + "* po = (" + r.out_t + "*)p.v[" + out + "];\n";
  b += "  const int64_t lanes = p.v[0], len = p.v[1], parts = p.v[2], chunk = p.v[3];\n";
  b += "  const unsigned t = threadIdx.x;\n";
  b += "  for (int64_t item = blockIdx.x; item < lanes * parts; item += gridDim.x) {\n";
  b += "    const int64_t lane = item / parts, part = item % parts;\n";
  b += indent_code(lane_bases(l, "lane"), 4);
  b += "    const int64_t lo = part * chunk, hi = len - lo < chunk ? len : lo + chunk;\n";
  b += "    " + r.acc_t + " a = " + r.init + ";\n";
  b += "    for (int64_t e = lo + t; e < hi; e += blockDim.x) {\n" + indent_code(element, 6) + "    }\n";
  b += "    sh[t] = a;\n    __syncthreads();\n";
  b += "    for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {\n";
  b += "      if (t < w) sh[t] = " + r.combine + "(sh[t], sh[t + w]);\n      __syncthreads();\n    }\n";
  b += "    if (t == 0) {\n      a = sh[0];\n";
  b += "      if (parts == 1) {\n" + indent_code(r.store, 8) + "      } else {\n";
  b += "        ((" + r.acc_t + "*)p.v[" + partial + "])[item] = a;\n      }\n    }\n";
  b += "    __syncthreads();  // sh is the next item's\n  }\n}\n";
  k.block = u.add_kernel(fn + "_block", L.label, np, kLaneBlock, r.ns, b);
  // parts: each lane's parts combined in order.
  std::string c = "extern \"C\" __global__ void " + fn + "_parts(const " + P + " p) {\n";
  c += "  " + r.out_t + "* po = (" + r.out_t + "*)p.v[" + out + "];\n";
  c += "  const " + r.acc_t + "* q = (const " + r.acc_t + "*)p.v[" + partial + "];\n";
  c += "  const int64_t lanes = p.v[0], parts = p.v[2];\n";
  c += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  c += "  for (int64_t lane = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; lane < lanes; "
       "lane += step) {\n";
  c += "    " + r.acc_t + " a = q[lane * parts];\n";
  c += "    for (int64_t k = 1; k < parts; ++k) a = " + r.combine + "(a, q[lane * parts + k]);\n";
  c += indent_code(r.store, 4) + "  }\n}\n";
  k.parts = u.add_kernel(fn + "_parts", L.label, np, 0, r.ns, c);
  return k;
}

/// Emits the host side after emit_lane_params: output address, the kernel
/// choice, the scratch buffer of parts and the launches. `acc_bytes`: the
/// accumulator's size (a part's fold in the scratch buffer).
void emit_lane_reduce_launch(NodeLowering& L, const LaneLayout& l, const LaneKernels& k, std::int64_t acc_bytes) {
  CodeWriter& w = L.body;
  const std::string np = str(l.extra_base() + 2), out = str(l.extra_base()), partial = str(l.extra_base() + 1);
  w.line("p[" + out + "] = (int64_t)o0->data; p[" + partial + "] = 0;");
  w.line("if (lanes == 0) return 0;");
  w.open("if (" + lane_per_thread_condition() + ")");
  w.line("return ctx->gpu_launch(ctx->host, " + str(k.thread) + ", lanes, p, " + np + ");");
  w.close();
  // Few long lanes: parts of at least 4096 elements, about 1024 blocks in all.
  w.line("int64_t parts = 1;");
  w.open("if (lanes < 1024 && len > 8192)");
  w.line("const int64_t by_blocks = (1024 + lanes - 1) / lanes, by_len = (len + 4095) / 4096;");
  w.line("parts = by_blocks < by_len ? by_blocks : by_len;");
  w.close();
  w.line("p[2] = parts; p[3] = (len + parts - 1) / parts;");
  w.open("if (parts > 1)");
  // Bytes (lanes * parts <= 2048 folds): a uint8 buffer, 256-byte aligned by the allocator.
  w.line("TheanoArray t;");
  w.line("t.ndim = 1; t.dtype = " + str(static_cast<int>(DType::UInt8)) + "; t.owner = -1; t.shape[0] = lanes * parts * " +
         str(acc_bytes) + ";");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &t, -1, 1, " + c_string(L.label + ": the partial folds: ") +
         ", all, " + str(L.nin()) + ")) return e;");
  w.line("p[" + partial + "] = (int64_t)t.data;");
  w.close();
  w.line("if (int e = ctx->gpu_launch(ctx->host, " + str(k.block) + ", lanes * parts, p, " + np + ")) return e;");
  w.line("if (parts > 1) return ctx->gpu_launch(ctx->host, " + str(k.parts) + ", lanes, p, " + np + ");");
  w.line("return 0;");
}

/// The kept and reduced axes of an ndim-d input reduced over `axes` (sorted).
void split_axes(int nd, const std::vector<int>& axes, std::vector<int>& kept, std::vector<int>& reduced) {
  reduced = axes;
  for (int d = 0; d < nd; ++d)
    if (!std::binary_search(axes.begin(), axes.end(), d)) kept.push_back(d);
}

void emit_output_shape(NodeLowering& L, const std::vector<int>& kept) {
  for (std::size_t j = 0; j < kept.size(); ++j)
    L.body.line("o0->shape[" + str(static_cast<std::int64_t>(j)) + "] = x0->shape[" + str(kept[j]) + "];");
  L.body.line(L.alloc(0));
}

void lower_gpu_careduce(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const tensor::CAReduce&>(L.op);
  const ReduceCode rc = reduce_code(L, op);
  const int nin = L.nin(), nd = L.in(0).ndim();
  L.cold = true;  // the host side does no per-element work
  const std::string fn = L.fn;
  const std::string ns = rc.has_pre ? rc.ex.ns : "";
  for (const auto& [key, code] : rc.ex.support) L.cuda->need(key, code);
  L.cuda->need(fn, (ns.empty() ? "" : "namespace " + ns + " {\n") + rc.helpers(fn, "static inline") +
                       (ns.empty() ? "" : "}  // namespace " + ns + "\n"));
  CodeWriter& w = L.body;
  for (int i = 1; i < nin; ++i)  // fused inputs: one broadcast pattern, so one shape
    for (int d = 0; d < nd; ++d)
      w.line("if (" + L.x(i) + "->shape[" + str(d) + "] != x0->shape[" + str(d) + "]) " +
             L.fail(kErrShape, "the inputs of the fused elementwise op must have the same shape (input " + str(i) +
                                   " differs from input 0 in dimension " + str(d) + ")"));
  std::vector<int> kept, reduced;
  split_axes(nd, op.axes(), kept, reduced);
  emit_output_shape(L, kept);
  std::vector<std::string> walked;
  LaneReduce r;
  for (int i = 0; i < nin; ++i) {
    walked.push_back(L.x(i));
    r.in_t.push_back(c_type(L.in(i).dtype()));
  }
  const LaneLayout l = emit_lane_params(L, kept, reduced, walked, 2);
  if (rc.no_identity)
    w.line("if (len == 0 && lanes > 0) " +
           L.fail(kErrValue, "zero-size array to reduction operation " + op.scalar_op() + " which has no identity"));
  r.ns = ns;
  r.acc_t = rc.acc_t;
  r.init = rc.init;
  std::vector<std::string> ls;
  for (int i = 0; i < nin; ++i) ls.push_back("l" + str(i));
  r.fold = "a = " + fn + "_fold(a, " + rc.element(fn, ls) + ");";
  r.combine = fn + "_combine";
  r.store = "po[lane] = " + rc.store("a") + ";";
  r.out_t = rc.out_t;
  emit_lane_reduce_launch(L, l, add_lane_reduce(L, l, r),
                          static_cast<std::int64_t>(dtype_size(dtype_of_c_type(rc.acc_t))));
}

void lower_gpu_argreduce(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const tensor::ArgReduce&>(L.op);
  const int nd = L.in(0).ndim();
  const std::string in_t = c_type(L.in(0).dtype()), fn = L.fn;
  const std::string cmp = op.is_max() ? ">" : "<";
  L.cold = true;
  // (value, index) pairs; index -1: no element yet. better(x, y): y replaces x.
  std::string s = "struct " + fn + "_acc { " + in_t + " v; int64_t i; };\n";
  s += "static inline " + fn + "_acc " + fn + "_combine(" + fn + "_acc x, " + fn + "_acc y) {\n";
  s += "  if (y.i < 0) return x;\n  if (x.i < 0) return y;\n";
  s += "  const bool xn = x.v != x.v, yn = y.v != y.v;\n";
  s += "  if (xn || yn) return (xn && yn) ? (y.i < x.i ? y : x) : (yn ? y : x);\n";
  s += "  if (y.v " + cmp + " x.v) return y;\n  if (y.v == x.v && y.i < x.i) return y;\n  return x;\n}\n";
  L.cuda->need(fn, s);
  const std::string name = op.is_max() ? "argmax" : "argmin";
  std::vector<int> kept, reduced;
  split_axes(nd, op.axes(), kept, reduced);
  emit_output_shape(L, kept);
  const LaneLayout l = emit_lane_params(L, kept, reduced, {"x0"}, 2);
  L.body.line("if (len == 0 && lanes > 0) " + L.fail(kErrValue, "attempt to get " + name + " of an empty sequence"));
  LaneReduce r;
  r.acc_t = fn + "_acc";
  r.init = "{(" + in_t + ")0, -1}";
  r.fold = "{ " + fn + "_acc y; y.v = l0; y.i = e; a = " + fn + "_combine(a, y); }";
  r.combine = fn + "_combine";
  r.store = "po[lane] = a.i;";
  r.out_t = "int64_t";
  r.in_t = {in_t};
  emit_lane_reduce_launch(L, l, add_lane_reduce(L, l, r), 16);  // {value, int64}: 16 bytes for every dtype
}

}  // namespace

void add_gpu_reduction_lowerings(LoweringTable& t) {
  t.add<tensor::CAReduce>(Target::Cuda, &lower_gpu_careduce);
  t.add<tensor::ArgReduce>(Target::Cuda, &lower_gpu_argreduce);
}

}  // namespace theano::codegen::lower

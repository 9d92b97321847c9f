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
// lowering's (reduce_code.h: the functions of runtime/kernels/reduce_rules.h,
// perform's rules), so both back ends compute perform's semantics;
// the association order differs (a float sum differs in its last bits) but
// depends only on the shape, so every call gives the same bits. ArgReduce
// folds (value, index) pairs by reduce_rules.h's join: the first NaN wins,
// then the strictly better value, ties to the lowest index, which any
// association order preserves.
#include <theano/gpu/ops.h>
#include <theano/runtime/error.h>
#include <theano/tensor/reduction.h>

#include <algorithm>

#include "../cuda_unit.h"
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
  cuda::Param out, partial;  ///< the output's address, the scratch buffer of parts' folds
};

/// The fold of element `e` of the lane (kernel code).
void fold_element(CodeWriter& w, const LaneLayout& l, const LaneReduce& r) {
  lane_element(w, l, "e");
  for (std::size_t i = 0; i < r.in_t.size(); ++i) {
    const std::string is = str(static_cast<std::int64_t>(i));
    w.line("const " + r.in_t[i] + " l" + is + " = *(const " + r.in_t[i] + "*)at" + is + ";");
  }
  w.line(r.fold);
}

/// Adds the output's and the parts' addresses to `l`'s parameters and the
/// three kernels to the unit.
LaneKernels add_lane_reduce(NodeLowering& L, LaneLayout& l, const LaneReduce& r) {
  cuda::CudaUnit& u = *L.cuda;
  cuda::ParamBlock& pb = l.params;
  LaneKernels k;
  k.out = pb.pointer("po", r.out_t + "*", "o0->data");
  k.partial = pb.pointer("partial", r.acc_t + "*", "0");
  const std::string fn = L.fn;
  auto combine = [&](const std::string& x, const std::string& y) { return r.combine + "(" + x + ", " + y + ")"; };
  {  // thread: one lane a thread.
    cuda::Kernel t(pb, fn + "_thread", {k.out, l.lanes, l.len});
    CodeWriter& w = t.w;
    cuda::grid_stride_loop(w, "lane", "lanes");
    lane_bases(w, l, "lane");
    w.line(r.acc_t + " a = " + r.init + ";");
    w.open("for (int64_t e = 0; e < len; ++e)");
    fold_element(w, l, r);
    w.close();
    w.line(r.store);
    w.close();
    k.thread = u.add_kernel(t, L.label, 0, r.ns);
  }
  {  // block: one lane (or part) a block, a tree of halvings.
    cuda::Kernel b(pb, fn + "_block");
    CodeWriter& w = b.w;
    w.line("__shared__ " + r.acc_t + " sh[" + str(kLaneBlock) + "];");
    for (cuda::Param a : {k.out, k.partial, l.lanes, l.len, l.parts, l.chunk}) w.line(pb.read(a));
    w.line("const unsigned t = threadIdx.x;");
    cuda::block_stride_loop(w, "item", "lanes * parts");
    w.line("const int64_t lane = item / parts, part = item % parts;");
    lane_bases(w, l, "lane");
    w.line("const int64_t lo = part * chunk, hi = len - lo < chunk ? len : lo + chunk;");
    w.line(r.acc_t + " a = " + r.init + ";");
    w.open("for (int64_t e = lo + t; e < hi; e += blockDim.x)");
    fold_element(w, l, r);
    w.close();
    cuda::block_tree_reduce(w, "a", combine);
    w.open("if (t == 0)");
    w.line("a = sh[0];");
    w.open("if (parts == 1)");
    w.line(r.store);
    w.close();
    w.open("else");
    w.line("partial[item] = a;");
    w.close();
    w.close();
    w.line("__syncthreads();  // sh is the next item's");
    w.close();
    k.block = u.add_kernel(b, L.label, kLaneBlock, r.ns);
  }
  {  // parts: each lane's parts combined in order.
    cuda::Kernel c(pb, fn + "_parts", {k.out, k.partial, l.lanes, l.parts});
    CodeWriter& w = c.w;
    cuda::grid_stride_loop(w, "lane", "lanes");
    w.line(r.acc_t + " a = partial[lane * parts];");
    w.line("for (int64_t k = 1; k < parts; ++k) a = " + combine("a", "partial[lane * parts + k]") + ";");
    w.line(r.store);
    w.close();
    k.parts = u.add_kernel(c, L.label, 0, r.ns);
  }
  return k;
}

/// Emits the host side after emit_lane_params: the parameter block, the
/// kernel choice, the scratch buffer of parts and the launches. `acc_bytes`:
/// the accumulator's size (a part's fold in the scratch buffer).
void emit_lane_reduce_launch(NodeLowering& L, const LaneLayout& l, const LaneKernels& k, std::int64_t acc_bytes) {
  CodeWriter& w = L.body;
  const cuda::ParamBlock& pb = l.params;
  pb.declare(w);
  w.line("if (lanes == 0) return 0;");
  w.open("if (" + lane_per_thread_condition() + ")");
  w.line("return " + pb.launch(k.thread, "lanes") + ";");
  w.close();
  // Few long lanes: parts of at least 4096 elements, about 1024 blocks in all.
  w.line("int64_t parts = 1;");
  w.open("if (lanes < 1024 && len > 8192)");
  w.line("const int64_t by_blocks = (1024 + lanes - 1) / lanes, by_len = (len + 4095) / 4096;");
  w.line("parts = by_blocks < by_len ? by_blocks : by_len;");
  w.close();
  w.line(pb.set(l.parts, "parts") + " " + pb.set(l.chunk, "(len + parts - 1) / parts"));
  w.open("if (parts > 1)");
  // Bytes (lanes * parts <= 2048 folds): a uint8 buffer, 256-byte aligned by the allocator.
  w.line("TheanoArray t;");
  w.line("t.ndim = 1; t.dtype = " + str(static_cast<int>(DType::UInt8)) + "; t.owner = -1; t.shape[0] = lanes * parts * " +
         str(acc_bytes) + ";");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &t, -1, 1, " + c_string(L.label + ": the partial folds: ") +
         ", all, " + str(L.nin()) + ")) return e;");
  w.line(pb.set(k.partial, "t.data"));
  w.close();
  w.line("if (int e = " + pb.launch(k.block, "lanes * parts") + ") return e;");
  w.line("if (parts > 1) return " + pb.launch(k.parts, "lanes") + ";");
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
  for (const auto& [key, code] : reduce_rules_support(rc.rules)) L.cuda->need(key, code);
  CodeWriter helpers;
  if (!ns.empty()) helpers.line("namespace " + ns + " {");
  helpers.lines(rc.helpers(fn, "static inline"));
  if (!ns.empty()) helpers.line("}  // namespace " + ns);
  L.cuda->need(fn, helpers.str());
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
  LaneLayout l = emit_lane_params(L, kept, reduced, walked);
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
  const LaneKernels k = add_lane_reduce(L, l, r);
  emit_lane_reduce_launch(L, l, k, static_cast<std::int64_t>(dtype_size(dtype_of_c_type(rc.acc_t))));
}

void lower_gpu_argreduce(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  const auto& op = static_cast<const tensor::ArgReduce&>(L.op);
  const int nd = L.in(0).ndim();
  const std::string in_t = c_type(L.in(0).dtype()), fn = L.fn;
  const std::string sfx = reduce_rules_suffix(L.in(0).dtype()), mm = op.is_max() ? "max" : "min";
  L.cold = true;
  // (value, index) pairs; index -1: no element yet. combine(x, y): y replaces
  // x by reduce_rules.h's rule (perform's): the first NaN wins, then the
  // strictly better value, ties to the lowest index.
  for (const auto& [key, code] : reduce_rules_support(sfx)) L.cuda->need(key, code);
  CodeWriter s;
  s.line("struct " + fn + "_acc { " + in_t + " v; int64_t i; };");
  s.open("static inline " + fn + "_acc " + fn + "_combine(" + fn + "_acc x, " + fn + "_acc y)");
  s.line("return theano_arg_" + mm + "_takes_" + sfx + "(x.v, x.i, y.v, y.i) ? y : x;");
  s.close();
  L.cuda->need(fn, s.str());
  const std::string name = op.is_max() ? "argmax" : "argmin";
  std::vector<int> kept, reduced;
  split_axes(nd, op.axes(), kept, reduced);
  emit_output_shape(L, kept);
  LaneLayout l = emit_lane_params(L, kept, reduced, {"x0"});
  L.body.line("if (len == 0 && lanes > 0) " + L.fail(kErrValue, "attempt to get " + name + " of an empty sequence"));
  LaneReduce r;
  r.acc_t = fn + "_acc";
  r.init = "{(" + in_t + ")0, -1}";
  r.fold = "{ " + fn + "_acc y; y.v = l0; y.i = e; a = " + fn + "_combine(a, y); }";
  r.combine = fn + "_combine";
  r.store = "po[lane] = a.i;";
  r.out_t = "int64_t";
  r.in_t = {in_t};
  const LaneKernels k = add_lane_reduce(L, l, r);
  emit_lane_reduce_launch(L, l, k, 16);  // {value, int64}: 16 bytes for every dtype
}

}  // namespace

void add_gpu_reduction_lowerings(LoweringTable& t) {
  t.add<tensor::CAReduce>(Target::Cuda, &lower_gpu_careduce);
  t.add<tensor::ArgReduce>(Target::Cuda, &lower_gpu_argreduce);
}

}  // namespace theano::codegen::lower

// GPU lowerings of the indexing ops that write or gather elements:
// IncSubtensor (set / increment x[idx]), AdvancedSubtensor1 (gather rows by
// an integer vector) and AdvancedIncSubtensor1 (scatter rows). Subtensor
// itself is a view: its CPU lowering serves the GPU (emit/lower/gpu.cpp).
//
// The view of a basic index, the value's broadcast check and the update
// expression are the CPU lowering's (subtensor_code.h): the host computes
// the view's metadata on device addresses, a kernel updates its elements.
// The advanced ops check each index on the device by the rule perform runs
// (theano_index_rule: the unit requests the shape rules); the smallest bad position is
// reported as perform's IndexError (emit_device_checked).
//
// Repeated indices: AdvancedIncSubtensor1's increments accumulate through
// atomic adds (float64 by a compare-and-swap loop where the architecture
// has no native one), so a float sum over duplicates may differ in its last
// bits from call to call; `set` keeps the last write, as perform: a first
// kernel records for each target row the largest position writing it
// (atomicMax), the second writes only from that position.
#include <theano/runtime/error.h>
#include <theano/tensor/subtensor.h>

#include <algorithm>
#include <functional>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"
#include "subtensor_code.h"

namespace theano::codegen::lower {
namespace {

void need_gpu(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;  // the host side does no per-element work
}

/// o0 (fresh) <- a copy of x0 by a copy kernel.
void emit_x_copy_gpu(NodeLowering& L) {
  const int nd = L.in(0).ndim();
  for (int d = 0; d < nd; ++d) L.body.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  L.body.line(L.alloc(0));
  emit_gpu_copy(L, L.in(0).dtype(), nd, "o0->data", "o0->strides", "x0->data", "x0->strides", "x0->shape");
}

void lower_gpu_inc_subtensor(NodeLowering& L) {
  need_gpu(L);
  const auto& op = static_cast<const tensor::IncSubtensor&>(L.op);
  CodeWriter& w = L.body;
  const DType xd = L.in(0).dtype(), yd = L.in(1).dtype();
  emit_x_copy_gpu(L);
  const int vnd = emit_index(L, op.idx_list(), L.in(0).ndim(), "o0", 2, "v");
  emit_value_check(L, vnd, [](int j) { return "v_shape[" + str(j) + "]"; });
  w.line("int64_t n = 1;");
  for (int j = 0; j < vnd; ++j) w.line("n *= v_shape[" + str(j) + "];");
  w.line("if (n == 0) return 0;");
  emit_value_strides(L, vnd);
  // An elementwise kernel over the view: in0 the view, in1 y, out0 the view again.
  ElemwiseExprs ex;
  ex.ns = int_like(xd) ? "theano_i" : "theano_f";
  ex.arg_types = {c_type(xd), c_type(yd)};
  ex.stores = {update_expr(xd, op.set_instead_of_inc(), "a0", "a1")};
  const int kernel = L.cuda->add_elemwise(L.fn + "_k", L.label, vnd, {xd, yd}, {xd}, ex);
  cuda::ElemwiseParams::Host values;
  values.n = "n";
  values.shape = [](int d) { return "v_shape[" + str(d) + "]"; };
  values.data = [](int a) { return a == 1 ? std::string("x1->data") : std::string("v"); };
  values.stride = [](int a, int d) { return a == 1 ? "ys" + str(d) : "v_strides[" + str(d) + "]"; };
  const cuda::ElemwiseParams ep(vnd, 3, values);
  ep.block.declare(w);
  w.line("return " + ep.block.launch(kernel, "n") + ";");
}

/// The parameter block of the advanced kernels: k positions, n rows of x,
/// `row` elements a row, the rest shape (dims 1..nd-1 of the output, rank
/// at least 1), the destination and source arrays (address, row stride,
/// rest strides), the index vector (address, stride), the device check's
/// buffer and the last writers (`set`; 0 until the host sets it).
struct AdvParams {
  cuda::ParamBlock pb;
  cuda::Param k, n, row, rest_rank, rest, dst, dst_s0, dst_rest, src, src_s0, src_rest, idx, idx_s0, err, win;
};

/// The advanced kernels' block, host values: dst / src arrays given as
/// (address, row stride, rest strides).
void adv_params(NodeLowering& L, AdvParams& a, const std::string& dst, const std::string& dst_s0,
                const std::function<std::string(int)>& dst_st, const std::string& src, const std::string& src_s0,
                const std::function<std::string(int)>& src_st) {
  const int nd = L.out(0).ndim(), r1 = std::max(1, nd - 1);
  const std::string il = L.x(L.nin() - 1);
  cuda::ParamBlock& pb = a.pb;
  a.k = pb.int64("k", "k");
  a.n = pb.int64("n", "n");
  a.row = pb.int64("row", "row");
  a.rest_rank = pb.int64("rest_rank", str(nd - 1));
  a.rest = pb.array("rest", r1, [&](int d) { return d < nd - 1 ? "o0->shape[" + str(d + 1) + "]" : "1"; });
  a.dst = pb.pointer("dst0", "char*", dst);
  a.dst_s0 = pb.int64("dst_s0", dst_s0);
  a.dst_rest = pb.array("dst_rest", r1, [&](int d) { return d < nd - 1 ? dst_st(d + 1) : "0"; });
  a.src = pb.pointer("src0", "const char*", src);
  a.src_s0 = pb.int64("src_s0", src_s0);
  a.src_rest = pb.array("src_rest", r1, [&](int d) { return d < nd - 1 ? src_st(d + 1) : "0"; });
  a.idx = pb.pointer("idx", "const char*", il + "->data");
  a.idx_s0 = pb.int64("idx_s0", il + "->strides[0]");
  a.err = pb.pointer("err", "long long*", "err.data");
  a.win = pb.pointer("win", "int64_t*", "0");
}

/// Kernel: the element e of the (k x row) walk (with `rows_only`, of the
/// k positions: r = 0): j, r, the checked index i, `dst` / `src` addresses
/// (rows `dst_row` / `src_row`: "i" or "j"), then the statement `body`
/// (which may read the parameters `extra`). Positions with a bad index
/// record j in err and are skipped.
int adv_kernel(NodeLowering& L, const AdvParams& a, const std::string& name, bool rows_only,
               const std::string& dst_row, const std::string& src_row, const std::string& body,
               const std::vector<cuda::Param>& extra = {}) {
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  const cuda::ParamBlock& pb = a.pb;
  std::vector<cuda::Param> reads = {a.k,   a.n,      a.row, a.rest_rank, a.dst, a.dst_s0,
                                    a.src, a.src_s0, a.idx, a.idx_s0,    a.err};
  reads.insert(reads.end(), extra.begin(), extra.end());
  cuda::Kernel kernel(pb, name, reads);
  CodeWriter& w = kernel.w;
  w.line("const int64_t total = " + std::string(rows_only ? "k" : "k * (row > 0 ? row : 1)") + ";");
  cuda::grid_stride_loop(w, "e", "total");
  // row == 0: one position a thread still, so every index is checked (as perform does).
  w.line("const int64_t rr = row > 0 ? row : 1;");
  w.line("(void)rr;");
  w.line("const int64_t j = " + std::string(rows_only ? "e, r = 0" : "e / rr, r = e % rr") + ";");
  w.line("int64_t i = (int64_t)*(const " + L.in_ctype(L.nin() - 1) + "*)(idx + j * idx_s0);");
  w.open("if (theano_index_rule(n, i, &i) != THEANO_RULE_OK)");
  w.line("atomicMin(err, (long long)j);");
  w.line("continue;");
  w.close();
  if (!rows_only) w.line("if (row == 0) continue;");
  w.line("char* dst = dst0 + " + dst_row + " * dst_s0;");
  w.line("const char* src = src0 + " + src_row + " * src_s0;");
  w.line("int64_t q = r;");
  w.open("for (int64_t d = rest_rank - 1; d >= 0; --d)");
  w.line("const int64_t c = q % " + pb.at(a.rest, "d") + ";");
  w.line("q /= " + pb.at(a.rest, "d") + ";");
  w.line("dst += c * " + pb.at(a.dst_rest, "d") + ";");
  w.line("src += c * " + pb.at(a.src_rest, "d") + ";");
  w.close();
  w.line("(void)dst; (void)src; (void)k;");
  w.line(body);
  w.close();
  return L.cuda->add_kernel(kernel, L.label);
}

void lower_gpu_advanced_subtensor1(NodeLowering& L) {
  need_gpu(L);
  CodeWriter& w = L.body;
  const std::string t = c_type(L.in(0).dtype());
  emit_gather_output(L);
  w.line("if (k == 0) return 0;");
  w.line("const int64_t positions = k * (row > 0 ? row : 1);  // the checks run for empty rows too");
  AdvParams a;
  adv_params(
      L, a, "o0->data", "o0->strides[0]", [](int d) { return "o0->strides[" + str(d) + "]"; }, "x0->data",
      "x0->strides[0]", [](int d) { return "x0->strides[" + str(d) + "]"; });
  const int kernel = adv_kernel(L, a, L.fn + "_gather", false, "j", "i", "*(" + t + "*)dst = *(const " + t + "*)src;");
  emit_device_checked(
      L, 1, a.pb, a.k, a.err,
      [&](CodeWriter& lw) { lw.line("if (int e = " + a.pb.launch(kernel, "positions") + ") return e;"); },
      index_error_text(), kErrIndex, "index ");
  w.line("return 0;");
}

/// theano_atomic_add(T*, T) for the dtypes AdvancedIncSubtensor1 increments
/// on the GPU (gpu::gpu_op_inputs lists them).
constexpr const char* kAtomicAdd = R"(#ifdef THEANO_CUDA_EMULATION
template <class T> static inline void theano_atomic_add(T* p, T v) { atomicAdd(p, v); }
#else
static inline void theano_atomic_add(float* p, float v) { atomicAdd(p, v); }
static inline void theano_atomic_add(double* p, double v) {
#if __CUDA_ARCH__ >= 600
  atomicAdd(p, v);
#else
  unsigned long long* a = (unsigned long long*)p;
  unsigned long long old = *a, seen;
  do {
    seen = old;
    old = atomicCAS(a, seen, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)seen) + v));
  } while (seen != old);
#endif
}
static inline void theano_atomic_add(int32_t* p, int32_t v) { atomicAdd((int*)p, (int)v); }
static inline void theano_atomic_add(uint32_t* p, uint32_t v) { atomicAdd((unsigned*)p, (unsigned)v); }
static inline void theano_atomic_add(int64_t* p, int64_t v) {
  atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
static inline void theano_atomic_add(uint64_t* p, uint64_t v) {
  atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
#endif
)";

void lower_gpu_advanced_inc_subtensor1(NodeLowering& L) {
  need_gpu(L);
  const auto& op = static_cast<const tensor::AdvancedIncSubtensor1&>(L.op);
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  const DType xd = L.in(0).dtype();
  const std::string xt = c_type(xd), yt = c_type(L.in(1).dtype());
  const bool set = op.set_instead_of_inc();
  emit_x_copy_gpu(L);
  w.line("const int64_t n = o0->shape[0], k = x2->shape[0];");
  emit_value_check(L, nd, [](int j) { return j == 0 ? std::string("k") : "o0->shape[" + str(j) + "]"; });
  w.line("int64_t row = 1;");
  for (int d = 1; d < nd; ++d) w.line("row *= o0->shape[" + str(d) + "];");
  w.line("if (k == 0) return 0;");
  w.line("const int64_t positions = k * (row > 0 ? row : 1);  // the checks run for empty rows too");
  emit_value_strides(L, nd);
  AdvParams a;
  adv_params(
      L, a, "o0->data", "o0->strides[0]", [](int d) { return "o0->strides[" + str(d) + "]"; }, "x1->data", "ys0",
      [](int d) { return "ys" + str(d); });
  const cuda::ParamBlock& pb = a.pb;
  std::function<void(CodeWriter&)> launch;
  if (!set) {
    L.cuda->need("theano_atomic_add", kAtomicAdd);
    const int k = adv_kernel(L, a, L.fn + "_scatter_add", false, "i", "j",
                             "theano_atomic_add((" + xt + "*)dst, (" + xt + ")*(const " + yt + "*)src);");
    launch = [&pb, k](CodeWriter& lw) { lw.line("if (int e = " + pb.launch(k, "positions") + ") return e;"); };
  } else {
    // The last position writing each target row wins: win[i] = max j.
    cuda::Kernel fill(pb, L.fn + "_win_init", {a.n, a.win});
    cuda::grid_stride_loop(fill.w, "i", "n");
    fill.w.line("win[i] = -1;");
    fill.w.close();
    const int kf = L.cuda->add_kernel(fill, L.label);
    const int km = adv_kernel(L, a, L.fn + "_win", true, "i", "j", "atomicMax((long long*)win + i, (long long)j);",
                              {a.win});
    const int kw = adv_kernel(L, a, L.fn + "_scatter_set", false, "i", "j",
                              "if (win[i] == j) *(" + xt + "*)dst = " +
                                  update_expr(xd, true, "", "*(const " + yt + "*)src") + ";",
                              {a.win});
    w.line("TheanoArray win;");
    w.line("win.ndim = 1; win.dtype = " + str(static_cast<int>(DType::Int64)) + "; win.owner = -1; win.shape[0] = n;");
    w.line("if (int e = theano_gpu_alloc_checked(ctx, &win, -1, 8, " + c_string(L.label + ": the last writers: ") +
           ", all, " + str(L.nin()) + ")) return e;");
    launch = [&pb, &a, kf, km, kw](CodeWriter& lw) {
      lw.line(pb.set(a.win, "win.data"));
      lw.line("if (int e = " + pb.launch(kf, "n") + ") return e;");
      lw.line("if (int e = " + pb.launch(km, "k") + ") return e;");
      lw.line("if (int e = " + pb.launch(kw, "positions") + ") return e;");
    };
  }
  emit_device_checked(L, 2, pb, a.k, a.err, launch, index_error_text(), kErrIndex, "index ");
  w.line("return 0;");
}

}  // namespace

void add_gpu_subtensor_lowerings(LoweringTable& t) {
  t.add<tensor::IncSubtensor>(Target::Cuda, &lower_gpu_inc_subtensor);
  t.add<tensor::AdvancedSubtensor1>(Target::Cuda, &lower_gpu_advanced_subtensor1);
  t.add<tensor::AdvancedIncSubtensor1>(Target::Cuda, &lower_gpu_advanced_inc_subtensor1);
}

}  // namespace theano::codegen::lower

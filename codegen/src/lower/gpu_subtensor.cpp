// GPU lowerings of the indexing ops that write or gather elements:
// IncSubtensor (set / increment x[idx]), AdvancedSubtensor1 (gather rows by
// an integer vector) and AdvancedIncSubtensor1 (scatter rows). Subtensor
// itself is a view: its CPU lowering serves the GPU (lower/gpu.cpp).
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

#include "../cuda/cuda_unit.h"
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
  const std::int64_t np = gpu::elemwise_kernel_params(vnd, 3);
  w.line("int64_t p[" + str(np) + "];");
  w.line("p[0] = n;");
  for (int d = 0; d < vnd; ++d) w.line("p[" + str(1 + d) + "] = v_shape[" + str(d) + "];");
  for (int a = 0; a < 3; ++a) {
    const std::int64_t b = 1 + vnd + static_cast<std::int64_t>(a) * (1 + vnd);
    w.line("p[" + str(b) + "] = (int64_t)" + (a == 1 ? std::string("x1->data") : std::string("v")) + ";");
    for (int d = 0; d < vnd; ++d)
      w.line("p[" + str(b + 1 + d) + "] = " + (a == 1 ? "ys" + str(d) : "v_strides[" + str(d) + "]") + ";");
  }
  w.line("return ctx->gpu_launch(ctx->host, " + str(kernel) + ", n, p, " + str(np) + ");");
}

/// The parameter block of the advanced kernels (rank nd of x): see kAdvLayout.
struct AdvLayout {
  int r1 = 1;  ///< rest rank, at least 1
  std::int64_t base() const { return 4 + r1; }
  std::int64_t dst() const { return base(); }             // address, row stride, r1 rest strides
  std::int64_t src() const { return base() + 2 + r1; }    // the same
  std::int64_t idx() const { return base() + 4 + 2 * r1; }  // address, stride
  std::int64_t err() const { return idx() + 2; }
  std::int64_t win() const { return idx() + 3; }
  std::int64_t np() const { return idx() + 4; }
};

/// Kernel text: the element e of the (k x row) walk (with `rows_only`, of the
/// k positions: r = 0): j, r, the checked index i, `dst` / `src` addresses
/// (rows `dst_row` / `src_row`: "i" or "j"), then `body`. Positions with a
/// bad index record j in err and are skipped.
std::string adv_kernel(NodeLowering& L, const AdvLayout& l, const std::string& name, bool rows_only,
                       const std::string& dst_row, const std::string& src_row, const std::string& body) {
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  const std::string count = rows_only ? "k" : "k * (row > 0 ? row : 1)";
  const std::string P = "theano_params_" + str(l.np());
  auto v = [](std::int64_t i) { return "p.v[" + str(i) + "]"; };
  std::string s = "extern \"C\" __global__ void " + name + "(const " + P + " p) {\n";
  s += "  const int64_t k = p.v[0], n = p.v[1], row = p.v[2];\n";
  s += "  const int64_t total = " + count + ";\n";
  s += "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n";
  s += "  for (int64_t e = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; e < total; e += step) {\n";
  // row == 0: one position a thread still, so every index is checked (as perform does).
  s += "    const int64_t rr = row > 0 ? row : 1;\n    (void)rr;\n";
  s += "    const int64_t j = " + std::string(rows_only ? "e, r = 0" : "e / rr, r = e % rr") + ";\n";
  s += "    int64_t i = (int64_t)*(const " + L.in_ctype(L.nin() - 1) + "*)((const char*)" + v(l.idx()) + " + j * " +
       v(l.idx() + 1) + ");\n";
  s += "    if (theano_index_rule(n, i, &i) != THEANO_RULE_OK) {\n";
  s += "      atomicMin((long long*)" + v(l.err()) + ", (long long)j);\n      continue;\n    }\n";
  if (!rows_only) s += "    if (row == 0) continue;\n";
  s += "    char* dst = (char*)" + v(l.dst()) + " + " + dst_row + " * " + v(l.dst() + 1) + ";\n";
  s += "    const char* src = (const char*)" + v(l.src()) + " + " + src_row + " * " + v(l.src() + 1) + ";\n";
  s += "    int64_t q = r;\n";
  s += "    for (int64_t d = p.v[3] - 1; d >= 0; --d) {\n";
  s += "      const int64_t c = q % p.v[4 + d];\n      q /= p.v[4 + d];\n";
  s += "      dst += c * p.v[" + str(l.dst() + 2) + " + d];\n      src += c * p.v[" + str(l.src() + 2) + " + d];\n";
  s += "    }\n    (void)dst; (void)src; (void)k;\n";
  s += body + "  }\n}\n";
  return s;
}

/// Host: the rest shape of o0 (dims 1..nd-1), `row`, and the block p with
/// p[0] = k; dst / src arrays given as (address, row stride, rest strides).
std::string adv_params(NodeLowering& L, const AdvLayout& l, const std::string& dst, const std::string& dst_s0,
                       const std::function<std::string(int)>& dst_st, const std::string& src,
                       const std::string& src_s0, const std::function<std::string(int)>& src_st) {
  const int nd = L.out(0).ndim();
  const std::string il = L.x(L.nin() - 1);
  std::string s = "int64_t p[" + str(l.np()) + "];\n";
  s += "p[0] = k; p[1] = n; p[2] = row; p[3] = " + str(nd - 1) + ";\n";
  for (int d = 0; d < l.r1; ++d) s += "p[" + str(4 + d) + "] = " + (d < nd - 1 ? "o0->shape[" + str(d + 1) + "]" : "1") + ";\n";
  s += "p[" + str(l.dst()) + "] = (int64_t)" + dst + "; p[" + str(l.dst() + 1) + "] = " + dst_s0 + ";\n";
  s += "p[" + str(l.src()) + "] = (int64_t)" + src + "; p[" + str(l.src() + 1) + "] = " + src_s0 + ";\n";
  for (int d = 0; d < l.r1; ++d) {
    s += "p[" + str(l.dst() + 2 + d) + "] = " + (d < nd - 1 ? dst_st(d + 1) : "0") + ";\n";
    s += "p[" + str(l.src() + 2 + d) + "] = " + (d < nd - 1 ? src_st(d + 1) : "0") + ";\n";
  }
  s += "p[" + str(l.idx()) + "] = (int64_t)" + il + "->data; p[" + str(l.idx() + 1) + "] = " + il + "->strides[0];\n";
  s += "p[" + str(l.err()) + "] = (int64_t)err.data; p[" + str(l.win()) + "] = 0;";
  return s;
}

void lower_gpu_advanced_subtensor1(NodeLowering& L) {
  need_gpu(L);
  CodeWriter& w = L.body;
  const int nd = L.in(0).ndim();
  const std::string t = c_type(L.in(0).dtype());
  AdvLayout l;
  l.r1 = std::max(1, nd - 1);
  emit_gather_output(L);
  w.line("if (k == 0) return 0;");
  w.line("const int64_t positions = k * (row > 0 ? row : 1);  // the checks run for empty rows too");
  const std::string name = L.fn + "_gather";
  const int kernel = L.cuda->add_kernel(
      name, L.label, l.np(), 0, "",
      adv_kernel(L, l, name, false, "j", "i", "    *(" + t + "*)dst = *(const " + t + "*)src;\n"));
  emit_device_checked(
      L, 1, static_cast<int>(l.np()), static_cast<int>(l.err()),
      adv_params(
          L, l, "o0->data", "o0->strides[0]", [](int d) { return "o0->strides[" + str(d) + "]"; }, "x0->data",
          "x0->strides[0]", [](int d) { return "x0->strides[" + str(d) + "]"; }),
      "if (int e = ctx->gpu_launch(ctx->host, " + str(kernel) + ", positions, p, " + str(l.np()) + ")) return e;",
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
  AdvLayout l;
  l.r1 = std::max(1, nd - 1);
  emit_x_copy_gpu(L);
  w.line("const int64_t n = o0->shape[0], k = x2->shape[0];");
  emit_value_check(L, nd, [](int j) { return j == 0 ? std::string("k") : "o0->shape[" + str(j) + "]"; });
  w.line("int64_t row = 1;");
  for (int d = 1; d < nd; ++d) w.line("row *= o0->shape[" + str(d) + "];");
  w.line("if (k == 0) return 0;");
  w.line("const int64_t positions = k * (row > 0 ? row : 1);  // the checks run for empty rows too");
  emit_value_strides(L, nd);
  const std::string params = adv_params(
      L, l, "o0->data", "o0->strides[0]", [](int d) { return "o0->strides[" + str(d) + "]"; }, "x1->data", "ys0",
      [](int d) { return "ys" + str(d); });
  const std::string np = str(l.np());
  std::string launch;
  if (!set) {
    L.cuda->need("theano_atomic_add", kAtomicAdd);
    const std::string name = L.fn + "_scatter_add";
    const int k = L.cuda->add_kernel(
        name, L.label, l.np(), 0, "",
        adv_kernel(L, l, name, false, "i", "j",
                   "    theano_atomic_add((" + xt + "*)dst, (" + xt + ")*(const " + yt + "*)src);\n"));
    launch = "if (int e = ctx->gpu_launch(ctx->host, " + str(k) + ", positions, p, " + np + ")) return e;";
  } else {
    // The last position writing each target row wins: win[i] = max j.
    const std::string v_win = "p.v[" + str(l.win()) + "]";
    const std::string fill = L.fn + "_win_init", mark = L.fn + "_win", write = L.fn + "_scatter_set";
    const int kf = L.cuda->add_kernel(
        fill, L.label, l.np(), 0, "",
        "extern \"C\" __global__ void " + fill + "(const theano_params_" + np + " p) {\n" +
            "  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;\n" +
            "  for (int64_t i = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; i < p.v[1]; i += "
            "step)\n    ((int64_t*)" +
            v_win + ")[i] = -1;\n}\n");
    const int km = L.cuda->add_kernel(
        mark, L.label, l.np(), 0, "",
        adv_kernel(L, l, mark, true, "i", "j", "    atomicMax((long long*)" + v_win + " + i, (long long)j);\n"));
    const int kw = L.cuda->add_kernel(write, L.label, l.np(), 0, "",
                                      adv_kernel(L, l, write, false, "i", "j",
                                                 "    if (((const int64_t*)" + v_win + ")[i] == j) *(" + xt +
                                                     "*)dst = " + update_expr(xd, true, "", "*(const " + yt + "*)src") +
                                                     ";\n"));
    w.line("TheanoArray win;");
    w.line("win.ndim = 1; win.dtype = " + str(static_cast<int>(DType::Int64)) + "; win.owner = -1; win.shape[0] = n;");
    w.line("if (int e = theano_gpu_alloc_checked(ctx, &win, -1, 8, " + c_string(L.label + ": the last writers: ") +
           ", all, " + str(L.nin()) + ")) return e;");
    launch = "p[" + str(l.win()) + "] = (int64_t)win.data;\n" + "if (int e = ctx->gpu_launch(ctx->host, " + str(kf) +
             ", n, p, " + np + ")) return e;\n" + "if (int e = ctx->gpu_launch(ctx->host, " + str(km) + ", k, p, " +
             np + ")) return e;\n" + "if (int e = ctx->gpu_launch(ctx->host, " + str(kw) + ", positions, p, " + np +
             ")) return e;";
  }
  emit_device_checked(L, 2, static_cast<int>(l.np()), static_cast<int>(l.err()), params, launch, index_error_text(),
                      kErrIndex, "index ");
  w.line("return 0;");
}

}  // namespace

void add_gpu_subtensor_lowerings(LoweringTable& t) {
  t.add<tensor::IncSubtensor>(Target::Cuda, &lower_gpu_inc_subtensor);
  t.add<tensor::AdvancedSubtensor1>(Target::Cuda, &lower_gpu_advanced_subtensor1);
  t.add<tensor::AdvancedIncSubtensor1>(Target::Cuda, &lower_gpu_advanced_inc_subtensor1);
}

}  // namespace theano::codegen::lower

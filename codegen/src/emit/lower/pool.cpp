// The C++ lowering and the CUDA form of the pooling ops (Pool, MaxPoolGrad,
// AveragePoolGrad, DownsampleFactorMaxGradGrad; theano/tensor/pool.h): both
// call the per-element functions of runtime/kernels/pool.h, the text perform
// runs. One file for both targets because they share everything but the walk:
// the host part (the shape rule and its checks, the output's allocation, the
// 3-slot geometry with ws / stride / pad as constants of the generated code,
// so the compiler folds them into the window loops) and the call's text.
// The CPU walks the leading axes and the elements in nested loops; the GPU
// runs one thread an element (a grid-stride loop), each computing its one
// element only (a gather for the gradients), so no two threads write alike.
//
// Why not a generic kernel form (op_traits.h): the four ops take 1 to 3
// inputs, walk either the pooled or the input shape, and need their window
// parameters as integers; a kind that says all this would be pooling's own.
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/pool.h>
#include <theano/tensor/pool.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <string>
#include <typeinfo>
#include <vector>

#include "../cuda_unit.h"
#include "../kernel_builder.h"
#include "lowering.h"
#include "parallel_part.h"

namespace theano::codegen::lower {
namespace {

using tensor::signal::PoolMode;
using tensor::signal::PoolParams;

enum class Which { Forward, MaxGrad, AvgGrad, GradGrad };

struct PoolNode {
  Which which;
  PoolParams p;
};

PoolNode pool_node(const NodeLowering& L) {
  const Op& op = L.op;
  if (auto* o = dynamic_cast<const tensor::signal::Pool*>(&op)) return {Which::Forward, o->params()};
  if (auto* o = dynamic_cast<const tensor::signal::MaxPoolGrad*>(&op)) return {Which::MaxGrad, o->params()};
  if (auto* o = dynamic_cast<const tensor::signal::AveragePoolGrad*>(&op)) return {Which::AvgGrad, o->params()};
  auto* o = dynamic_cast<const tensor::signal::DownsampleFactorMaxGradGrad*>(&op);
  THEANO_INTERNAL_CHECK(o != nullptr) << L.label << ": not a pooling op";
  return {Which::GradGrad, o->params()};
}

const char* mode_macro(PoolMode m) {
  switch (m) {
    case PoolMode::Max: return "THEANO_POOL_MAX";
    case PoolMode::Sum: return "THEANO_POOL_SUM";
    case PoolMode::AverageIncPad: return "THEANO_POOL_AVG_INC";
    case PoolMode::AverageExcPad: return "THEANO_POOL_AVG_EXC";
  }
  return "THEANO_POOL_MAX";
}

/// pool.h in a unit (C++ or CUDA, through `need`): its rules, and the
/// kernels of element type `sfx` only (none when empty): the unit defines
/// THEANO_POOL_ON_DEMAND first, so pool.h instantiates no type itself.
template <class Need>
void need_pool_text(Need&& need, const std::string& sfx) {
  need("kernels/pool.h on demand", "#define THEANO_POOL_ON_DEMAND 1");
  need("kernels/pool.h", std::string(kernel_text("pool.h")));
  if (!sfx.empty()) need("kernels/pool.h " + sfx, "THEANO_POOL_INSTANCE(" + sfx + ")");
}

/// The 3-slot value of entry `k` of a pooled-axis list (slot s holds pooled
/// axis s - (3 - nd); a dummy slot gets `dummy`).
std::string slots(const PoolParams& p, const std::vector<std::int64_t>& v, const std::string& dummy) {
  std::string s;
  for (int slot = 0; slot < 3; ++slot) {
    const int k = slot - (3 - p.ndim);
    s += (slot ? ", " : "") + (k < 0 ? dummy : str(v[static_cast<std::size_t>(k)]));
  }
  return "{" + s + "}";
}

/// The same for a run-time array expression: `a->field[lead + k]`.
std::string slots_of(const PoolParams& p, int rank, const std::string& a, const std::string& field,
                     const std::string& dummy) {
  std::string s;
  for (int slot = 0; slot < 3; ++slot) {
    const int k = slot - (3 - p.ndim);
    s += (slot ? ", " : "") + (k < 0 ? dummy : a + "->" + field + "[" + str(rank - p.ndim + k) + "]");
  }
  return "{" + s + "}";
}

/// Emits the check that input `i` (`what`) has the pooled shape of x0.
void emit_pooled_check(NodeLowering& L, const PoolNode& n, int i, const std::string& what) {
  const int r = L.in(0).ndim();
  CodeWriter& w = L.body;
  w.open("");
  w.line("int64_t bad = 0, want = 0;");
  w.line("const int code = theano_pool_shape_rule(x0->shape, " + L.x(i) + "->shape, " + str(r) + ", " +
         str(n.p.ndim) + ", pws + " + str(3 - n.p.ndim) + ", pst + " + str(3 - n.p.ndim) + ", ppad + " +
         str(3 - n.p.ndim) + ", " + (n.p.ignore_border ? "1" : "0") + ", &bad, &want);");
  w.line("if (code == THEANO_POOL_SHAPE) " +
         L.fail_int2(kErrShape, what + ": " + theano_pool_rule_text(THEANO_POOL_SHAPE), "bad", ", expected length ",
                     "want"));
  w.line("if (code != THEANO_POOL_OK) " + L.fail_int(kErrValue, theano_pool_rule_text(THEANO_POOL_OVERFLOW), "bad"));
  w.close();
}

/// The host part both targets share: the kernel text, the parameters (pws,
/// pst, ppad: 3 slots), the checks, o0 allocated (the function returns when
/// it is empty), and `v` / `zl`: the input's and the pooled slot lengths.
/// The walk then covers o0's elements (the gradients' o0 has x0's shape).
void emit_host(NodeLowering& L, const PoolNode& n) {
  const PoolParams& p = n.p;
  const int r = L.in(0).ndim(), lead = r - p.ndim;
  CodeWriter& w = L.body;
  w.line("const int64_t pws[3] = " + slots(p, p.ws, "1") + ", pst[3] = " + slots(p, p.stride, "1") +
         ", ppad[3] = " + slots(p, p.pad, "0") + ";");
  w.line("(void)pws; (void)pst; (void)ppad;");
  switch (n.which) {
    case Which::Forward: {
      for (int d = 0; d < lead; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
      w.open("");
      w.line("int64_t bad = 0;");
      for (int k = 0; k < p.ndim; ++k) {
        const std::string ax = str(lead + k), s = str(3 - p.ndim + k);
        w.line("if (theano_pool_out_len(x0->shape[" + ax + "], pws[" + s + "], pst[" + s + "], ppad[" + s + "], " +
               (p.ignore_border ? "1" : "0") + ", &o0->shape[" + ax + "], &bad) != THEANO_POOL_OK) " +
               L.fail_int(kErrValue, theano_pool_rule_text(THEANO_POOL_OVERFLOW), "bad"));
      }
      w.close();
      break;
    }
    case Which::MaxGrad:
      emit_pooled_check(L, n, 1, "maxout");
      emit_pooled_check(L, n, 2, "gz");
      for (int d = 0; d < r; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
      break;
    case Which::AvgGrad:
      emit_pooled_check(L, n, 1, "gz");
      for (int d = 0; d < r; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
      break;
    case Which::GradGrad:
      emit_pooled_check(L, n, 1, "maxout");
      for (int d = 0; d < r; ++d)
        w.line("if (x2->shape[" + str(d) + "] != x0->shape[" + str(d) + "]) " +
               L.fail_int2(kErrShape, "ggx does not have the shape of x, at axis " + str(d) + ": length ",
                           "x2->shape[" + str(d) + "]", " instead of ", "x0->shape[" + str(d) + "]"));
      for (int d = 0; d < r; ++d) w.line("o0->shape[" + str(d) + "] = x1->shape[" + str(d) + "];");
      break;
  }
  w.line(L.alloc(0));
  w.line("if (theano_size(o0) == 0) return 0;");
  // The pooled array: o0 for the forward, the gradient input (maxout / gz) for the rest.
  const std::string z = n.which == Which::Forward ? "o0" : "x1";
  w.line("const int64_t v[3] = " + slots_of(p, r, "x0", "shape", "1") + ", zl[3] = " +
         slots_of(p, r, z, "shape", "1") + ";");
  w.line("(void)v; (void)zl;");
}

/// The kernel function's name for the node's dtype.
std::string function_of(const NodeLowering& L, Which which) {
  const std::string sfx(kernel_dtype_suffix(L.out(0).dtype()));
  if (sfx.empty()) refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(L.out(0).dtype())) + ")");
  switch (which) {
    case Which::Forward: return "theano_pool_fwd_" + sfx;
    case Which::MaxGrad: return "theano_pool_max_grad_" + sfx;
    case Which::AvgGrad: return "theano_pool_avg_grad_" + sfx;
    case Which::GradGrad: return "theano_pool_max_gradgrad_" + sfx;
  }
  return {};
}

/// The call computing one element, given each input's image base `b<i>` and
/// 3-slot byte strides `s<i>`, and the element's slot indices i0, i1, i2.
std::string call_of(const NodeLowering& L, const PoolNode& n) {
  const std::string f = function_of(L, n.which), idx = "i0, i1, i2)";
  switch (n.which) {
    case Which::Forward:
      return f + "(b0, s0, v, pws, pst, ppad, " + mode_macro(n.p.mode) + ", " + idx;
    case Which::MaxGrad:
      return f + "(b0, s0, b1, s1, b2, s2, zl, pws, pst, ppad, " + idx;
    case Which::AvgGrad:
      return f + "(b1, s1, zl, v, pws, pst, ppad, " + mode_macro(n.p.mode) + ", " + idx;
    case Which::GradGrad:
      return f + "(b0, s0, b1, s1, b2, s2, v, pws, pst, ppad, " + idx;
  }
  return {};
}

/// The CPU's call: the forward and gradgrad as call_of; the gradients window
/// by window (kernels/pool.h's scatter form: `bo` / `so`, o0's image and
/// strides), walking the pooled slots.
std::string cpu_call_of(const NodeLowering& L, const PoolNode& n) {
  const std::string sfx(kernel_dtype_suffix(L.out(0).dtype()));
  switch (n.which) {
    case Which::MaxGrad:
      return "theano_pool_max_grad_add_" + sfx + "(b0, s0, b1, s1, b2, s2, bo, so, v, pws, pst, ppad, i0, i1, i2);";
    case Which::AvgGrad:
      return "theano_pool_avg_grad_add_" + sfx + "(b1, s1, bo, so, v, pws, pst, ppad, " + mode_macro(n.p.mode) +
             ", i0, i1, i2);";
    default:
      return "*(" + L.out_ctype(0) + "*)(bo + i0 * so[0] + i1 * so[1] + i2 * so[2]) = " + call_of(L, n) + ";";
  }
}

void lower_pool(NodeLowering& L) {
  const PoolNode n = pool_node(L);
  const PoolParams& p = n.p;
  const int r = L.in(0).ndim(), lead = r - p.ndim, nin = L.nin();
  (void)function_of(L, n.which);  // refuses a dtype without kernels before any code
  need_pool_text([&](const std::string& k, const std::string& c) { L.need(k, c); },
                 std::string(kernel_dtype_suffix(L.out(0).dtype())));
  const std::string call = cpu_call_of(L, n);
  // A max gradient whose windows tile the input (stride ws, no padding:
  // LeNet's) is computed image by image, row by row
  // (theano_pool_max_grad_tiled_<sfx>); other gradients scatter window by
  // window into zeros.
  std::int64_t ws3[3], st3[3], pad3[3];  // the 3 slots, as kernels/pool.h reads them
  for (int slot = 0; slot < 3; ++slot) {
    const int k = slot - (3 - p.ndim);
    const auto kk = static_cast<std::size_t>(k < 0 ? 0 : k);
    ws3[slot] = k < 0 ? 1 : p.ws[kk];
    st3[slot] = k < 0 ? 1 : p.stride[kk];
    pad3[slot] = k < 0 ? 0 : p.pad[kk];
  }
  const bool tiled = n.which == Which::MaxGrad && theano_pool_tiles(ws3, st3, pad3) != 0;
  const bool scatter = (n.which == Which::MaxGrad && !tiled) || n.which == Which::AvgGrad;
  emit_host(L, n);
  CodeWriter& w = L.body;
  if (scatter) {
    // The windows add into zeros (o0 is fresh and C-contiguous).
    const std::string ot = L.out_ctype(0);
    L.file.line("__attribute__((noinline)) static void " + L.fn + "_zero(" + ot +
                "* __restrict z, int64_t m) { for (int64_t k = 0; k < m; ++k) z[k] = 0; }");
    w.line(L.fn + "_zero((" + ot + "*)o0->data, theano_size(o0));");
  }
  L.loops_outlined = true;  // the zeros and the windows are file-scope functions
  // The images (the leading axes, flattened) in parts across the loop
  // threads: an image's elements, or windows, are its own (the windows of
  // one image add only into that image), so the parts never write alike.
  const std::string args_t = L.fn + "_args";
  const std::string init = emit_loop_args(L.file, args_t, nin, 1);
  const ParallelPart part{L.fn + "_part", args_t, "a"};
  part.open(L.file);
  CodeWriter& f = L.file;
  for (int i = 0; i < nin; ++i) f.line("const TheanoArray* " + L.x(i) + " = a->" + L.x(i) + ";");
  f.line("TheanoArray* o0 = a->o0;");
  f.line("const int64_t pws[3] = " + slots(p, p.ws, "1") + ", pst[3] = " + slots(p, p.stride, "1") +
         ", ppad[3] = " + slots(p, p.pad, "0") + ";");
  const std::string z = n.which == Which::Forward ? "o0" : "x1";
  f.line("const int64_t v[3] = " + slots_of(p, r, "x0", "shape", "1") + ", zl[3] = " + slots_of(p, r, z, "shape", "1") +
         ";");
  f.line("(void)pws; (void)pst; (void)ppad; (void)v; (void)zl;");
  for (int i = 0; i < nin; ++i)
    f.line("const int64_t s" + str(i) + "[3] = " + slots_of(p, r, L.x(i), "strides", "0") + ";");
  f.line("const int64_t so[3] = " + slots_of(p, r, "o0", "strides", "0") + ";");
  f.open("for (int64_t img = lo; img < hi; ++img)");
  f.line("int64_t rest = img;");
  for (int i = 0; i < nin; ++i) f.line("const char* b" + str(i) + " = " + L.x(i) + "->data;");
  f.line("char* bo = o0->data;");
  for (int d = lead - 1; d >= 0; --d) {
    const std::string ds = str(d);
    std::string step = "{ const int64_t c = rest % o0->shape[" + ds + "]; rest /= o0->shape[" + ds + "];";
    for (int i = 0; i < nin; ++i) step += " b" + str(i) + " += c * " + L.x(i) + "->strides[" + ds + "];";
    f.line(step + " bo += c * o0->strides[" + ds + "]; }");
  }
  f.line("(void)rest;");
  if (tiled) {
    f.line("theano_pool_max_grad_tiled_" + std::string(kernel_dtype_suffix(L.out(0).dtype())) +
           "(b0, s0, b1, s1, b2, s2, bo, so, v, pws, zl);");
  } else {
    // The element loops over the slots of the pooled lengths (the gradients'
    // windows: zl) or of o0's; a dummy slot's index is 0.
    int loops = 0;
    for (int slot = 0; slot < 3; ++slot) {
      const std::string is = "i" + str(slot);
      if (slot < 3 - p.ndim) {
        f.line("const int64_t " + is + " = 0;");
        continue;
      }
      const std::string len = scatter ? "zl[" + str(slot) + "]" : "o0->shape[" + str(lead + slot - (3 - p.ndim)) + "]";
      f.open("for (int64_t " + is + " = 0; " + is + " < " + len + "; ++" + is + ")");
      ++loops;
    }
    f.line(call);
    for (int k = 0; k < loops; ++k) f.close();
  }
  f.close();  // the images
  f.close();  // the part
  // Per image: its windows' elements, about prod(ws) operations each (tiled:
  // its elements, a few operations each).
  std::string images = "1", per = "1";
  for (int d = 0; d < lead; ++d) images += " * o0->shape[" + str(d) + "]";
  for (int k = 0; k < p.ndim; ++k) per += " * " + (scatter ? "x1" : std::string("o0")) + "->shape[" + str(lead + k) + "]";
  std::int64_t window = 1;
  for (const std::int64_t e : p.ws) window *= e;
  const int cost = tiled ? 4 : static_cast<int>(std::min<std::int64_t>(window * 2, 1 << 20));
  w.line(args_t + " args = {" + init + "};");
  w.line("const int64_t images = " + images + ", per = " + per + " > 0 ? " + per + " : 1;");
  w.line(part.run("images", min_part_expr(cost, "per"), "args") + ";");
  w.line("return 0;");
}

void lower_gpu_pool(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;  // the host side does no per-element work
  const PoolNode n = pool_node(L);
  const int r = L.in(0).ndim(), lead = r - n.p.ndim, nin = L.nin();
  const std::string call = call_of(L, n);
  L.cuda->need("shape_rules", std::string(shape_rules_text()));
  need_pool_text([&](const std::string& k, const std::string& c) { L.cuda->need(k, c); },
                 std::string(kernel_dtype_suffix(L.out(0).dtype())));
  need_pool_text([&](const std::string& k, const std::string& c) { L.need(k, c); }, "");  // the host part's rules
  emit_host(L, n);
  // The block: the element count, o0's shape, each input's strides (rank r),
  // v / zl, the addresses.
  cuda::ParamBlock pb;
  const cuda::Param count = pb.int64("n", "theano_size(o0)");
  const cuda::Param shape = pb.array("shape", r, [&](int d) { return "o0->shape[" + str(d) + "]"; });
  std::vector<cuda::Param> strides, ptrs;
  for (int i = 0; i < nin; ++i) {
    strides.push_back(pb.array("st" + str(i), r, [&](int d) { return L.x(i) + "->strides[" + str(d) + "]"; }));
    ptrs.push_back(pb.pointer("p" + str(i), "const char*", L.x(i) + "->data"));
  }
  const cuda::Param vl = pb.array("vl", 3, [](int s) { return "v[" + str(s) + "]"; });
  const cuda::Param zls = pb.array("zls", 3, [](int s) { return "zl[" + str(s) + "]"; });
  const cuda::Param po = pb.pointer("po", L.out_ctype(0) + "*", "o0->data");
  std::vector<cuda::Param> reads{count, po};
  reads.insert(reads.end(), ptrs.begin(), ptrs.end());
  cuda::Kernel k(pb, L.fn + "_pool", reads);
  CodeWriter& kw = k.w;
  kw.line("const int64_t pws[3] = " + slots(n.p, n.p.ws, "1") + ", pst[3] = " + slots(n.p, n.p.stride, "1") +
          ", ppad[3] = " + slots(n.p, n.p.pad, "0") + ";");
  kw.line("const int64_t v[3] = {" + pb.at(vl, 0) + ", " + pb.at(vl, 1) + ", " + pb.at(vl, 2) + "}, zl[3] = {" +
          pb.at(zls, 0) + ", " + pb.at(zls, 1) + ", " + pb.at(zls, 2) + "};");
  kw.line("(void)pws; (void)pst; (void)ppad; (void)v; (void)zl;");
  for (int i = 0; i < nin; ++i) {
    std::string s;
    for (int slot = 0; slot < 3; ++slot) {
      const int kx = slot - (3 - n.p.ndim);
      s += (slot ? ", " : "") + (kx < 0 ? std::string("0") : pb.at(strides[static_cast<std::size_t>(i)], lead + kx));
    }
    kw.line("const int64_t s" + str(i) + "[3] = {" + s + "};");
  }
  cuda::grid_stride_loop(kw, "e", "n");
  kw.line("int64_t rest = e, i0 = 0, i1 = 0, i2 = 0;");
  for (int i = 0; i < nin; ++i) kw.line("const char* b" + str(i) + " = " + pb.name(ptrs[static_cast<std::size_t>(i)]) + ";");
  for (int d = r - 1; d >= 0; --d) {
    const std::string len = pb.at(shape, d);
    kw.line("{ const int64_t c = rest % " + len + "; rest /= " + len + ";");
    if (d < lead) {
      for (int i = 0; i < nin; ++i)
        kw.line("  b" + str(i) + " += c * " + pb.at(strides[static_cast<std::size_t>(i)], d) + ";");
    } else {
      kw.line("  i" + str(3 - n.p.ndim + d - lead) + " = c;");
    }
    kw.line("}");
  }
  kw.line("(void)rest;");
  kw.line("po[e] = " + call + ";");  // o0 is C-contiguous (freshly allocated)
  kw.close();
  const int kernel = L.cuda->add_kernel(k, L.label);
  pb.declare(L.body);
  L.body.line("return " + pb.launch(kernel, "theano_size(o0)") + ";");
}

}  // namespace

void add_pool_lowerings(LoweringTable& t) {
  t.add<tensor::signal::Pool>(Target::Cpu, &lower_pool);
  t.add<tensor::signal::MaxPoolGrad>(Target::Cpu, &lower_pool);
  t.add<tensor::signal::AveragePoolGrad>(Target::Cpu, &lower_pool);
  t.add<tensor::signal::DownsampleFactorMaxGradGrad>(Target::Cpu, &lower_pool);
  t.add<tensor::signal::Pool>(Target::Cuda, &lower_gpu_pool);
  t.add<tensor::signal::MaxPoolGrad>(Target::Cuda, &lower_gpu_pool);
  t.add<tensor::signal::AveragePoolGrad>(Target::Cuda, &lower_gpu_pool);
  t.add<tensor::signal::DownsampleFactorMaxGradGrad>(Target::Cuda, &lower_gpu_pool);
}

}  // namespace theano::codegen::lower

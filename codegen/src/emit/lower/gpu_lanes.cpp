// Lane kernels on the GPU (gpu_lanes.h): the host-side lane walk and the
// kernel-side addressing.
#include <algorithm>
#include <functional>

#include "gpu_lanes.h"

#include <theano/runtime/error.h>
#include <theano/tensor/type.h>

#include "../cuda_unit.h"

namespace theano::codegen::lower {

namespace {

// Host support: merges the dimensions (j, j + 1) that every walked array
// steps through as one (stride[j] == stride[j + 1] * shape[j + 1]) and drops
// size-1 ones, keeping C order; at least one dimension remains (size 1,
// stride 0 when nothing did). Returns the new rank.
constexpr const char* kLanesMerge = R"(static inline int64_t theano_lanes_merge(int64_t nd, int64_t* shape,
                                         int64_t (*st)[THEANO_MAX_NDIM], int64_t na) {
  int64_t m = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] == 1) continue;
    if (m > 0) {
      int ok = 1;
      for (int64_t a = 0; a < na; ++a) ok = ok && st[a][m - 1] == st[a][d] * shape[d];
      if (ok) {
        shape[m - 1] *= shape[d];
        for (int64_t a = 0; a < na; ++a) st[a][m - 1] = st[a][d];
        continue;
      }
    }
    shape[m] = shape[d];
    for (int64_t a = 0; a < na; ++a) st[a][m] = st[a][d];
    ++m;
  }
  if (m == 0) {
    shape[0] = 1;
    for (int64_t a = 0; a < na; ++a) st[a][0] = 0;
    m = 1;
  }
  return m;
}
)";

}  // namespace

void need_lanes_merge(NodeLowering& L) { L.need("theano_lanes_merge", kLanesMerge); }

LaneLayout emit_lane_params(NodeLowering& L, const std::vector<int>& kept, const std::vector<int>& reduced,
                            const std::vector<std::string>& walked) {
  need_lanes_merge(L);
  LaneLayout l;
  l.nk = std::max<int>(1, static_cast<int>(kept.size()));
  l.nr = std::max<int>(1, static_cast<int>(reduced.size()));
  l.arrays = static_cast<int>(walked.size());
  CodeWriter& w = L.body;
  const std::string na = str(l.arrays);
  w.line("int64_t ks[THEANO_MAX_NDIM], rs[THEANO_MAX_NDIM];");
  w.line("int64_t kst[" + na + "][THEANO_MAX_NDIM], rst[" + na + "][THEANO_MAX_NDIM];");
  w.line("ks[0] = 1; rs[0] = 1;");
  for (int a = 0; a < l.arrays; ++a) w.line("kst[" + str(a) + "][0] = 0; rst[" + str(a) + "][0] = 0;");
  auto fill = [&](const std::vector<int>& axes, const std::string& shape, const std::string& strides) {
    for (std::size_t j = 0; j < axes.size(); ++j) {
      const std::string js = str(static_cast<std::int64_t>(j)), d = str(axes[j]);
      w.line(shape + "[" + js + "] = x0->shape[" + d + "];");
      for (int a = 0; a < l.arrays; ++a)
        w.line(strides + "[" + str(a) + "][" + js + "] = " + walked[static_cast<std::size_t>(a)] + "->strides[" + d +
               "];");
    }
  };
  fill(kept, "ks", "kst");
  fill(reduced, "rs", "rst");
  w.line("const int64_t nk = theano_lanes_merge(" + str(static_cast<std::int64_t>(kept.size())) + ", ks, kst, " + na +
         ");");
  w.line("const int64_t nr = theano_lanes_merge(" + str(static_cast<std::int64_t>(reduced.size())) + ", rs, rst, " +
         na + ");");
  // Both products are of extents of an existing array: no overflow (theano_size's argument).
  w.line("int64_t lanes = 1, len = 1;");
  w.line("for (int64_t d = 0; d < nk; ++d) lanes *= ks[d];");
  w.line("for (int64_t d = 0; d < nr; ++d) len *= rs[d];");
  w.line("const int64_t kst0 = kst[0][nk - 1], rst0 = rst[0][nr - 1];");
  w.line("(void)kst0; (void)rst0;");
  cuda::ParamBlock& pb = l.params;
  l.lanes = pb.int64("lanes", "lanes");
  l.len = pb.int64("len", "len");
  l.parts = pb.int64("parts", "1");
  l.chunk = pb.int64("chunk", "len");
  l.kept_rank = pb.int64("nk", "nk");
  l.reduced_rank = pb.int64("nr", "nr");
  l.kept = pb.array_loop("ks", l.nk, "d < nk ? ks[d] : 1");
  l.reduced = pb.array_loop("rs", l.nr, "d < nr ? rs[d] : 1");
  for (int a = 0; a < l.arrays; ++a) {
    const std::string as = str(a);
    l.base.push_back(pb.pointer("b" + as, "const char*", walked[static_cast<std::size_t>(a)] + "->data"));
    l.kept_strides.push_back(pb.array_loop("kst" + as, l.nk, "d < nk ? kst[" + as + "][d] : 0"));
    l.reduced_strides.push_back(pb.array_loop("rst" + as, l.nr, "d < nr ? rst[" + as + "][d] : 0"));
  }
  return l;
}

std::string lane_per_thread_condition() {
  return "len <= 32 || (lanes >= 2048 && kst0 != 0 && (kst0 < 0 ? -kst0 : kst0) < (rst0 < 0 ? -rst0 : rst0))";
}

namespace {

/// Declares `<var><a>` = `<from><a>` for every walked array, then advances
/// it by the index `index` unravelled over `extents` (an array parameter,
/// `rank` its merged rank) times each array's `strides`: one multiply when
/// there is a single dimension (`single`, known here, or rank == 1 at run time).
void lane_walk(CodeWriter& w, const LaneLayout& l, const std::string& var, const std::string& from,
               const std::string& index, bool single, cuda::Param rank, cuda::Param extents,
               const std::vector<cuda::Param>& strides) {
  const cuda::ParamBlock& pb = l.params;
  for (int a = 0; a < l.arrays; ++a) {
    const std::string& base = from.empty() ? pb.name(l.base[static_cast<std::size_t>(a)]) : from + str(a);
    if (from.empty())
      w.line(pb.read(l.base[static_cast<std::size_t>(a)]));
    else
      w.line("const char* " + var + str(a) + " = " + base + ";");
  }
  auto one = [&] {
    for (int a = 0; a < l.arrays; ++a)
      w.line(var + str(a) + " += (" + index + ") * " + pb.at(strides[static_cast<std::size_t>(a)], 0) + ";");
  };
  if (single) {  // never more after merging: no unravel loop to compile
    one();
    return;
  }
  w.open("if (" + pb.value(rank) + " == 1)");
  one();
  w.close();
  w.open("else");
  w.line("int64_t r = " + index + ";");
  w.open("for (int64_t d = " + pb.value(rank) + " - 1; d >= 0; --d)");
  w.line("const int64_t i = r % " + pb.at(extents, "d") + ";");
  w.line("r /= " + pb.at(extents, "d") + ";");
  for (int a = 0; a < l.arrays; ++a)
    w.line(var + str(a) + " += i * " + pb.at(strides[static_cast<std::size_t>(a)], "d") + ";");
  w.close();
  w.close();
}

}  // namespace

void lane_bases(CodeWriter& w, const LaneLayout& l, const std::string& lane) {
  lane_walk(w, l, "b", "", lane, l.nk == 1, l.kept_rank, l.kept, l.kept_strides);
}

void lane_element(CodeWriter& w, const LaneLayout& l, const std::string& e) {
  lane_walk(w, l, "at", "b", e, l.nr == 1, l.reduced_rank, l.reduced, l.reduced_strides);
}

void emit_device_check(NodeLowering& L, const cuda::ParamBlock& params, cuda::Param count, cuda::Param err_at,
                       const std::function<void(CodeWriter&)>& launch,
                       const std::function<void(CodeWriter&)>& report) {
  CodeWriter& w = L.body;
  cuda::Kernel init(params, L.fn + "_check_init", {count, err_at});
  init.w.line("if (blockIdx.x == 0 && threadIdx.x == 0) *(int64_t*)" + params.name(err_at) + " = " +
              params.name(count) + ";");
  const int k = L.cuda->add_kernel(init, L.label);
  w.line("TheanoArray err;");
  w.line("err.ndim = 1; err.dtype = " + str(static_cast<int>(DType::Int64)) + "; err.owner = -1; err.shape[0] = 1;");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &err, -1, 8, " + c_string(L.label + ": the device check: ") +
         ", all, " + str(L.nin()) + ")) return e;");
  params.declare(w);
  w.line("if (int e = " + params.launch(k, "1") + ") return e;");
  launch(w);
  w.line("int64_t first_bad = " + params.host(count) + ";");
  w.open("");
  w.line("TheanoArray hb;");
  w.line("hb.data = (char*)&first_bad; hb.ndim = 1; hb.dtype = " + str(static_cast<int>(DType::Int64)) +
         "; hb.owner = -1; hb.shape[0] = 1; hb.strides[0] = 8;");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hb, &err, 1)) return e;");
  w.close();
  w.open("if (first_bad < " + params.host(count) + ")");
  report(w);
  w.close();
}

void download_element(CodeWriter& w, const std::string& array, const std::string& offset, const std::string& ctype,
                      const std::string& var) {
  w.line(ctype + " " + var + " = 0;");
  w.open("");
  w.line("TheanoArray h, d;");
  w.line("h.data = (char*)&" + var + "; h.ndim = 1; h.dtype = " + array + "->dtype; h.owner = -1; h.shape[0] = 1;");
  w.line("h.strides[0] = (int64_t)sizeof(" + ctype + ");");
  w.line("d = h;");
  w.line("d.data = " + array + "->data + " + offset + ";");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &h, &d, 1)) return e;");
  w.close();
}

void emit_device_checked(NodeLowering& L, int li, const cuda::ParamBlock& params, cuda::Param count,
                         cuda::Param err_at, const std::function<void(CodeWriter&)>& launch, const std::string& tail,
                         ErrorCode code, const std::string& head) {
  emit_device_check(L, params, count, err_at, launch, [&](CodeWriter& w) {
    download_element(w, L.x(li), "first_bad * " + L.x(li) + "->strides[0]", L.in_ctype(li), "raw");
    w.line("const int64_t value = (int64_t)raw;");
    w.line(L.fail_int(code, head, "value", tail));
  });
}

DType dtype_of_c_type(const std::string& name) {
  for (DType d : {DType::Float64, DType::Float32, DType::Int64, DType::UInt64, DType::Int32, DType::UInt32,
                  DType::Int16, DType::UInt16, DType::Int8, DType::UInt8, DType::Bool})
    if (const char* t = c_type(d); t && name == t) return d;
  if (name == "int") return DType::Int32;
  THEANO_INTERNAL_CHECK(false) << "no dtype has the C type " << name;
  return DType::Float64;
}

LaneLayout emit_axis_lanes(NodeLowering& L, int axis, std::int64_t out_len) {
  const int nd = L.in(0).ndim();
  for (int d = 0; d < nd; ++d)
    L.body.line("o0->shape[" + str(d) + "] = " +
                (d == axis && out_len >= 0 ? str(out_len) : "x0->shape[" + str(d) + "]") + ";");
  L.body.line(L.alloc(0));
  std::vector<int> kept;
  for (int d = 0; d < nd; ++d)
    if (d != axis) kept.push_back(d);
  return emit_lane_params(L, kept, {axis}, {"x0", "o0"});
}

}  // namespace theano::codegen::lower

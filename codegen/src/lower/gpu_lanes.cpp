// Lane kernels on the GPU (gpu_lanes.h): the host-side lane walk and the
// kernel-side addressing.
#include <algorithm>
#include <functional>

#include "gpu_lanes.h"

#include <theano/runtime/error.h>
#include <theano/tensor/type.h>

#include "../cuda/cuda_unit.h"

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
                            const std::vector<std::string>& walked, int extras) {
  need_lanes_merge(L);
  LaneLayout l;
  l.nk = std::max<int>(1, static_cast<int>(kept.size()));
  l.nr = std::max<int>(1, static_cast<int>(reduced.size()));
  l.arrays = static_cast<int>(walked.size());
  const std::int64_t np = l.extra_base() + extras;
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
  w.line("int64_t p[" + str(np) + "];");
  w.line("p[0] = lanes; p[1] = len; p[2] = 1; p[3] = len; p[4] = nk; p[5] = nr;");
  w.line("for (int64_t d = 0; d < " + str(l.nk) + "; ++d) p[6 + d] = d < nk ? ks[d] : 1;");
  w.line("for (int64_t d = 0; d < " + str(l.nr) + "; ++d) p[" + str(6 + l.nk) + " + d] = d < nr ? rs[d] : 1;");
  for (int a = 0; a < l.arrays; ++a) {
    const std::string b = str(l.array_base(a)), as = str(a);
    w.line("p[" + b + "] = (int64_t)" + walked[static_cast<std::size_t>(a)] + "->data;");
    w.line("for (int64_t d = 0; d < " + str(l.nk) + "; ++d) p[" + b + " + 1 + d] = d < nk ? kst[" + as + "][d] : 0;");
    w.line("for (int64_t d = 0; d < " + str(l.nr) + "; ++d) p[" + str(l.array_base(a) + 1 + l.nk) +
           " + d] = d < nr ? rst[" + as + "][d] : 0;");
  }
  return l;
}

std::string lane_per_thread_condition() {
  return "len <= 32 || (lanes >= 2048 && kst0 != 0 && (kst0 < 0 ? -kst0 : kst0) < (rst0 < 0 ? -rst0 : rst0))";
}

std::string lane_bases(const LaneLayout& l, const std::string& lane) {
  std::string s;
  for (int a = 0; a < l.arrays; ++a)
    s += "const char* b" + str(a) + " = (const char*)p.v[" + str(l.array_base(a)) + "];\n";
  std::string one;  // one merged kept dimension: a multiply
  for (int a = 0; a < l.arrays; ++a) one += "b" + str(a) + " += (" + lane + ") * p.v[" + str(l.array_base(a) + 1) + "];\n";
  if (l.nk == 1) return s + one;  // never more after merging: no unravel loop to compile
  s += "if (p.v[4] == 1) {\n" + indent_code(one, 2) + "} else {\n  int64_t r = " + lane + ";\n";
  s += "  for (int64_t d = p.v[4] - 1; d >= 0; --d) {\n";
  s += "    const int64_t i = r % p.v[6 + d];\n    r /= p.v[6 + d];\n";
  for (int a = 0; a < l.arrays; ++a) s += "    b" + str(a) + " += i * p.v[" + str(l.array_base(a) + 1) + " + d];\n";
  s += "  }\n}\n";
  return s;
}

std::string lane_element(const LaneLayout& l, const std::string& e) {
  std::string s;
  for (int a = 0; a < l.arrays; ++a) s += "const char* at" + str(a) + " = b" + str(a) + ";\n";
  std::string one;  // one merged reduced dimension: a multiply
  for (int a = 0; a < l.arrays; ++a)
    one += "at" + str(a) + " += (" + e + ") * p.v[" + str(l.array_base(a) + 1 + l.nk) + "];\n";
  if (l.nr == 1) return s + one;  // never more after merging: no unravel loop to compile
  s += "if (p.v[5] == 1) {\n" + indent_code(one, 2) + "} else {\n  int64_t r = " + e + ";\n";
  s += "  for (int64_t d = p.v[5] - 1; d >= 0; --d) {\n";
  s += "    const int64_t i = r % p.v[" + str(6 + l.nk) + " + d];\n    r /= p.v[" + str(6 + l.nk) + " + d];\n";
  for (int a = 0; a < l.arrays; ++a)
    s += "    at" + str(a) + " += i * p.v[" + str(l.array_base(a) + 1 + l.nk) + " + d];\n";
  s += "  }\n}\n";
  return s;
}

std::string indent_code(const std::string& code, int spaces) {
  std::string out, pad(static_cast<std::size_t>(spaces), ' ');
  std::size_t i = 0;
  while (i < code.size()) {
    const std::size_t j = code.find('\n', i);
    const std::string line = code.substr(i, j == std::string::npos ? std::string::npos : j - i);
    out += (line.empty() ? "" : pad + line) + "\n";
    if (j == std::string::npos) break;
    i = j + 1;
  }
  return out;
}

void emit_device_check(NodeLowering& L, int np, int err_at, const std::string& declare_p, const std::string& launch,
                       const std::function<void(CodeWriter&)>& report) {
  CodeWriter& w = L.body;
  const std::string nps = str(np);
  const std::string init = L.fn + "_check_init";
  const int k = L.cuda->add_kernel(init, L.label, np, 0, "",
                                   "extern \"C\" __global__ void " + init + "(const theano_params_" + nps +
                                       " p) {\n  if (blockIdx.x == 0 && threadIdx.x == 0) *(int64_t*)p.v[" +
                                       str(err_at) + "] = p.v[0];\n}\n");
  w.line("TheanoArray err;");
  w.line("err.ndim = 1; err.dtype = " + str(static_cast<int>(DType::Int64)) + "; err.owner = -1; err.shape[0] = 1;");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &err, -1, 8, " + c_string(L.label + ": the device check: ") +
         ", all, " + str(L.nin()) + ")) return e;");
  w.lines(declare_p);
  w.line("if (int e = ctx->gpu_launch(ctx->host, " + str(k) + ", 1, p, " + nps + ")) return e;");
  w.lines(launch);
  w.line("int64_t first_bad = p[0];");
  w.open("");
  w.line("TheanoArray hb;");
  w.line("hb.data = (char*)&first_bad; hb.ndim = 1; hb.dtype = " + str(static_cast<int>(DType::Int64)) +
         "; hb.owner = -1; hb.shape[0] = 1; hb.strides[0] = 8;");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hb, &err, 1)) return e;");
  w.close();
  w.open("if (first_bad < p[0])");
  report(w);
  w.close();
}

std::string download_element(const std::string& array, const std::string& offset, const std::string& ctype,
                             const std::string& var) {
  std::string s = ctype + " " + var + " = 0;\n{\n";
  s += "  TheanoArray h, d;\n";
  s += "  h.data = (char*)&" + var + "; h.ndim = 1; h.dtype = " + array + "->dtype; h.owner = -1; h.shape[0] = 1;\n";
  s += "  h.strides[0] = (int64_t)sizeof(" + ctype + ");\n";
  s += "  d = h;\n  d.data = " + array + "->data + " + offset + ";\n";
  s += "  if (int e = ctx->gpu_copy(ctx->host, &h, &d, 1)) return e;\n}";
  return s;
}

void emit_device_checked(NodeLowering& L, int li, int np, int err_at, const std::string& declare_p,
                         const std::string& launch, const std::string& tail, ErrorCode code, const std::string& head) {
  emit_device_check(L, np, err_at, declare_p, launch, [&](CodeWriter& w) {
    w.lines(download_element(L.x(li), "first_bad * " + L.x(li) + "->strides[0]", L.in_ctype(li), "raw"));
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

}  // namespace theano::codegen::lower

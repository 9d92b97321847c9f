// The C++ lowerings of the ops of theano/tensor/index_ops.h, each calling
// the kernel text its perform runs:
// - Nonzero, the op whose output's size is known only at run time: the node
//   function counts the true elements (kernels/nonzero.h), sets the output's
//   shape to (ndim, count), allocates it and fills it. Every other result
//   whose length depends on values (boolean masks, unique, compress,
//   argwhere) is a graph over this node. Its GPU form counts per tile on the
//   device, downloads the total (the one device-to-host copy a call) and
//   fills each tile from its offset.
// - SearchSorted: the sorter's checks (perform's messages), then one binary
//   search per value (kernels/searchsorted.h, the checks and messages beside
//   the kernel); its GPU form runs one thread a
//   value through the same function, the sorter's range checked on the
//   device (the first bad entry and its value reported, as perform words it).
#include <theano/runtime/kernels/searchsorted.h>
#include <theano/tensor/index_ops.h>
#include <theano/graph/op_traits.h>
#include <theano/tensor/type.h>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

void lower_nonzero(NodeLowering& L) {
  L.need("kernels/nonzero.h", kernel_text("nonzero.h"));
  CodeWriter& w = L.body;
  const std::string nd = std::to_string(L.in(0).ndim());
  w.line("const int64_t count = theano_nonzero_count(x0->data, " + nd + ", x0->shape, x0->strides);");
  w.line("o0->shape[0] = " + nd + ";");
  w.line("o0->shape[1] = count;");
  w.line(L.alloc(0));
  w.line("theano_nonzero_fill(x0->data, " + nd + ", x0->shape, x0->strides, (int64_t*)o0->data, count);");
  w.line("return 0;");
}

/// Nonzero's GPU form: the flat elements in tiles of kNonzeroTile, one
/// thread a tile: each tile's count, their running sum by one thread, the
/// total downloaded, the output allocated, then each tile's coordinates
/// written from its offset (the C order kept).
constexpr int kNonzeroTile = 2048;

void lower_gpu_nonzero(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  L.cuda->need("kernels/nonzero.h", std::string(kernel_text("nonzero.h")));
  const int nd = L.in(0).ndim();
  const std::string nds = std::to_string(nd), tile = std::to_string(kNonzeroTile);
  const std::string i64 = std::to_string(static_cast<int>(DType::Int64));
  CodeWriter& w = L.body;
  w.line("const int64_t total = theano_size(x0), tiles = (total + " + tile + " - 1) / " + tile + ";");
  w.open("if (total == 0)");
  w.line("o0->shape[0] = " + nds + ";");
  w.line("o0->shape[1] = 0;");
  w.line(L.alloc(0));
  w.line("return 0;");
  w.close();
  w.line("TheanoArray offs;");
  w.line("offs.ndim = 1; offs.dtype = " + i64 + "; offs.owner = -1; offs.shape[0] = tiles + 1;");
  w.line("if (int e = theano_gpu_alloc_checked(ctx, &offs, -1, 8, " + c_string(L.label + ": the tile offsets: ") +
         ", all, " + std::to_string(L.nin()) + ")) return e;");
  cuda::ParamBlock pb;
  const cuda::Param total = pb.int64("total", "total"), tiles = pb.int64("tiles", "tiles");
  const cuda::Param x = pb.pointer("x", "const char*", "x0->data");
  const cuda::Param shape = pb.array("shape", nd, [](int d) { return "x0->shape[" + std::to_string(d) + "]"; });
  const cuda::Param strides = pb.array("strides", nd, [](int d) { return "x0->strides[" + std::to_string(d) + "]"; });
  const cuda::Param offs = pb.pointer("offs", "int64_t*", "offs.data");
  const cuda::Param out = pb.pointer("out", "int64_t*", "0");
  const cuda::Param count = pb.int64("count", "0");
  auto locals = [&](CodeWriter& k) {
    k.line("int64_t shp[" + nds + "], str[" + nds + "];");
    for (int d = 0; d < nd; ++d)
      k.line("shp[" + std::to_string(d) + "] = " + pb.at(shape, d) + "; str[" + std::to_string(d) + "] = " +
             pb.at(strides, d) + ";");
  };
  const std::string range = "t * " + tile + ", t * " + tile + " + " + tile + " < total ? t * " + tile + " + " + tile +
                            " : total";
  cuda::Kernel kc(pb, L.fn + "_count", {total, tiles, x, offs});
  locals(kc.w);
  cuda::grid_stride_loop(kc.w, "t", "tiles");
  kc.w.line("offs[t] = theano_nonzero_count_range(x, " + nds + ", shp, str, " + range + ");");
  kc.w.close();
  cuda::Kernel ks(pb, L.fn + "_offsets", {tiles, offs});
  ks.w.open("if (blockIdx.x == 0 && threadIdx.x == 0)");
  ks.w.line("int64_t run = 0;");
  ks.w.open("for (int64_t t = 0; t < tiles; ++t)");
  ks.w.line("const int64_t c = offs[t];");
  ks.w.line("offs[t] = run;");
  ks.w.line("run += c;");
  ks.w.close();
  ks.w.line("offs[tiles] = run;");
  ks.w.close();
  cuda::Kernel kf(pb, L.fn + "_fill", {total, tiles, x, offs, out, count});
  locals(kf.w);
  cuda::grid_stride_loop(kf.w, "t", "tiles");
  kf.w.line("theano_nonzero_fill_range(x, " + nds + ", shp, str, " + range + ", out, count, offs[t]);");
  kf.w.close();
  const int k_count = L.cuda->add_kernel(kc, L.label), k_offsets = L.cuda->add_kernel(ks, L.label),
            k_fill = L.cuda->add_kernel(kf, L.label);
  pb.declare(w);
  w.line("if (int e = " + pb.launch(k_count, "tiles") + ") return e;");
  w.line("if (int e = " + pb.launch(k_offsets, "1") + ") return e;");
  // The total, from the device, sizes the output.
  w.line("int64_t count = 0;");
  w.open("");
  w.line("TheanoArray hb, last = offs;");
  w.line("hb.data = (char*)&count; hb.ndim = 1; hb.dtype = " + i64 +
         "; hb.owner = -1; hb.shape[0] = 1; hb.strides[0] = 8;");
  w.line("last.data = offs.data + tiles * 8; last.shape[0] = 1; last.strides[0] = 8;");
  w.line("if (int e = ctx->gpu_copy(ctx->host, &hb, &last, 1)) return e;");
  w.close();
  w.line("o0->shape[0] = " + nds + ";");
  w.line("o0->shape[1] = count;");
  w.line(L.alloc(0));
  w.line("if (count == 0) return 0;");
  w.line(pb.set(out, "o0->data"));
  w.line(pb.set(count, "count"));
  w.line("return " + pb.launch(k_fill, "tiles") + ";");
}

/// The statement failing the call when the sorter (input 2) and a (n elements) differ in length.
std::string sorter_len_check(const NodeLowering& L) {
  return "if (!theano_searchsorted_sorter_len_ok(x2->shape[0], n)) " +
         L.fail_int2(kErrValue, THEANO_SS_SORTER_LEN_TEXT1, "x2->shape[0]", THEANO_SS_SORTER_LEN_TEXT2, "n");
}

/// The statement failing the call for sorter entry `pos` (a C expression) holding `k`, outside [0, n).
std::string sorter_entry_fail(const NodeLowering& L, const std::string& pos) {
  return L.fail_int3(kErrValue, THEANO_SS_SORTER_ENTRY_TEXT1, pos, THEANO_SS_SORTER_ENTRY_TEXT2, "k",
                     THEANO_SS_SORTER_ENTRY_TEXT3, "n");
}

void lower_searchsorted(NodeLowering& L) {
  L.need("kernels/searchsorted.h", kernel_text("searchsorted.h"));
  const auto& op = static_cast<const tensor::SearchSorted&>(L.op);
  const std::string_view sfx = kernel_dtype_suffix(L.in(0).dtype());
  CodeWriter& w = L.body;
  w.line("const int64_t n = x0->shape[0], m = x1->shape[0];");
  if (L.nin() == 3) {
    w.line(sorter_len_check(L));
    w.open("for (int64_t i = 0; i < n; ++i)");
    w.line("const int64_t k = *(const int64_t*)(x2->data + i * x2->strides[0]);");
    w.line("if (!theano_searchsorted_sorter_entry_ok(k, n)) " + sorter_entry_fail(L, "i"));
    w.close();
  }
  w.line("o0->shape[0] = m;");
  w.line(L.alloc(0));
  w.line("theano_searchsorted_" + std::string(sfx) + "(x0->data, x0->strides[0], n, " +
         (L.nin() == 3 ? "x2->data, x2->strides[0]" : "0, 0") +
         ", x1->data, x1->strides[0], m, o0->data, o0->strides[0], " + (op.right() ? "1" : "0") + ");");
  w.line("return 0;");
}

void lower_gpu_searchsorted(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  L.cuda->need("kernels/searchsorted.h", std::string(kernel_text("searchsorted.h")));
  const auto& op = static_cast<const tensor::SearchSorted&>(L.op);
  const std::string sfx(kernel_dtype_suffix(L.in(0).dtype()));
  const bool has_sorter = L.nin() == 3;
  CodeWriter& w = L.body;
  w.line("const int64_t n = x0->shape[0], m = x1->shape[0];");
  if (has_sorter) {
    L.need("kernels/searchsorted.h", kernel_text("searchsorted.h"));
    w.line(sorter_len_check(L));
  }
  w.line("o0->shape[0] = m;");
  w.line(L.alloc(0));
  cuda::ParamBlock pb;
  const cuda::Param n = pb.int64("n", "n"), m = pb.int64("m", "m");
  const cuda::Param a = pb.pointer("a", "const char*", "x0->data"), as = pb.int64("as", "x0->strides[0]");
  const cuda::Param v = pb.pointer("v", "const char*", "x1->data"), vs = pb.int64("vs", "x1->strides[0]");
  const cuda::Param o = pb.pointer("o", "char*", "o0->data"), os = pb.int64("os", "o0->strides[0]");
  const cuda::Param s = pb.pointer("s", "const char*", has_sorter ? "x2->data" : "0");
  const cuda::Param ss = pb.int64("ss", has_sorter ? "x2->strides[0]" : "0");
  const cuda::Param err = has_sorter ? pb.pointer("err", "long long*", "err.data") : cuda::Param{};
  cuda::Kernel search(pb, L.fn + "_search", {n, m, a, as, v, vs, o, os, s, ss});
  cuda::grid_stride_loop(search.w, "j", "m");
  search.w.line("theano_searchsorted_" + sfx + "(a, as, n, s, ss, v + j * vs, vs, 1, o + j * os, os, " +
                (op.right() ? "1" : "0") + ");");
  search.w.close();
  const int ks = L.cuda->add_kernel(search, L.label);
  if (!has_sorter) {
    w.line("if (m == 0) return 0;");
    pb.declare(w);
    w.line("return " + pb.launch(ks, "m") + ";");
    return;
  }
  // Every sorter entry in [0, n), as perform checks them, before any search reads a[sorter[i]].
  cuda::Kernel check(pb, L.fn + "_sorter_check", {n, s, ss, err});
  cuda::grid_stride_loop(check.w, "i", "n");
  check.w.line("const int64_t k = *(const int64_t*)(s + i * ss);");
  check.w.line("if (!theano_searchsorted_sorter_entry_ok(k, n)) atomicMin(err, (long long)i);");
  check.w.close();
  const int kc = L.cuda->add_kernel(check, L.label);
  emit_device_check(
      L, pb, n, err,
      [&](CodeWriter& lw) { lw.line("if (n > 0) { if (int e = " + pb.launch(kc, "n") + ") return e; }"); },
      [&](CodeWriter& rw) {
        // perform's message: the first bad entry's position and value (downloaded).
        download_element(rw, "x2", "first_bad * x2->strides[0]", "int64_t", "k");
        rw.line(sorter_entry_fail(L, "first_bad"));
      });
  w.line("if (m == 0) return 0;");
  w.line("return " + pb.launch(ks, "m") + ";");
}

}  // namespace

void add_index_op_lowerings(LoweringTable& t) {
  t.add<tensor::Nonzero>(Target::Cpu, &lower_nonzero);
  t.add<tensor::Nonzero>(Target::Cuda, &lower_gpu_nonzero);
  t.add<tensor::SearchSorted>(Target::Cpu, &lower_searchsorted);
  t.add<tensor::SearchSorted>(Target::Cuda, &lower_gpu_searchsorted);
}

}  // namespace theano::codegen::lower

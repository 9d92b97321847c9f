// The C++ lowerings of the ops of theano/tensor/index_ops.h, each calling
// the kernel text its perform runs:
// - Nonzero, the op whose output's size is known only at run time: the node
//   function counts the true elements (kernels/nonzero.h), sets the output's
//   shape to (ndim, count), allocates it and fills it. Every other result
//   whose length depends on values (boolean masks, unique, compress,
//   argwhere) is a graph over this node.
// - SearchSorted: the sorter's checks (perform's messages), then one binary
//   search per value (kernels/searchsorted.h); its GPU form runs one thread a
//   value through the same function, the sorter's range checked on the
//   device (the first bad entry reported, emit_device_checked).
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

void lower_searchsorted(NodeLowering& L) {
  L.need("kernels/searchsorted.h", kernel_text("searchsorted.h"));
  const auto& op = static_cast<const tensor::SearchSorted&>(*L.node.op());
  const std::string_view sfx = kernel_dtype_suffix(L.in(0).dtype());
  CodeWriter& w = L.body;
  w.line("const int64_t n = x0->shape[0], m = x1->shape[0];");
  if (L.nin() == 3) {
    w.line("if (x2->shape[0] != n) " +
           L.fail_int2(kErrValue, "sorter has ", "x2->shape[0]", " entries, a has ", "n"));
    w.open("for (int64_t i = 0; i < n; ++i)");
    w.line("const int64_t k = *(const int64_t*)(x2->data + i * x2->strides[0]);");
    w.line("if (k < 0 || k >= n) " +
           L.fail_int3(kErrValue, "sorter[", "i", "] = ", "k", " is out of range for a of length ", "n"));
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
  const auto& op = static_cast<const tensor::SearchSorted&>(*L.node.op());
  const std::string sfx(kernel_dtype_suffix(L.in(0).dtype()));
  const bool has_sorter = L.nin() == 3;
  CodeWriter& w = L.body;
  w.line("const int64_t n = x0->shape[0], m = x1->shape[0];");
  if (has_sorter)
    w.line("if (x2->shape[0] != n) " +
           L.fail_int2(kErrValue, "sorter has ", "x2->shape[0]", " entries, a has ", "n"));
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
  check.w.line("if (k < 0 || k >= n) atomicMin(err, (long long)i);");
  check.w.close();
  const int kc = L.cuda->add_kernel(check, L.label);
  emit_device_checked(
      L, 2, pb, n, err,
      [&](CodeWriter& lw) { lw.line("if (n > 0) { if (int e = " + pb.launch(kc, "n") + ") return e; }"); },
      " is out of range for a of length n", kErrValue, "a sorter entry ");
  w.line("if (m == 0) return 0;");
  w.line("return " + pb.launch(ks, "m") + ";");
}

}  // namespace

void add_index_op_lowerings(LoweringTable& t) {
  t.add<tensor::Nonzero>(Target::Cpu, &lower_nonzero);
  t.add<tensor::SearchSorted>(Target::Cpu, &lower_searchsorted);
  t.add<tensor::SearchSorted>(Target::Cuda, &lower_gpu_searchsorted);
}

}  // namespace theano::codegen::lower

// The generic lowerings of ops with a kernel form (Op::kernel_form,
// theano/graph/op_traits.h): the op names a function of the shared kernel
// text (runtime/include/theano/runtime/kernels/<file>, the text its perform
// runs), and these write the loops and the call, on the CPU and in the CUDA
// unit. An op with a kernel form therefore has no lowering file of its own:
// the table gets its rows from the op registry (docs/adding-an-op.md).
//
// Lines (one input, one output of the input's shape) and LinesResized (the
// output line of another, fixed length m): the CPU node function calls the
// kernel on every line along the axis, ranges of lines on the loop threads
// (theano_parallel); the GPU form runs one thread a line, a grid-stride loop
// over the lines, the lines addressed as lane kernels address theirs
// (gpu_lanes.h: the kept axes merged, the axis walked). LinesResized fails
// with a ValueError when an input line is shorter than m. The line kernels
// the host compiles (host_entry: sort, argsort) are called on the CPU through
// ctx->kernels, the unit compiling none of their text.
#include <theano/graph/op_registry.h>
#include <theano/runtime/error.h>
#include <theano/tensor/type.h>

#include <string>
#include <typeindex>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"
#include "parallel_part.h"

namespace theano::codegen::lower {
namespace {

/// The TheanoHostKernels entry (runtime/kernels/host_kernels.h) holding
/// `form`'s function compiled into the host, or empty: a kernel file whose
/// line kernels the host compiles once, so that no unit compiles their text
/// (docs/jit-and-cache.md, "Host kernels"). sort.h's sort and argsort (radix,
/// intro- and heapsort of one dtype) were about a third of the Clang time of
/// W12's unit. Which kernels live in the host is the JIT's choice, not the
/// op's: the op's form names the function as its perform calls it.
std::string host_entry(const KernelForm& form) {
  constexpr std::string_view prefix = "theano_";
  if (form.file == "sort.h" && form.kind == KernelForm::Kind::Lines && form.function.starts_with(prefix))
    return form.function.substr(prefix.size());  // sort_f64, argsort_i32, ...
  return {};
}

/// The op's kernel form of L's node, its kernel text requested in the unit
/// the node's code goes to; refuses (the perform fallback runs on the CPU)
/// where the op has none for these dtypes.
KernelForm kernel_form_of(NodeLowering& L, bool on_cuda) {
  const std::optional<KernelSignature> sig = tensor::kernel_signature(L.node);
  std::optional<KernelForm> form = sig ? L.op.kernel_form(*sig) : std::nullopt;
  if (!form)
    refuse(L.node, LoweringReason::Dtype,
           " (no kernel form for dtype " + std::string(dtype_name(L.out(0).dtype())) + ")");
  THEANO_INTERNAL_CHECK(form->kind == KernelForm::Kind::Lines || form->kind == KernelForm::Kind::LinesResized)
      << L.label << ": an unknown kernel form kind";
  THEANO_INTERNAL_CHECK(L.nin() == 1 && L.nout() == 1 && form->axis >= 0 && form->axis < L.in(0).ndim())
      << L.label << ": a Lines kernel form needs one input, one output and an axis below the rank, got axis "
      << form->axis;
  THEANO_INTERNAL_CHECK(form->kind == KernelForm::Kind::Lines || form->out_len >= 1)
      << L.label << ": a LinesResized kernel form needs an output length of at least 1, got " << form->out_len;
  const std::string key = "kernels/" + form->file;
  if (on_cuda)
    L.cuda->need(key, std::string(kernel_text(form->file)));
  else if (host_entry(*form).empty())  // else the function is the host's (its table is in the prelude)
    L.need(key, kernel_text(form->file));
  return *form;
}

/// The statements checking a LinesResized input's line is at least m long.
void emit_resized_check(NodeLowering& L, const KernelForm& form) {
  if (form.kind != KernelForm::Kind::LinesResized) return;
  L.body.line("if (x0->shape[" + str(form.axis) + "] < " + str(form.out_len) + ") " +
              L.fail_int(kErrValue, "axis " + str(form.axis) + " has length ", "x0->shape[" + str(form.axis) + "]",
                         ", fewer than the " + str(form.out_len) + " elements this op takes from each line"));
}

void lower_lines(NodeLowering& L) {
  const KernelForm form = kernel_form_of(L, false);
  const bool resized = form.kind == KernelForm::Kind::LinesResized;
  const int nd = L.in(0).ndim();
  L.loops_outlined = true;  // the lines are a part function
  CodeWriter& w = L.body;
  emit_resized_check(L, form);
  for (int d = 0; d < nd; ++d)
    w.line("o0->shape[" + str(d) + "] = " + (resized && d == form.axis ? str(form.out_len) : "x0->shape[" + str(d) + "]") +
           ";");
  w.line(L.alloc(0));
  w.line("if (theano_size(x0) == 0 || theano_size(o0) == 0) return 0;");
  const std::string as = str(form.axis);
  // One kernel call per line, the lines split into ranges that
  // theano_parallel may run on the loop threads (a line's work is n log n
  // for a sort, n for a scan: ranges of at least 2^14 elements). A line
  // index is taken apart into the other axes' indices, the last fastest.
  CodeWriter& f = L.file;
  const std::string args_t = L.fn + "_args";
  // A host kernel (host_entry) is called through the pointer the node
  // function reads from ctx->kernels; otherwise by its name.
  const std::string entry = host_entry(form);
  const bool host = !entry.empty();
  f.open("struct " + args_t);
  f.line("const TheanoArray* x0;");
  f.line("TheanoArray* o0;");
  if (host) f.line("void (*kernel)(const char*, int64_t, char*, int64_t, int64_t);");
  f.close(";");
  const ParallelPart part{L.fn + "_lines", args_t};
  part.open(f);
  f.line("const TheanoArray* x0 = args->x0;");
  f.line("TheanoArray* o0 = args->o0;");
  f.line("const int64_t n = x0->shape[" + as + "], xs = x0->strides[" + as + "], os = o0->strides[" + as + "];");
  f.open("for (int64_t line = lo; line < hi; ++line)");
  f.line("int64_t rest = line, xoff = 0, ooff = 0;");
  for (int d = nd - 1; d >= 0; --d) {
    if (d == form.axis) continue;
    const std::string ds = str(d);
    f.line("{ const int64_t i = rest % x0->shape[" + ds + "]; rest /= x0->shape[" + ds + "]; xoff += i * x0->strides[" +
           ds + "]; ooff += i * o0->strides[" + ds + "]; }");
  }
  THEANO_INTERNAL_CHECK(!host || !resized) << L.label << ": a host kernel of a LinesResized form";
  f.line((host ? std::string("args->kernel") : form.function) + "(x0->data + xoff, xs, o0->data + ooff, os, n" +
         (resized ? ", " + str(form.out_len) : "") + ");");
  f.close();
  f.close();
  w.line("const int64_t n = x0->shape[" + as + "], lines = theano_size(x0) / n;");
  w.line(args_t + " args = {x0, o0" + (host ? ", ctx->kernels->" + entry : std::string()) + "};");
  w.line(part.run("lines", "(16384 + n - 1) / n", "args") + ";");
  w.line("return 0;");
}

void lower_gpu_lines(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const KernelForm form = kernel_form_of(L, true);
  const bool resized = form.kind == KernelForm::Kind::LinesResized;
  CodeWriter& w = L.body;
  emit_resized_check(L, form);
  const LaneLayout l = emit_axis_lanes(L, form.axis, resized ? form.out_len : -1);
  const cuda::ParamBlock& pb = l.params;
  cuda::Kernel k(pb, L.fn + "_lines", {l.lanes, l.len});
  cuda::grid_stride_loop(k.w, "lane", "lanes");
  lane_bases(k.w, l, "lane");
  // One reduced axis: its merged stride is element 0 of each array's reduced strides.
  k.w.line(form.function + "(b0, " + pb.at(l.reduced_strides[0], 0) + ", (char*)b1, " + pb.at(l.reduced_strides[1], 0) +
           ", len" + (resized ? ", " + str(form.out_len) : "") + ");");
  k.w.close();
  const int kl = L.cuda->add_kernel(k, L.label);
  pb.declare(w);
  w.line("if (lanes == 0 || len == 0) return 0;");
  w.line("return " + pb.launch(kl, "lanes") + ";");
}

}  // namespace

void add_kernel_form_lowerings(LoweringTable& t) {
  // Every registered class that overrides Op::kernel_form, whatever library
  // or program defined it (registration runs before main).
  for (const OpInfo& op : registered_ops()) {
    if (!op.has_kernel_form) continue;
    t.add(std::type_index(*op.type), Target::Cpu, &lower_lines);
    t.add(std::type_index(*op.type), Target::Cuda, &lower_gpu_lines);
  }
}

}  // namespace theano::codegen::lower

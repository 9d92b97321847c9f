/// \file
/// The GPU transfer rewrite (Theano's gpu optimizer, here after fusion, like
/// its `gpu_after_fusion`; stage "gpu_transfer" at 49.3, tag `gpu`): with
/// THEANO_FLAGS device=cuda/auto/emulated selecting a GPU context, elementwise
/// work and the views and allocations around it move to the GPU greedily.
///
/// 1. Seed (Theano's InputToGpuOptimizer): every graph input x of a dtype the
///    GPU handles is used through `HostFromGpu(GpuFromHost(x))`.
/// 2. Move: an Elemwise (Composite included) or a host op with a GPU form
///    (gpu::gpu_op_inputs: views, Alloc, Join, Split, the indexing ops,
///    reductions, Argmax, softmax, the cross-entropies, the BLAS ops) whose data input comes from the GPU (a
///    HostFromGpu) or whose output goes to the GPU (a GpuFromHost client)
///    becomes its GPU form over transferred
///    inputs, `HostFromGpu(GpuElemwise(GpuFromHost(x), ...))`, repeated to a
///    fixed point, so a chain of such nodes moves as a whole while a node
///    between two CPU-only ops (joins of mixed dtypes) stays on the CPU. Only
///    elementwise ops with a C expression move (the kernels are made from it).
/// 3. Views back: a view (DimShuffle, Subtensor, Reshape) of a value seeded
///    from the host whose every client is a transfer back, e.g. `x.T` read
///    only by a CPU dot, goes back to the host: on the GPU it would only send
///    x up and its view down again.
/// 4. Cancel: `GpuFromHost(HostFromGpu(g))` -> g (a value stays on the GPU
///    between two GPU nodes) and unused seeds `HostFromGpu(GpuFromHost(x))`
///    -> x.
/// The result is "copy the inputs to the GPU, compute there, copy the outputs
/// back". Running after fusion moves each fused loop as one kernel.
///
/// `local_cut_gpu_transfers` (canonicalize, whatever the device; Theano's
/// rewrite of that name) cancels the same pairs early: a graph that reads GPU
/// values (GPU shared variables, their gradients) then fuses across them as
/// if they were not there.
#include <algorithm>
#include <optional>
#include <vector>

#include "rewrites.h"
#include "theano/fgraph/function_graph.h"
#include "theano/gpu/context.h"
#include "theano/gpu/ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::rewrite::detail {
namespace {

using gpu::as_gpu_from_host;
using gpu::as_host_from_gpu;

bool host_tensor_on_gpu_ok(const Var& v) {
  const tensor::TensorType* t = tensor::tensor_type(v);
  return t && gpu::gpu_dtype_supported(t->dtype());
}

/// The GPU form of a node: its op and which inputs are GPU arrays (the
/// others, like Alloc's shape, stay host values).
struct GpuForm {
  OpPtr op;
  std::vector<bool> gpu_inputs;
};

/// An Elemwise the CUDA emitter can compile (no inplace pattern, a C
/// expression for its scalar code, a kernel parameter block within CUDA's
/// limit), or a host op with a GPU form (gpu::gpu_op_inputs: views, Alloc,
/// Join, indexing, reductions, softmax, the cross-entropies, BLAS), with every data input and
/// output of a GPU-supported dtype; nullopt otherwise.
std::optional<GpuForm> gpu_form(const Apply& node, const std::string& context) {
  const Op& op = *node.op();
  const auto* e = dynamic_cast<const tensor::Elemwise*>(&op);
  std::optional<std::vector<bool>> data =
      e ? std::optional<std::vector<bool>>(std::vector<bool>(static_cast<std::size_t>(node.nin()), true))
        : gpu::gpu_op_inputs(node);
  if (!data) return std::nullopt;
  for (int i = 0; i < node.nin(); ++i)
    if ((*data)[static_cast<std::size_t>(i)] && !host_tensor_on_gpu_ok(node.input(i))) return std::nullopt;
  for (const Var& v : node.outputs())
    if (!host_tensor_on_gpu_ok(v)) return std::nullopt;
  if (e) {
    if (!e->inplace_pattern().empty()) return std::nullopt;
    const int nd = tensor::tensor_type(node.output(0))->ndim();
    if (gpu::elemwise_kernel_params(nd, node.nin() + node.nout()) > gpu::kMaxKernelParams) return std::nullopt;
    const tensor::ScalarOp& sop = *e->scalar_op();
    const auto* comp = dynamic_cast<const tensor::Composite*>(&sop);
    if (comp ? !comp->c_program().has_value() : sop.c_expr().empty()) return std::nullopt;
    return GpuForm{OpPtr(new gpu::GpuElemwise(IntrusivePtr<const tensor::Elemwise>(e))), *data};
  }
  const bool any_gpu_input = std::find(data->begin(), data->end(), true) != data->end();
  return GpuForm{OpPtr(new gpu::GpuOp(node.op(), *data, gpu::gpu_op_outputs(node), any_gpu_input ? "" : context)),
                 *data};
}

bool wants_gpu(const FunctionGraph& fg, const Apply& node, const std::vector<bool>& gpu_inputs) {
  for (int i = 0; i < node.nin(); ++i)
    if (gpu_inputs[static_cast<std::size_t>(i)] && as_host_from_gpu(node.input(i))) return true;
  for (const Var& out : node.outputs())
    for (const auto& c : fg.clients(out))
      if (c.node && as_gpu_from_host(c.node->output(0))) return true;
  return false;
}

bool seed_inputs(FunctionGraph& fg, const std::string& context) {
  bool changed = false;
  for (const Var& x : std::vector<Var>(fg.inputs())) {
    if (!host_tensor_on_gpu_ok(x)) continue;
    const auto clients = fg.clients(x);  // a copy: change_input edits the list
    if (clients.empty()) continue;
    Var seeded;
    for (const auto& c : clients) {
      if (!c.node) continue;  // x is an output of the graph
      if (!seeded) seeded = gpu::host_from_gpu(gpu::gpu_from_host(x, context));
      fg.change_input(c.node, c.index, seeded, "gpu_transfer");
      changed = true;
    }
  }
  return changed;
}

bool move_nodes(FunctionGraph& fg, const std::string& context, RewriteStats::Entry& entry) {
  bool changed_any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (Apply* node : fg.toposort()) {
      const std::optional<GpuForm> form = gpu_form(*node, context);
      if (!form || !wants_gpu(fg, *node, form->gpu_inputs)) continue;
      ++entry.tried;
      std::vector<Var> inputs;
      for (int i = 0; i < node->nin(); ++i) {
        const Var& in = node->input(i);
        const Apply* h = as_host_from_gpu(in);
        if (!form->gpu_inputs[static_cast<std::size_t>(i)])
          inputs.push_back(in);
        else if (h && gpu::gpu_type(h->input(0))->context() == context)
          inputs.push_back(h->input(0));
        else
          inputs.push_back(gpu::gpu_from_host(in, context));
      }
      const std::vector<Var> gpu_outs = form->op->make_node(std::move(inputs))->outputs();
      std::vector<std::pair<Var, Var>> pairs;
      for (int k = 0; k < node->nout(); ++k) {
        const Var& out = gpu_outs[static_cast<std::size_t>(k)];
        out->set_name(node->output(k).name());
        // A host output of the GPU form (a random op's state) replaces the old one as it is.
        Var back = gpu::gpu_type(out) ? gpu::host_from_gpu(out) : out;
        back->set_name(node->output(k).name());
        pairs.emplace_back(node->output(k), back);
      }
      fg.replace_all(pairs, "gpu_transfer");
      ++entry.applied;
      changed = changed_any = true;
      break;  // the toposort changed
    }
  }
  return changed_any;
}

/// A view moved because its input was seeded onto the GPU, whose every
/// client is a transfer back, moves nothing but bytes (up and down again, a
/// gather kernel between): it goes back to the host.
/// HostFromGpu(GpuView(GpuFromHost(x), ...)) -> View(x, ...).
bool keep_host_views(FunctionGraph& fg, RewriteStats::Entry& entry) {
  bool changed_any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (Apply* node : fg.toposort()) {
      const auto* g = dynamic_cast<const gpu::GpuOp*>(node->op().get());
      if (!g || g->view_map().empty()) continue;
      std::vector<Var> host_inputs;
      bool from_host = true;
      for (int i = 0; i < node->nin() && from_host; ++i) {
        const Var& in = node->input(i);
        const Apply* up = g->gpu_inputs()[static_cast<std::size_t>(i)] ? as_gpu_from_host(in) : nullptr;
        from_host = up || !g->gpu_inputs()[static_cast<std::size_t>(i)];
        host_inputs.push_back(up ? up->input(0) : in);
      }
      if (!from_host) continue;
      bool to_host = true, used = false;
      for (const Var& out : node->outputs())
        for (const auto& c : fg.clients(out)) {
          used = true;
          to_host = to_host && c.node && as_host_from_gpu(c.node->output(0));
        }
      if (!to_host || !used) continue;
      ++entry.tried;
      const std::vector<Var> outs = g->host_op().make_node(std::move(host_inputs))->outputs();
      std::vector<std::pair<Var, Var>> pairs;
      for (int k = 0; k < node->nout(); ++k)
        for (const auto& c : fg.clients(node->output(k))) {
          const Var back = c.node->output(0);
          if (!same_type(back.type(), outs[static_cast<std::size_t>(k)].type())) continue;
          outs[static_cast<std::size_t>(k)]->set_name(back.name());
          pairs.emplace_back(back, outs[static_cast<std::size_t>(k)]);
        }
      if (pairs.empty()) continue;
      fg.replace_all(pairs, "gpu_transfer");
      ++entry.applied;
      changed = changed_any = true;
      break;  // the toposort changed
    }
  }
  return changed_any;
}

bool cancel_transfers(FunctionGraph& fg) {
  bool changed_any = false;
  for (bool changed = true; changed;) {
    changed = false;
    for (Apply* node : fg.toposort()) {
      if (node->nout() != 1) continue;
      const Var out = node->output(0);
      if (const Apply* h = as_host_from_gpu(node->input(0)); h && as_gpu_from_host(out)) {
        // GpuFromHost(HostFromGpu(g)) -> g when g is on the same context.
        if (!same_type(h->input(0).type(), out.type())) continue;
        fg.replace(out, h->input(0), "gpu_transfer");
      } else if (const Apply* g = as_gpu_from_host(node->input(0)); g && as_host_from_gpu(out)) {
        fg.replace(out, g->input(0), "gpu_transfer");  // an unused seed
      } else {
        continue;
      }
      changed = changed_any = true;
      break;  // the toposort changed
    }
  }
  return changed_any;
}

}  // namespace

NodeRewriterPtr local_cut_gpu_transfers() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_cut_gpu_transfers", {"HostFromGpu", "GpuFromHost"},
      "HostFromGpu(GpuFromHost(x)) -> x; GpuFromHost(HostFromGpu(g)) -> g (same context)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const Var out = node.output(0);
        const Apply* inner = node.input(0).owner();
        const bool pair = inner && ((as_host_from_gpu(out) && as_gpu_from_host(inner->output(0))) ||
                                    (as_gpu_from_host(out) && as_host_from_gpu(inner->output(0))));
        if (!pair) return RewriteResult::fail("not a transfer of a transfer");
        const Var& x = inner->input(0);
        if (!same_type(x.type(), out.type())) return RewriteResult::fail("another GPU context");
        return x;
      });
  return r;
}

GraphRewriterPtr gpu_transfer() {
  static const GraphRewriterPtr r = make_graph_rewriter("gpu_transfer", [](FunctionGraph& fg, RewriteStats& stats) {
    const std::optional<std::string> context = gpu::selected_context();
    if (!context) return false;
    auto& entry = stats.entries["gpu_transfer"];
    bool changed = seed_inputs(fg, *context);
    changed = move_nodes(fg, *context, entry) || changed;
    changed = keep_host_views(fg, entry) || changed;
    changed = cancel_transfers(fg) || changed;
    return changed;
  });
  return r;
}

}  // namespace theano::rewrite::detail

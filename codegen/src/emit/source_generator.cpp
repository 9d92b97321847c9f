// The CLinker's source generator (source_generator.h).
#include "source_generator.h"

#include <theano/control/scan.h>
#include <theano/gpu/type.h>
#include <theano/runtime/error.h>
#include <theano/tensor/type.h>

#include <algorithm>

namespace theano::codegen {

using lower::NodeLowering;
using lower::str;
using lower::ttype;
using tensor::TensorType;

namespace {

void check_type(const Apply& node, const Var& v) {
  const TensorType* t = tensor::tensor_type(v);
  if (!t && lower::on_gpu(v)) t = &ttype(v);  // a GPU array: its host twin's dtype and rank
  if (!t) lower::refuse(node, LoweringReason::NonTensor, " (a non-tensor variable)");
  if (!lower::c_type(t->dtype()))
    lower::refuse(node, LoweringReason::Dtype, std::string(" (dtype ") + std::string(dtype_name(t->dtype())) + ")");
  if (t->ndim() > THEANO_MAX_NDIM)
    lower::refuse(node, LoweringReason::Rank, " (more than " + std::to_string(THEANO_MAX_NDIM) + " dimensions)");
}

/// The lazy schedule of `fg` for generated code: an IfElse is lazy when its
/// condition is a host scalar of a dtype the code reads.
LazySchedule host_schedule(const FunctionGraph& fg) {
  return lazy_schedule(fg, [](const Apply& node) {
    const tensor::TensorType* t = tensor::tensor_type(node.input(0));
    return t != nullptr && lower::c_type(t->dtype()) != nullptr;
  });
}

/// The least node-function source (optimized functions and an outlined
/// node's loops count fully, unoptimized code a tenth) worth a translation
/// unit of its own: below it, a second front end and thread cost more than
/// they save. The second unit's front end (on a precompiled prelude) runs on
/// the other core, so two units pay from about two small loops on. Cold
/// compiles (one process each, float64) in two units against one, measured
/// while the -O pipeline still optimized optnone functions
/// (clang_compiler.cpp): W12 59 -> 42 ms, W8g 128 -> 97, W13 157 -> 118, W2
/// 144 -> 108; an exp, a sum and a max of one vector (weight 4900) 73 -> 52;
/// an exp and a sum (2850) 53 -> 54.
constexpr std::size_t kSplitWeight = 1300;

}  // namespace

std::string Generator::name_of(const Var& v) {
  auto it = names.find(v.get());
  if (it != names.end()) return it->second;
  const Constant* c = v.as_constant();
  THEANO_INTERNAL_CHECK(c != nullptr) << "variable " << v.str() << " has no producer in the graph";
  const std::string n = "&ctx->constants[" + str(static_cast<std::int64_t>(constants.size())) + "]";
  refs[v.get()] = ArrayRef{'c', static_cast<std::int64_t>(constants.size())};
  constants.push_back(c);
  names[v.get()] = n;
  return n;
}

void Generator::perform_fallback(NodeLowering& L, LoweringReason reason, const std::string& why) {
  if (!allow_fallback) lower::refuse(L.node, reason, why);
  for (const Var& v : L.node.inputs())
    if (!tensor::tensor_type(v)) lower::refuse(L.node, LoweringReason::NonTensor, " (a non-tensor input)");
  for (int k = 0; k < L.nout(); ++k)
    if (!tensor::tensor_type(L.node.output(k)))
      lower::refuse(L.node, LoweringReason::NonTensor, " (a non-tensor output)");
  L.ns.clear();
  L.file = CodeWriter();
  L.body = CodeWriter();
  std::string in = "const TheanoArray* in[" + str(std::max(L.nin(), 1)) + "] = {";
  for (int i = 0; i < L.nin(); ++i) in += (i ? ", x" : "x") + str(i);
  L.body.line(in + (L.nin() ? "};" : "0};"));
  std::string out = "TheanoArray* out[" + str(std::max(L.nout(), 1)) + "] = {";
  for (int k = 0; k < L.nout(); ++k) out += (k ? ", o" : "o") + str(k);
  L.body.line(out + (L.nout() ? "};" : "0};"));
  L.cold = true;
  L.body.line("// no lowering" + why + ": the op's perform runs on the host");
  L.body.line("return ctx->perform(ctx->host, " + str(static_cast<std::int64_t>(fallback.size())) + ", in, out);");
  fallback.push_back(&L.node);
}

void Generator::note_gpu_context(const Apply& node) {
  auto note = [&](const Var& v) {
    const gpu::GpuArrayType* g = gpu::gpu_type(v);
    if (!g) return;
    if (gpu_context.empty()) gpu_context = g->context();
    if (g->context() != gpu_context)
      lower::refuse(node, LoweringReason::Gpu,
                    " (GPU arrays of two contexts, " + gpu_context + " and " + g->context() + ", in one function)");
  };
  for (const Var& v : node.inputs()) note(v);
  for (const Var& v : node.outputs()) note(v);
}

std::string Generator::run_body(const std::string& name) {
  for (std::size_t i = 0; i < fg.inputs().size(); ++i)
    names[fg.inputs()[i].get()] = "in[" + str(static_cast<std::int64_t>(i)) + "]";
  for (const Var& v : fg.inputs())
    if (lower::on_gpu(v)) throw LoweringError("a scan step over GPU arrays", LoweringReason::Gpu, "");
  schedule = host_schedule(fg);
  const std::vector<Apply*>& order = schedule.order;
  step_nodes.assign(order.begin(), order.end());
  plan = plan_memory(fg, order, options);
  for (auto& [v, s] : plan.slot) s += slot_base;
  plan.nslots += slot_base;
  for (std::size_t t = 0; t < order.size(); ++t) lower_node(t, *order[t]);
  if (!gpu_context.empty()) throw LoweringError("a scan step with GPU nodes", LoweringReason::Gpu, "");
  CodeWriter w;
  for (const NodeFunction& f : functions) w.raw(f.text);
  // Not inlined into the scan's loop over steps: with its node functions
  // inlined, the loop's body was the largest function of W9's first unit
  // (loop strength reduction over it alone about 35 ms of Clang). Not
  // optimized either: like a cut function's entry, it only calls the node
  // functions in order.
  w.open("THEANO_UNOPTIMIZED static int " + name +
             "(TheanoContext* ctx, const TheanoArray* const* in, TheanoArray* const* out)",
         name);
  assemble(w, blocks);
  for (std::size_t o = 0; o < fg.outputs().size(); ++o)
    w.line("*out[" + str(static_cast<std::int64_t>(o)) + "] = *" + name_of(fg.outputs()[o]) + ";");
  w.line("return 0;");
  w.close();
  w.line("");
  return w.str();
}

std::string Generator::guard_condition(std::size_t t) {
  std::string r;
  for (const LazySchedule::Term& term : schedule.guards[t]) {
    const Var& cond = schedule.order[term.ifelse]->input(0);
    const std::string value = std::string("(*(const ") + lower::c_type(ttype(cond).dtype()) + "*)(" +
                              name_of(cond) + ")->data != 0)";
    r += (r.empty() ? "" : " && ") + (term.truth ? value : "!" + value);
  }
  return r;
}

void Generator::lower_node(std::size_t t, const Apply& node) {
  std::vector<std::int64_t> slots;
  for (int k = 0; k < node.nout(); ++k) {
    auto it = plan.slot.find(node.output(k).get());
    slots.push_back(it == plan.slot.end() ? -1 : it->second);
  }
  CodeWriter body, file;
  NodeLowering L(node, t, body, file, support_keys, support, std::move(slots), fn_prefix, label_prefix);
  L.cuda = &cuda;
  note_gpu_context(node);
  const bool scan = as_scan(node) != nullptr;  // lowered here: it needs an inner Generator
  const lower::LowerFn fn = scan ? nullptr : lower::find_lowering(*node.op());
  if (!fn && !scan) {
    perform_fallback(L, LoweringReason::NoLowering, " yet");
  } else {
    try {
      for (const Var& v : node.inputs()) check_type(node, v);
      for (int k = 0; k < node.nout(); ++k) check_type(node, node.output(k));
      if (scan) lower_scan(L);
      else fn(L);
    } catch (const LoweringError& e) {
      perform_fallback(L, e.reason(), e.detail());
    } catch (const MethodNotDefined&) {
      // An op method the lowering needed is missing (infer_shape, ...): the op's perform runs instead.
      perform_fallback(L, LoweringReason::NoLowering, "");
    }
  }
  const int nin = node.nin(), nout = node.nout();
  CodeWriter w;
  if (!L.ns.empty()) w.line("namespace " + L.ns + " {");
  w.append(file);
  const std::size_t file_size = w.str().size();
  // An outlined node's loops (in `file`) are optimized, its checks are not.
  const bool loops = lower::worth_optimizing(L);
  const bool optimized = loops && !L.loops_outlined;
  std::string params = "(TheanoContext* ctx";
  for (int i = 0; i < nin; ++i) params += ", const TheanoArray* x" + str(i);
  for (int k = 0; k < nout; ++k) params += ", TheanoArray* o" + str(k);
  params += ")";
  w.open(std::string(optimized ? "" : "THEANO_UNOPTIMIZED ") + "THEANO_LINKAGE int " + L.fn + params, L.fn);
  std::string all;
  for (int i = 0; i < nin; ++i) all += (i ? ", x" : "x") + str(i);
  w.line("const TheanoArray* all[" + str(std::max(nin, 1)) + "] = {" + (nin ? all : std::string("0")) + "};");
  w.line("(void)all;");
  for (int k = 0; k < nout; ++k) {
    const TensorType& ot = ttype(node.output(k));
    w.line("o" + str(k) + "->ndim = " + str(ot.ndim()) + "; o" + str(k) +
           "->dtype = " + str(static_cast<int>(ot.dtype())) + "; o" + str(k) + "->owner = -1;");
  }
  w.append(body);
  w.close();
  if (!L.ns.empty()) w.line("}  // namespace " + L.ns);
  w.line("");
  NodeFunction nf;
  nf.text = w.str();
  nf.declaration =
      (L.ns.empty() ? "" : "namespace " + L.ns + " { ") + "int " + L.fn + params + ";" + (L.ns.empty() ? "" : " }");
  nf.weight = optimized ? nf.text.size()
              : loops    ? file_size + (nf.text.size() - file_size) / 10
                         : nf.text.size() / 10;
  functions.push_back(std::move(nf));

  NodeCode nc;
  nc.name = L.label;
  std::string call = "if (int e = " + (L.ns.empty() ? std::string() : L.ns + "::") + L.fn + "(ctx";
  for (int i = 0; i < nin; ++i) call += ", " + name_of(node.input(i));
  for (int k = 0; k < nout; ++k) {
    std::string ref;
    if (opwise) {
      refs[node.output(k).get()] = ArrayRef{'v', nvars};
      ref = "&ctx->vars[" + str(nvars++) + "]";
    } else {
      const std::string out = "n" + str(static_cast<std::int64_t>(t)) + "_" + str(k);
      nc.init.line("TheanoArray " + out + ";");
      ref = "&" + out;
    }
    call += ", " + ref;
    names[node.output(k).get()] = ref;
  }
  labels.push_back(L.label);
  if (opwise) {
    step_in.emplace_back();
    step_out.emplace_back();
    for (const Var& v : node.inputs()) step_in.back().push_back(refs.at(v.get()));
    for (int k = 0; k < nout; ++k) step_out.back().push_back(refs.at(node.output(k).get()));
  }
  const std::string guard = guard_condition(t);
  if (guard.empty()) {
    nc.compute.line(call + ")) return e;");
  } else {
    nc.compute.open("if (" + guard + ")", "a branch of an IfElse");
    nc.compute.line(call + ")) return e;");
    nc.compute.close();
    // theano_step says the host skipped the node (no output to observe).
    if (opwise) nc.compute.line("else return THEANO_STEP_SKIPPED;");
  }
  blocks.push_back(std::move(nc));
}

std::vector<std::string> Generator::run(int max_units) {
  for (std::size_t i = 0; i < fg.inputs().size(); ++i) {
    names[fg.inputs()[i].get()] = "&ctx->inputs[" + str(static_cast<std::int64_t>(i)) + "]";
    refs[fg.inputs()[i].get()] = ArrayRef{'i', static_cast<std::int64_t>(i)};
  }
  // GPU arrays the function takes or returns directly (a GPU shared variable,
  // its update) put it on their GPU even when no node computes there.
  std::vector<Var> ends = fg.inputs();
  ends.insert(ends.end(), fg.outputs().begin(), fg.outputs().end());
  for (const Var& v : ends) {
    const gpu::GpuArrayType* g = gpu::gpu_type(v);
    if (!g) continue;
    if (gpu_context.empty()) gpu_context = g->context();
    THEANO_USER_CHECK(g->context() == gpu_context, ValueError)
        << "the cpp linker compiles a function for one GPU; this one takes or returns arrays of " << gpu_context
        << " and " << g->context() << " (" << v.str() << ")";
  }
  // The lazy schedule: nodes only one branch of an IfElse needs run inside
  // `if` blocks on its host condition.
  schedule = host_schedule(fg);
  const std::vector<Apply*>& order = schedule.order;
  step_nodes.assign(order.begin(), order.end());
  plan = plan_memory(fg, order, options);
  for (std::size_t t = 0; t < order.size(); ++t) lower_node(t, *order[t]);

  // The entry, written first: unit 0 compiles it beside its node functions,
  // so it counts toward unit 0's share. Optimized, at half its size (mostly
  // calls and branches, cheaper to optimize than loops); a function cut into
  // several units runs it unoptimized (below), at a tenth of its size as the
  // other THEANO_UNOPTIMIZED functions.
  CodeWriter entry;
  entry.line("// ---- entry");
  if (opwise) {
    entry.open("extern \"C\" int theano_step(TheanoContext* ctx, int64_t t)", "theano_step");
    entry.open("switch (t)");
    for (std::size_t t = 0; t < blocks.size(); ++t) {
      entry.line("case " + str(static_cast<std::int64_t>(t)) + ":  // " + blocks[t].name);
      entry.append(blocks[t].compute);
      entry.line("  return 0;");
    }
    entry.close();
    entry.line("return 0;");
    entry.close();
    entry.open("extern \"C\" int theano_finish(TheanoContext* ctx)", "theano_finish");
  } else {
    entry.open("extern \"C\" int theano_entry(TheanoContext* ctx)", "theano_entry");
    assemble(entry, blocks);
  }
  for (std::size_t o = 0; o < fg.outputs().size(); ++o) {
    const Var& v = fg.outputs()[o];
    entry.line("ctx->outputs[" + str(static_cast<std::int64_t>(o)) + "] = *" + name_of(v) + ";");
  }
  entry.line("return 0;");
  entry.close();
  std::string entry_text = entry.str();

  // The number of units: the node functions' weight and the optimized
  // entry's, in kSplitWeight shares.
  std::size_t nodes_weight = 0;
  for (const NodeFunction& f : functions) nodes_weight += f.weight;
  const std::size_t units = std::clamp<std::size_t>(
      std::min<std::size_t>(static_cast<std::size_t>(std::max(max_units, 1)),
                            (nodes_weight + entry_text.size() / 2) / kSplitWeight),
      1, std::max<std::size_t>(functions.size(), 1));
  // Cut into units, the entry is not optimized: it calls the node functions
  // in order, and -O2 inlined unit 0's (static, called once) into it and
  // optimized the whole again, 4-6% of that unit's Clang instructions (W3,
  // W9), a nanosecond a node at run time.
  const std::string entry_signature = "extern \"C\" int theano_entry(";
  const std::size_t at = entry_text.find(entry_signature);
  if (units > 1 && at != std::string::npos)
    entry_text.replace(at, entry_signature.size(), "extern \"C\" THEANO_UNOPTIMIZED int theano_entry(");
  const std::size_t entry_weight = entry_text.size() / (units > 1 ? 10 : 2);

  // Consecutive runs of nodes of about equal weight, one per unit, unit 0's
  // run shorter by the entry's weight.
  const std::size_t total = entry_weight + nodes_weight;
  std::vector<std::size_t> unit_of(functions.size(), 0);
  std::size_t acc = entry_weight;
  for (std::size_t t = 0; t < functions.size(); ++t) {
    unit_of[t] = std::min(units - 1, acc * units / std::max<std::size_t>(total, 1));
    acc += functions[t].weight;
  }
  std::vector<CodeWriter> src(units);
  for (std::size_t u = 0; u < units; ++u) {
    src[u].raw(lower::prelude());
    src[u].line("");
    src[u].line(u == 0 ? "#define THEANO_LINKAGE static" : "#define THEANO_LINKAGE");
    if (!support.empty()) {
      src[u].line("// ---- support code");
      src[u].append(support);
    }
    src[u].line("// ---- per-node functions");
  }
  for (std::size_t t = 0; t < functions.size(); ++t) src[unit_of[t]].raw(functions[t].text);
  if (units > 1) {
    src[0].line("// ---- node functions of the other translation units");
    for (std::size_t t = 0; t < functions.size(); ++t)
      if (unit_of[t] != 0) src[0].line(functions[t].declaration);
  }
  src[0].raw(entry_text);
  std::vector<std::string> r;
  for (const CodeWriter& w : src) r.push_back(w.str());
  return r;
}

std::string join_units(const std::vector<std::string>& units) {
  std::string r = units[0];
  for (std::size_t u = 1; u < units.size(); ++u)
    r += "\n// ==== translation unit " + std::to_string(u) + " (compiled on its own)\n" + units[u];
  return r;
}

}  // namespace theano::codegen

/// \file
/// vectorize / blockwise (theano/tensor/vectorize.h): the batch axes
/// broadcast (broadcast_to), merged into one (Reshape), the core computation
/// mapped over it (scan_map), and the outputs' batch axes restored.
#include "theano/tensor/vectorize.h"

#include <cctype>
#include <map>
#include <optional>
#include <string>

#include "theano/control/scan.h"
#include "theano/graph/toposort.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

/// The ranks of one side of a signature: "(m,n),(n)" -> {2, 1}.
std::vector<int> parse_side(std::string_view side, std::string_view whole) {
  std::vector<int> r;
  std::size_t i = 0;
  auto bad = [&](const std::string& why) {
    throw ValueError("vectorize: bad signature \"" + std::string(whole) + "\": " + why);
  };
  while (i < side.size()) {
    if (side[i] != '(') bad("expected '(' at \"" + std::string(side.substr(i)) + "\"");
    const std::size_t close = side.find(')', i);
    if (close == std::string_view::npos) bad("a '(' without its ')'");
    const std::string_view inner = side.substr(i + 1, close - i - 1);
    int rank = 0;
    if (!inner.empty()) {
      rank = 1;
      for (const char c : inner) {
        if (c == ',') ++rank;
        else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) bad(std::string("unexpected '") + c + "'");
      }
    }
    r.push_back(rank);
    i = close + 1;
    if (i < side.size()) {
      if (side[i] != ',') bad("expected ',' between core shapes");
      ++i;
      if (i == side.size()) bad("a trailing ','");
    }
  }
  return r;
}

using ShapeMap = std::map<Var, std::vector<Var>, VarLess>;

/// v's symbolic shape from the shapes of the variables in `known` (each op's
/// infer_shape up the graph; a variable outside it gives its own shape).
/// MethodNotDefined when an op on the way has no infer_shape.
const std::vector<Var>& symbolic_shape(const Var& v, ShapeMap& known) {
  if (const auto it = known.find(v); it != known.end()) return it->second;
  std::vector<Var> r;
  const int nd = tensor_type(v) ? tensor_type(v)->ndim() : 0;
  if (const Apply* node = v.owner()) {
    std::vector<std::vector<Var>> in;
    for (int i = 0; i < node->nin(); ++i) in.push_back(symbolic_shape(node->input(i), known));
    const std::vector<std::vector<Var>> out = node->op()->infer_shape(*node, in);
    for (int o = 0; o < node->nout(); ++o) known[node->output(o)] = out[static_cast<std::size_t>(o)];
    return known.at(v);
  }
  for (int d = 0; d < nd; ++d) r.push_back(shape_i(v, d));
  return known[v] = r;
}

/// fn(inputs) itself when every input has one core rank and fn's graph on
/// stand-ins of that rank is only Elemwise nodes (and DimShuffles adding
/// leading axes) with outputs of that rank.
std::optional<std::vector<Var>> elementwise_shortcut(
    const std::function<std::vector<Var>(const std::vector<Var>&)>& fn, const std::vector<Var>& inputs,
    const CoreSignature& sig, int nb) {
  const int core = sig.inputs.empty() ? 0 : sig.inputs[0];
  for (const int c : sig.inputs)
    if (c != core) return std::nullopt;
  for (const int c : sig.outputs)
    if (c != core) return std::nullopt;
  std::vector<Var> stand_ins;
  for (const Var& x : inputs) {
    const StaticShape& st = tensor_type(x)->shape();
    stand_ins.push_back(TensorType::make(tensor_type(x)->dtype(), StaticShape(st.end() - core, st.end()))->make_variable());
  }
  const std::vector<Var> outs = fn(stand_ins);
  if (outs.size() != sig.outputs.size()) return std::nullopt;
  for (const Var& o : outs)
    if (tensor_type(o)->ndim() != core) return std::nullopt;  // the loop reports the signature mismatch
  for (const Apply* node : io_toposort(stand_ins, outs)) {
    if (dynamic_cast<const Elemwise*>(node->op().get())) continue;
    // A DimShuffle that only adds leading axes (a scalar constant broadcast) is right alignment too.
    const auto* ds = dynamic_cast<const DimShuffle*>(node->op().get());
    if (!ds) return std::nullopt;
    const std::vector<int>& order = ds->new_order();
    std::size_t lead = 0;
    while (lead < order.size() && order[lead] == kNewAxis) ++lead;
    for (std::size_t i = lead; i < order.size(); ++i)
      if (order[i] != static_cast<int>(i - lead)) return std::nullopt;
    if (static_cast<int>(order.size() - lead) != tensor_type(node->input(0))->ndim()) return std::nullopt;
  }
  std::vector<Var> r = fn(inputs);
  for (const Var& o : r)
    if (tensor_type(o)->ndim() != nb + core) return std::nullopt;  // an output that ignores the batched inputs
  return r;
}

/// linalg::matmul (BatchedDot over the broadcast batch) when fn on two
/// matrices is one matrix product of them, in order.
std::optional<std::vector<Var>> matmul_shortcut(const std::function<std::vector<Var>(const std::vector<Var>&)>& fn,
                                                const std::vector<Var>& inputs, const CoreSignature& sig) {
  if (sig.inputs != std::vector<int>{2, 2} || sig.outputs != std::vector<int>{2}) return std::nullopt;
  for (const Var& x : inputs)
    if (!is_float(tensor_type(x)->dtype())) return std::nullopt;
  std::vector<Var> stand_ins;
  for (const Var& x : inputs) {
    const StaticShape& st = tensor_type(x)->shape();
    stand_ins.push_back(TensorType::make(tensor_type(x)->dtype(), StaticShape(st.end() - 2, st.end()))->make_variable());
  }
  const std::vector<Var> outs = fn(stand_ins);
  if (outs.size() != 1 || !outs[0].owner()) return std::nullopt;
  const Apply& node = *outs[0].owner();
  const std::string_view t = node.op()->type_name();
  if ((t != "Dot" && t != "Dot22") || node.nin() != 2 || node.input(0) != stand_ins[0] || node.input(1) != stand_ins[1])
    return std::nullopt;
  return std::vector<Var>{linalg::matmul(inputs[0], inputs[1])};
}

}  // namespace

CoreSignature parse_signature(std::string_view signature) {
  std::string s;
  for (const char c : signature)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  const std::size_t arrow = s.find("->");
  THEANO_USER_CHECK(arrow != std::string::npos, ValueError)
      << "vectorize: bad signature \"" << signature << "\": no \"->\"";
  return {parse_side(std::string_view(s).substr(0, arrow), signature),
          parse_side(std::string_view(s).substr(arrow + 2), signature)};
}

std::vector<Var> vectorize(const std::function<std::vector<Var>(const std::vector<Var>&)>& fn,
                           const std::vector<Var>& inputs_in, std::string_view signature) {
  const CoreSignature sig = parse_signature(signature);
  THEANO_USER_CHECK(sig.inputs.size() == inputs_in.size(), ValueError)
      << "vectorize: the signature \"" << signature << "\" has " << sig.inputs.size() << " inputs, got "
      << inputs_in.size();
  std::vector<Var> inputs;
  int nb = 0;
  for (std::size_t k = 0; k < inputs_in.size(); ++k) {
    inputs.push_back(as_tensor_variable(inputs_in[k]));
    const int nd = tensor_type(inputs.back())->ndim(), core = sig.inputs[k];
    THEANO_USER_CHECK(nd >= core, ValueError)
        << "vectorize: input " << k << " (" << inputs.back().str() << ") has rank " << nd
        << ", below its core rank " << core << " in \"" << signature << "\"";
    nb = std::max(nb, nd - core);
  }
  if (nb == 0) {
    std::vector<Var> r = fn(inputs);
    THEANO_USER_CHECK(r.size() == sig.outputs.size(), ValueError)
        << "vectorize: fn returned " << r.size() << " outputs, the signature \"" << signature << "\" has "
        << sig.outputs.size();
    return r;
  }
  // A purely elementwise core over inputs of one core rank: Elemwise's own
  // broadcasting (aligned at the right) is the batch broadcasting.
  if (const std::optional<std::vector<Var>> direct = elementwise_shortcut(fn, inputs, sig, nb)) return *direct;
  if (const std::optional<std::vector<Var>> direct = matmul_shortcut(fn, inputs, sig)) return *direct;
  // The batch shape: per batch axis (aligned at the right), the size of the
  // inputs that have it, broadcast (a statically-1 axis takes the others').
  std::vector<Var> batch(static_cast<std::size_t>(nb));
  for (int d = 0; d < nb; ++d) {
    bool chosen_is_one = false;  // the size chosen so far is a statically-1 axis
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const int bk = tensor_type(inputs[k])->ndim() - sig.inputs[k];
      const int axis = d - (nb - bk);
      if (axis < 0) continue;
      const Dim s = tensor_type(inputs[k])->shape()[static_cast<std::size_t>(axis)];
      const bool one = s && *s == 1;
      Var& chosen = batch[static_cast<std::size_t>(d)];
      if (!chosen || (chosen_is_one && !one)) {
        chosen = shape_i(inputs[k], axis);
        chosen_is_one = one;
      }
    }
  }
  Var steps = batch[0];
  for (int d = 1; d < nb; ++d) steps = mul(steps, batch[static_cast<std::size_t>(d)]);
  // Each input broadcast to the batch shape and its batch axes merged.
  std::vector<SeqInfo> seqs;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Var& x = inputs[k];
    const int nd = tensor_type(x)->ndim(), core = sig.inputs[k];
    std::vector<TensorLike> full(batch.begin(), batch.end());
    for (int c = 0; c < core; ++c) full.emplace_back(shape_i(x, nd - core + c));
    const Var b = broadcast_to(x, full);
    std::vector<Var> merged{steps};
    for (int c = 0; c < core; ++c) merged.push_back(shape_i(x, nd - core + c));
    seqs.emplace_back(reshape(b, make_vector(merged, DType::Int64), core + 1));
  }
  std::size_t nout = 0;
  const std::vector<Var> mapped = scan_map(
      [&](const std::vector<Var>& core) -> StepResult {
        std::vector<Var> r = fn(core);
        nout = r.size();
        return r;
      },
      seqs, {}, "vectorize");
  THEANO_USER_CHECK(nout == sig.outputs.size(), ValueError)
      << "vectorize: fn returned " << nout << " outputs, the signature \"" << signature << "\" has "
      << sig.outputs.size();
  // The core outputs' shapes from the core inputs' (fn on stand-ins, each
  // op's infer_shape), so an empty batch still has them; where an op has no
  // infer_shape, the mapped outputs' own (0 for an empty batch).
  std::vector<std::vector<Var>> core_shapes;
  try {
    std::vector<Var> stand_ins;
    ShapeMap known;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const Var& x = inputs[k];
      const int nd = tensor_type(x)->ndim(), core = sig.inputs[k];
      const StaticShape& st = tensor_type(x)->shape();
      stand_ins.push_back(
          TensorType::make(tensor_type(x)->dtype(), StaticShape(st.end() - core, st.end()))->make_variable());
      std::vector<Var> s;
      for (int c = 0; c < core; ++c) s.push_back(shape_i(x, nd - core + c));
      known[stand_ins.back()] = s;
    }
    for (const Var& o : fn(stand_ins)) core_shapes.push_back(symbolic_shape(o, known));
  } catch (const MethodNotDefined&) {
    core_shapes.clear();
  }
  std::vector<Var> r;
  for (std::size_t o = 0; o < mapped.size(); ++o) {
    const Var& m = mapped[o];
    const int core = tensor_type(m)->ndim() - 1;
    THEANO_USER_CHECK(core == sig.outputs[o], ValueError)
        << "vectorize: output " << o << " of fn has rank " << core << ", the signature \"" << signature
        << "\" says " << sig.outputs[o];
    std::vector<Var> shape_out(batch.begin(), batch.end());
    for (int c = 0; c < core; ++c)
      shape_out.push_back(core_shapes.empty() ? shape_i(m, 1 + c) : core_shapes[o][static_cast<std::size_t>(c)]);
    r.push_back(reshape(m, make_vector(shape_out, DType::Int64), nb + core));
  }
  return r;
}

std::vector<Var> blockwise(const OpPtr& core_op, const std::vector<Var>& inputs, std::string_view signature) {
  return vectorize([&](const std::vector<Var>& core) { return core_op->make_node(core)->outputs(); }, inputs,
                   signature);
}

}  // namespace theano::tensor

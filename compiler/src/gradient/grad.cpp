/// \file
/// Reverse-mode `grad` (see gradient.h for the semantics). The walk is
/// Theano's `_populate_var_to_app_to_idx` + `_populate_grad_dict` without
/// recursion: one toposort of the nodes reachable from the seeds (not through
/// consider_constant variables), a forward pass marking what depends on a
/// `wrt`, and a backward pass calling each relevant op's `grad`.
#include <iostream>
#include <unordered_map>
#include <unordered_set>

#include "theano/config.h"
#include "theano/gpu/type.h"
#include "theano/gradient.h"
#include "theano/graph/toposort.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {
namespace {

using tensor::tensor_type;

DType float_dtype_of(const Var& v) {
  const tensor::TensorType* t = tensor_type(v);
  return t && is_float(t->dtype()) ? t->dtype() : config().floatX;
}

bool is_discrete(const Var& v) {
  if (const sparse::SparseType* st = sparse::sparse_type(v)) return is_integer(st->dtype());
  const tensor::TensorType* t = tensor_type(v);
  return t && (is_integer(t->dtype()) || is_bool(t->dtype()));
}

/// zeros of floatX (or of v's dtype when it is a float), shaped like v.
Var float_zeros_like(const Var& v) { return tensor::zeros_like(v, float_dtype_of(v)); }

}  // namespace

std::vector<Var> grad(const Var& cost, const std::vector<Var>& wrt, const GradOptions& options) {
  // ---- seeds
  std::unordered_map<const Variable*, Var> seed;
  std::vector<Var> sources;
  for (const auto& [v, g] : options.known_grads) {
    THEANO_USER_CHECK(v && g, ValueError) << "grad: a known_grads entry has a null Var";
    THEANO_USER_CHECK(!seed.count(v.get()), ValueError) << "grad: known_grads lists " << v.str() << " twice";
    const tensor::TensorType* tv = tensor_type(v);
    const tensor::TensorType* tg = tensor_type(g);
    THEANO_USER_CHECK(!tv || (tg && tg->ndim() == tv->ndim()), TypeError)
        << "grad: the known gradient " << g.str() << " (" << g.type()->str() << ") of " << v.str() << " ("
        << v.type()->str() << ") must be a tensor of the same number of dimensions";
    seed.emplace(v.get(), g);
    sources.push_back(v);
  }
  if (cost) {
    const tensor::TensorType* t = tensor_type(cost);
    THEANO_USER_CHECK(t && t->ndim() == 0, TypeError)
        << "grad: cost must be a scalar (a 0-d tensor), got " << cost.str() << " of type " << cost.type()->str()
        << "; reduce it first (e.g. cost.sum() or cost.mean()) or pass its gradient through known_grads";
    if (!seed.count(cost.get())) {
      seed.emplace(cost.get(), tensor::ones_like(cost, float_dtype_of(cost)));
      sources.push_back(cost);
    }
  } else {
    THEANO_USER_CHECK(!options.known_grads.empty(), ValueError)
        << "grad: the cost is null and known_grads is empty: there is nothing to differentiate";
  }
  for (std::size_t k = 0; k < wrt.size(); ++k)
    THEANO_USER_CHECK(wrt[k], ValueError) << "grad: wrt[" << k << "] is a null Var";

  std::unordered_set<const Variable*> blocked;
  for (const Var& c : options.consider_constant)
    if (c) blocked.insert(c.get());

  // ---- nodes reachable from the seeds (not through blocked variables), in
  // topological order.
  auto expandable = [&](const Var& v) { return v.owner() && !blocked.count(v.get()); };
  std::vector<Apply*> roots;
  for (const Var& s : sources)
    if (expandable(s)) roots.push_back(s.owner());
  const std::vector<Apply*> order = general_toposort<Apply*>(roots, [&](Apply* node) {
    std::vector<Apply*> deps;
    for (const Var& in : node->inputs())
      if (expandable(in)) deps.push_back(in.owner());
    return deps;
  });

  // ---- forward: variables that depend on a wrt (through connected pairs).
  std::unordered_set<const Variable*> depends;
  for (const Var& w : wrt) depends.insert(w.get());
  std::unordered_map<const Apply*, std::vector<std::vector<bool>>> patterns;
  for (Apply* node : order) {
    auto pattern = node->op()->connection_pattern(*node);
    for (int j = 0; j < node->nout(); ++j) {
      const Var out = node->output(j);
      if (depends.count(out.get()) || blocked.count(out.get())) continue;
      for (int i = 0; i < node->nin(); ++i)
        if (depends.count(node->input(i).get()) && pattern.at(static_cast<std::size_t>(i)).at(static_cast<std::size_t>(j))) {
          depends.insert(out.get());
          break;
        }
    }
    patterns.emplace(node, std::move(pattern));
  }

  // ---- backward: accumulate gradient terms.
  std::unordered_map<const Variable*, std::vector<Var>> terms;
  std::unordered_set<const Variable*> live;  // lies on a path to a seed
  for (const Var& s : sources) live.insert(s.get());
  auto total = [&](const Var& v) -> Var {
    if (auto it = seed.find(v.get()); it != seed.end()) return it->second;
    auto it = terms.find(v.get());
    if (it == terms.end() || it->second.empty()) return Var();
    if (it->second.size() == 1) return it->second[0];
    Var sum;
    if (sparse::sparse_type(v)) {
      sum = sparse::add_gradient_terms(it->second);  // a sparse matrix used more than once
    } else if (const gpu::GpuArrayType* g = gpu::gpu_type(v)) {
      // A GPU array's terms: summed by the host add, moved back by its
      // transfer (the GPU transfer rewrite puts the sum on the GPU).
      std::vector<Var> host;
      for (const Var& t : it->second) host.push_back(tensor::as_tensor_variable(t));
      sum = g->convert_variable(tensor::add(host));
    } else {
      sum = tensor::add(it->second);
    }
    it->second = {sum};  // reuse the sum if asked again
    return sum;
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Apply* node = *it;
    const auto& pattern = patterns.at(node);
    bool any_input = false;
    for (const Var& in : node->inputs()) any_input = any_input || depends.count(in.get()) != 0;
    if (!any_input) continue;
    std::vector<Var> out_grads;
    std::vector<bool> out_live;
    bool any_grad = false;
    for (int j = 0; j < node->nout(); ++j) {
      const Var out = node->output(j);
      const bool usable = !blocked.count(out.get());
      Var g = usable ? total(out) : Var();
      out_live.push_back(usable && live.count(out.get()));
      any_grad = any_grad || bool(g);
      out_grads.push_back(g);
    }
    for (int i = 0; i < node->nin(); ++i)
      for (int j = 0; j < node->nout(); ++j)
        if (out_live[static_cast<std::size_t>(j)] && pattern[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)])
          live.insert(node->input(i).get());
    if (!any_grad) continue;
    for (int j = 0; j < node->nout(); ++j)
      if (!out_grads[static_cast<std::size_t>(j)] && tensor_type(node->output(j)))
        out_grads[static_cast<std::size_t>(j)] = tensor::zeros_like(node->output(j));
    const std::vector<Var> in_grads = node->op()->grad(*node, out_grads);
    THEANO_USER_CHECK(static_cast<int>(in_grads.size()) == node->nin(), InternalError)
        << "grad: " << node->op()->name() << ".grad returned " << in_grads.size() << " gradients for "
        << node->nin() << " inputs (this is a bug in the op)";
    for (int i = 0; i < node->nin(); ++i) {
      const Var& in = node->input(i);
      Var term = in_grads[static_cast<std::size_t>(i)];
      if (!term || !depends.count(in.get()) || is_discrete(in)) continue;
      const tensor::TensorType* ti = tensor_type(in);
      const tensor::TensorType* tt = tensor_type(term);
      if (ti) {
        THEANO_USER_CHECK(tt && tt->ndim() == ti->ndim(), TypeError)
            << "grad: " << node->op()->name() << ".grad returned " << term.str() << " of type "
            << term.type()->str() << " as the gradient of input " << i << " (" << in.str() << ", "
            << ti->str() << "): the number of dimensions differs (this is a bug in the op)";
        THEANO_USER_CHECK(is_float(tt->dtype()) || is_complex(tt->dtype()), TypeError)
            << node->op()->name() << ".grad illegally returned an integer-valued variable. (Input index " << i
            << ", dtype " << dtype_name(tt->dtype()) << ")";
        if (tt->dtype() != ti->dtype() && is_float(ti->dtype())) term = tensor::cast(term, ti->dtype());
      }
      terms[in.get()].push_back(term);
    }
  }

  // ---- results
  std::vector<Var> result;
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    const Var& w = wrt[k];
    Var g;
    THEANO_USER_CHECK(!(sparse::sparse_type(w) && is_discrete(w)), TypeError)
        << "grad: wrt[" << k << "] (" << w.str() << ", " << w.type()->str()
        << ") is an integer sparse matrix, which has no gradient (a sparse gradient has its matrix's dtype); "
           "make the matrix of float32 or float64 values to differentiate with respect to it";
    if (is_discrete(w)) {
      // An integer's gradient through ops is zero, but the cost (or a known_grads variable) itself gets
      // its seed: grad(i, i) is ones, as in Theano.
      if (auto s = seed.find(w.get()); s != seed.end()) g = s->second;
      else if (live.count(w.get())) g = float_zeros_like(w);
    } else {
      g = total(w);
      const tensor::TensorType* tw = tensor_type(w);
      const tensor::TensorType* tg = tensor_type(g);
      if (g && tw && tg && tg->dtype() != tw->dtype() && is_float(tw->dtype())) g = tensor::cast(g, tw->dtype());
    }
    if (!g) {
      const std::string msg =
          "grad method was asked to compute the gradient with respect to a variable that is not part of the "
          "computational graph of the cost, or is used only by a non-differentiable operator: " +
          w.str() + " (wrt[" + std::to_string(k) + "])";
      switch (options.disconnected_inputs) {
        case DisconnectedInputs::Raise:
          throw DisconnectedInputError(msg + ". To ignore this, pass disconnected_inputs = Warn or Ignore.");
        case DisconnectedInputs::Warn:
          std::cerr << "UserWarning: " << msg << "\n";
          break;
        case DisconnectedInputs::Ignore:
          break;
      }
      if (!options.null_for_disconnected) g = float_zeros_like(w);
    }
    result.push_back(g);
  }
  return result;
}

Var grad(const Var& cost, const Var& wrt, const GradOptions& options) {
  return grad(cost, std::vector<Var>{wrt}, options)[0];
}

}  // namespace theano

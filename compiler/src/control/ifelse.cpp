/// \file
/// The IfElse op (control/ifelse.h): type checks, the lazy reference
/// `perform` (it reads only the chosen branch; the branch not taken has no
/// value at all when the linker skipped it), shapes and gradients, both
/// again IfElses on the same condition so they stay lazy.
#include "theano/control/ifelse.h"

#include "../tensor/shape/shape_util.h"

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {

using tensor::StaticShape;
using tensor::TensorType;

IfElse::IfElse(int n_outs) : n_outs_(n_outs) {
  THEANO_USER_CHECK(n_outs >= 1, ValueError) << "IfElse: needs at least one output, got " << n_outs;
}

const IfElse* as_ifelse(const Apply& node) { return dynamic_cast<const IfElse*>(node.op().get()); }

bool IfElse::truth(const NDArray& cond) {
  THEANO_USER_CHECK(cond.defined(), InternalError) << "IfElse: the condition has no value";
  THEANO_USER_CHECK(cond.ndim() == 0, ValueError)
      << "IfElse: the condition must be a scalar, got shape " << shape_to_string(cond.shape());
  return cond.item<double>() != 0.0;
}

THEANO_REGISTER_OP(
    IfElse,
    .no_cuda = "control flow: the host picks a branch; not moved by the GPU transfer rewrite (gpu::gpu_op_inputs)");

ApplyPtr IfElse::make_node(std::vector<Var> inputs) const {
  const auto n = static_cast<std::size_t>(n_outs_);
  THEANO_USER_CHECK(inputs.size() == 1 + 2 * n, TypeError)
      << name() << " takes 1 + 2 * " << n_outs_ << " inputs (cond, then..., else...), got " << inputs.size();
  Var cond = tensor::as_tensor_variable(inputs[0]);
  const TensorType* tc = tensor::tensor_type(cond);
  THEANO_USER_CHECK(tc && tc->ndim() == 0 && !is_complex(tc->dtype()) && tc->dtype() != DType::Float16, TypeError)
      << "ifelse: the condition " << cond.str() << " must be a scalar of a bool, integer or real dtype, got type "
      << cond.type()->str();
  std::vector<Var> ins{cond};
  std::vector<Var> outs;
  for (std::size_t k = 0; k < n; ++k) {
    const Var& a = inputs[1 + k];
    const Var& b = inputs[1 + n + k];
    THEANO_USER_CHECK(a && b, TypeError) << "ifelse: output " << k << " has a null branch";
    if (*a.type() == *b.type()) {
      outs.push_back(a.type()->make_variable());
      continue;
    }
    const TensorType* ta = tensor::tensor_type(a);
    const TensorType* tb = tensor::tensor_type(b);
    THEANO_USER_CHECK(ta && tb && ta->dtype() == tb->dtype() && ta->ndim() == tb->ndim(), TypeError)
        << "ifelse: output " << k << ": the then branch " << a.str() << " has type " << a.type()->str()
        << " but the else branch " << b.str() << " has type " << b.type()->str()
        << "; both branches must have the same dtype and number of dimensions (cast one of them)";
    StaticShape s = ta->shape();
    for (std::size_t d = 0; d < s.size(); ++d)
      if (s[d] != tb->shape()[d]) s[d] = std::nullopt;
    outs.push_back(TensorType::make(ta->dtype(), std::move(s))->make_variable());
  }
  for (std::size_t k = 0; k < 2 * n; ++k) ins.push_back(inputs[1 + k]);
  return Apply::create(OpPtr(this), std::move(ins), std::move(outs));
}

void IfElse::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const bool c = truth(inputs[0]);
  const auto n = static_cast<std::size_t>(n_outs_);
  for (std::size_t k = 0; k < n; ++k) {
    const NDArray& v = inputs[c ? 1 + k : 1 + n + k];
    THEANO_USER_CHECK(v.defined(), InternalError)
        << name() << ": the " << (c ? "then" : "else") << " branch of output " << k
        << " has no value (the linker skipped the branch it needs)";
    outputs[k] = v;
  }
}

std::vector<std::vector<Var>> IfElse::infer_shape(const Apply& node,
                                                  const std::vector<std::vector<Var>>& input_shapes) const {
  const auto n = static_cast<std::size_t>(n_outs_);
  // One IfElse over every dimension the branches may disagree on.
  std::vector<Var> then_dims, else_dims;
  std::vector<std::pair<std::size_t, std::size_t>> where;
  std::vector<std::vector<Var>> r(n);
  for (std::size_t k = 0; k < n; ++k) {
    const auto& a = input_shapes[1 + k];
    const auto& b = input_shapes[1 + n + k];
    r[k] = a;
    for (std::size_t d = 0; d < a.size(); ++d) {
      if (a[d] == b[d]) continue;
      where.emplace_back(k, d);
      then_dims.push_back(a[d]);
      else_dims.push_back(b[d]);
    }
  }
  if (!where.empty()) {
    const std::vector<Var> dims = ifelse(node.input(0), then_dims, else_dims);
    for (std::size_t j = 0; j < where.size(); ++j) r[where[j].first][where[j].second] = dims[j];
  }
  return r;
}

std::vector<Var> IfElse::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const auto n = static_cast<std::size_t>(n_outs_);
  std::vector<Var> g_then, zeros_then, g_else, zeros_else;
  std::vector<std::size_t> used;
  for (std::size_t k = 0; k < n; ++k) {
    const Var& g = output_grads[k];
    if (!g) continue;
    const Var& a = node.input(static_cast<int>(1 + k));
    const Var& b = node.input(static_cast<int>(1 + n + k));
    used.push_back(k);
    auto fit = [&](const Var& v, const Var& like) {
      const TensorType* tv = tensor::tensor_type(v);
      const TensorType* tl = tensor::tensor_type(like);
      return tv && tl && tv->dtype() != tl->dtype() ? tensor::cast(v, tl->dtype()) : v;
    };
    g_then.push_back(fit(g, a));
    zeros_then.push_back(tensor::zeros_like(a));
    g_else.push_back(fit(g, b));
    zeros_else.push_back(tensor::zeros_like(b));
  }
  std::vector<Var> r(1 + 2 * n);
  if (used.empty()) return r;
  // d then_k = ifelse(c, g_k, 0); d else_k = ifelse(c, 0, g_k): lazy as the forward pass.
  const std::vector<Var> dt = ifelse(node.input(0), g_then, zeros_then);
  const std::vector<Var> de = ifelse(node.input(0), zeros_else, g_else);
  for (std::size_t j = 0; j < used.size(); ++j) {
    r[1 + used[j]] = tensor::detail::match_static_shape(dt[j], node.input(static_cast<int>(1 + used[j])));
    r[1 + n + used[j]] = tensor::detail::match_static_shape(de[j], node.input(static_cast<int>(1 + n + used[j])));
  }
  return r;
}

std::vector<std::vector<bool>> IfElse::connection_pattern(const Apply&) const {
  const auto n = static_cast<std::size_t>(n_outs_);
  std::vector<std::vector<bool>> p(1 + 2 * n, std::vector<bool>(n, false));
  p[0].assign(n, true);
  for (std::size_t k = 0; k < n; ++k) p[1 + k][k] = p[1 + n + k][k] = true;
  return p;
}

ViewMap IfElse::view_map() const {
  ViewMap m;
  for (int k = 0; k < n_outs_; ++k) m[k] = {1 + k, 1 + n_outs_ + k};
  return m;
}

std::vector<Var> ifelse(const Var& cond, const std::vector<Var>& then_branch, const std::vector<Var>& else_branch,
                        const std::string& name) {
  THEANO_USER_CHECK(!then_branch.empty() && then_branch.size() == else_branch.size(), TypeError)
      << "ifelse: the then and else branches must list the same number of outputs (at least one), got "
      << then_branch.size() << " and " << else_branch.size();
  std::vector<Var> ins{cond};
  for (const Var& v : then_branch) ins.push_back(tensor::as_tensor_variable(v));
  for (const Var& v : else_branch) ins.push_back(tensor::as_tensor_variable(v));
  std::vector<Var> outs = (*OpPtr(new IfElse(static_cast<int>(then_branch.size()))))(std::move(ins));
  if (!name.empty())
    for (std::size_t k = 0; k < outs.size(); ++k)
      outs[k]->set_name(outs.size() == 1 ? name : name + "[" + std::to_string(k) + "]");
  return outs;
}

Var ifelse(const Var& cond, const Var& then_branch, const Var& else_branch, const std::string& name) {
  return ifelse(cond, std::vector<Var>{then_branch}, std::vector<Var>{else_branch}, name).front();
}

}  // namespace theano

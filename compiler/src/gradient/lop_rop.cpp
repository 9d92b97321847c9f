/// \file
/// `Lop` (vector-Jacobian product, a `grad` with known_grads seeds) and `Rop`
/// (Jacobian-vector product through the double-Lop trick of PyTensor's
/// fallback: with a placeholder u of f's type, g(u) = J^T u is linear in u, so
/// d/du <g(u), v> = J v whatever u is; u is finally replaced by zeros_like(f)
/// so the result depends only on the original inputs).
#include <unordered_map>

#include "theano/gradient.h"
#include "theano/graph/clone.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano {

std::vector<Var> Lop(const std::vector<Var>& f, const std::vector<Var>& wrt, const std::vector<Var>& eval_points,
                     const GradOptions& options) {
  THEANO_USER_CHECK(f.size() == eval_points.size(), ValueError)
      << "Lop: " << f.size() << " expressions but " << eval_points.size() << " eval points; give one per expression";
  GradOptions opts = options;
  std::unordered_map<const Variable*, std::size_t> where;  // f[k] -> position in known_grads
  for (std::size_t k = 0; k < f.size(); ++k) {
    THEANO_USER_CHECK(f[k] && eval_points[k], ValueError) << "Lop: expression or eval point " << k << " is null";
    THEANO_USER_CHECK(f[k].type()->convert_variable(eval_points[k]) || eval_points[k].type()->is_super(*f[k].type()),
                      TypeError)
        << "Lop: eval point " << k << " (" << eval_points[k].str() << ", " << eval_points[k].type()->str()
        << ") must have the type of the expression " << f[k].str() << " (" << f[k].type()->str() << ")";
    auto [it, fresh] = where.try_emplace(f[k].get(), opts.known_grads.size());
    if (fresh)
      opts.known_grads.emplace_back(f[k], eval_points[k]);
    else  // the same expression twice: its seeds add up
      opts.known_grads[it->second].second = tensor::add(opts.known_grads[it->second].second, eval_points[k]);
  }
  return grad(Var(), wrt, opts);
}

Var Lop(const Var& f, const Var& wrt, const Var& eval_point, const GradOptions& options) {
  return Lop(std::vector<Var>{f}, std::vector<Var>{wrt}, std::vector<Var>{eval_point}, options)[0];
}

std::vector<Var> Rop(const std::vector<Var>& f, const std::vector<Var>& wrt, const std::vector<Var>& eval_points) {
  THEANO_USER_CHECK(wrt.size() == eval_points.size(), ValueError)
      << "Rop: " << wrt.size() << " wrt variables but " << eval_points.size()
      << " eval points; give one per wrt variable";
  for (std::size_t j = 0; j < wrt.size(); ++j) {
    THEANO_USER_CHECK(wrt[j] && eval_points[j], ValueError) << "Rop: wrt or eval point " << j << " is null";
    THEANO_USER_CHECK(wrt[j].type()->convert_variable(eval_points[j]) || eval_points[j].type()->is_super(*wrt[j].type()),
                      TypeError)
        << "Rop: eval point " << j << " (" << eval_points[j].str() << ", " << eval_points[j].type()->str()
        << ") must have the type of wrt " << wrt[j].str() << " (" << wrt[j].type()->str() << ")";
  }
  std::vector<Var> u;
  for (const Var& fk : f) {
    THEANO_USER_CHECK(fk, ValueError) << "Rop: an expression is null";
    u.push_back(fk.type()->make_variable("u"));
  }
  const std::vector<Var> g = Lop(f, wrt, u);  // J^T u, one per wrt
  GradOptions ignore;
  ignore.disconnected_inputs = DisconnectedInputs::Ignore;
  std::vector<Var> r = Lop(g, u, eval_points, ignore);  // J v, one per f
  std::vector<std::pair<Var, Var>> bind;
  for (std::size_t k = 0; k < f.size(); ++k) bind.emplace_back(u[k], tensor::zeros_like(f[k]));
  r = clone_replace(r, bind);
  for (std::size_t k = 0; k < f.size(); ++k) {
    const tensor::TensorType* tf = tensor::tensor_type(f[k]);
    const tensor::TensorType* tr = tensor::tensor_type(r[k]);
    if (tf && tr && tf->dtype() != tr->dtype() && is_float(tf->dtype())) r[k] = tensor::cast(r[k], tf->dtype());
  }
  return r;
}

Var Rop(const Var& f, const Var& wrt, const Var& eval_point) {
  return Rop(std::vector<Var>{f}, std::vector<Var>{wrt}, std::vector<Var>{eval_point})[0];
}

}  // namespace theano

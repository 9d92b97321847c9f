/// \file
/// `theano::testing::verify_grad` (see testing.h): symbolic gradient of
/// sum(fun(x) * P) against central finite differences.
#include <complex>
#include <cmath>
#include <random>
#include <sstream>

#include "theano/compile/function.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/testing.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/type.h"

namespace theano::testing {
namespace {

double get_flat(const NDArray& a, std::int64_t j) {
  const std::byte* p = static_cast<const std::byte*>(a.data()) + j * static_cast<std::int64_t>(a.itemsize());
  return visit_dtype(a.dtype(), [p](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return scalar_cast<double>(*reinterpret_cast<const T*>(p));
  });
}

void set_flat(NDArray& a, std::int64_t j, double v) {
  std::byte* p = static_cast<std::byte*>(a.data()) + j * static_cast<std::int64_t>(a.itemsize());
  visit_dtype(a.dtype(), [p, v](auto tag) {
    using T = typename decltype(tag)::type;
    *reinterpret_cast<T*>(p) = scalar_cast<T>(v);
  });
}

std::string index_text(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string r = "[";
  for (std::size_t d = 0; d < idx.size(); ++d) r += (d ? ", " : "") + std::to_string(idx[d]);
  return r + "]";
}

}  // namespace

void verify_grad(FunctionRef<Var(const std::vector<Var>&)> fun, const std::vector<NDArray>& point,
                 VerifyGradOptions options) {
  THEANO_USER_CHECK(!point.empty(), ValueError) << "verify_grad: no input values were given";
  const VerifyGradOptions defaults;
  const bool default_tols =
      options.eps == defaults.eps && options.abs_tol == defaults.abs_tol && options.rel_tol == defaults.rel_tol;
  std::vector<Var> xs;
  std::vector<NDArray> pt;
  for (std::size_t i = 0; i < point.size(); ++i) {
    const NDArray& p = point[i];
    THEANO_USER_CHECK(p.defined(), ValueError) << "verify_grad: input value " << i << " is undefined";
    THEANO_USER_CHECK(is_float(p.dtype()), TypeError)
        << "verify_grad can work only with floating point inputs; input " << i << " has dtype "
        << dtype_name(p.dtype());
    if (default_tols && p.dtype() == DType::Float32) options = {3e-4, 1e-2, 1e-2, options.seed};
    if (default_tols && p.dtype() == DType::Float16) options = {1e-1, 5e-2, 5e-2, options.seed};
    tensor::StaticShape shape;
    for (std::int64_t s : p.shape()) shape.push_back(s == 1 ? tensor::Dim(1) : tensor::Dim());
    xs.push_back(tensor::tensor(p.dtype(), shape, "input " + std::to_string(i)));
    pt.push_back(p.copy());
  }
  const Var o = fun(xs);
  THEANO_USER_CHECK(o, ValueError) << "verify_grad: the function returned a null Var";
  const tensor::TensorType* to = tensor::tensor_type(o);
  THEANO_USER_CHECK(to && (is_float(to->dtype())), TypeError)
      << "verify_grad: the function's output " << o.str() << " (" << o.type()->str()
      << ") must be a floating-point tensor";

  std::vector<In> ins(xs.begin(), xs.end());
  FunctionOptions fopts;
  fopts.on_unused_input = OnUnusedInput::Ignore;
  const Function f = function(ins, {Out(o)}, fopts);
  const NDArray o0 = f(pt)[0];

  // Random projection in [0.5, 1.5), from a portable generator.
  std::mt19937_64 rng(options.seed);
  NDArray proj = NDArray::empty(o0.shape(), DType::Float64);
  for (std::int64_t j = 0; j < proj.size(); ++j)
    set_flat(proj, j, 0.5 + static_cast<double>(rng() >> 11) * 0x1.0p-53);

  GradOptions gopts;
  gopts.disconnected_inputs = DisconnectedInputs::Ignore;
  gopts.known_grads = {{o, tensor::constant(proj.astype(to->dtype()))}};
  const std::vector<Var> gs = grad(Var(), xs, gopts);
  std::vector<Out> gouts(gs.begin(), gs.end());
  const std::vector<NDArray> symbolic = function(ins, gouts, fopts)(pt);

  auto cost = [&](const std::vector<NDArray>& at) {
    const NDArray out = f(at)[0].astype(DType::Float64);
    THEANO_USER_CHECK(out.shape() == proj.shape(), ShapeError)
        << "verify_grad: the output shape changed from " << shape_to_string(proj.shape()) << " to "
        << shape_to_string(out.shape()) << " under a perturbation of the inputs";
    double c = 0;
    for (std::int64_t j = 0; j < out.size(); ++j) c += get_flat(out, j) * get_flat(proj, j);
    return c;
  };

  for (std::size_t i = 0; i < pt.size(); ++i) {
    NDArray numeric = NDArray::zeros(pt[i].shape(), DType::Float64);
    std::vector<NDArray> at = pt;
    NDArray& x = at[i];
    for (std::int64_t j = 0; j < x.size(); ++j) {
      const double orig = get_flat(x, j);
      set_flat(x, j, orig + options.eps);
      const double xp = get_flat(x, j);
      const double cp = cost(at);
      set_flat(x, j, orig - options.eps);
      const double xm = get_flat(x, j);
      const double cm = cost(at);
      set_flat(x, j, orig);
      set_flat(numeric, j, (cp - cm) / (xp - xm));
    }
    THEANO_USER_CHECK(symbolic[i].shape() == pt[i].shape(), GradientError)
        << "verify_grad: the symbolic gradient of input " << i << " has shape "
        << shape_to_string(symbolic[i].shape()) << " but the input has shape " << shape_to_string(pt[i].shape());
    const NDArray sym = symbolic[i].astype(DType::Float64);
    double max_abs = 0, max_rel = 0;
    std::int64_t bad = -1;
    for (std::int64_t j = 0; j < sym.size(); ++j) {
      const double a = get_flat(sym, j), n = get_flat(numeric, j);
      const double abs_err = std::fabs(a - n);
      const double denom = std::fabs(a) + std::fabs(n);
      const double rel_err = denom > 0 ? abs_err / denom : 0.0;
      const bool fails = (abs_err > options.abs_tol && rel_err > options.rel_tol) || std::isnan(a) != std::isnan(n);
      if (std::isnan(abs_err) || abs_err > max_abs) max_abs = abs_err;
      if (std::isnan(rel_err) || rel_err > max_rel) max_rel = rel_err;
      if (fails && bad < 0) bad = j;
    }
    if (bad >= 0) {
      std::ostringstream os;
      os << "verify_grad: the gradient of input " << i << " (" << xs[i].type()->str() << ", shape "
         << shape_to_string(pt[i].shape()) << ") of " << o.str() << " differs from finite differences; first at "
         << "element " << index_text(bad, pt[i].shape()) << ": symbolic " << get_flat(sym, bad) << ", numeric "
         << get_flat(numeric, bad) << "; max abs error " << max_abs << " (abs_tol " << options.abs_tol
         << "), max rel error " << max_rel << " (rel_tol " << options.rel_tol << ")\n  symbolic gradient: "
         << sym.str() << "\n  numeric gradient: " << numeric.str();
      throw GradientError(os.str());
    }
  }
}

}  // namespace theano::testing

// Batch normalization as a graph of reductions and elementwise ops (why a graph
// and not an op: compiler/include/theano/tensor/bn.h). The checks follow
// Theano's bn.py: the axes modes, the two forms of the parameters, epsilon at
// least 1e-5, both running averages or neither.
#include "theano/tensor/bn.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "theano/runtime/error.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::nnet::bn {
namespace {

std::string axes_text(const std::vector<int>& axes) {
  std::ostringstream o;
  o << "(";
  for (std::size_t i = 0; i < axes.size(); ++i) o << (i ? ", " : "") << axes[i];
  o << (axes.size() == 1 ? ",)" : ")");
  return o.str();
}

/// The input and its axes, checked once for both functions.
struct Prepared {
  std::string_view fn;
  Var x, gamma;
  DType dtype;
  int ndim;
  std::vector<int> axes;    // normalized
  std::vector<int> non_bc;  // the others: one statistic per position along them
  bool full_rank = true;    // the parameters' form, as gamma gives it
};

Prepared prepare(std::string_view fn, const Var& inputs, const Var& gamma, const BnAxes& axes, double epsilon) {
  Prepared p{fn, inputs, gamma, tensor_type(inputs)->dtype(), tensor_type(inputs)->ndim(), {}, {}};
  THEANO_USER_CHECK(p.dtype == DType::Float32 || p.dtype == DType::Float64, TypeError)
      << fn << ": inputs " << inputs.str() << " is " << dtype_name(p.dtype)
      << "; batch normalization supports float32 and float64";
  p.axes = axes.resolve(p.ndim, fn);
  for (int d = 0; d < p.ndim; ++d)
    if (!std::binary_search(p.axes.begin(), p.axes.end(), d)) p.non_bc.push_back(d);
  THEANO_USER_CHECK(epsilon >= 1e-5, ValueError) << fn << ": epsilon must be at least 1e-5, got " << epsilon;
  p.full_rank = tensor_type(gamma)->ndim() == p.ndim;
  return p;
}

/// `v` (a parameter named `what`) in the input's rank, broadcastable on the axes.
Var to_input_rank(const Prepared& p, const Var& v, std::string_view what) {
  const TensorType& t = *tensor_type(v);
  const int want = p.full_rank ? p.ndim : static_cast<int>(p.non_bc.size());
  THEANO_USER_CHECK(t.ndim() == want, ValueError)
      << p.fn << ": " << what << " " << v.str() << " has " << t.ndim()
      << " dimensions; the parameters need either the inputs' rank " << p.ndim << " (size 1 on the normalized axes "
      << axes_text(p.axes) << ") or " << p.non_bc.size() << " (one per other axis " << axes_text(p.non_bc)
      << "), all alike (gamma has " << tensor_type(p.gamma)->ndim() << ")";
  if (!p.full_rank) {
    std::vector<int> order(static_cast<std::size_t>(p.ndim), kNewAxis);
    for (std::size_t i = 0; i < p.non_bc.size(); ++i)
      order[static_cast<std::size_t>(p.non_bc[i])] = static_cast<int>(i);
    return dimshuffle(v, order);
  }
  StaticShape shape(static_cast<std::size_t>(p.ndim));
  bool unknown = false;
  for (int a : p.axes) {
    const Dim d = t.shape()[static_cast<std::size_t>(a)];
    THEANO_USER_CHECK(!d || *d == 1, ValueError)
        << p.fn << ": " << what << " " << v.str() << " has size " << *d << " on the normalized axis " << a
        << "; it must be 1 there (normalized axes " << axes_text(p.axes) << ")";
    unknown = unknown || !d;
    shape[static_cast<std::size_t>(a)] = 1;
  }
  return unknown ? specify_shape(v, shape) : v;  // a run-time check of the sizes not known yet
}

/// A statistic computed in the input's rank, returned in the parameters' form.
Var to_param_form(const Prepared& p, const Var& v) { return p.full_rank ? v : dimshuffle(v, p.non_bc); }

Var scalar(double v, DType d) { return constant(NDArray::scalar(v).astype(d)); }

}  // namespace

std::vector<int> BnAxes::resolve(int ndim, std::string_view fn) const {
  std::vector<int> r;
  if (mode_ == "per-activation") {
    r = {0};
  } else if (mode_ == "spatial") {
    r = {0};
    for (int d = 2; d < ndim; ++d) r.push_back(d);
  } else {
    THEANO_USER_CHECK(mode_.empty(), ValueError)
        << fn << ": invalid axes '" << mode_ << "'; expected \"per-activation\", \"spatial\" or a list of axes";
    r = axes_;
    std::sort(r.begin(), r.end());
  }
  THEANO_USER_CHECK(!r.empty(), ValueError) << fn << ": there should be at least one normalization axis";
  THEANO_USER_CHECK(r.front() >= 0 && r.back() < ndim, ValueError)
      << fn << ": axes should be in [0, " << ndim << ") for inputs of rank " << ndim << ", but " << axes_text(r)
      << " given";
  THEANO_USER_CHECK(std::adjacent_find(r.begin(), r.end()) == r.end(), ValueError)
      << fn << ": axes " << axes_text(r) << " repeat an axis";
  return r;
}

BatchNormTrainResult batch_normalization_train(const TensorLike& inputs, const TensorLike& gamma,
                                               const TensorLike& beta, const BnAxes& axes, double epsilon,
                                               double running_average_factor, const Var& running_mean,
                                               const Var& running_var) {
  constexpr std::string_view fn = "batch_normalization_train";
  const Prepared p = prepare(fn, inputs.var(), gamma.var(), axes, epsilon);
  THEANO_USER_CHECK(static_cast<bool>(running_mean) == static_cast<bool>(running_var), ValueError)
      << fn << ": running_mean and running_var must either both be given or both be omitted";
  const Var g = to_input_rank(p, gamma.var(), "gamma"), b = to_input_rank(p, beta.var(), "beta");
  const Var& x = p.x;
  const Var mean = tensor::mean(x, Axes(p.axes), true);
  const Var var = tensor::var(x, Axes(p.axes), 0, true);
  const Var invstd = reciprocal(sqrt(var + scalar(epsilon, p.dtype)));
  BatchNormTrainResult r;
  r.out = (x - mean) * (g * invstd) + b;
  r.mean = to_param_form(p, mean);
  r.invstd = to_param_form(p, invstd);
  if (running_mean) {
    const Var rm = to_input_rank(p, as_tensor_variable(running_mean), "running_mean");
    const Var rv = to_input_rank(p, as_tensor_variable(running_var), "running_var");
    const Var f = scalar(running_average_factor, p.dtype), keep = scalar(1 - running_average_factor, p.dtype);
    const Var m = reduced_count(x, p.axes, p.dtype);
    r.new_running_mean = to_param_form(p, rm * keep + mean * f);
    r.new_running_var = to_param_form(p, rv * keep + var * (m / (m - scalar(1, p.dtype))) * f);
  }
  return r;
}

Var batch_normalization_test(const TensorLike& inputs, const TensorLike& gamma, const TensorLike& beta,
                             const TensorLike& mean, const TensorLike& var, const BnAxes& axes, double epsilon) {
  const Prepared p = prepare("batch_normalization_test", inputs.var(), gamma.var(), axes, epsilon);
  const Var g = to_input_rank(p, gamma.var(), "gamma"), b = to_input_rank(p, beta.var(), "beta");
  const Var m = to_input_rank(p, mean.var(), "mean"), v = to_input_rank(p, var.var(), "var");
  return (p.x - m) * (g / sqrt(v + scalar(epsilon, p.dtype))) + b;
}

Var batch_normalization(const TensorLike& inputs, const TensorLike& gamma, const TensorLike& beta,
                        const TensorLike& mean, const TensorLike& std, std::string_view mode) {
  THEANO_USER_CHECK(mode == "low_mem" || mode == "high_mem", ValueError)
      << "batch_normalization: mode must be \"low_mem\" or \"high_mem\", got \"" << mode << "\"";
  return (inputs.var() - mean.var()) * (gamma.var() / std.var()) + beta.var();
}

}  // namespace theano::tensor::nnet::bn

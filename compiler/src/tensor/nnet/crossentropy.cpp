// Cross-entropies: CrossentropyCategorical1Hot (integer labels; the gather is
// done inside the op) with its gradient op, and categorical_crossentropy /
// binary_crossentropy as Theano writes them. The run-time label rules and
// their messages are theano/runtime/kernels/crossentropy_rules.h (the
// lowerings' too).
#include <complex>
#include <cmath>
#include <type_traits>

#include "../reduction/kernel_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/crossentropy_rules.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/nnet.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor::nnet {
namespace {

const TensorType& check_coding(const char* op, const Var& c) {
  const TensorType& t = detail::tensor_type_of(c, op);
  THEANO_USER_CHECK(t.ndim() == 2 && is_float(t.dtype()), TypeError)
      << op << ": coding_dist must be a float matrix (one row of class probabilities per example), got " << c.str()
      << " of type " << t.str();
  return t;
}

const TensorType& check_labels(const char* op, const Var& l, const TensorType& coding, const Var& c) {
  const TensorType& t = detail::tensor_type_of(l, op);
  THEANO_USER_CHECK(t.ndim() == 1 && (is_integer(t.dtype())), TypeError)
      << op << ": labels must be an integer vector, got " << l.str() << " of type " << t.str();
  const Dim &a = coding.shape()[0], &b = t.shape()[0];
  THEANO_USER_CHECK(!a || !b || *a == *b, ShapeError)
      << op << ": " << c.str() << " has static shape " << detail::static_shape_text(coding.shape()) << " but "
      << l.str() << " has static shape " << detail::static_shape_text(t.shape())
      << THEANO_XENT_ONE_LABEL_PER_ROW;
  return t;
}

// The labels as int64, checked against the run-time shapes.
std::vector<int64_t> read_labels(const char* op, const NDArray& labels, const NDArray& coding) {
  const int64_t rows = coding.shape()[0], k = coding.shape()[1];
  THEANO_USER_CHECK(theano_xent_rows_ok(rows, labels.shape()[0]), ShapeError)
      << op << ": " << THEANO_XENT_ROWS_TEXT1 << rows << THEANO_XENT_ROWS_TEXT2 << k << THEANO_XENT_ROWS_TEXT3
      << labels.shape()[0] << THEANO_XENT_ROWS_TEXT4;
  const NDArray l = labels.astype(DType::Int64);
  std::vector<int64_t> r(l.data_as<int64_t>(), l.data_as<int64_t>() + l.size());
  for (std::size_t i = 0; i < r.size(); ++i)
    THEANO_USER_CHECK(theano_xent_label_ok(r[i], k), IndexError)
        << op << ": " << THEANO_XENT_LABEL_TEXT1 << r[i] << THEANO_XENT_LABEL_TEXT2 << i << THEANO_XENT_LABEL_TEXT3 << k
        << THEANO_XENT_LABEL_TEXT4;
  return r;
}

}  // namespace

// ---- CrossentropyCategorical1Hot ----------------------------------------------------

THEANO_REGISTER_OP(CrossentropyCategorical1Hot);

// GPU form: the distribution and the labels.
std::optional<GpuPlacement> CrossentropyCategorical1Hot::gpu_form(const Apply& node) const {
  return GpuPlacement::all(node.nin());
}

ApplyPtr CrossentropyCategorical1Hot::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError)
      << "CrossentropyCategorical1Hot takes 2 inputs (coding_dist, labels), got " << inputs.size();
  Var c = as_tensor_variable(inputs[0]), l = as_tensor_variable(inputs[1]);
  const TensorType& tc = check_coding("CrossentropyCategorical1Hot", c);
  check_labels("CrossentropyCategorical1Hot", l, tc, c);
  Var out = TensorType::make(tc.dtype(), {tc.shape()[0] ? tc.shape()[0] : tensor_type(l)->shape()[0]})->make_variable();
  return Apply::create(OpPtr(this), {c, l}, {out});
}

void CrossentropyCategorical1Hot::perform(const Apply&, std::span<const NDArray> inputs,
                                          std::span<NDArray> outputs) const {
  const NDArray& c = inputs[0];
  const std::vector<int64_t> labels = read_labels("CrossentropyCategorical1Hot", inputs[1], c);
  const int64_t n = c.shape()[0];
  NDArray out = NDArray::empty({n}, DType::Float64);
  double* o = out.data_as<double>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t idx[2] = {i, labels[static_cast<std::size_t>(i)]};
    const std::byte* p = c.element_ptr(idx);
    const double v = visit_dtype(c.dtype(), [p](auto tag) -> double {
      using T = typename decltype(tag)::type;
      return scalar_cast<double>(*reinterpret_cast<const T*>(p));
    });
    o[i] = -std::log(v);
  }
  outputs[0] = out.dtype() == c.dtype() ? out : out.astype(c.dtype());
}

std::vector<std::vector<Var>> CrossentropyCategorical1Hot::infer_shape(
    const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {{shapes[0][0]}};
}

std::vector<Var> CrossentropyCategorical1Hot::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& g = output_grads.at(0);
  if (!g) return {Var(), Var()};
  return {OpPtr(new CrossentropyCategorical1HotGrad())->apply1({g, node.input(0), node.input(1)}), Var()};
}

std::vector<std::vector<bool>> CrossentropyCategorical1Hot::connection_pattern(const Apply&) const {
  return {{true}, {false}};
}

// ---- CrossentropyCategorical1HotGrad ------------------------------------------------

THEANO_REGISTER_OP(CrossentropyCategorical1HotGrad,
                   .no_grad = "a gradient op with no gradient of its own, as in Theano");

// GPU form: every input (the labels too).
std::optional<GpuPlacement> CrossentropyCategorical1HotGrad::gpu_form(const Apply& node) const {
  return GpuPlacement::all(node.nin());
}

ApplyPtr CrossentropyCategorical1HotGrad::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError)
      << "CrossentropyCategorical1HotGrad takes 3 inputs (g_y, coding_dist, labels), got " << inputs.size();
  Var g = as_tensor_variable(inputs[0]), c = as_tensor_variable(inputs[1]), l = as_tensor_variable(inputs[2]);
  const TensorType& tc = check_coding("CrossentropyCategorical1HotGrad", c);
  check_labels("CrossentropyCategorical1HotGrad", l, tc, c);
  const TensorType& tg = detail::tensor_type_of(g, "CrossentropyCategorical1HotGrad");
  THEANO_USER_CHECK(tg.ndim() == 1 && is_float(tg.dtype()), TypeError)
      << "CrossentropyCategorical1HotGrad: g_y must be a float vector, got " << g.str() << " of type " << tg.str();
  Var out = tc.make_variable();
  return Apply::create(OpPtr(this), {g, c, l}, {out});
}

void CrossentropyCategorical1HotGrad::perform(const Apply& node, std::span<const NDArray> inputs,
                                              std::span<NDArray> outputs) const {
  const NDArray g = inputs[0].astype(DType::Float64);
  const NDArray& c = inputs[1];
  const std::vector<int64_t> labels = read_labels("CrossentropyCategorical1HotGrad", inputs[2], c);
  THEANO_USER_CHECK(theano_xent_rows_ok(c.shape()[0], g.shape()[0]), ShapeError)
      << "CrossentropyCategorical1HotGrad: " << THEANO_XENT_GY_TEXT1 << g.shape()[0] << THEANO_XENT_GY_TEXT2
      << c.shape()[0] << THEANO_XENT_GY_TEXT3 << c.shape()[1] << THEANO_XENT_GY_TEXT4;
  NDArray out = NDArray::zeros(c.shape(), DType::Float64);
  const NDArray c64 = c.astype(DType::Float64);
  const double* gp = g.data_as<double>();
  const double* cp = c64.data_as<double>();
  double* o = out.data_as<double>();
  const int64_t k = c.shape()[1];
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const int64_t at = static_cast<int64_t>(i) * k + labels[i];
    o[at] = -gp[i] / cp[at];
  }
  const DType od = tensor_type(node.output(0))->dtype();
  outputs[0] = od == DType::Float64 ? out : out.astype(od);
}

std::vector<std::vector<Var>> CrossentropyCategorical1HotGrad::infer_shape(
    const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[1]};
}

// ---- graph helpers ------------------------------------------------------------------

Var crossentropy_categorical_1hot(const TensorLike& coding_dist, const TensorLike& labels) {
  return OpPtr(new CrossentropyCategorical1Hot())->apply1({coding_dist.var(), labels.var()});
}

Var categorical_crossentropy(const TensorLike& coding_dist, const TensorLike& true_dist) {
  const Var &c = coding_dist.var(), &t = true_dist.var();
  const TensorType& tc = *tensor_type(c);
  const TensorType& tt = *tensor_type(t);
  if (tt.ndim() == tc.ndim()) return neg(sum(mul(t, log(c)), tc.ndim() - 1));
  THEANO_USER_CHECK(tt.ndim() == tc.ndim() - 1 && is_integer(tt.dtype()), TypeError)
      << "categorical_crossentropy: true_dist must have the rank of coding_dist (one-hot or probability targets) or "
         "one less with an integer dtype (class labels); got coding_dist "
      << c.str() << " of type " << tc.str() << " and true_dist " << t.str() << " of type " << tt.str();
  return crossentropy_categorical_1hot(c, t);
}

Var binary_crossentropy(const TensorLike& output, const TensorLike& target) {
  const Var &o = output.var(), &t = target.var();
  return neg(add(mul(t, log(o)), mul(sub(1, t), log(sub(1, o)))));
}

}  // namespace theano::tensor::nnet

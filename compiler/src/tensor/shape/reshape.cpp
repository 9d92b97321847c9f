/// \file
/// `Reshape{ndim}` (numpy.reshape with one -1 inferred; a view when the strides
/// allow it) and `flatten`, which Theano builds on it.
#include <algorithm>
#include <sstream>

#include "shape_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

using detail::SymInt;

namespace {

std::string shape_list_str(const std::vector<std::int64_t>& s) {
  std::ostringstream os;
  os << "(";
  for (std::size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << (s.size() == 1 ? ",)" : ")");
  return os.str();
}

}  // namespace

Reshape::Reshape(int ndim, bool of_index) : ndim_(ndim), of_index_(of_index) {
  THEANO_USER_CHECK(ndim >= 0, ValueError) << "Reshape: ndim must be >= 0, got " << ndim;
}

THEANO_REGISTER_OP(Reshape);

// GPU form: the array on the GPU; the shape stays a host vector.
std::optional<GpuPlacement> Reshape::gpu_form(const Apply& node) const { return GpuPlacement::only(node.nin(), {0}); }

ApplyPtr Reshape::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name() << " takes 2 inputs (x, shape), got " << inputs.size();
  Var x = as_tensor_variable(inputs[0]);
  Var shp = as_tensor_variable(inputs[1]);
  const TensorType* ts = tensor_type(shp);
  THEANO_USER_CHECK(ts->ndim() == 1 && is_integer(ts->dtype()), TypeError)
      << name() << ": the new shape must be an integer vector, got " << shp.str() << " of type " << shp.type()->str();
  THEANO_USER_CHECK(!ts->shape()[0] || *ts->shape()[0] == ndim_, ValueError)
      << name() << ": the new shape " << shp.str() << " has " << *ts->shape()[0] << " entries, expected " << ndim_;

  const TensorType* tx = tensor_type(x);
  StaticShape out(static_cast<std::size_t>(ndim_));
  if (auto known = detail::partial_int_vector(shp)) {
    int n_minus1 = 0, minus1_at = -1;
    std::int64_t known_prod = 1;
    bool all_known = true;
    for (int i = 0; i < ndim_; ++i) {
      const auto& e = (*known)[static_cast<std::size_t>(i)];
      if (!e) {
        all_known = false;
        continue;
      }
      THEANO_USER_CHECK(*e >= -1, ValueError) << name() << ": invalid size " << *e << " in the new shape of " << x.str();
      if (*e == -1) {
        ++n_minus1;
        minus1_at = i;
      } else {
        THEANO_USER_CHECK(theano_checked_mul(known_prod, *e, &known_prod) == THEANO_RULE_OK, ValueError)
            << name() << ": the new shape of " << x.str() << " is too big: its sizes' product does not fit in int64";
        out[static_cast<std::size_t>(i)] = *e;
      }
    }
    THEANO_USER_CHECK(n_minus1 <= 1, ValueError) << name() << ": can only specify one unknown dimension (-1) in the new shape of " << x.str();
    std::optional<std::int64_t> in_size = 1;
    for (const Dim& d : tx->shape()) {
      std::int64_t p = 0;
      in_size = (in_size && d && theano_checked_mul(*in_size, *d, &p) == THEANO_RULE_OK) ? std::optional(p)
                                                                                       : std::nullopt;
    }
    if (all_known && in_size) {
      if (n_minus1 == 1) {
        THEANO_USER_CHECK(known_prod != 0 && *in_size % known_prod == 0, ShapeError)
            << name() << ": cannot reshape " << x.str() << " (type " << x.type()->str() << ", size " << *in_size
            << ") into a shape whose other entries multiply to " << known_prod;
        out[static_cast<std::size_t>(minus1_at)] = *in_size / known_prod;
      } else {
        THEANO_USER_CHECK(known_prod == *in_size, ShapeError)
            << name() << ": cannot reshape " << x.str() << " (type " << x.type()->str() << ", size " << *in_size
            << ") into a shape of size " << known_prod;
      }
    }
  }
  Var o = TensorType::make(tx->dtype(), std::move(out))->make_variable();
  return Apply::create(OpPtr(this), {x, shp}, {o});
}

void Reshape::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  const NDArray& x = inputs[0];
  const NDArray& s = inputs[1];
  THEANO_USER_CHECK(s.ndim() == 1 && s.shape()[0] == ndim_, ValueError)
      << name() << ": the shape argument has " << (s.ndim() == 1 ? s.shape()[0] : -1) << " entries, expected " << ndim_;
  std::vector<std::int64_t> shp(static_cast<std::size_t>(ndim_));
  for (int i = 0; i < ndim_; ++i) shp[static_cast<std::size_t>(i)] = s.index(0, i).item<std::int64_t>();
  // The rule generated code runs too (shape_rules.h): checked products, one -1.
  std::int64_t bad = 0;
  const int rule = theano_reshape_rule(x.size(), shp.data(), ndim_, static_cast<std::int64_t>(x.itemsize()),
                                       shp.data(), &bad);
  if (rule != THEANO_RULE_OK)
    throw_shape_rule(rule,
                     name() + ": cannot reshape " + node.input(0).str() + " of size " + std::to_string(x.size()) +
                         " (shape " + shape_to_string(x.shape()) + ") into shape " + shape_list_str(shp),
                     bad);
  outputs[0] = x.reshaped(std::move(shp));
}

std::vector<std::vector<Var>> Reshape::infer_shape(const Apply& node,
                                                   const std::vector<std::vector<Var>>& input_shapes) const {
  SymInt in_size = 1;
  for (const Var& d : input_shapes[0]) in_size = in_size * SymInt::of(d);
  const Var& shp = node.input(1);
  auto known = detail::partial_int_vector(shp);
  std::vector<SymInt> req;
  for (int i = 0; i < ndim_; ++i) {
    if (known && (*known)[static_cast<std::size_t>(i)])
      req.push_back(SymInt(*(*known)[static_cast<std::size_t>(i)]));
    else
      req.push_back(SymInt::of(subtensor(shp, {Index(i)})));
  }
  // -(product of the entries) is the product of the others when one is -1.
  SymInt neg_prod = 1;
  for (const SymInt& r : req) neg_prod = neg_prod * r;
  neg_prod = SymInt(0) - neg_prod;
  std::vector<Var> out;
  for (int i = 0; i < ndim_; ++i) {
    const SymInt& r = req[static_cast<std::size_t>(i)];
    if (r.is_constant() && r.constant() != -1) {
      out.push_back(r.var());
      continue;
    }
    const SymInt rest = floordiv(in_size, max(neg_prod, 1));
    out.push_back(select(eq(r, -1), rest, r).var());
  }
  return {out};
}

std::vector<Var> Reshape::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& x = node.input(0);
  const Var& gz = output_grads[0];
  if (!gz) return {Var(), Var()};
  const TensorType* tx = tensor_type(x);
  bool static_known = true;
  std::vector<std::int64_t> s;
  for (const Dim& d : tx->shape()) {
    static_known = static_known && d.has_value();
    s.push_back(d.value_or(0));
  }
  Var g = static_known ? reshape(gz, s) : reshape(gz, shape(x), tx->ndim());
  return {detail::match_static_shape(g, x), Var()};
}

std::vector<std::vector<bool>> Reshape::connection_pattern(const Apply&) const { return {{true}, {false}}; }

// ---- functions -------------------------------------------------------------------------

Var reshape(const Var& x, const std::vector<std::int64_t>& shape) {
  Var s = constant(NDArray::from_vector(shape, {static_cast<std::int64_t>(shape.size())}));
  return OpPtr(new Reshape(static_cast<int>(shape.size())))->apply1({as_tensor_variable(x), s});
}

Var reshape(const Var& x, const Var& shape, int ndim) {
  return OpPtr(new Reshape(ndim))->apply1({as_tensor_variable(x), as_tensor_variable(shape)});
}

Var flatten(const Var& x, int ndim) {
  Var t = as_tensor_variable(x);
  const TensorType* tt = tensor_type(t);
  const int xnd = tt->ndim();
  THEANO_USER_CHECK(ndim >= 1 && (ndim == 1 || ndim <= xnd), ValueError)
      << "flatten: ndim " << ndim << " is out of bounds [1, " << std::max(xnd, 1) << "] for " << t.str()
      << " of type " << t.type()->str();
  std::vector<Var> dims;
  std::vector<std::int64_t> consts;
  bool all_const = true;
  for (int i = 0; i < ndim - 1; ++i) {
    const Dim& d = tt->shape()[static_cast<std::size_t>(i)];
    all_const = all_const && d.has_value();
    consts.push_back(d.value_or(0));
    dims.push_back(shape_i(t, i));
  }
  std::int64_t last = 1;
  for (int i = ndim - 1; i < xnd; ++i) {
    const Dim& d = tt->shape()[static_cast<std::size_t>(i)];
    last = (last >= 0 && d) ? last * *d : -1;
  }
  consts.push_back(last);
  if (all_const) return reshape(t, consts);
  dims.push_back(detail::int64_const(last));
  return reshape(t, make_vector(dims, DType::Int64), ndim);
}

}  // namespace theano::tensor

// The alias map, out of the public header (it stays light to compile).
theano::ViewMap theano::tensor::Reshape::view_map() const { return {{0, {0}}}; }

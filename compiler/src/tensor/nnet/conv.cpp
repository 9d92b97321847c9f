// The convolution ops (AbstractConv* and CorrMM*, one N-d family each, see
// theano/tensor/conv.h): make_node's checks and static shapes, perform through
// the kernels of theano/runtime/kernels/conv.h (the text generated code runs),
// infer_shape and the gradients (each direction's are the other two).
#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>

#include "theano/graph/op_registry.h"
#include "theano/runtime/blas_library.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/conv.h"
#include "theano/tensor/conv.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::nnet {
namespace {

std::vector<std::int64_t> ones_if_empty(std::vector<std::int64_t> v, int n, const char* what, std::string_view op) {
  if (v.empty()) v.assign(static_cast<std::size_t>(n), 1);
  THEANO_USER_CHECK(static_cast<int>(v.size()) == n, ValueError)
      << op << ": " << what << " needs " << n << " entries (one per spatial axis), got " << v.size();
  return v;
}

// The message of a failed conv.h rule: "<op>: <rule text><bad>" and the shapes.
[[noreturn]] void throw_conv_rule(int rc, const std::string& op, std::int64_t bad, const std::string& context) {
  std::ostringstream os;
  os << op << ": " << theano_conv_rule_text(rc) << bad << context;
  throw ValueError(os.str());
}

// How a message names an input: the user's variable, seen through the
// flipped view the rewrite to CorrMM puts on the filters.
std::string user_name(const Var& v) {
  if (v.name().empty() && v.owner() && v.owner()->op()->type_name() == "Subtensor")
    return user_name(v.owner()->input(0)) + " (flipped)";
  return v.str();
}

std::string shape_text(const std::vector<std::int64_t>& s) { return shape_to_string(s); }

std::string dims_text(const StaticShape& s) {
  std::string r = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += s[i] ? std::to_string(*s[i]) : std::string("?");
  }
  return r + (s.size() == 1 ? ",)" : ")");
}

// The values of an int vector (a shape input) as int64.
std::vector<std::int64_t> int_values(const NDArray& a) {
  const NDArray v = a.astype(DType::Int64).contiguous();
  const auto* p = v.data_as<std::int64_t>();
  return std::vector<std::int64_t>(p, p + v.size());
}

// Element strides of `a` (its byte strides divided by the item size).
std::vector<std::int64_t> elem_strides(const NDArray& a) {
  std::vector<std::int64_t> s = a.strides();
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  for (auto& v : s) v /= item;
  return s;
}

bool strides_aligned(const NDArray& a) {
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  return std::all_of(a.strides().begin(), a.strides().end(), [&](std::int64_t s) { return s % item == 0; });
}

// A filters' array as (data pointer, element strides), reversed along the
// spatial axes when `flip` (a true convolution as a correlation).
struct Operand {
  const std::byte* data;
  std::vector<std::int64_t> strides;
};
Operand operand(const NDArray& a, bool flip) {
  Operand r{static_cast<const std::byte*>(a.data()), elem_strides(a)};
  if (!flip) return r;
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  for (int d = 2; d < a.ndim(); ++d) {
    const auto du = static_cast<std::size_t>(d);
    if (a.shape()[du] > 0) r.data += (a.shape()[du] - 1) * r.strides[du] * item;
    r.strides[du] = -r.strides[du];
  }
  return r;
}

template <class T>
struct Kernels;
template <>
struct Kernels<float> {
  static constexpr auto fwd = &theano_corr_fwd_f32;
  static constexpr auto gw = &theano_corr_grad_weights_f32;
  static constexpr auto gi = &theano_corr_grad_inputs_f32;
  static constexpr auto pack = &theano_conv_pack_f32;
};
template <>
struct Kernels<double> {
  static constexpr auto fwd = &theano_corr_fwd_f64;
  static constexpr auto gw = &theano_corr_grad_weights_f64;
  static constexpr auto gi = &theano_corr_grad_inputs_f64;
  static constexpr auto pack = &theano_conv_pack_f64;
};

// Runs direction `dir` on a (the input or the filters) and b (the filters or
// the output gradient) with geometry g into the fresh C-contiguous `out`;
// for the weights' gradient with `flip`, reverses the result's spatial axes.
template <class T>
void run_kernel(ConvDirection dir, const TheanoConvGeom& g, const Operand& a, const Operand& b, NDArray& out,
                bool flip) {
  int64_t n = 0;
  const int dcode = dir == ConvDirection::Forward ? 0 : dir == ConvDirection::GradWeights ? 1 : 2;
  if (theano_conv_scratch_size(&g, dcode, &n) != THEANO_CONV_OK)
    throw ValueError("convolution: the scratch buffer's size does not fit in int64");
  std::vector<T> scratch(static_cast<std::size_t>(n));
  const T* pa = reinterpret_cast<const T*>(a.data);
  const T* pb = reinterpret_cast<const T*>(b.data);
  T* po = out.data_as<T>();
  if (dir == ConvDirection::Forward) {
    Kernels<T>::fwd(&g, 0, g.batch, pa, a.strides.data(), pb, b.strides.data(), po, scratch.data());
  } else if (dir == ConvDirection::GradInputs) {
    Kernels<T>::gi(&g, 0, g.batch, pa, a.strides.data(), pb, b.strides.data(), po, scratch.data());
  } else if (!flip) {
    Kernels<T>::gw(&g, 0, g.batch, pa, a.strides.data(), pb, b.strides.data(), po, scratch.data());
  } else {
    NDArray tmp = NDArray::empty(out.shape(), out.dtype());
    Kernels<T>::gw(&g, 0, g.batch, pa, a.strides.data(), pb, b.strides.data(), tmp.data_as<T>(), scratch.data());
    const Operand f = operand(tmp, true);
    Kernels<T>::pack(tmp.ndim(), tmp.shape().data(), reinterpret_cast<const T*>(f.data), f.strides.data(), po);
  }
}

}  // namespace

BorderMode BorderMode::parse(std::string_view mode) {
  if (mode == "valid") return valid();
  if (mode == "full") return full();
  if (mode == "half") return half();
  THEANO_USER_CHECK(false, ValueError) << "border_mode must be 'valid', 'full', 'half', an int or a list of ints, got '"
                                       << mode << "'";
  return valid();
}

std::vector<std::int64_t> BorderMode::pad_spec(int nsp, std::string_view what) const {
  switch (kind) {
    case Kind::Valid: return std::vector<std::int64_t>(static_cast<std::size_t>(nsp), 0);
    case Kind::Full: return std::vector<std::int64_t>(static_cast<std::size_t>(nsp), THEANO_CONV_FULL);
    case Kind::Half: return std::vector<std::int64_t>(static_cast<std::size_t>(nsp), THEANO_CONV_HALF);
    default: break;
  }
  THEANO_USER_CHECK(pad.size() == 1 || static_cast<int>(pad.size()) == nsp, ValueError)
      << what << ": border_mode " << str() << " needs 1 or " << nsp << " paddings (one per spatial axis)";
  std::vector<std::int64_t> r = pad.size() == 1 ? std::vector<std::int64_t>(static_cast<std::size_t>(nsp), pad[0]) : pad;
  for (std::int64_t p : r)
    THEANO_USER_CHECK(p >= 0, ValueError) << what << ": " << theano_conv_rule_text(THEANO_CONV_PAD) << p;
  return r;
}

std::string BorderMode::str() const {
  switch (kind) {
    case Kind::Valid: return "valid";
    case Kind::Full: return "full";
    case Kind::Half: return "half";
    default: break;
  }
  if (pad.size() == 1) return std::to_string(pad[0]);
  std::string r = "(";
  for (std::size_t i = 0; i < pad.size(); ++i) r += (i ? ", " : "") + std::to_string(pad[i]);
  return r + ")";
}

ConvBase::ConvBase(ConvDirection direction, int convdim, BorderMode border_mode, std::vector<std::int64_t> subsample,
                   bool filter_flip, std::vector<std::int64_t> filter_dilation, std::int64_t num_groups,
                   std::vector<std::int64_t> imshp, std::vector<std::int64_t> kshp)
    : border_mode_(std::move(border_mode)),
      subsample_(std::move(subsample)),
      filter_flip_(filter_flip),
      filter_dilation_(std::move(filter_dilation)),
      num_groups_(num_groups),
      imshp_(std::move(imshp)),
      kshp_(std::move(kshp)),
      direction_(direction),
      convdim_(convdim) {
  const std::string what = "conv" + std::to_string(convdim) + "d";
  THEANO_USER_CHECK(convdim == 2 || convdim == 3, ValueError) << what << ": only 2 or 3 spatial axes are supported";
  subsample_ = ones_if_empty(subsample_, convdim, "subsample", what);
  filter_dilation_ = ones_if_empty(filter_dilation_, convdim, "filter_dilation", what);
  const std::vector<std::int64_t> pads = border_mode_.pad_spec(convdim, what);
  std::int64_t bad = 0;
  const int rc = theano_conv_params_rule(convdim, pads.data(), subsample_.data(), filter_dilation_.data(),
                                         num_groups_, &bad);
  if (rc != THEANO_CONV_OK) throw_conv_rule(rc, what, bad, "");
  for (const auto* h : {&imshp_, &kshp_})
    THEANO_USER_CHECK(h->empty() || static_cast<int>(h->size()) == convdim + 2, ValueError)
        << what << ": a shape hint needs " << convdim + 2 << " entries, got " << h->size();
}

std::string_view AbstractConv::type_name() const {
  static const std::string names[2][3] = {
      {"AbstractConv2d", "AbstractConv2d_gradWeights", "AbstractConv2d_gradInputs"},
      {"AbstractConv3d", "AbstractConv3d_gradWeights", "AbstractConv3d_gradInputs"}};
  return names[convdim() == 3][static_cast<int>(direction())];
}

OpPtr AbstractConv::sibling(ConvDirection dir) const {
  return OpPtr(new AbstractConv(dir, convdim(), border_mode(), subsample(), filter_flip(), filter_dilation(),
                                num_groups(), imshp(), kshp()));
}

CorrMM::CorrMM(ConvDirection direction, int convdim, BorderMode border_mode, std::vector<std::int64_t> subsample,
               std::vector<std::int64_t> filter_dilation, std::int64_t num_groups, std::vector<std::int64_t> imshp,
               std::vector<std::int64_t> kshp)
    : ConvBase(direction, convdim, std::move(border_mode), std::move(subsample), false, std::move(filter_dilation),
               num_groups, std::move(imshp), std::move(kshp)) {}

std::string_view CorrMM::type_name() const {
  static const std::string names[2][3] = {{"CorrMM", "CorrMM_gradWeights", "CorrMM_gradInputs"},
                                          {"Corr3dMM", "Corr3dMM_gradWeights", "Corr3dMM_gradInputs"}};
  return names[convdim() == 3][static_cast<int>(direction())];
}

OpPtr CorrMM::sibling(ConvDirection dir) const {
  return OpPtr(new CorrMM(dir, convdim(), border_mode(), subsample(), filter_dilation(), num_groups(), imshp(),
                          kshp()));
}

THEANO_REGISTER_OP(AbstractConv,
                   .kinds = {"AbstractConv2d", "AbstractConv2d_gradWeights", "AbstractConv2d_gradInputs",
                             "AbstractConv3d", "AbstractConv3d_gradWeights", "AbstractConv3d_gradInputs"},
                   .no_cuda = "replaced by CorrMM before the GPU transfer");
THEANO_REGISTER_OP(CorrMM,
                   .kinds = {"CorrMM", "CorrMM_gradWeights", "CorrMM_gradInputs", "Corr3dMM", "Corr3dMM_gradWeights",
                             "Corr3dMM_gradInputs"});

// The data inputs live on the GPU; a gradient's shape vector stays on the host.
std::optional<GpuPlacement> CorrMM::gpu_form(const Apply& node) const { return GpuPlacement::only(node.nin(), {0, 1}); }

ApplyPtr ConvBase::make_node(std::vector<Var> inputs) const {
  const std::string op(type_name());
  const bool fwd = direction() == ConvDirection::Forward;
  const std::size_t want = fwd ? 2 : 3;
  THEANO_USER_CHECK(inputs.size() == want, TypeError) << op << " takes " << want << " inputs, got " << inputs.size();
  const int nd = convdim() + 2;
  // The float inputs: all but the shape vector.
  std::vector<Var> in(inputs.size());
  DType dt = DType::Float32;
  for (std::size_t i = 0; i < 2; ++i) {
    in[i] = as_tensor_variable(inputs[i]);
    const TensorType& t = *tensor_type(in[i]);
    THEANO_USER_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64, TypeError)
        << op << ": expected float32 or float64 tensors (the supported dtypes), got " << in[i].str() << " of type "
        << t.str();
    THEANO_USER_CHECK(t.ndim() == nd, TypeError)
        << op << ": expected a " << nd << "-d tensor, got " << in[i].str() << " of type " << t.str();
    if (t.dtype() == DType::Float64) dt = DType::Float64;
  }
  for (std::size_t i = 0; i < 2; ++i)
    if (tensor_type(in[i])->dtype() != dt) in[i] = cast(in[i], dt);
  if (!fwd) {
    in[2] = as_tensor_variable(inputs[2]);
    const TensorType& t = *tensor_type(in[2]);
    THEANO_USER_CHECK(t.ndim() == 1 && is_integer(t.dtype()), TypeError)
        << op << ": the shape input must be an integer vector, got " << in[2].str() << " of type " << t.str();
    THEANO_USER_CHECK(!t.shape()[0] || *t.shape()[0] == convdim(), ValueError)
        << op << ": the shape input must have " << convdim() << " entries (the spatial axes), got " << in[2].str()
        << " of type " << t.str();
  }
  // The static shapes of the input and the filters as far as known (hints included).
  const StaticShape s0 = tensor_type(in[0])->shape(), s1 = tensor_type(in[1])->shape();
  StaticShape ish(static_cast<std::size_t>(nd)), wsh(static_cast<std::size_t>(nd)), tsh(static_cast<std::size_t>(nd));
  auto hint = [](const std::vector<std::int64_t>& h, std::size_t d) -> Dim {
    return h.empty() || h[d] < 0 ? Dim() : Dim(h[d]);
  };
  for (std::size_t d = 0; d < static_cast<std::size_t>(nd); ++d) {
    ish[d] = hint(imshp(), d);
    wsh[d] = hint(kshp(), d);
  }
  auto merge = [&](Dim& dst, const Dim& v, const Var& var, const char* which) {
    if (!v) return;
    THEANO_USER_CHECK(!dst || *dst == *v, ValueError)
        << op << ": the " << which << " hint says size " << *dst << " but " << var.str() << " has static size " << *v;
    dst = v;
  };
  const Var& x = in[0];
  const Var& w = in[1];
  if (direction() == ConvDirection::Forward) {
    for (std::size_t d = 0; d < s0.size(); ++d) merge(ish[d], s0[d], x, "input_shape");
    for (std::size_t d = 0; d < s1.size(); ++d) merge(wsh[d], s1[d], w, "filter_shape");
  } else if (direction() == ConvDirection::GradWeights) {  // (input, top, shape)
    for (std::size_t d = 0; d < s0.size(); ++d) merge(ish[d], s0[d], x, "input_shape");
    tsh = s1;
    if (tsh[1]) merge(wsh[0], tsh[1], w, "filter_shape");
  } else {  // (filters, top, shape)
    for (std::size_t d = 0; d < s0.size(); ++d) merge(wsh[d], s0[d], x, "filter_shape");
    tsh = s1;
    if (tsh[0]) merge(ish[0], tsh[0], w, "input_shape");
  }
  // A constant shape input gives the spatial sizes it asks for.
  if (!fwd)
    if (const Constant* c = in[2].as_constant()) {
      const std::vector<std::int64_t> sp = int_values(c->data());
      StaticShape& dst = direction() == ConvDirection::GradWeights ? wsh : ish;
      for (std::size_t d = 0; d < sp.size() && d + 2 < dst.size(); ++d) {
        THEANO_USER_CHECK(sp[d] >= 0, ValueError)
            << op << ": " << theano_conv_rule_text(THEANO_CONV_NEGATIVE) << sp[d] << " in " << in[2].str();
        merge(dst[d + 2], Dim(sp[d]), in[2], direction() == ConvDirection::GradWeights ? "filter_shape" : "input_shape");
      }
    }
  const std::int64_t G = num_groups();
  const std::string context =
      "; input shape " + dims_text(ish) + ", filters shape " + dims_text(wsh) + " (from " + x.str() + ", " + w.str() + ")";
  // The checks conv.h makes at run time, made here where static shapes allow.
  if (ish[1] && wsh[1] && *ish[1] != *wsh[1] * G) throw_conv_rule(THEANO_CONV_CHANNELS, op, *ish[1], context);
  if (wsh[0] && *wsh[0] % G != 0) throw_conv_rule(THEANO_CONV_FILTERS, op, *wsh[0], context);
  if (ish[1] && *ish[1] % G != 0) throw_conv_rule(THEANO_CONV_IN_GROUPS, op, *ish[1], context);
  const std::vector<std::int64_t> pads = border_mode().pad_spec(convdim(), op);
  StaticShape osh(static_cast<std::size_t>(nd));
  osh[0] = ish[0];
  osh[1] = wsh[0];
  for (int d = 0; d < convdim(); ++d) {
    const auto du = static_cast<std::size_t>(d + 2);
    if (!ish[du] || !wsh[du]) continue;
    // The rule on one axis: a 1 x 1 image and one 1 x 1 filter elsewhere.
    std::vector<std::int64_t> i1(static_cast<std::size_t>(nd), 1), w1(static_cast<std::size_t>(nd), 1);
    i1[du] = *ish[du];
    w1[du] = *wsh[du];
    std::vector<std::int64_t> p1(static_cast<std::size_t>(convdim()), 0);
    p1[static_cast<std::size_t>(d)] = pads[static_cast<std::size_t>(d)];
    TheanoConvGeom g{};
    std::int64_t bad = 0;
    const int rc = theano_conv_rule(convdim(), i1.data(), w1.data(), p1.data(), subsample().data(),
                                    filter_dilation().data(), 1, &g, &bad);
    if (rc != THEANO_CONV_OK) throw_conv_rule(rc, op, bad, context);
    osh[du] = g.out[d];
  }
  if (direction() != ConvDirection::Forward) {
    for (std::size_t d = 0; d < static_cast<std::size_t>(nd); ++d) {
      const Dim want_d = d == 0 ? (direction() == ConvDirection::GradWeights ? ish[0] : tsh[0]) : osh[d];
      if (d == 0 || !tsh[d] || !want_d) continue;
      if (*tsh[d] != *want_d)
        throw_conv_rule(THEANO_CONV_TOPGRAD, op, static_cast<std::int64_t>(d),
                        context + ", output gradient shape " + dims_text(tsh));
    }
  }
  StaticShape result;
  if (direction() == ConvDirection::Forward) {
    result = osh;
  } else if (direction() == ConvDirection::GradWeights) {
    result = wsh;
    if (!result[1] && ish[1]) result[1] = *ish[1] / G;
  } else {
    result = ish;
    if (!result[1] && wsh[1]) result[1] = *wsh[1] * G;
  }
  Var out = TensorType::make(dt, result)->make_variable();
  return Apply::create(OpPtr(this), std::move(in), {out});
}

void ConvBase::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  runtime::load_blas();  // throws where OpenBLAS cannot be opened; the kernels could only abort
  const std::string op(type_name());
  const int nsp = convdim();
  const auto nd = static_cast<std::size_t>(nsp + 2);
  NDArray a = inputs[0], b = inputs[1];
  if (!strides_aligned(a)) a = a.copy();
  if (!strides_aligned(b)) b = b.copy();
  const DType dt = a.dtype();
  THEANO_USER_CHECK((dt == DType::Float32 || dt == DType::Float64) && b.dtype() == dt && a.ndim() == nsp + 2 &&
                        b.ndim() == nsp + 2,
                    TypeError)
      << op << ": expected two " << nsp + 2 << "-d float32 or float64 arrays of one dtype";
  std::vector<std::int64_t> ishape, wshape;
  const std::vector<std::int64_t>* top = nullptr;
  const std::int64_t G = num_groups();
  std::int64_t bad = 0;
  std::string context = "; " + user_name(node.input(0)) + " has shape " + shape_text(a.shape()) + ", " +
                        user_name(node.input(1)) +
                        " has shape " + shape_text(b.shape());
  if (direction() == ConvDirection::Forward) {
    ishape = a.shape();
    wshape = b.shape();
  } else {
    const std::vector<std::int64_t> sp = int_values(inputs[2]);
    THEANO_USER_CHECK(static_cast<int>(sp.size()) == nsp, ValueError)
        << op << ": the shape input must have " << nsp << " entries, got " << sp.size();
    top = &b.shape();
    if (direction() == ConvDirection::GradWeights) {  // (input, top, filter spatial shape)
      const int rc = theano_conv_channels_rule(a.shape()[1], G, &bad);
      if (rc != THEANO_CONV_OK) throw_conv_rule(rc, op, bad, context);
      ishape = a.shape();
      wshape = {(*top)[1], a.shape()[1] / G};
    } else {  // (filters, top, input spatial shape)
      wshape = a.shape();
      std::int64_t c = 0;
      if (theano_checked_mul(a.shape()[1], G, &c) != THEANO_RULE_OK) throw_conv_rule(THEANO_CONV_OVERFLOW, op, 1, context);
      ishape = {(*top)[0], c};
    }
    std::vector<std::int64_t>& spatial = direction() == ConvDirection::GradWeights ? wshape : ishape;
    spatial.insert(spatial.end(), sp.begin(), sp.end());
    context += " (" + std::string(direction() == ConvDirection::GradWeights ? "filters" : "input") + " shape " +
               shape_text(spatial) + ")";
  }
  const std::vector<std::int64_t> pads = border_mode().pad_spec(nsp, op);
  TheanoConvGeom g{};
  int rc = theano_conv_rule(nsp, ishape.data(), wshape.data(), pads.data(), subsample().data(),
                            filter_dilation().data(), G, &g, &bad);
  if (rc == THEANO_CONV_OK && top) rc = theano_conv_top_rule(&g, top->data(), &bad);
  if (rc == THEANO_CONV_OK && !imshp().empty()) rc = theano_conv_hint_rule(nsp + 2, imshp().data(), ishape.data(), &bad);
  if (rc == THEANO_CONV_OK && !kshp().empty()) rc = theano_conv_hint_rule(nsp + 2, kshp().data(), wshape.data(), &bad);
  if (rc != THEANO_CONV_OK) throw_conv_rule(rc, op, bad, context);
  std::vector<std::int64_t> oshape;
  if (direction() == ConvDirection::Forward) {
    oshape = {g.batch, g.filters};
    oshape.insert(oshape.end(), g.out, g.out + nsp);
  } else {
    oshape = direction() == ConvDirection::GradWeights ? wshape : ishape;
  }
  NDArray out = NDArray::empty(oshape, dt);
  (void)nd;
  const bool flip = filter_flip();
  // The filters are input 1 forward and input 0 for the inputs' gradient.
  const Operand oa = operand(a, flip && direction() == ConvDirection::GradInputs);
  const Operand ob = operand(b, flip && direction() == ConvDirection::Forward);
  if (dt == DType::Float32)
    run_kernel<float>(direction(), g, oa, ob, out, flip);
  else
    run_kernel<double>(direction(), g, oa, ob, out, flip);
  outputs[0] = std::move(out);
}

}  // namespace theano::tensor::nnet

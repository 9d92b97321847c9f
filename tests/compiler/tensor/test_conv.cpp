// conv2d / conv3d and their gradient ops (AbstractConv*, CorrMM*) through
// perform: every option (border modes, subsample, filter_flip, dilation,
// groups; 2d and 3d) against a direct loop written here, with and without the
// rewrite to CorrMM, strided inputs, infer_shape, verify_grad on each option
// (also of the gradient ops, i.e. second derivatives), and the errors with
// their messages.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/conv.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace nn = theano::tensor::nnet;

namespace {

struct Case {
  nn::BorderMode border = nn::BorderMode::valid();
  std::vector<std::int64_t> stride, dil;
  bool flip = true;
  std::int64_t groups = 1;
  std::string str() const {
    std::string s = "border=" + border.str() + " flip=" + std::to_string(flip) + " groups=" + std::to_string(groups);
    for (auto v : stride) s += " s" + std::to_string(v);
    for (auto v : dil) s += " d" + std::to_string(v);
    return s;
  }
  nn::ConvOptions opts() const {
    return {.border_mode = border, .subsample = stride, .filter_flip = flip, .filter_dilation = dil,
            .num_groups = groups};
  }
};

std::int64_t padding(const nn::BorderMode& b, std::size_t d, std::int64_t k, std::int64_t dil) {
  const std::int64_t span = dil * (k - 1) + 1;
  switch (b.kind) {
    case nn::BorderMode::Kind::Valid: return 0;
    case nn::BorderMode::Kind::Full: return span - 1;
    case nn::BorderMode::Kind::Half: return span / 2;
    default: return b.pad.size() == 1 ? b.pad[0] : b.pad[d];
  }
}

// The definition, written directly: for every image n, filter f, output
// position o, channel c of f's group and kernel position k, input position
// i = o * stride - pad + k * dil (skipped in the padding), and the filter's
// tap read at k (or reversed, for a true convolution). `visit(xi, wi, oi)`
// gets the flat C-order offsets of x, w and out.
std::vector<std::int64_t> direct(const std::vector<std::int64_t>& xs, const std::vector<std::int64_t>& ws,
                                 const Case& c, const std::function<void(std::int64_t, std::int64_t, std::int64_t)>& visit) {
  const std::size_t nsp = xs.size() - 2;
  std::vector<std::int64_t> pad(nsp), st(nsp, 1), dl(nsp, 1), os{xs[0], ws[0]};
  for (std::size_t d = 0; d < nsp; ++d) {
    if (!c.stride.empty()) st[d] = c.stride[d];
    if (!c.dil.empty()) dl[d] = c.dil[d];
    pad[d] = padding(c.border, d, ws[d + 2], dl[d]);
    os.push_back((xs[d + 2] + 2 * pad[d] - dl[d] * (ws[d + 2] - 1) - 1) / st[d] + 1);
  }
  if (!visit) return os;
  const std::int64_t fg = ws[0] / c.groups, cg = ws[1];
  auto count = [](const std::vector<std::int64_t>& s, std::size_t from) {
    std::int64_t n = 1;
    for (std::size_t d = from; d < s.size(); ++d) n *= s[d];
    return n;
  };
  const std::int64_t op = count(os, 2), kp = count(ws, 2), ip = count(xs, 2);
  for (std::int64_t n = 0; n < xs[0]; ++n)
    for (std::int64_t f = 0; f < ws[0]; ++f)
      for (std::int64_t o = 0; o < op; ++o)
        for (std::int64_t ch = 0; ch < cg; ++ch)
          for (std::int64_t k = 0; k < kp; ++k) {
            std::int64_t orem = o, krem = k, xi = 0, xmul = 1, wk = 0, wmul = 1;
            bool inside = true;
            for (std::size_t d = nsp; d-- > 0;) {
              const std::int64_t od = orem % os[d + 2], kd = krem % ws[d + 2];
              orem /= os[d + 2];
              krem /= ws[d + 2];
              const std::int64_t i = od * st[d] - pad[d] + kd * dl[d];
              if (i < 0 || i >= xs[d + 2]) inside = false;
              xi += i * xmul;
              xmul *= xs[d + 2];
              wk += (c.flip ? ws[d + 2] - 1 - kd : kd) * wmul;
              wmul *= ws[d + 2];
            }
            if (!inside) continue;
            const std::int64_t xc = (f / fg) * cg + ch;
            visit((n * xs[1] + xc) * ip + xi, (f * cg + ch) * kp + wk, (n * ws[0] + f) * op + o);
          }
  return os;
}

NDArray values(const std::vector<std::int64_t>& shape, double phase, DType dt = DType::Float64) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = std::sin(0.77 * static_cast<double>(i) + phase);
  return a.astype(dt);
}

NDArray ref_forward(const NDArray& x, const NDArray& w, const Case& c) {
  NDArray out = NDArray::zeros(direct(x.shape(), w.shape(), c, nullptr));
  const NDArray xc = x.astype(DType::Float64).contiguous(), wc = w.astype(DType::Float64).contiguous();
  const double *px = xc.data_as<double>(), *pw = wc.data_as<double>();
  double* po = out.data_as<double>();
  direct(x.shape(), w.shape(), c, [&](auto xi, auto wi, auto oi) { po[oi] += px[xi] * pw[wi]; });
  return out;
}
NDArray ref_grad_inputs(const NDArray& w, const NDArray& top, const std::vector<std::int64_t>& xs, const Case& c) {
  NDArray dx = NDArray::zeros(xs);
  const NDArray wc = w.astype(DType::Float64).contiguous(), tc = top.astype(DType::Float64).contiguous();
  direct(xs, w.shape(), c, [&](auto xi, auto wi, auto oi) {
    dx.data_as<double>()[xi] += wc.data_as<double>()[wi] * tc.data_as<double>()[oi];
  });
  return dx;
}
NDArray ref_grad_weights(const NDArray& x, const NDArray& top, const std::vector<std::int64_t>& ws, const Case& c) {
  NDArray dw = NDArray::zeros(ws);
  const NDArray xc = x.astype(DType::Float64).contiguous(), tc = top.astype(DType::Float64).contiguous();
  direct(x.shape(), ws, c, [&](auto xi, auto wi, auto oi) {
    dw.data_as<double>()[wi] += xc.data_as<double>()[xi] * tc.data_as<double>()[oi];
  });
  return dw;
}

bool close(const NDArray& got, const NDArray& want, double tol) {
  if (got.shape() != want.shape()) return false;
  const NDArray g = got.astype(DType::Float64).contiguous(), w = want.astype(DType::Float64).contiguous();
  for (std::int64_t i = 0; i < g.size(); ++i)
    if (std::abs(g.data_as<double>()[i] - w.data_as<double>()[i]) > tol * (1 + std::abs(w.data_as<double>()[i])))
      return false;
  return true;
}

Var conv(int nsp, const Var& x, const Var& w, const nn::ConvOptions& o) {
  return nsp == 2 ? nn::conv2d(x, w, o) : nn::conv3d(x, w, o);
}
Var grad_inputs(int nsp, const Var& top, const Var& w, const Var& shp, const nn::ConvOptions& o) {
  return nsp == 2 ? nn::conv2d_grad_wrt_inputs(top, w, shp, o) : nn::conv3d_grad_wrt_inputs(top, w, shp, o);
}
Var grad_weights(int nsp, const Var& x, const Var& top, const Var& shp, const nn::ConvOptions& o) {
  return nsp == 2 ? nn::conv2d_grad_wrt_weights(x, top, shp, o) : nn::conv3d_grad_wrt_weights(x, top, shp, o);
}

NDArray run(const Var& out, const std::vector<std::pair<Var, NDArray>>& in, const std::string& mode) {
  std::vector<In> ins;
  std::vector<NDArray> args;
  for (const auto& [v, a] : in) {
    ins.emplace_back(v);
    args.push_back(a);
  }
  FunctionOptions o;
  o.mode = mode;
  o.on_unused_input = OnUnusedInput::Ignore;
  Function f = function(ins, {Out(out)}, o);
  return f(args).value();
}

std::vector<Case> cases(int nsp) {
  std::vector<Case> r;
  const std::vector<std::int64_t> one(static_cast<std::size_t>(nsp), 1);
  std::vector<std::int64_t> s2 = one, d2 = one;
  s2[0] = 2;
  d2[static_cast<std::size_t>(nsp) - 1] = 2;
  nn::BorderMode per_axis = nsp == 2 ? nn::BorderMode({1, 2}) : nn::BorderMode({1, 0, 2});
  for (const nn::BorderMode& b :
       {nn::BorderMode::valid(), nn::BorderMode::full(), nn::BorderMode::half(), nn::BorderMode(1), per_axis})
    for (const auto& st : {std::vector<std::int64_t>{}, s2})
      for (const auto& dl : {one, d2})
        for (bool flip : {true, false})
          for (std::int64_t g : {1, 2}) r.push_back(Case{b, st, dl, flip, g});
  return r;
}

}  // namespace

TEST_CASE("conv2d and conv3d match a direct loop over every option, with and without the CorrMM rewrite") {
  for (int nsp : {2, 3}) {
    const std::vector<std::int64_t> xs = nsp == 2 ? std::vector<std::int64_t>{2, 4, 7, 6}
                                                  : std::vector<std::int64_t>{1, 4, 5, 4, 5};
    for (const Case& c : cases(nsp)) {
      CAPTURE(nsp);
      CAPTURE(c.str());
      const std::vector<std::int64_t> ws = nsp == 2 ? std::vector<std::int64_t>{4, 4 / c.groups, 3, 2}
                                                    : std::vector<std::int64_t>{2, 4 / c.groups, 2, 3, 2};
      const Var x = tensor::tensor(DType::Float64, StaticShape(xs.size()), "x");
      const Var w = tensor::tensor(DType::Float64, StaticShape(ws.size()), "W");
      const NDArray a = values(xs, 0.1), b = values(ws, 0.7);
      const Var y = conv(nsp, x, w, c.opts());
      const NDArray want = ref_forward(a, b, c);
      for (const char* mode : {"fast_run", "unoptimized"}) {
        CAPTURE(mode);
        CHECK(close(run(y, {{x, a}, {w, b}}, mode), want, 1e-12));
        CHECK(close(run(y, {{x, test::strided_copy(a)}, {w, test::strided_copy(b)}}, mode), want, 1e-12));
      }
      // The gradient ops against the loop too: top has the output's shape.
      const NDArray top = values(want.shape(), 1.3);
      const Var t = tensor::tensor(DType::Float64, StaticShape(xs.size()), "top");
      const Var gi = grad_inputs(nsp, t, w, constant(NDArray::from_vector<std::int64_t>(xs, {nsp + 2})), c.opts());
      const Var gw = grad_weights(nsp, x, t, constant(NDArray::from_vector<std::int64_t>(ws, {nsp + 2})), c.opts());
      for (const char* mode : {"fast_run", "unoptimized"}) {
        CAPTURE(mode);
        CHECK(close(run(gi, {{t, top}, {w, b}}, mode), ref_grad_inputs(b, top, xs, c), 1e-12));
        CHECK(close(run(gw, {{t, test::strided_copy(top)}, {x, a}}, mode), ref_grad_weights(a, top, ws, c), 1e-12));
      }
    }
  }
}

TEST_CASE("conv2d in float32, the printed ops and the static output shape") {
  const Var x = tensor::tensor(DType::Float32, {2, 3, 8, 8}, "x");
  const Var w = tensor::tensor(DType::Float32, {5, 3, 3, 3}, "W");
  const Var y = nn::conv2d(x, w, {.border_mode = nn::BorderMode::half(), .subsample = {2, 2}});
  CHECK(y.owner()->op()->name() == "AbstractConv2d{half,(2, 2),True,(1, 1),1}");
  CHECK(tensor_type(y)->str() == "TensorType(float32, (2, 5, 4, 4))");
  CHECK(dtype_name(y.dtype()) == "float32");
  const NDArray a = values({2, 3, 8, 8}, 0.2, DType::Float32), b = values({5, 3, 3, 3}, 0.4, DType::Float32);
  const Case c{nn::BorderMode::half(), {2, 2}, {}, true, 1};
  CHECK(close(run(y, {{x, a}, {w, b}}, "fast_run"), ref_forward(a, b, c), 1e-5));
  const Var y3 = nn::conv3d(tensor::tensor(DType::Float64, {1, 2, 4, 5, 6}), tensor::tensor(DType::Float64, {3, 2, 1, 2, 3}),
                            {.border_mode = nn::BorderMode::full()});
  CHECK(tensor_type(y3)->str() == "TensorType(float64, (1, 3, 4, 6, 8))");
  // A constant shape gives the gradients' static shapes.
  const Var gi = nn::conv2d_grad_wrt_inputs(y, w, NDArray::from_list<std::int64_t>({2, 3, 8, 8}, {4}),
                                            {.border_mode = nn::BorderMode::half(), .subsample = {2, 2}});
  CHECK(tensor_type(gi)->str() == "TensorType(float32, (2, 3, 8, 8))");
  const Var gw = nn::conv2d_grad_wrt_weights(x, y, NDArray::from_list<std::int64_t>({5, 3, 3, 3}, {4}),
                                             {.border_mode = nn::BorderMode::half(), .subsample = {2, 2}});
  CHECK(tensor_type(gw)->str() == "TensorType(float32, (5, 3, 3, 3))");
}

TEST_CASE("conv infer_shape over the options and the gradient ops") {
  for (const Case& c : cases(2)) {
    CAPTURE(c.str());
    const Var x = tensor4("x", DType::Float64), w = tensor4("W", DType::Float64), t = tensor4("top", DType::Float64);
    const std::vector<std::int64_t> xs{2, 4, 7, 6}, ws{4, 4 / c.groups, 3, 2};
    const NDArray a = values(xs, 0.1), b = values(ws, 0.7);
    const NDArray top = values(direct(xs, ws, c, nullptr), 0.9);
    const Var shp_x = shape(x), shp_w = shape(w);
    testing::check_infer_shape({x, w}, {nn::conv2d(x, w, c.opts())}, {a, b});
    testing::check_infer_shape({x, w, t},
                               {nn::conv2d_grad_wrt_inputs(t, w, shp_x, c.opts()),
                                nn::conv2d_grad_wrt_weights(x, t, shp_w, c.opts())},
                               {a, b, top});
  }
}

TEST_CASE("verify_grad of conv2d and conv3d on each option, and of the gradient ops") {
  for (int nsp : {2, 3}) {
    for (const Case& c : cases(nsp)) {
      CAPTURE(nsp);
      CAPTURE(c.str());
      const std::vector<std::int64_t> xs = nsp == 2 ? std::vector<std::int64_t>{1, 2, 5, 4}
                                                    : std::vector<std::int64_t>{1, 2, 4, 3, 3};
      const std::vector<std::int64_t> ws = nsp == 2 ? std::vector<std::int64_t>{2, 2 / c.groups, 2, 2}
                                                    : std::vector<std::int64_t>{2, 2 / c.groups, 2, 1, 2};
      const nn::ConvOptions o = c.opts();
      const NDArray a = values(xs, 0.3), b = values(ws, 0.5);
      testing::verify_grad([&](const std::vector<Var>& in) { return conv(nsp, in[0], in[1], o); }, {a, b});
      const NDArray top = values(direct(xs, ws, c, nullptr), 1.1);
      const Var sx = constant(NDArray::from_vector<std::int64_t>(xs, {nsp + 2}));
      const Var sw = constant(NDArray::from_vector<std::int64_t>(ws, {nsp + 2}));
      testing::verify_grad([&](const std::vector<Var>& in) { return grad_inputs(nsp, in[0], in[1], sx, o); },
                           {top, b});
      testing::verify_grad([&](const std::vector<Var>& in) { return grad_weights(nsp, in[0], in[1], sw, o); },
                           {a, top});
    }
  }
}

TEST_CASE("second derivatives of conv2d: the gradient of a gradient") {
  const Var x = tensor4("x", DType::Float64), w = tensor4("W", DType::Float64);
  const NDArray a = values({1, 2, 5, 5}, 0.3), b = values({3, 2, 3, 3}, 0.5);
  // d/dx sum((d/dW sum(conv(x, W)^2))^2): gradWeights' gradient wrt its input.
  testing::verify_grad(
      [&](const std::vector<Var>& in) {
        const Var y = nn::conv2d(in[0], in[1], {.border_mode = 1, .subsample = {2, 1}});
        return grad(sum(mul(y, y)), in[1]);
      },
      {a, b});
  testing::verify_grad(
      [&](const std::vector<Var>& in) {
        const Var y = nn::conv2d(in[0], in[1], {.border_mode = nn::BorderMode::full(), .filter_dilation = {1, 2}});
        return grad(sum(mul(y, y)), in[0]);
      },
      {a, b});
}

TEST_CASE("Rop of conv2d through the gradient ops: linear in each argument") {
  const Var x = tensor4("x", DType::Float64), w = tensor4("W", DType::Float64), v = tensor4("V", DType::Float64);
  const nn::ConvOptions o{.border_mode = nn::BorderMode::half(), .subsample = {1, 2}, .num_groups = 2};
  const NDArray a = values({2, 4, 5, 6}, 0.3), b = values({2, 2, 3, 3}, 0.5), va = values({2, 4, 5, 6}, 0.9),
                vb = values({2, 2, 3, 3}, 1.7);
  const Var y = nn::conv2d(x, w, o);
  // J_W v = conv(x, v) and J_x v = conv(v, W): the convolution is linear in each.
  CHECK(close(run(Rop(y, w, v), {{x, a}, {w, b}, {v, vb}}, "fast_run"), ref_forward(a, vb, Case{o.border_mode, o.subsample, {}, true, 2}), 1e-12));
  CHECK(close(run(Rop(y, x, v), {{x, a}, {w, b}, {v, va}}, "fast_run"), ref_forward(va, b, Case{o.border_mode, o.subsample, {}, true, 2}), 1e-12));
}

TEST_CASE("conv errors: dtypes, ranks, options, mismatched shapes and hints, with their messages") {
  const Var x = tensor4("x"), w = tensor4("W");
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor4("h", DType::Float16), w),
                       doctest::Contains("AbstractConv2d: expected float32 or float64 tensors (the supported dtypes), got h"),
                       TypeError);
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor4("i", DType::Int32), w), doctest::Contains("the supported dtypes), got i"),
                       TypeError);
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor3("v"), w), doctest::Contains("AbstractConv2d: expected a 4-d tensor, got v"),
                       TypeError);
  CHECK_THROWS_WITH_AS(nn::conv2d(x, w, {.subsample = {0, 1}}),
                       doctest::Contains("conv2d: strides (subsample) must be positive, got 0"), ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(x, w, {.filter_dilation = {1, -1}}),
                       doctest::Contains("conv2d: filter_dilation must be positive, got -1"), ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(x, w, {.num_groups = 0}), doctest::Contains("num_groups must be positive, got 0"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(x, w, {.border_mode = -1}), doctest::Contains("padding must not be negative, got -1"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(x, w, {.subsample = {1, 1, 1}}),
                       doctest::Contains("conv2d: subsample needs 2 entries (one per spatial axis), got 3"), ValueError);
  CHECK_THROWS_WITH_AS(nn::BorderMode::parse("same"), doctest::Contains("border_mode must be 'valid', 'full', 'half'"),
                       ValueError);
  CHECK(nn::BorderMode::parse("half") == nn::BorderMode::half());
  // Static shapes: checked when the graph is built.
  const Var xs = tensor::tensor(DType::Float64, {2, 3, 5, 5}, "img"), ws = tensor::tensor(DType::Float64, {4, 2, 3, 3}, "k");
  CHECK_THROWS_WITH_AS(nn::conv2d(xs, ws),
                       doctest::Contains("AbstractConv2d: the input's channels must equal the filters' channels (axis 1) "
                                         "times num_groups; input channels: 3; input shape (2, 3, 5, 5), filters shape "
                                         "(4, 2, 3, 3) (from img, k)"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor::tensor(DType::Float64, {2, 4, 5, 5}, "img"),
                                  tensor::tensor(DType::Float64, {3, 2, 3, 3}, "k"), {.num_groups = 2}),
                       doctest::Contains("num_groups must divide the number of filters, got filters: 3"), ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor::tensor(DType::Float64, {2, 3, 5, 5}, "img"),
                                  tensor::tensor(DType::Float64, {4, 1, 3, 3}, "k"), {.num_groups = 2}),
                       doctest::Contains("input channels: 3"), ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(tensor::tensor(DType::Float64, {2, 2, 5, 2}, "img"), ws),
                       doctest::Contains("the (dilated) kernel is larger than the padded input (or empty) at spatial axis 1"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::conv2d(xs, tensor::tensor(DType::Float64, {4, 3, 3, 3}, "k"),
                                  {.input_shape = std::vector<std::optional<std::int64_t>>{2, 3, 6, std::nullopt}}),
                       doctest::Contains("the input_shape hint says size 6 but img has static size 5"), ValueError);
  // Unknown static shapes: the same rule at run time, in perform (CorrMM after the rewrite and the abstract op).
  const NDArray a = values({2, 3, 5, 5}, 0.1), b = values({4, 2, 3, 3}, 0.2);
  for (const char* mode : {"fast_run", "unoptimized"}) {
    CAPTURE(mode);
    CHECK_THROWS_WITH_AS(run(nn::conv2d(x, w), {{x, a}, {w, b}}, mode),
                         doctest::Contains("the input's channels must equal the filters' channels (axis 1) times "
                                           "num_groups; input channels: 3; x has shape (2, 3, 5, 5), W"),
                         ValueError);
    CHECK_THROWS_WITH_AS(
        run(nn::conv2d(x, w, {.input_shape = std::vector<std::optional<std::int64_t>>{std::nullopt, 1, 5, 5}}),
            {{x, values({1, 1, 5, 4}, 0.1)}, {w, values({1, 1, 2, 2}, 0.2)}}, mode),
        doctest::Contains("a shape hint (input_shape / filter_shape) disagrees with the value at axis 3"), ValueError);
    CHECK_THROWS_WITH_AS(run(nn::conv2d(x, w, {.filter_dilation = {3, 1}}),
                             {{x, values({1, 1, 5, 5}, 0.1)}, {w, values({1, 1, 3, 3}, 0.2)}}, mode),
                         doctest::Contains("kernel is larger than the padded input (or empty) at spatial axis 0"),
                         ValueError);
    CHECK_THROWS_WITH_AS(
        run(nn::conv2d(x, w, {.filter_shape = std::vector<std::optional<std::int64_t>>{4, 3, std::nullopt, 2}}),
            {{x, a}, {w, values({4, 3, 3, 3}, 0.2)}}, mode),
        doctest::Contains("a shape hint (input_shape / filter_shape) disagrees with the value at axis 3"), ValueError);
    const Var t = tensor4("top");
    CHECK_THROWS_WITH_AS(run(nn::conv2d_grad_wrt_inputs(t, w, shape(x)), {{x, a}, {w, b}, {t, values({2, 4, 3, 4}, 0)}},
                             mode),
                         doctest::Contains("the output gradient's shape differs from the convolution's output shape at "
                                           "axis 3"),
                         ValueError);
    CHECK_THROWS_WITH_AS(run(nn::conv2d_grad_wrt_weights(x, t, shape(w)),
                             {{x, values({2, 2, 5, 5}, 0.1)}, {w, b}, {t, values({2, 4, 3, 4}, 0)}}, mode),
                         doctest::Contains("the output gradient's shape differs from the convolution's output shape at "
                                           "axis 3"),
                         ValueError);
  }
}

TEST_CASE("an abstract conv left after optimization is an error naming it") {
  const Var x = tensor4("x"), w = tensor4("W");
  FunctionOptions o;
  o.mode = "fast_run";
  o.optimizer_excluding = {"local_abstractconv_corrmm"};
  CHECK_THROWS_WITH_AS(function({In(x), In(w)}, {Out(nn::conv2d(x, w))}, o),
                       doctest::Contains("AbstractConv2d{valid,(1, 1),True,(1, 1),1} computing"), MethodNotDefined);
}

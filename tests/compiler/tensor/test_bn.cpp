// Batch normalization (theano/tensor/bn.h): train, test and the older
// elementwise form against a reference written here (plain loops over the
// input, one mean and variance per position along the non-normalized axes),
// for "per-activation", "spatial" and explicit axes, both parameter forms,
// float32, the running averages (unbiased variance), a constant input,
// verify_grad of every output with respect to every input, infer_shape, and the
// errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "test_util.h"
#include "theano/tensor/bn.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace bn = theano::tensor::nnet::bn;

namespace {

NDArray values(std::vector<std::int64_t> shape, double scale = 1.0, double offset = 0.0) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = offset + scale * std::sin(1.3 * static_cast<double>(i) + 0.2) * (1 + 0.1 * (i % 7));
  return a;
}

// The reference: statistics over `axes`, one per position along the other axes.
struct Ref {
  std::vector<double> mean, var;  // per statistic, in the order of the other axes (C order)
  std::vector<double> stat_of;    // per element of x: the index of its statistic
};

Ref reference(const NDArray& x, const std::vector<int>& axes) {
  const auto& shape = x.shape();
  const int nd = static_cast<int>(shape.size());
  Ref r;
  std::int64_t nstat = 1, count = 1;
  for (int d = 0; d < nd; ++d) {
    bool normalized = false;
    for (int a : axes) normalized = normalized || a == d;
    (normalized ? count : nstat) *= shape[static_cast<std::size_t>(d)];
  }
  r.mean.assign(static_cast<std::size_t>(nstat), 0.0);
  r.var.assign(static_cast<std::size_t>(nstat), 0.0);
  const NDArray xc = x.astype(DType::Float64);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    std::int64_t rest = i, key = 0, mult = 1;
    for (int d = nd - 1; d >= 0; --d) {
      const std::int64_t n = shape[static_cast<std::size_t>(d)], idx = rest % n;
      rest /= n;
      bool normalized = false;
      for (int a : axes) normalized = normalized || a == d;
      if (!normalized) {
        key += idx * mult;
        mult *= n;
      }
    }
    r.stat_of.push_back(static_cast<double>(key));
  }
  for (std::int64_t i = 0; i < x.size(); ++i)
    r.mean[static_cast<std::size_t>(r.stat_of[i])] += xc.data_as<double>()[i] / count;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double d = xc.data_as<double>()[i] - r.mean[static_cast<std::size_t>(r.stat_of[i])];
    r.var[static_cast<std::size_t>(r.stat_of[i])] += d * d / count;
  }
  return r;
}

// gamma / beta values per statistic.
std::vector<double> per_stat(std::size_t n, double a, double b) {
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(a + b * static_cast<double>(i));
  return v;
}

void check_close(const NDArray& got, const std::vector<double>& want, double rtol = 1e-12) {
  REQUIRE(got.size() == static_cast<std::int64_t>(want.size()));
  const NDArray g = got.astype(DType::Float64);
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(g.data_as<double>()[i] == doctest::Approx(want[i]).epsilon(rtol));
  }
}

// The parameter shape in the input's rank: size 1 on the axes.
std::vector<std::int64_t> full_shape(const std::vector<std::int64_t>& shape, const std::vector<int>& axes) {
  std::vector<std::int64_t> s = shape;
  for (int a : axes) s[static_cast<std::size_t>(a)] = 1;
  return s;
}
std::vector<std::int64_t> reduced_shape(const std::vector<std::int64_t>& shape, const std::vector<int>& axes) {
  std::vector<std::int64_t> s;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    bool normalized = false;
    for (int a : axes) normalized = normalized || a == static_cast<int>(d);
    if (!normalized) s.push_back(shape[d]);
  }
  return s;
}

struct AxesCase {
  bn::BnAxes axes;
  std::vector<int> resolved;
  std::vector<std::int64_t> shape;
};

std::vector<AxesCase> modes() {
  return {{"per-activation", {0}, {6, 3}}, {"per-activation", {0}, {4, 2, 3}},    {"spatial", {0, 2, 3}, {3, 2, 4, 3}},
          {"spatial", {0, 2}, {5, 3, 2}},  {bn::BnAxes{1, 0}, {0, 1}, {2, 4, 3}}, {bn::BnAxes{2}, {2}, {3, 2, 5}}};
}

}  // namespace

TEST_CASE("batch_normalization_train matches the reference for every axes mode and both parameter forms") {
  for (const AxesCase& mode : modes()) {
    for (const bool full : {true, false}) {
      CAPTURE(mode.shape.size());
      CAPTURE(mode.resolved.size());
      CAPTURE(full);
      const NDArray xv = values(mode.shape, 2.0, 0.5);
      const Ref ref = reference(xv, mode.resolved);
      const std::size_t ns = ref.mean.size();
      const auto pshape = full ? full_shape(mode.shape, mode.resolved) : reduced_shape(mode.shape, mode.resolved);
      const NDArray gv = NDArray::from_vector(per_stat(ns, 0.5, 0.25), pshape);
      const NDArray bv = NDArray::from_vector(per_stat(ns, -1.0, 0.5), pshape);
      const NDArray rmv = NDArray::from_vector(per_stat(ns, 0.1, 0.1), pshape);
      const NDArray rvv = NDArray::from_vector(per_stat(ns, 1.0, 0.2), pshape);
      const Var x = tensor::tensor(DType::Float64, StaticShape(mode.shape.size()), "x");
      const Var g = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "gamma");
      const Var b = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "beta");
      const Var rm = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "rm");
      const Var rv = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "rv");
      const double eps = 1e-3, f = 0.3;
      const bn::BatchNormTrainResult r = bn::batch_normalization_train(x, g, b, mode.axes, eps, f, rm, rv);
      const std::vector<std::pair<Var, NDArray>> in{{x, xv}, {g, gv}, {b, bv}, {rm, rmv}, {rv, rvv}};
      std::vector<double> out, invstd, nrm, nrv;
      for (std::int64_t i = 0; i < xv.size(); ++i) {
        const auto s = static_cast<std::size_t>(ref.stat_of[static_cast<std::size_t>(i)]);
        out.push_back((xv.data_as<double>()[i] - ref.mean[s]) / std::sqrt(ref.var[s] + eps) * gv.data_as<double>()[s] +
                      bv.data_as<double>()[s]);
      }
      const double m = static_cast<double>(xv.size()) / static_cast<double>(ns);
      for (std::size_t s = 0; s < ns; ++s) {
        invstd.push_back(1 / std::sqrt(ref.var[s] + eps));
        nrm.push_back(rmv.data_as<double>()[s] * (1 - f) + ref.mean[s] * f);
        nrv.push_back(rvv.data_as<double>()[s] * (1 - f) + ref.var[s] * m / (m - 1) * f);
      }
      const NDArray mean = r.mean.eval(in);
      CHECK(mean.shape() == pshape);
      check_close(r.out.eval(in), out);
      check_close(mean, ref.mean);
      check_close(r.invstd.eval(in), invstd);
      check_close(r.new_running_mean.eval(in), nrm);
      check_close(r.new_running_var.eval(in), nrv);
      CHECK(r.new_running_var.eval(in).shape() == pshape);
      // Without running averages those outputs are null.
      const auto plain = bn::batch_normalization_train(x, g, b, mode.axes, eps);
      CHECK_FALSE(plain.new_running_mean);
      CHECK_FALSE(plain.new_running_var);
      check_close(plain.out.eval({{x, xv}, {g, gv}, {b, bv}}), out);

      // batch_normalization_test with the reference statistics gives the same output.
      const NDArray mv = NDArray::from_vector(ref.mean, pshape), vv = NDArray::from_vector(ref.var, pshape);
      const Var mt = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "mean");
      const Var vt = tensor::tensor(DType::Float64, StaticShape(pshape.size()), "var");
      check_close(bn::batch_normalization_test(x, g, b, mt, vt, mode.axes, eps)
                      .eval({{x, xv}, {g, gv}, {b, bv}, {mt, mv}, {vt, vv}}),
                  out);
    }
  }
}

TEST_CASE("batch normalization: float32 stays float32, a constant input gives beta") {
  const NDArray xv = values({8, 3}, 3.0).astype(DType::Float32);
  const Var x = fmatrix("x"), g = fvector("g"), b = fvector("b");
  const NDArray gv = NDArray::from_vector<float>({1.0f, 2.0f, 0.5f}, {3}),
                bv = NDArray::from_vector<float>({0, 1, -1}, {3});
  const auto r = bn::batch_normalization_train(x, g, b);
  CHECK(dtype_name(r.out.dtype()) == "float32");
  CHECK(dtype_name(r.invstd.dtype()) == "float32");
  const Ref ref = reference(xv, {0});
  std::vector<double> out;
  for (std::int64_t i = 0; i < xv.size(); ++i) {
    const auto s = static_cast<std::size_t>(i % 3);
    out.push_back((static_cast<double>(xv.data_as<float>()[i]) - ref.mean[s]) / std::sqrt(ref.var[s] + 1e-4) *
                      gv.data_as<float>()[s] +
                  bv.data_as<float>()[s]);
  }
  check_close(r.out.eval({{x, xv}, {g, gv}, {b, bv}}), out, 1e-5);
  // Zero variance: invstd is 1 / sqrt(epsilon), the output is beta exactly.
  const Var d = dmatrix("d");
  const auto rc = bn::batch_normalization_train(d, NDArray::from_vector<double>({2.0, 3.0}, {2}),
                                                NDArray::from_vector<double>({0.25, -4.0}, {2}));
  const NDArray cv = NDArray::full({5, 2}, 1e150);
  check_close(rc.out.eval({{d, cv}}), {0.25, -4, 0.25, -4, 0.25, -4, 0.25, -4, 0.25, -4});
  check_close(rc.invstd.eval({{d, cv}}), {1 / std::sqrt(1e-4), 1 / std::sqrt(1e-4)});
}

TEST_CASE("batch_normalization (the elementwise form) is (x - mean) * (gamma / std) + beta") {
  const Var x = dmatrix("x"), g = drow("g"), b = drow("b"), m = drow("m"), s = drow("s");
  const NDArray xv = values({4, 3});
  const NDArray gv = NDArray::from_vector<double>({1, 2, 3}, {1, 3}),
                bv = NDArray::from_vector<double>({0, 1, 2}, {1, 3});
  const NDArray mv = NDArray::from_vector<double>({0.1, 0.2, 0.3}, {1, 3}),
                sv = NDArray::from_vector<double>({2, 4, 8}, {1, 3});
  std::vector<double> want;
  for (std::int64_t i = 0; i < 12; ++i) {
    const std::size_t c = static_cast<std::size_t>(i % 3);
    want.push_back((xv.data_as<double>()[i] - mv.data_as<double>()[c]) *
                       (gv.data_as<double>()[c] / sv.data_as<double>()[c]) +
                   bv.data_as<double>()[c]);
  }
  for (const char* mode : {"low_mem", "high_mem"})
    check_close(bn::batch_normalization(x, g, b, m, s, mode).eval({{x, xv}, {g, gv}, {b, bv}, {m, mv}, {s, sv}}), want);
  CHECK_THROWS_WITH_AS(bn::batch_normalization(x, g, b, m, s, "fast"), doctest::Contains("mode must be \"low_mem\""),
                       ValueError);
}

TEST_CASE("verify_grad through batch_normalization_train and _test, every axes mode") {
  const testing::VerifyGradOptions tol{.eps = 1e-6, .abs_tol = 1e-5, .rel_tol = 1e-5};
  for (const AxesCase& mode : modes()) {
    CAPTURE(mode.shape.size());
    CAPTURE(mode.resolved.size());
    const auto ps = reduced_shape(mode.shape, mode.resolved);
    const std::vector<NDArray> point{values(mode.shape, 1.5, 0.2), values(ps, 0.5, 1.0), values(ps, 0.7),
                                     values(ps, 0.3), values(ps, 0.2, 1.0)};
    for (int which = 0; which < 5; ++which) {
      CAPTURE(which);
      testing::verify_grad(
          [&](const std::vector<Var>& in) {
            const auto r = bn::batch_normalization_train(in[0], in[1], in[2], mode.axes, 1e-3, 0.2, in[3], in[4]);
            const Var outs[] = {r.out, r.mean, r.invstd, r.new_running_mean, r.new_running_var};
            return outs[which];
          },
          point, tol);
    }
    testing::verify_grad(
        [&](const std::vector<Var>& in) {
          return bn::batch_normalization_test(in[0], in[1], in[2], in[3], in[4], mode.axes, 1e-3);
        },
        point, tol);
    // The parameters in the input's rank (size 1 on the axes) too.
    const auto fs = full_shape(mode.shape, mode.resolved);
    testing::verify_grad(
        [&](const std::vector<Var>& in) { return bn::batch_normalization_train(in[0], in[1], in[2], mode.axes).out; },
        {point[0], values(fs, 0.5, 1.0), values(fs, 0.7)}, tol);
  }
}

TEST_CASE("batch normalization: infer_shape of the outputs") {
  const Var x = dtensor4("x"), g = dvector("g"), b = dvector("b");
  const auto r = bn::batch_normalization_train(x, g, b, "spatial");
  testing::check_infer_shape({x, g, b}, {r.out, r.mean, r.invstd}, {values({2, 3, 4, 5}), values({3}), values({3})});
}

TEST_CASE("batch normalization errors name the function, the variable and what was expected") {
  const Var x = dtensor4("x"), g = dvector("g"), b = dvector("b");
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, "per-pixel"),
                       doctest::Contains("batch_normalization_train: invalid axes 'per-pixel'"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, bn::BnAxes{0, 4}),
                       doctest::Contains("axes should be in [0, 4) for inputs of rank 4, but (0, 4) given"),
                       ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, bn::BnAxes{-1}), doctest::Contains("(-1,) given"),
                       ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, bn::BnAxes{2, 2}), doctest::Contains("repeat an axis"),
                       ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, std::vector<int>{}),
                       doctest::Contains("at least one normalization axis"), ValueError);
  // per-activation on a 4-d input: one statistic per (c, h, w), so gamma needs 3 dimensions.
  CHECK_THROWS_WITH_AS(
      bn::batch_normalization_train(x, g, b),
      doctest::Contains("gamma g has 1 dimensions; the parameters need either the inputs' rank 4 (size 1 on the "
                        "normalized axes (0,)) or 3 (one per other axis (1, 2, 3)), all alike (gamma has 1)"),
      ValueError);
  CHECK_THROWS_WITH_AS(
      bn::batch_normalization_train(x, g, dmatrix("bb"), "spatial"),
      doctest::Contains("beta bb has 2 dimensions; the parameters need either the inputs' rank 4 (size 1 on the "
                        "normalized axes (0, 2, 3)) or 1 (one per other axis (1,)), all alike (gamma has 1)"),
      ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, "spatial", 1e-6),
                       doctest::Contains("epsilon must be at least 1e-5"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_test(x, g, b, g, b, "spatial", 1e-6),
                       doctest::Contains("batch_normalization_test: epsilon must be at least 1e-5"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, "spatial", 1e-4, 0.1, dvector("rm")),
                       doctest::Contains("running_mean and running_var must either both be given"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g, b, "spatial", 1e-4, 0.1, dvector("rm"), dmatrix("rv")),
                       doctest::Contains("running_var rv has 2 dimensions"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_test(x, g, b, dmatrix("mu"), b, "spatial"),
                       doctest::Contains("mean mu has 2 dimensions"), ValueError);
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(itensor4("i"), g, b, "spatial"),
                       doctest::Contains("inputs i is int32; batch normalization supports float32 and float64"),
                       TypeError);
  // Full-rank parameters: size 1 on the normalized axes, statically...
  const Var g4 = tensor::tensor(DType::Float64, {1, 3, 2, 1}, "g4");
  CHECK_THROWS_WITH_AS(bn::batch_normalization_train(x, g4, g4, "spatial"),
                       doctest::Contains("gamma g4 has size 2 on the normalized axis 2; it must be 1 there"),
                       ValueError);
  // ... and at run time when the static shape does not say.
  const Var gd = dtensor4("gd");
  const Var out = bn::batch_normalization_train(x, gd, gd, "spatial").out;
  CHECK(out.eval({{x, values({2, 3, 2, 2})}, {gd, values({1, 3, 1, 1})}}).shape() ==
        std::vector<std::int64_t>{2, 3, 2, 2});
  CHECK_THROWS(out.eval({{x, values({2, 3, 2, 2})}, {gd, values({2, 3, 1, 1})}}));
}

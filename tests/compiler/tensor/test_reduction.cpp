// Reductions against NumPy fixtures (tests/data/reduction/gen_reduction.py):
// sum/prod/max/min/all/any over every axis set of a 3-d tensor, on contiguous,
// transposed and strided (negative step) views, for float, int, uint8 and bool
// inputs; argmax/argmin; mean/var/std; keepdims, dtype rules and axis errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "test_util.h"
#include "theano/tensor/nnet.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/reduction/" + name; }

// The views of gen_reduction.py: plain, transpose(2, 0, 1), [:, ::-1, ::2].
std::vector<NDArray> views(const NDArray& x) {
  return {x, x.transpose({2, 0, 1}), x.slice(1, std::nullopt, std::nullopt, -1).slice(2, std::nullopt, std::nullopt, 2)};
}

const std::vector<Axes> kAxes = {Axes(), 0, 1, 2, -1, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}};
const std::vector<std::optional<int>> kArgAxes = {std::nullopt, 0, 1, 2, -1};

// Concatenation of the raveled parts (all of one dtype), as np.concatenate does.
NDArray concat(const std::vector<NDArray>& parts) {
  int64_t total = 0;
  for (const NDArray& p : parts) total += p.size();
  NDArray r = NDArray::empty({total}, parts.at(0).dtype());
  auto* out = static_cast<std::byte*>(r.data());
  for (const NDArray& p : parts) {
    REQUIRE(p.dtype() == r.dtype());
    const NDArray c = p.copy();
    std::memcpy(out, c.data(), static_cast<std::size_t>(c.nbytes()));
    out += c.nbytes();
  }
  return r;
}

Var var_of(const NDArray& a) {
  return tensor::tensor(a.dtype(), StaticShape(static_cast<std::size_t>(a.ndim()), Dim()), "x");
}

void check_close(const NDArray& got, const NDArray& expected) {
  REQUIRE(dtype_name(got.dtype()) == dtype_name(expected.dtype()));
  REQUIRE(got.shape() == expected.shape());
  if (is_float(expected.dtype())) {
    const double rtol = expected.dtype() == DType::Float32 ? 1e-5 : 1e-12;
    CHECK_MESSAGE(allclose(got, expected, rtol, 1e-6, true), got.str() << "\nvs\n" << expected.str());
  } else {
    CHECK_MESSAGE(array_equal(got, expected), got.str() << "\nvs\n" << expected.str());
  }
}

// Runs `build(x, axes)` on every view and axis set and compares with the fixture.
void check_fixture(const std::string& file, const std::string& input_dtype,
                   const std::function<Var(const Var&, const Axes&)>& build) {
  CAPTURE(file);
  const NDArray x = load_npy(fixture("x_" + input_dtype + ".npy"));
  std::vector<NDArray> parts;
  for (const NDArray& v : views(x)) {
    const Var xv = var_of(v);
    for (const Axes& ax : kAxes) parts.push_back(build(xv, ax).eval({{xv, v}}));
  }
  check_close(concat(parts), load_npy(fixture(file + ".npy")));
}

}  // namespace

TEST_CASE("CAReduce family matches NumPy over every axis set and view") {
  using Fn = std::function<Var(const Var&, const Axes&)>;
  const std::vector<std::pair<std::string, Fn>> ops = {
      {"sum", [](const Var& x, const Axes& a) { return sum(x, a); }},
      {"prod", [](const Var& x, const Axes& a) { return prod(x, a); }},
      {"max", [](const Var& x, const Axes& a) { return max(x, a); }},
      {"min", [](const Var& x, const Axes& a) { return min(x, a); }},
      {"all", [](const Var& x, const Axes& a) { return all_(x, a); }},
      {"any", [](const Var& x, const Axes& a) { return any_(x, a); }},
  };
  for (const std::string dt : {"float64", "float32", "int32", "int8", "uint8", "bool"})
    for (const auto& [name, fn] : ops) check_fixture(name + "_" + dt, dt, fn);
}

TEST_CASE("argmax and argmin match NumPy (first occurrence wins)") {
  for (const std::string dt : {"float64", "int32", "uint8", "bool"}) {
    const NDArray x = load_npy(fixture("x_" + dt + ".npy"));
    for (bool is_max : {true, false}) {
      std::vector<NDArray> parts;
      for (const NDArray& v : views(x)) {
        const Var xv = var_of(v);
        for (const auto& ax : kArgAxes) parts.push_back((is_max ? argmax(xv, ax) : argmin(xv, ax)).eval({{xv, v}}));
      }
      CAPTURE(dt);
      check_close(concat(parts), load_npy(fixture(std::string(is_max ? "argmax_" : "argmin_") + dt + ".npy")));
    }
  }
}

TEST_CASE("mean, var and std match NumPy") {
  for (const std::string dt : {"float64", "float32", "int32"}) {
    check_fixture("mean_" + dt, dt, [](const Var& x, const Axes& a) { return mean(x, a); });
    for (int ddof : {0, 1}) {
      check_fixture("var" + std::to_string(ddof) + "_" + dt, dt,
                    [ddof](const Var& x, const Axes& a) { return var(x, a, ddof); });
      check_fixture("std" + std::to_string(ddof) + "_" + dt, dt,
                    [ddof](const Var& x, const Axes& a) { return tensor::std(x, a, ddof); });
    }
  }
}

TEST_CASE("mean/var with unknown static sizes use symbolic shapes") {
  // var_of gives unknown sizes, so the fixtures above already cover Shape_i; here
  // the static-size path: the count is a constant.
  const Var x = tensor::tensor(DType::Float64, {3, 4}, "x");
  const NDArray v = NDArray::arange(0, 12).reshape({3, 4});
  CHECK(allclose(mean(x, 1).eval({{x, v}}), NDArray::from_list<double>({1.5, 5.5, 9.5})));
  CHECK(allclose(var(x, 0, 1).eval({{x, v}}), NDArray::full({4}, 16.0)));
  CHECK(reduced_count(x, {0, 1}, DType::Float32).is_constant());
}

TEST_CASE("keepdims restores the reduced axes as size 1") {
  const Var x = dtensor3("x");
  const NDArray v = load_npy(fixture("x_float64.npy"));
  const Var r = sum(x, {0, 2}, true);
  CHECK(tensor_type(r)->shape() == StaticShape{1, std::nullopt, 1});
  const NDArray got = r.eval({{x, v}});
  CHECK(got.shape() == std::vector<int64_t>{1, 4, 1});
  CHECK(allclose(got.reshape({4}), sum(x, {0, 2}).eval({{x, v}})));
  CHECK(max(x, -1, true).eval({{x, v}}).shape() == std::vector<int64_t>{3, 4, 1});
  CHECK(argmax(x, 1, true).eval({{x, v}}).shape() == std::vector<int64_t>{3, 1, 5});
  CHECK(mean(x, Axes(), true).eval({{x, v}}).shape() == std::vector<int64_t>{1, 1, 1});
  CHECK(var(x, 1, 0, true).eval({{x, v}}).shape() == std::vector<int64_t>{3, 1, 5});
  // Var sugar.
  CHECK(x.sum({1}, true).eval({{x, v}}).shape() == std::vector<int64_t>{3, 1, 5});
  CHECK(allclose(x.mean().eval({{x, v}}), mean(x).eval({{x, v}})));
  CHECK(allclose(x.prod(0).eval({{x, v}}), prod(x, 0).eval({{x, v}})));
  CHECK(allclose(x.min({0, 1}).eval({{x, v}}), min(x, {0, 1}).eval({{x, v}})));
  CHECK(allclose(x.max(2).eval({{x, v}}), max(x, 2).eval({{x, v}})));
  CHECK(allclose(x.sum().eval({{x, v}}), sum(x).eval({{x, v}})));
}

TEST_CASE("reduction dtypes follow NumPy") {
  auto dt = [](const Var& v) { return tensor_type(v)->dtype(); };
  CHECK(dt(sum(bvector())) == DType::Int64);
  CHECK(dt(sum(ivector())) == DType::Int64);
  CHECK(dt(sum(lvector())) == DType::Int64);
  CHECK(dt(sum(tensor::tensor(DType::UInt8, {std::nullopt}))) == DType::UInt64);
  CHECK(dt(sum(tensor::tensor(DType::Bool, {std::nullopt}))) == DType::Int64);
  CHECK(dt(sum(fvector())) == DType::Float32);
  CHECK(dt(prod(wvector())) == DType::Int64);
  CHECK(dt(max(bvector())) == DType::Int8);
  CHECK(dt(all_(dvector())) == DType::Bool);
  CHECK(dt(any_(ivector())) == DType::Bool);
  CHECK(dt(argmax(fmatrix(), 0)) == DType::Int64);
  CHECK(dt(mean(ivector())) == DType::Float64);
  CHECK(dt(mean(fvector())) == DType::Float32);
  CHECK(dt(mean(tensor::tensor(DType::Float16, {std::nullopt}))) == DType::Float16);
  CHECK(dt(var(fmatrix(), 0)) == DType::Float32);
  CHECK(dt(tensor::std(ivector())) == DType::Float64);
  // Explicit accumulator / output dtypes.
  CHECK(dt(sum(fvector(), Axes(), false, DType::Float64)) == DType::Float32);
  CHECK(dt(sum(fvector(), Axes(), false, {}, DType::Float64)) == DType::Float64);
  const Var hs = sum(tensor::tensor(DType::Float16, {std::nullopt}));
  const auto* op = dynamic_cast<const CAReduce*>(hs.owner()->op().get());
  REQUIRE(op);
  CHECK(op->acc_dtype(DType::Float16) == DType::Float32);
}

TEST_CASE("accumulators: int8 sums in int64, float16 in float32, acc_dtype widens float32") {
  const Var b = bvector("b");
  const NDArray v = NDArray::full({10}, 100, DType::Int8);
  CHECK(sum(b).eval({{b, v}}).item<int64_t>() == 1000);
  const Var h = tensor::tensor(DType::Float16, {std::nullopt}, "h");
  const NDArray hv = NDArray::full({4096}, 1.0, DType::Float16);
  // 4096 ones: a float16 accumulator would stop at 2048.
  CHECK(sum(h).eval({{h, hv}}).item<double>() == 4096.0);
  CHECK(mean(h).eval({{h, hv}}).item<double>() == 1.0);
  const Var f = fvector("f");
  NDArray fv = NDArray::full({3}, 1.0, DType::Float32);
  fv.at<float>({0}) = 1e8f;
  // 1e8 + 1 + 1 in float32 loses the ones; a float64 accumulator keeps them.
  CHECK(sum(f, Axes(), false, DType::Float64, DType::Float64).eval({{f, fv}}).item<double>() == 100000002.0);
}

TEST_CASE("reductions over empty axes") {
  const Var x = dmatrix("x");
  const NDArray e = NDArray::zeros({0, 3});
  CHECK(sum(x, 0).eval({{x, e}}).shape() == std::vector<int64_t>{3});
  CHECK(array_equal(prod(x, 0).eval({{x, e}}), NDArray::ones({3})));
  CHECK(max(x, 1).eval({{x, e}}).shape() == std::vector<int64_t>{0});
  CHECK_THROWS_WITH_AS(max(x, 0).eval({{x, e}}), doctest::Contains("zero-size array to reduction operation maximum"),
                       ValueError);
  CHECK_THROWS_WITH_AS(argmin(x, 0).eval({{x, e}}), doctest::Contains("argmin of an empty sequence"), ValueError);
  CHECK(array_equal(all_(x, 0).eval({{x, e}}), NDArray::ones({3}, DType::Bool)));
}

TEST_CASE("NaN propagates through max and wins argmax") {
  const Var x = dvector("x");
  const NDArray v = NDArray::from_list<double>({1.0, std::nan(""), 3.0, std::nan("")});
  CHECK(std::isnan(max(x).eval({{x, v}}).item<double>()));
  CHECK(std::isnan(min(x).eval({{x, v}}).item<double>()));
  CHECK(argmax(x).eval({{x, v}}).item<int64_t>() == 1);
  CHECK(argmin(x).eval({{x, v}}).item<int64_t>() == 1);
}

TEST_CASE("CAReduce props and names") {
  const Var x = dmatrix("x");
  const Var s = sum(x, 1);
  const auto* op = dynamic_cast<const CAReduce*>(s.owner()->op().get());
  REQUIRE(op);
  CHECK(op->scalar_op() == "add");
  CHECK(op->axes() == std::vector<int>{1});
  CHECK(op->name() == "Sum{axes=(1,)}");
  CHECK(max(x).owner()->op()->name() == "Max{axes=(0, 1)}");
  CHECK(sum(x, 0, false, DType::Float32).owner()->op()->name() == "Sum{axes=(0,), acc_dtype=float32}");
  CHECK(argmax(x, 0).owner()->op()->name() == "Argmax{(0,)}");
  CHECK(*sum(x, 1).owner()->op() == *s.owner()->op());
  CHECK(*sum(x, 0).owner()->op() != *s.owner()->op());
  CHECK(*prod(x, 1).owner()->op() != *s.owner()->op());
}

TEST_CASE("axis errors name the op and the axis") {
  const Var x = dmatrix("x");
  CHECK_THROWS_WITH_AS(sum(x, 2), doctest::Contains("sum: axis 2 is out of range"), ValueError);
  CHECK_THROWS_WITH_AS(max(x, -3), doctest::Contains("max: axis -3 is out of range"), ValueError);
  CHECK_THROWS_WITH_AS(prod(x, {0, -2}), doctest::Contains("prod: axis -2 is repeated"), ValueError);
  CHECK_THROWS_WITH_AS(mean(x, {1, 1}), doctest::Contains("mean: axis 1 is repeated"), ValueError);
  CHECK_THROWS_WITH_AS(argmax(x, 5), doctest::Contains("argmax: axis 5 is out of range"), ValueError);
  CHECK_THROWS_WITH_AS(OpPtr(new CAReduce("add", {3}))->apply1({x}),
                       doctest::Contains("Sum: axis 3 is out of range for x"), ValueError);
  CHECK_THROWS_WITH_AS(CAReduce("add", {0, 0}), doctest::Contains("Sum: axis 0 is repeated"), ValueError);
  CHECK_THROWS_WITH_AS(CAReduce("pow", {0}), doctest::Contains("unknown scalar op 'pow'"), ValueError);
  CHECK_THROWS_WITH_AS(max(zvector("z")), doctest::Contains("Max: complex values are not ordered; z"), TypeError);
}

TEST_CASE("a reduction with a fused elementwise op computes the reduction of its result") {
  auto st = ScalarType::make(DType::Float64);
  Var a = st->make_variable("a"), b = st->make_variable("b");
  ScalarOpPtr mul_exp(new Composite({a, b}, scalar_op("mul")->apply1({a, scalar_op("exp")->apply1({b})})));
  Var x = dtensor3("x"), y = dtensor3("y");
  auto scaled = [](double f, double shift) {
    NDArray a = test::range({2, 3, 4});
    for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = a.data_as<double>()[i] * f + shift;
    return a;
  };
  const NDArray xv = scaled(0.1, 0.01), yv = scaled(-0.05, 0);
  for (const std::string kind : {"add", "mul", "maximum", "minimum"}) {
    for (const std::vector<int>& axes : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}}) {
      CAPTURE(kind);
      CAPTURE(axes.size());
      OpPtr fused = CAReduce(kind, axes).with_pre(mul_exp);
      Var r = fused->apply1({x, y});
      Var want = OpPtr(new CAReduce(kind, axes))->apply1({x * exp(y)});
      CHECK(allclose(r.eval({{x, xv}, {y, yv}}), want.eval({{x, xv}, {y, yv}}), 1e-13, 1e-15));
      if (kind != "mul")
        testing::verify_grad([&](const std::vector<Var>& in) { return fused->apply1({in[0], in[1]}); },
                             {xv, yv});
      testing::check_infer_shape({x, y}, {r}, {xv, yv});
    }
  }
  OpPtr sum_fused = CAReduce("add", {1}).with_pre(mul_exp);
  CHECK(sum_fused->name() == "Sum{axes=(1,), fused=Composite{mul(i0, exp(i1))}}");
  // Every input must have the first one's broadcast pattern; the count must match.
  CHECK_THROWS_WITH_AS(sum_fused->apply1({dmatrix("m"), drow("r")}), doctest::Contains("broadcast pattern"), TypeError);
  CHECK_THROWS_AS(sum_fused->apply1({dmatrix("m")}), TypeError);
  // The output dtype follows the fused result (int inputs -> float result -> float sum).
  auto si = ScalarType::make(DType::Int32);
  Var ia = si->make_variable();
  ScalarOpPtr half(new Composite({ia}, scalar_op("true_div")->apply1({ia, si->make_constant(NDArray::scalar<std::int32_t>(2))})));
  Var iv = ivector("iv");
  Var hs = CAReduce("add", {0}).with_pre(half)->apply1({iv});
  CHECK(tensor_type(hs)->dtype() == DType::Float64);
  CHECK(hs.eval({{iv, NDArray::from_list<std::int32_t>({1, 2, 3})}}).item<double>() == 3.0);
}

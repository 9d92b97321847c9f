// Elemwise ops against NumPy fixtures (every row of the scalar table that NumPy
// has), dtype rules, static-shape broadcasting and its errors.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/elemwise/" + name; }

Var var_like(const NDArray& a, const std::string& name) {
  StaticShape shape;
  for (std::int64_t s : a.shape()) shape.push_back(s == 1 ? Dim(1) : Dim());
  return tensor::tensor(a.dtype(), shape, name);
}

}  // namespace

TEST_CASE("every elementwise op matches NumPy on its fixtures") {
  std::ifstream cases(fixture("cases.txt"));
  REQUIRE(cases.good());
  std::string line;
  int n = 0;
  while (std::getline(cases, line)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string name, op;
    ls >> name >> op;
    CAPTURE(name);
    std::vector<Var> vars;
    std::vector<std::pair<Var, NDArray>> given;
    for (int k = 0;; ++k) {
      std::ifstream probe(fixture(name + "_in" + std::to_string(k) + ".npy"));
      if (!probe.good()) break;
      NDArray a = load_npy(fixture(name + "_in" + std::to_string(k) + ".npy"));
      vars.push_back(var_like(a, "in" + std::to_string(k)));
      given.emplace_back(vars.back(), a);
    }
    const NDArray expected = load_npy(fixture(name + "_out.npy"));
    Var out = elemwise(op, vars);
    const NDArray got = out.eval(given);
    CHECK(dtype_name(got.dtype()) == dtype_name(expected.dtype()));
    CHECK(got.shape() == expected.shape());
    const bool f32 = expected.dtype() == DType::Float32;
    if (is_float(expected.dtype()))
      CHECK_MESSAGE(allclose(got, expected, f32 ? 1e-6 : 1e-12, 1e-12, true), got.str() << " vs " << expected.str());
    else
      CHECK_MESSAGE(array_equal(got, expected), got.str() << " vs " << expected.str());
    ++n;
  }
  CHECK(n >= 90);
}

TEST_CASE("output dtypes follow Theano's rules") {
  auto dt = [](const Var& v) { return tensor_type(v)->dtype(); };
  CHECK(dt(bvector() + bvector()) == DType::Int8);
  CHECK(dt(bvector() + wvector()) == DType::Int16);
  CHECK(dt(ivector() + fvector()) == DType::Float64);  // NumPy promotion
  CHECK(dt(bvector() / bvector()) == DType::Float32);  // true_div upgrades small ints to float32
  CHECK(dt(ivector() / ivector()) == DType::Float64);
  CHECK(dt(exp(ivector())) == DType::Float64);
  CHECK(dt(exp(wvector())) == DType::Float32);
  CHECK(dt(int_div(ivector(), ivector())) == DType::Int32);
  CHECK(dt(lt(dvector(), 1)) == DType::Bool);
  CHECK(dt(cast(dvector(), DType::Int16)) == DType::Int16);
  CHECK(dt(switch_(lt(dvector(), 0), fvector(), fvector())) == DType::Float32);
  CHECK(dt(second(dvector(), ivector())) == DType::Int32);
  CHECK(dt(bvector() & bvector()) == DType::Int8);
}

TEST_CASE("autocast of literals") {
  auto dt = [](const Var& v) { return tensor_type(v)->dtype(); };
  CHECK(dt(dscalar("x") + 1) == DType::Float64);
  CHECK(dt(fvector() * 2.0) == DType::Float32);   // 2.0 is exact in float32
  CHECK(dt(fvector() * 0.1) == DType::Float64);   // 0.1 is not (floatX=float64)
  CHECK(dt(bvector() + 1) == DType::Int8);
  CHECK(dt(bvector() + 1000) == DType::Int16);
  CHECK(dt(ivector() + (std::int64_t{1} << 40)) == DType::Int64);
  CHECK(dt(1.0 - dvector()) == DType::Float64);
  {
    ConfigGuard g(Config::from_flags("floatX=float32"));
    CHECK(dt(fvector() * 0.1) == DType::Float32);
    CHECK(dt(fvector() * 2.0) == DType::Float32);
  }
  CHECK(autocast_scalar(true).dtype() == DType::Bool);
  CHECK(constant(NDArray::zeros({2, 3})).type()->str() == "TensorType(float64, (2, 3))");
}

TEST_CASE("static shapes broadcast only where the type says 1") {
  Var m = dmatrix("m"), r = drow("r"), c = dcol("c");
  CHECK(tensor_type(m + r)->str() == "TensorType(float64, matrix)");
  CHECK(tensor_type(r + c)->str() == "TensorType(float64, matrix)");
  CHECK(tensor_type(r * r)->str() == "TensorType(float64, row)");
  Var a = tensor::tensor(DType::Float64, {3, Dim()}, "a");
  Var b = tensor::tensor(DType::Float64, {Dim(), 4}, "b");
  CHECK(tensor_type(a + b)->str() == "TensorType(float64, (3, 4))");
  // A vector is left-padded with a broadcastable dimension.
  Var v = dvector("v");
  Var s = m + v;
  CHECK(s.owner()->input(1).owner()->op()->name() == "DimShuffle{x,0}");
  // Known sizes that disagree are a type error at build time.
  Var p = tensor::tensor(DType::Float64, {3}, "p"), q = tensor::tensor(DType::Float64, {4}, "q");
  CHECK_THROWS_WITH_AS(p + q,
                       doctest::Contains("dimension 0 of input 1 (q, static shape (4,)) is 4 but input 0 (p, static "
                                         "shape (3,)) has 3"),
                       ShapeError);
}

TEST_CASE("run-time shape mismatches name the inputs, shapes and patterns") {
  Var x = dmatrix("x"), y = dmatrix("y");
  Var e = x + y;
  CHECK_THROWS_WITH_AS(e.eval({{x, NDArray::ones({2, 3})}, {y, NDArray::ones({1, 3})}}),
                       doctest::Contains("at dimension 0, input 0 (x, shape (2, 3), type (?, ?)) has size 2 but input "
                                         "1 (y, shape (1, 3), type (?, ?)) has size 1: only dimensions whose type "
                                         "says size 1 broadcast"),
                       ShapeError);
  // Declared broadcastable dims do broadcast.
  Var r = drow("r");
  NDArray got = (x + r).eval({{x, NDArray::ones({2, 3})}, {r, NDArray::arange(0, 3).reshape({1, 3})}});
  CHECK(array_equal(got, NDArray::from_list<double>({1, 2, 3, 1, 2, 3}, {2, 3})));
  CHECK_THROWS_WITH_AS((x + r).eval({{x, NDArray::ones({2, 3})}, {r, NDArray::ones({2, 3})}}),
                       doctest::Contains("Bad input argument with name \"r\""), TypeError);
}

TEST_CASE("non-contiguous inputs and n-ary ops") {
  Var x = dmatrix("x"), y = dmatrix("y"), z = dmatrix("z");
  NDArray a = NDArray::arange(0, 6).reshape({2, 3});
  NDArray at = a.transpose();  // (3, 2), non-contiguous
  NDArray b = NDArray::ones({3, 2});
  NDArray got = add(std::vector<Var>{x, y, z}).eval({{x, at}, {y, b}, {z, b}});
  CHECK(array_equal(got, NDArray::from_list<double>({2, 5, 3, 6, 4, 7}, {3, 2})));
  NDArray sliced = NDArray::arange(0, 12).reshape({3, 4}).slice(1, 3, std::nullopt, -2);  // cols 3, 1
  CHECK(array_equal(mul(std::vector<Var>{x, x}).eval({{x, sliced}}),
                    NDArray::from_list<double>({9, 1, 49, 25, 121, 81}, {3, 2})));
}

TEST_CASE("type errors name the op and the dtypes") {
  CHECK_THROWS_WITH_AS(dvector("a") & dvector("b"),
                       doctest::Contains("and is defined for bool and integer dtypes only, got (float64, float64)"),
                       TypeError);
  CHECK_THROWS_WITH_AS(exp(zvector("z")), doctest::Contains("complex dtypes are storage-only"), TypeError);
  CHECK_THROWS_WITH_AS(elemwise("nope", {dvector()}), doctest::Contains("unknown scalar op 'nope'"), ValueError);
  CHECK_THROWS_AS(elemwise("add", {}), TypeError);
}

TEST_CASE("integer edge cases follow NumPy without undefined behaviour") {
  Var a = lvector("a"), b = lvector("b");
  NDArray av = NDArray::from_list<std::int64_t>({7, -7, INT64_MIN, 5});
  NDArray bv = NDArray::from_list<std::int64_t>({0, 2, -1, -3});
  CHECK(array_equal(int_div(a, b).eval({{a, av}, {b, bv}}),
                    NDArray::from_list<std::int64_t>({0, -4, INT64_MIN, -2})));
  CHECK(array_equal(mod(a, b).eval({{a, av}, {b, bv}}), NDArray::from_list<std::int64_t>({0, 1, 0, -1})));
  CHECK_THROWS_WITH_AS(pow(a, b).eval({{a, av}, {b, bv}}), doctest::Contains("negative integer powers"), ValueError);
  Var t = bvector("t");
  NDArray bools = NDArray::from_list<bool>({true, false});
  Var bb = tensor::tensor(DType::Bool, {Dim()}, "bb");
  CHECK(array_equal((~bb).eval({{bb, bools}}), NDArray::from_list<bool>({false, true})));
  CHECK(array_equal((t + 100).eval({{t, NDArray::from_list<std::int8_t>({100})}}),
                    NDArray::from_list<std::int8_t>({-56})));  // wraps like NumPy
}

TEST_CASE("Elemwise infer_shape and inplace naming") {
  Var x = dmatrix("x"), r = drow("r");
  testing::check_infer_shape({x, r}, {x * r, exp(x)}, {NDArray::ones({4, 3}), NDArray::ones({1, 3})});
  Elemwise inplace(scalar_op("add"), {{0, 0}});
  CHECK(inplace.name() == "Elemwise{add,inplace}");
  CHECK(inplace.destroy_map() == ViewMap{{0, {0}}});
  CHECK(Elemwise(scalar_op("add")).name() == "Elemwise{add,no_inplace}");
  CHECK(Elemwise(scalar_op("add")) != inplace);
}

// CumOp (cumsum, cumprod) through perform: literal cases, then every rank,
// axis (negative and None), dtype and a strided input view against a reference
// written here (in-order accumulation in the element type; integers wrap),
// 0-size inputs, infer_shape, verify_grad for both modes and the errors.
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/extra_ops.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

/// The running sum / product of `x` along `axis` (or of its flattening when
/// axis is -100), accumulated in T in order: the definition, by index arithmetic.
template <class T>
NDArray reference_t(const NDArray& x0, int axis, bool add) {
  NDArray x = x0.copy();  // C-contiguous
  std::vector<std::int64_t> shape = x.shape();
  if (axis == -100) {
    x = x.reshape({x.size()});
    shape = {x.size()};
    axis = 0;
  }
  NDArray out = NDArray::empty(shape, x.dtype());
  if (x.size() == 0) return out;
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[static_cast<std::size_t>(d)];
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::int64_t n = shape[static_cast<std::size_t>(axis)];
  const T* px = x.data_as<T>();
  T* po = out.data_as<T>();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < inner; ++j) {
      T acc = add ? T(0) : T(1);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t k = (o * n + i) * inner + j;
        if constexpr (std::is_integral_v<T>)
          acc = static_cast<T>(add ? static_cast<std::uint64_t>(acc) + static_cast<std::uint64_t>(px[k])
                                   : static_cast<std::uint64_t>(acc) * static_cast<std::uint64_t>(px[k]));
        else
          acc = add ? acc + px[k] : acc * px[k];
        po[k] = acc;
      }
    }
  return out;
}

NDArray reference(const NDArray& x, int axis, bool add) {
  switch (x.dtype()) {
    case DType::Float64: return reference_t<double>(x, axis, add);
    case DType::Float32: return reference_t<float>(x, axis, add);
    case DType::Int64: return reference_t<std::int64_t>(x, axis, add);
    case DType::Int32: return reference_t<std::int32_t>(x, axis, add);
    case DType::Int8: return reference_t<std::int8_t>(x, axis, add);
    case DType::UInt16: return reference_t<std::uint16_t>(x, axis, add);
    default: FAIL("no reference for " << dtype_name(x.dtype())); return x;
  }
}

/// Values of `shape` in [-2, 2] (a product of many stays representable), as `dtype`.
NDArray values(const std::vector<std::int64_t>& shape, DType dtype) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = std::round(4 * std::sin(1.7 * static_cast<double>(i) + 0.3)) / 2;
  if (!is_float(dtype))
    for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = std::round(a.data_as<double>()[i] * 2);
  return a.astype(dtype);
}


}  // namespace

TEST_CASE("cumsum and cumprod: literal cases as NumPy gives them") {
  const Var m = matrix("m", DType::Int64);
  const NDArray a = NDArray::from_list<std::int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(array_equal(cumsum(m, 0).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 2, 3, 5, 7, 9}, {2, 3})));
  CHECK(array_equal(cumsum(m, 1).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 3, 6, 4, 9, 15}, {2, 3})));
  CHECK(array_equal(cumsum(m, -1).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 3, 6, 4, 9, 15}, {2, 3})));
  CHECK(array_equal(cumsum(m).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 3, 6, 10, 15, 21})));
  CHECK(array_equal(cumprod(m, 1).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 2, 6, 4, 20, 120}, {2, 3})));
  CHECK(array_equal(cumprod(m).eval({{m, a}}), NDArray::from_list<std::int64_t>({1, 2, 6, 24, 120, 720})));
  // bool accumulates as int64; int8 stays int8 and wraps (100 + 100 = -56).
  const Var b = vector("b", DType::Bool);
  CHECK(dtype_name(cumsum(b).dtype()) == "int64");
  CHECK(array_equal(cumsum(b).eval({{b, NDArray::from_list<bool>({true, true, false, true})}}),
                    NDArray::from_list<std::int64_t>({1, 2, 2, 3})));
  const Var c = vector("c", DType::Int8);
  CHECK(dtype_name(cumsum(c).dtype()) == "int8");
  CHECK(array_equal(cumsum(c).eval({{c, NDArray::from_list<std::int8_t>({100, 100, 1})}}),
                    NDArray::from_list<std::int8_t>({100, -56, -55})));
  // The printed op: its props.
  CHECK(cumsum(m, 1).owner()->op()->name() == "CumOp{1,add}");
}

TEST_CASE("CumOp perform matches the reference over ranks, axes, dtypes, strided views and 0-size inputs") {
  const std::vector<std::vector<std::int64_t>> shapes{{7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 2}, {0}, {3, 0}, {0, 4, 2}};
  for (const DType dt : {DType::Float64, DType::Float32, DType::Int64, DType::Int32, DType::Int8, DType::UInt16}) {
    CAPTURE(dtype_name(dt));
    for (const auto& shape : shapes) {
      const int nd = static_cast<int>(shape.size());
      const Var x = tensor::tensor(dt, StaticShape(shape.size()), "x");
      const NDArray a = values(shape, dt);
      for (const bool add : {true, false}) {
        CAPTURE(add);
        for (int axis = -nd; axis <= nd; ++axis) {  // axis == nd: None
          CAPTURE(axis);
          const std::optional<int> ax = axis == nd ? std::nullopt : std::optional<int>(axis);
          const Var y = add ? cumsum(x, ax) : cumprod(x, ax);
          const NDArray want = reference(a, axis == nd ? -100 : (axis + nd) % nd, add);
          for (const NDArray& in : {a, test::strided_copy(a)}) {
            const NDArray got = y.eval({{x, in}});
            CHECK(got.dtype() == dt);
            REQUIRE(got.shape() == want.shape());
            CHECK(array_equal(got, want));
          }
        }
      }
    }
  }
}

TEST_CASE("CumOp infer_shape and gradients") {
  const Var x = tensor3("x", DType::Float64);
  const NDArray a = values({2, 3, 4}, DType::Float64);
  testing::check_infer_shape({x}, {cumsum(x, 1), cumprod(x, -1), cumsum(x)}, {a});
  // Away from zero for cumprod (its gradient divides by x).
  NDArray p = NDArray::empty({2, 3, 4});
  for (std::int64_t i = 0; i < p.size(); ++i) p.data_as<double>()[i] = 0.6 + 0.05 * static_cast<double>(i % 13);
  for (int axis : {0, 1, 2, -1}) {
    CAPTURE(axis);
    testing::verify_grad([&](const std::vector<Var>& in) { return cumsum(in[0], axis); }, {a});
    testing::verify_grad([&](const std::vector<Var>& in) { return cumprod(in[0], axis); }, {p});
  }
  testing::verify_grad([](const std::vector<Var>& in) { return cumsum(in[0]); }, {a});
  testing::verify_grad([](const std::vector<Var>& in) { return cumprod(in[0]); }, {p});
  // The closed forms on a vector: cumsum's gradient of sum is (n, n-1, ..., 1).
  const Var v = vector("v", DType::Float64);
  const NDArray g = grad(sum(cumsum(v)), v).eval({{v, NDArray::from_list<double>({5, 6, 7})}});
  CHECK(array_equal(g, NDArray::from_list<double>({3, 2, 1})));
  // cumprod's gradient at a zero is NaN (Theano's formula divides by x); after it, 0.
  // (.copy(): the result is a reversed view.)
  const NDArray gz = grad(sum(cumprod(v)), v).eval({{v, NDArray::from_list<double>({2, 0, 3})}}).copy();
  CHECK(gz.data_as<double>()[0] == 1.0);  // d(2 + 0 + 0)/dx0 = 1 + x1 + x1 x2 = 1
  CHECK(std::isnan(gz.data_as<double>()[1]));
  CHECK(gz.data_as<double>()[2] == 0.0);
}

TEST_CASE("CumOp errors name the op or the function and the axis") {
  CHECK_THROWS_WITH_AS(cumsum(matrix("m"), 2), doctest::Contains("cumsum"), ValueError);
  CHECK_THROWS_WITH_AS(cumprod(matrix("m"), -3), doctest::Contains("cumprod"), ValueError);
  CHECK_THROWS_WITH_AS(OpPtr(new CumOp(2, "add"))->apply1({matrix("m")}),
                       doctest::Contains("CumOp{2,add}: axis 2 is out of range for m"), ValueError);
  CHECK_THROWS_WITH_AS(CumOp(0, "max"), doctest::Contains("CumOp: mode must be 'add' or 'mul', got 'max'"),
                       ValueError);
  CHECK_THROWS_WITH_AS(cumsum(vector("z", DType::Complex128)), doctest::Contains("CumOp{0,add}: expected an integer"),
                       TypeError);
  CHECK_THROWS_WITH_AS(cumsum(scalar("s"), 1), doctest::Contains("cumsum: axis 1 is out of range for s of rank 0"),
                       ValueError);
  // A 0-d input: axis 0 or None is over its one element, a 1-d result as NumPy's.
  const Var s = scalar("s", DType::Float64);
  CHECK(array_equal(cumsum(s, 0).eval({{s, NDArray::from_list<double>({4.0}).reshape({})}}),
                    NDArray::from_list<double>({4.0})));
}

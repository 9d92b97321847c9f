// SortOp and ArgSortOp (sort, argsort): literal cases as NumPy gives them
// (NaN last, ties in index order), then every rank, axis (negative and None),
// dtype and a strided input view against a reference written here
// (std::stable_sort of each line), 0-size inputs, infer_shape, the gradient
// and the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "test_util.h"
#include "theano/tensor/sort.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace {

/// NumPy's order: NaN after every number.
template <class T>
bool before(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

/// sort (indices: argsort) of `x0` along `axis` (-100: the flattened input),
/// each line by std::stable_sort: the definition.
template <class T>
NDArray reference_t(const NDArray& x0, int axis, bool indices) {
  NDArray x = x0.copy();  // C-contiguous
  std::vector<std::int64_t> shape = x.shape();
  if (axis == -100) {
    x = x.reshape({x.size()});
    shape = {x.size()};
    axis = 0;
  }
  NDArray out = NDArray::empty(shape, indices ? DType::Int64 : x.dtype());
  if (x.size() == 0) return out;
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= shape[static_cast<std::size_t>(d)];
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::int64_t n = shape[static_cast<std::size_t>(axis)];
  const T* px = x.data_as<T>();
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < inner; ++j) {
      auto at = [&](std::int64_t i) { return (o * n + i) * inner + j; };
      std::iota(idx.begin(), idx.end(), std::int64_t{0});
      std::stable_sort(idx.begin(), idx.end(),
                       [&](std::int64_t a, std::int64_t b) { return before(px[at(a)], px[at(b)]); });
      for (std::int64_t i = 0; i < n; ++i) {
        if (indices)
          out.data_as<std::int64_t>()[at(i)] = idx[static_cast<std::size_t>(i)];
        else
          out.data_as<T>()[at(i)] = px[at(idx[static_cast<std::size_t>(i)])];
      }
    }
  return out;
}

NDArray reference(const NDArray& x, int axis, bool indices) {
  switch (x.dtype()) {
    case DType::Float64:
      return reference_t<double>(x, axis, indices);
    case DType::Float32:
      return reference_t<float>(x, axis, indices);
    case DType::Int64:
      return reference_t<std::int64_t>(x, axis, indices);
    case DType::Int32:
      return reference_t<std::int32_t>(x, axis, indices);
    case DType::Int8:
      return reference_t<std::int8_t>(x, axis, indices);
    case DType::UInt16:
      return reference_t<std::uint16_t>(x, axis, indices);
    default:
      FAIL("no reference for " << dtype_name(x.dtype()));
      return x;
  }
}

/// Values of `shape` with many ties (and, for floats, NaN, infinities and -0.0).
NDArray values(const std::vector<std::int64_t>& shape, DType dtype) {
  NDArray a = NDArray::empty(shape);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    double v = std::round(6 * std::sin(1.7 * static_cast<double>(i) + 0.3));
    if (is_float(dtype) && i % 7 == 3) v = nan;
    if (is_float(dtype) && i % 11 == 5) v = i % 2 ? inf : -inf;
    if (dtype == DType::UInt16) v = std::abs(v);
    a.data_as<double>()[i] = v;
  }
  return a.astype(dtype);
}


/// Equal, NaN equal to NaN.
bool same(const NDArray& a, const NDArray& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const NDArray x = a.astype(DType::Float64).copy(), y = b.astype(DType::Float64).copy();
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double u = x.data_as<double>()[i], v = y.data_as<double>()[i];
    if (!(u == v || (std::isnan(u) && std::isnan(v)))) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("sort and argsort: literal cases as NumPy gives them") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Var v = vector("v", DType::Float64);
  const NDArray a = NDArray::from_list<double>({nan, 1, nan, -inf, 0, 1});
  CHECK(same(sort(v).eval({{v, a}}), NDArray::from_list<double>({-inf, 0, 1, 1, nan, nan})));
  // Ties in index order (np.argsort(a, kind="stable")): the NaNs last, 2 after 0.
  CHECK(array_equal(argsort(v).eval({{v, a}}), NDArray::from_list<std::int64_t>({3, 4, 1, 5, 0, 2})));
  const Var m = matrix("m", DType::Int32);
  const NDArray b = NDArray::from_list<std::int32_t>({3, 1, 2, 0, 5, 4}, {2, 3});
  CHECK(array_equal(sort(m).eval({{m, b}}), NDArray::from_list<std::int32_t>({1, 2, 3, 0, 4, 5}, {2, 3})));
  CHECK(array_equal(sort(m, 0).eval({{m, b}}), NDArray::from_list<std::int32_t>({0, 1, 2, 3, 5, 4}, {2, 3})));
  CHECK(array_equal(sort(m, std::nullopt).eval({{m, b}}), NDArray::from_list<std::int32_t>({0, 1, 2, 3, 4, 5})));
  CHECK(array_equal(argsort(m, 0).eval({{m, b}}), NDArray::from_list<std::int64_t>({1, 0, 0, 0, 1, 1}, {2, 3})));
  CHECK(dtype_name(argsort(m).dtype()) == "int64");
  CHECK(sort(m, 0).owner()->op()->name() == "SortOp{0}");
  CHECK(argsort(m).owner()->op()->name() == "ArgSortOp{1}");
}

TEST_CASE("sort and argsort match the reference over ranks, axes, dtypes, strided views and 0-size inputs") {
  const std::vector<std::vector<std::int64_t>> shapes{{9}, {3, 5}, {2, 3, 4}, {2, 1, 17, 2}, {0}, {3, 0}, {1}};
  for (const DType dt : {DType::Float64, DType::Float32, DType::Int64, DType::Int32, DType::Int8, DType::UInt16}) {
    CAPTURE(dtype_name(dt));
    for (const auto& shape : shapes) {
      const int nd = static_cast<int>(shape.size());
      const Var x = tensor::tensor(dt, StaticShape(shape.size()), "x");
      const NDArray a = values(shape, dt);
      for (const bool indices : {false, true}) {
        CAPTURE(indices);
        for (int axis = -nd; axis <= nd; ++axis) {  // axis == nd: None
          CAPTURE(axis);
          const std::optional<int> ax = axis == nd ? std::nullopt : std::optional<int>(axis);
          const Var y = indices ? argsort(x, ax) : sort(x, ax);
          const NDArray want = reference(a, axis == nd ? -100 : (axis + nd) % nd, indices);
          for (const NDArray& in : {a, test::strided_copy(a)}) {
            const NDArray got = y.eval({{x, in}});
            CHECK(same(got, want));
          }
        }
      }
    }
  }
}

TEST_CASE("sort and argsort: the radix sort's keys at the extremes, and lines on both sides of its length limit") {
  // Keys: every sign, the extremes, subnormals, +-0 (argsort ties), NaNs of both signs.
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const double dmin = std::numeric_limits<double>::denorm_min(), big = std::numeric_limits<double>::max();
  const NDArray f = NDArray::from_list<double>({0.0, -0.0, nan, -nan, -big, big, dmin, -dmin, inf, -inf, -0.0, 1, -1, 0.0});
  const Var v = vector("v", DType::Float64), vf = vector("vf", DType::Float32);
  CHECK(same(sort(v).eval({{v, f}}), reference(f, 0, false)));
  CHECK(array_equal(argsort(v).eval({{v, f}}), reference(f, 0, true)));
  const NDArray ff = f.astype(DType::Float32);
  CHECK(same(sort(vf).eval({{vf, ff}}), reference(ff, 0, false)));
  CHECK(array_equal(argsort(vf).eval({{vf, ff}}), reference(ff, 0, true)));
  const Var vi = vector("vi", DType::Int64), vu = vector("vu", DType::UInt16);
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const NDArray ints = NDArray::from_list<std::int64_t>({hi, -1, lo, 0, 1, lo + 1, hi - 1, -1, 256, -256});
  CHECK(array_equal(sort(vi).eval({{vi, ints}}), reference(ints, 0, false)));
  CHECK(array_equal(argsort(vi).eval({{vi, ints}}), reference(ints, 0, true)));
  const NDArray shorts = NDArray::from_list<std::uint16_t>({65535, 0, 256, 255, 1, 65535, 257});
  CHECK(array_equal(sort(vu).eval({{vu, shorts}}), reference(shorts, 0, false)));
  // Lines of THEANO_SORT_RADIX_MAX (4096) elements and longer (the introsort
  // on the CPU): ties, NaN, +-inf; already sorted, reversed, all equal, an
  // organ pipe and Musser's median-of-3 killer.
  for (const std::int64_t n : {std::int64_t{4096}, std::int64_t{4097}, std::int64_t{9001}}) {
    CAPTURE(n);
    std::vector<NDArray> lines{values({n}, DType::Float64)};
    NDArray up = NDArray::empty({n}), down = NDArray::empty({n}), flat = NDArray::full({n}, 2.5, DType::Float64),
            pipe = NDArray::empty({n}), killer = NDArray::zeros({n});
    for (std::int64_t i = 0; i < n; ++i) {
      up.data_as<double>()[i] = static_cast<double>(i);
      down.data_as<double>()[i] = static_cast<double>(n - i);
      pipe.data_as<double>()[i] = static_cast<double>(std::min(i, n - 1 - i));
    }
    const std::int64_t k = n / 2;
    for (std::int64_t i = 1; i <= k; ++i) {
      if (i % 2 == 1) {
        killer.data_as<double>()[i - 1] = static_cast<double>(i);
        killer.data_as<double>()[i] = static_cast<double>(k + i);
      }
      killer.data_as<double>()[k + i - 1] = static_cast<double>(2 * i);
    }
    for (const NDArray& l : {up, down, flat, pipe, killer}) lines.push_back(l);
    for (std::size_t c = 0; c < lines.size(); ++c) {
      CAPTURE(c);
      CHECK(same(sort(v).eval({{v, lines[c]}}), reference(lines[c], 0, false)));
      CHECK(array_equal(argsort(v).eval({{v, lines[c]}}), reference(lines[c], 0, true)));
      const NDArray l32 = lines[c].astype(DType::Int32);
      const Var w = vector("w", DType::Int32);
      CHECK(array_equal(argsort(w).eval({{w, l32}}), reference(l32, 0, true)));
    }
  }
}

TEST_CASE("sort infer_shape and gradient, argsort's zero gradient") {
  const Var x = tensor3("x", DType::Float64);
  NDArray a = NDArray::empty({2, 3, 4});
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = std::sin(3.1 * static_cast<double>(i) + 0.2);
  testing::check_infer_shape({x}, {sort(x, 1), argsort(x, -1), sort(x, std::nullopt)}, {a});
  for (int axis : {0, 1, 2, -1}) {
    CAPTURE(axis);
    testing::verify_grad([&](const std::vector<Var>& in) { return sort(in[0], axis); }, {a});
  }
  testing::verify_grad([](const std::vector<Var>& in) { return sort(in[0], std::nullopt); }, {a});
  // Each sorted position's gradient goes back where its value came from.
  const Var v = vector("v", DType::Float64);
  const Var w = vector("w", DType::Float64);
  const NDArray g =
      grad(sum(mul(sort(v), w)), v)
          .eval({{v, NDArray::from_list<double>({5, 3, 9, 1})}, {w, NDArray::from_list<double>({10, 20, 30, 40})}});
  CHECK(array_equal(g, NDArray::from_list<double>({30, 20, 40, 10})));
  // argsort's output is piecewise constant in v: its op's gradient is zero (as Theano's).
  const Var y = argsort(v);
  const std::vector<Var> gy = y.owner()->op()->grad(*y.owner(), {zeros_like(y, DType::Float64)});
  CHECK(array_equal(gy.at(0).eval({{v, NDArray::from_list<double>({2, 1})}}), NDArray::from_list<double>({0, 0})));
}

TEST_CASE("sort and argsort errors name the op or the function and the axis") {
  CHECK_THROWS_WITH_AS(sort(matrix("m"), 2), doctest::Contains("sort"), ValueError);
  CHECK_THROWS_WITH_AS(argsort(matrix("m"), -3), doctest::Contains("argsort"), ValueError);
  CHECK_THROWS_WITH_AS(OpPtr(new SortOp(2))->apply1({matrix("m")}),
                       doctest::Contains("SortOp{2}: axis 2 is out of range for m"), ValueError);
  CHECK_THROWS_WITH_AS(SortOp(-1), doctest::Contains("SortOp: axis -1 must be non-negative here"), ValueError);
  CHECK_THROWS_WITH_AS(sort(vector("z", DType::Complex128)), doctest::Contains("SortOp{0}: expected an integer"),
                       TypeError);
  CHECK_THROWS_WITH_AS(argsort(vector("b", DType::Bool)), doctest::Contains("ArgSortOp{0}: expected an integer"),
                       TypeError);
  CHECK_THROWS_WITH_AS(sort(vector("v"), 0, "bubble"),
                       doctest::Contains("sort: kind must be 'quicksort', 'mergesort', 'heapsort' or 'stable'"),
                       ValueError);
  CHECK_THROWS_WITH_AS(sort(scalar("s"), 0), doctest::Contains("sort: axis 0 is out of range for s of rank 0"),
                       ValueError);
  // A 0-d input with axis=None: a 1-d array of its one element.
  const Var s = scalar("s", DType::Float64);
  CHECK(array_equal(sort(s, std::nullopt).eval({{s, NDArray::from_list<double>({4.0}).reshape({})}}),
                    NDArray::from_list<double>({4.0})));
}

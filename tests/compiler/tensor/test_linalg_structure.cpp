// The structural matrix ops (theano/tensor/linalg_structure.h): diagonal /
// extract_diag, alloc_diag, diag, trace, tril, triu against naive loops
// written here (NumPy's definitions by index arithmetic), through perform
// (mode "unoptimized") and through the graph forms the specialize stage
// substitutes (fast_run), over offsets, negative and permuted axes, batches,
// strided and 0-size inputs, dtypes; infer_shape, verify_grad and the errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using theano::test::vec;
namespace LA = theano::tensor::linalg;

namespace {

/// Values 1, 2, 3, ... laid out in `shape` (distinct, so a misplaced element shows).
NDArray counting(const std::vector<std::int64_t>& shape, DType dtype = DType::Float64) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = static_cast<double>(i + 1);
  return a.astype(dtype);
}

/// Row-major multi-index of flat position `flat` in `shape`.
std::vector<std::int64_t> unravel(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

std::int64_t ravel(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& shape) {
  std::int64_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
  return flat;
}

/// NumPy's diagonal by its definition: out[rest..., i] = x[... i at axis1 ..., i + offset at axis2 ...] for the
/// i where both indices are in range (a1, a2 non-negative).
NDArray ref_diagonal(const NDArray& x0, int offset, int a1, int a2) {
  const NDArray x = x0.astype(DType::Float64).copy();
  const std::vector<std::int64_t>& s = x.shape();
  std::vector<std::int64_t> out_shape;
  for (int d = 0; d < x.ndim(); ++d)
    if (d != a1 && d != a2) out_shape.push_back(s[static_cast<std::size_t>(d)]);
  std::int64_t k = 0;
  while (k - std::min(offset, 0) < s[static_cast<std::size_t>(a1)] &&
         k + std::max(offset, 0) < s[static_cast<std::size_t>(a2)])
    ++k;
  out_shape.push_back(k);
  NDArray out = NDArray::zeros(out_shape);
  for (std::int64_t f = 0; f < out.size(); ++f) {
    const std::vector<std::int64_t> o = unravel(f, out_shape);
    std::vector<std::int64_t> in(s.size());
    std::size_t r = 0;
    for (int d = 0; d < x.ndim(); ++d)
      if (d != a1 && d != a2) in[static_cast<std::size_t>(d)] = o[r++];
    in[static_cast<std::size_t>(a1)] = o.back() - std::min(offset, 0);
    in[static_cast<std::size_t>(a2)] = o.back() + std::max(offset, 0);
    out.data_as<double>()[f] = x.data_as<double>()[ravel(in, s)];
  }
  return out;
}

/// alloc_diag by its definition: zeros of rank v.ndim + 1, planes (a1 rows, a2 columns) of side k + |offset|,
/// out[... r at a1 ..., c at a2 ...] = v[rest..., r + min(offset, 0)] where c - r == offset.
NDArray ref_alloc_diag(const NDArray& v0, int offset, int a1, int a2) {
  const NDArray v = v0.astype(DType::Float64).copy();
  const std::int64_t k = v.shape().back(), side = k + std::abs(offset);
  const int nd = v.ndim() + 1;
  std::vector<std::int64_t> shape(static_cast<std::size_t>(nd));
  std::size_t b = 0;
  for (int d = 0; d < nd; ++d) shape[static_cast<std::size_t>(d)] = d == a1 || d == a2 ? side : v.shape()[b++];
  NDArray out = NDArray::zeros(shape);
  for (std::int64_t f = 0; f < out.size(); ++f) {
    const std::vector<std::int64_t> o = unravel(f, shape);
    const std::int64_t r = o[static_cast<std::size_t>(a1)], c = o[static_cast<std::size_t>(a2)];
    if (c - r != offset) continue;
    std::vector<std::int64_t> in;
    for (int d = 0; d < nd; ++d)
      if (d != a1 && d != a2) in.push_back(o[static_cast<std::size_t>(d)]);
    in.push_back(std::min(r, c));
    out.data_as<double>()[f] = v.data_as<double>()[ravel(in, v.shape())];
  }
  return out;
}

/// tril / triu by their definition over the last two axes.
NDArray ref_triangle(const NDArray& x0, int k, bool lower) {
  NDArray x = x0.astype(DType::Float64).copy();
  const std::int64_t n = x.shape()[x.shape().size() - 2], m = x.shape().back();
  for (std::int64_t f = 0; f < x.size(); ++f) {
    const std::int64_t i = (f / m) % n, j = f % m;
    if (lower ? j > i + k : j < i + k) x.data_as<double>()[f] = 0;
  }
  return x;
}

/// The function's one output for `value` under `mode` ("unoptimized": the ops' perform; "fast_run": the graph
/// forms), as float64.
NDArray run(const Var& x, const Var& y, const NDArray& value, const std::string& mode) {
  FunctionOptions o;
  o.mode = mode;
  return function({x}, {y}, o)({value})[0].astype(DType::Float64);
}

bool same(const NDArray& got, const NDArray& want) {
  return got.shape() == want.shape() && array_equal(got.copy(), want.copy());
}

const char* const kModes[] = {"unoptimized", "fast_run"};

}  // namespace

TEST_CASE("diagonal matches NumPy's definition over offsets, axes, batches, strides and 0-size inputs") {
  const std::vector<std::vector<std::int64_t>> shapes{{3, 4}, {4, 3}, {5, 5}, {2, 3, 4}, {3, 2, 4, 2}, {0, 3}, {3, 0}};
  for (const auto& shape : shapes) {
    const int nd = static_cast<int>(shape.size());
    const Var x = tensor::tensor(DType::Float64, StaticShape(shape.size()), "x");
    const NDArray a = counting(shape);
    for (int a1 = -nd; a1 < nd; ++a1)
      for (int a2 = -nd; a2 < nd; ++a2) {
        if ((a1 + nd) % nd == (a2 + nd) % nd) continue;
        for (int offset = -5; offset <= 5; ++offset) {
          CAPTURE(shape);
          CAPTURE(a1);
          CAPTURE(a2);
          CAPTURE(offset);
          const NDArray want = ref_diagonal(a, offset, (a1 + nd) % nd, (a2 + nd) % nd);
          const Var y = LA::diagonal(x, offset, a1, a2);
          for (const char* mode : kModes) {
            CAPTURE(mode);
            CHECK(same(run(x, y, a, mode), want));
            CHECK(same(run(x, y, test::strided_copy(a), mode), want));
          }
        }
      }
  }
}

TEST_CASE("diagonal is a view of its input in perform, and its static shape is known when the input's is") {
  const Var x = tensor::tensor(DType::Float64, {3, 5}, "x");
  const Var y = LA::extract_diag(x, 1);
  CHECK(y.owner()->op()->name() == "ExtractDiag{1,0,1}");
  CHECK(tensor_type(y)->shape() == StaticShape{3});
  CHECK(tensor_type(LA::diagonal(x, -3))->shape() == StaticShape{0});
  const NDArray a = counting({3, 5});
  std::vector<NDArray> out(1);
  y.owner()->op()->perform(*y.owner(), std::vector<NDArray>{a}, out);
  CHECK(out[0].shares_buffer(a));
  CHECK(array_equal(out[0].copy(), NDArray::from_list<double>({2, 8, 14})));
}

TEST_CASE("alloc_diag and diag of a vector match the definition, and diagonal inverts alloc_diag") {
  const std::vector<std::vector<std::int64_t>> shapes{{3}, {1}, {0}, {2, 3}, {2, 0}, {2, 3, 2}};
  for (const auto& shape : shapes) {
    const int vd = static_cast<int>(shape.size()), nd = vd + 1;
    const Var v = tensor::tensor(DType::Float64, StaticShape(shape.size()), "v");
    const NDArray a = counting(shape);
    for (int a1 = -nd; a1 < nd; ++a1)
      for (int a2 = -nd; a2 < nd; ++a2) {
        if ((a1 + nd) % nd == (a2 + nd) % nd) continue;
        for (int offset = -3; offset <= 3; ++offset) {
          CAPTURE(shape);
          CAPTURE(a1);
          CAPTURE(a2);
          CAPTURE(offset);
          const NDArray want = ref_alloc_diag(a, offset, (a1 + nd) % nd, (a2 + nd) % nd);
          const Var y = LA::alloc_diag(v, offset, a1, a2);
          for (const char* mode : kModes) {
            CAPTURE(mode);
            CHECK(same(run(v, y, a, mode), want));
            CHECK(same(run(v, LA::diagonal(y, offset, a1, a2), a, mode), a));
          }
        }
      }
  }
  // diag: a vector gives the matrix, a matrix its diagonal.
  const Var v = vector("v", DType::Float64);
  const Var m = matrix("m", DType::Float64);
  for (const char* mode : kModes) {
    CHECK(same(run(v, LA::diag(v), vec({1, 2}), mode), NDArray::from_list<double>({1, 0, 0, 2}, {2, 2})));
    CHECK(same(run(v, LA::diag(v, -1), vec({1, 2}), mode),
               NDArray::from_list<double>({0, 0, 0, 1, 0, 0, 0, 2, 0}, {3, 3})));
    CHECK(same(run(m, LA::diag(m, 1), counting({3, 3}), mode), vec({2, 6})));
  }
}

TEST_CASE("trace is the sum of the diagonal, in sum's dtype") {
  const Var x = tensor3("x", DType::Float64);
  const NDArray a = counting({3, 4, 2});
  for (const char* mode : kModes)
    for (int offset : {-2, 0, 1, 5}) {
      CAPTURE(offset);
      CAPTURE(mode);
      const NDArray d = ref_diagonal(a, offset, 0, 2);
      NDArray want = NDArray::zeros({4});
      for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t i = 0; i < d.shape()[1]; ++i) want.data_as<double>()[r] += d.at<double>({r, i});
      CHECK(same(run(x, LA::trace(x, offset, 0, -1), a, mode), want));
    }
  const Var mi = matrix("mi", DType::Int32);
  CHECK(LA::trace(mi).dtype() == DType::Int64);
  CHECK(LA::trace(mi).eval({{mi, counting({2, 2}, DType::Int32)}}).item<std::int64_t>() == 5);
}

TEST_CASE("tril and triu match the definition over k, batches, dtypes and non-finite values") {
  const std::vector<std::vector<std::int64_t>> shapes{{4, 5}, {5, 4}, {2, 3, 4}, {0, 3}, {3, 0}, {2, 1, 3, 3}};
  for (const auto& shape : shapes) {
    const Var x = tensor::tensor(DType::Float64, StaticShape(shape.size()), "x");
    const NDArray a = counting(shape);
    for (int k = -6; k <= 6; ++k)
      for (const bool lower : {true, false})
        for (const char* mode : kModes) {
          CAPTURE(shape);
          CAPTURE(k);
          CAPTURE(lower);
          CAPTURE(mode);
          const Var y = lower ? LA::tril(x, k) : LA::triu(x, k);
          CHECK(same(run(x, y, a, mode), ref_triangle(a, k, lower)));
          CHECK(same(run(x, y, test::strided_copy(a), mode), ref_triangle(a, k, lower)));
        }
  }
  // NaN and inf outside the triangle become 0, as NumPy's where.
  const Var m = matrix("m", DType::Float64);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const NDArray a = NDArray::from_list<double>({1, nan, inf, 4}, {2, 2});
  for (const char* mode : kModes) {
    CHECK(same(run(m, LA::tril(m), a, mode), NDArray::from_list<double>({1, 0, inf, 4}, {2, 2})));
    const NDArray u = run(m, LA::triu(m, 1), a, mode).copy();  // the NaN above the diagonal is kept
    CHECK((u.at<double>({0, 0}) == 0 && std::isnan(u.at<double>({0, 1})) && u.at<double>({1, 0}) == 0 &&
           u.at<double>({1, 1}) == 0));
  }
  // Other dtypes keep theirs.
  for (const DType dt : {DType::Float32, DType::Int64, DType::Int8, DType::Bool}) {
    CAPTURE(dtype_name(dt));
    const Var t = matrix("t", dt);
    const NDArray v = dt == DType::Bool ? NDArray::ones({3, 3}).astype(DType::Bool) : counting({3, 3}, dt);
    for (const char* mode : kModes) {
      FunctionOptions o;
      o.mode = mode;
      const NDArray got = function({t}, {LA::triu(t, -1)}, o)({v})[0];
      CHECK(got.dtype() == dt);
      CHECK(same(got.astype(DType::Float64), ref_triangle(v, -1, false)));
    }
  }
}

TEST_CASE("structural ops: infer_shape") {
  const Var x = tensor3("x", DType::Float64);
  const Var v = matrix("v", DType::Float64);
  testing::check_infer_shape({x}, {LA::diagonal(x, 1, 0, 2), LA::diagonal(x, -2, 2, 1), LA::diagonal(x, 9, 1, 0)},
                             {counting({3, 2, 4})});
  testing::check_infer_shape({v}, {LA::alloc_diag(v, 2, 0, 2), LA::alloc_diag(v, -1, -1, 0), LA::alloc_diag(v)},
                             {counting({2, 3})});
  testing::check_infer_shape({x}, {LA::tril(x, 1), LA::triu(x, -1), LA::trace(x, 0, 1, 2)}, {counting({2, 3, 4})});
}

TEST_CASE("structural ops: verify_grad, and each gradient is the other op") {
  const NDArray a = counting({3, 4}), b = counting({2, 3, 4}), v = counting({2, 3});
  for (int offset : {-2, 0, 1, 3}) {
    CAPTURE(offset);
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::diagonal(in[0], offset); }, {a});
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::diagonal(in[0], offset, 2, 0); }, {b});
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::alloc_diag(in[0], offset, 1, 0); }, {v});
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::trace(in[0], offset, -1, -2); }, {b});
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::tril(in[0], offset); }, {b});
    testing::verify_grad([&](const std::vector<Var>& in) { return LA::triu(in[0], offset); }, {a});
  }
  const Var w = vector("w", DType::Float64);
  const Var g = grad(sum(LA::alloc_diag(w, 1) * 3.0), w);
  CHECK(g.owner()->op()->type_name() == "ExtractDiag");
  const Var m = matrix("m", DType::Float64);
  CHECK(grad(sum(LA::tril(m) * 2.0), m).owner()->op()->type_name() == "Tril");
}

TEST_CASE("structural ops: bad input is a clear error naming the function and the values") {
  const Var m = matrix("m", DType::Float64);
  const Var v = vector("v", DType::Float64);
  CHECK_THROWS_WITH_AS(LA::diagonal(m, 0, 0, 2), doctest::Contains("diagonal: axis2 2 is out of range for m of rank 2"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::diagonal(m, 0, 1, -1),
                       doctest::Contains("diagonal: axis1 (1) and axis2 (-1) name the same axis 1 of m of rank 2"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::trace(v), doctest::Contains("trace: expected v of rank 2 or more, got rank 1"), ValueError);
  CHECK_THROWS_WITH_AS(LA::diag(tensor3("t")), doctest::Contains("diag: expected a vector or a matrix, got t of rank 3"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::alloc_diag(v, 0, 0, 2),
                       doctest::Contains("alloc_diag: axis2 2 is out of range for the output of rank 2 made from v"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::alloc_diag(scalar("s")), doctest::Contains("alloc_diag: expected s of rank 1 or more"),
                       ValueError);
  CHECK_THROWS_WITH_AS(LA::tril(v), doctest::Contains("Tril{0}: expected v of rank 2 or more"), ValueError);
  CHECK_THROWS_WITH_AS(LA::triu(v, 2), doctest::Contains("Triu{2}: expected v of rank 2 or more"), ValueError);
  CHECK_THROWS_WITH_AS(LA::ExtractDiag(0, 1, 1), doctest::Contains("ExtractDiag: axis1 1 and axis2 1 must be distinct"),
                       ValueError);
  CHECK_THROWS_WITH_AS(OpPtr(new LA::AllocDiag(0, 0, 3))->apply1({v}),
                       doctest::Contains("AllocDiag{0,0,3}: axis1 0 or axis2 3 is out of range"), ValueError);
}

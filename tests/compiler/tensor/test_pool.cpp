// The pooling ops (pool_2d, pool_3d; Pool, MaxPoolGrad, AveragePoolGrad,
// DownsampleFactorMaxGradGrad): perform against a reference written here
// from Theano's pool.py definitions (windows in the padded image, the pad
// zeros, the divisors; the gradients scattered window by window) over every
// mode, ignore_border both ways, strides, pads, 2-d and 3-d, leading axes,
// dtypes and strided inputs; infer_shape; verify_grad of each mode and of the
// gradients (grad of grad); Rop of a max pool; the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "test_util.h"
#include "theano/gradient.h"
#include "theano/tensor/pool.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using signal::PoolMode;
using signal::PoolParams;

namespace {

using Dims = std::vector<std::int64_t>;

/// Theano's Pool.out_shape on one axis (pool.py, with Python's //).
std::int64_t ref_out_len(std::int64_t v, std::int64_t ws, std::int64_t st, std::int64_t pad, bool ib) {
  const std::int64_t padded = v + 2 * pad;
  auto floordiv = [](std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  // An empty axis pools to 0 (Theano gives 1 where padding or st < ws leaves
  // room for a window, then np.max of that empty window fails).
  if (v == 0) return 0;
  if (ib) return std::max<std::int64_t>(floordiv(padded - ws, st) + 1, 0);
  if (st >= ws) return floordiv(padded - 1, st) + 1;
  return std::max<std::int64_t>(0, floordiv(padded - 1 - ws + st, st)) + 1;
}

/// One test configuration.
struct PoolCase {
  Dims shape;  // the input's
  PoolParams p;
};

/// The image geometry: leading count, pooled input / output lengths.
struct Geo {
  std::int64_t nb = 1, isz = 1, osz = 1;
  Dims v, z;
};
Geo geo(const PoolCase& c) {
  Geo g;
  const std::size_t lead = c.shape.size() - static_cast<std::size_t>(c.p.ndim);
  for (std::size_t d = 0; d < lead; ++d) g.nb *= c.shape[d];
  for (std::size_t k = 0; k < static_cast<std::size_t>(c.p.ndim); ++k) {
    g.v.push_back(c.shape[lead + k]);
    g.z.push_back(ref_out_len(c.shape[lead + k], c.p.ws[k], c.p.stride[k], c.p.pad[k], c.p.ignore_border));
    g.isz *= g.v.back();
    g.osz *= g.z.back();
  }
  return g;
}
Dims out_shape(const PoolCase& c) {
  Dims s(c.shape.begin(), c.shape.end() - c.p.ndim);
  const Geo g = geo(c);
  s.insert(s.end(), g.z.begin(), g.z.end());
  return s;
}

/// Calls f(out_flat_index_in_image, region) for each output of one image:
/// region[k] = [lo, hi) in the PADDED image, as pool.py's perform computes it
/// (inc_pad: from j*st, clipped to the padded end; else also clipped to the
/// unpadded part), and the padded lengths.
template <class F>
void for_each_region(const PoolCase& c, const Geo& g, bool inc_pad, F&& f) {
  const auto nd = static_cast<std::size_t>(c.p.ndim);
  std::vector<std::int64_t> j(nd, 0);
  for (std::int64_t o = 0; o < g.osz; ++o) {
    std::vector<std::pair<std::int64_t, std::int64_t>> r(nd);
    std::int64_t rem = o;
    for (std::size_t k = nd; k-- > 0;) {
      j[k] = rem % g.z[k];
      rem /= g.z[k];
    }
    for (std::size_t k = 0; k < nd; ++k) {
      const std::int64_t img = g.v[k] + 2 * c.p.pad[k];
      std::int64_t start = j[k] * c.p.stride[k], end = std::min(start + c.p.ws[k], img);
      if (!inc_pad) {
        start = std::max(start, c.p.pad[k]);
        end = std::min(end, img - c.p.pad[k]);
      }
      r[k] = {start, end};
    }
    f(o, r);
  }
}

/// Calls f(padded position's flat index in the unpadded image or -1 for a pad) over a region.
template <class F>
void for_each_in_region(const PoolCase& c, const Geo& g, const std::vector<std::pair<std::int64_t, std::int64_t>>& r,
                        F&& f) {
  const auto nd = r.size();
  std::vector<std::int64_t> i(nd);
  for (std::size_t k = 0; k < nd; ++k) {
    i[k] = r[k].first;
    if (r[k].first >= r[k].second) return;
  }
  for (;;) {
    std::int64_t flat = 0;
    bool pad = false;
    for (std::size_t k = 0; k < nd; ++k) {
      const std::int64_t u = i[k] - c.p.pad[k];
      if (u < 0 || u >= g.v[k]) pad = true;
      flat = flat * g.v[k] + u;
    }
    f(pad ? -1 : flat);
    std::size_t k = nd;
    while (k-- > 0) {
      if (++i[k] < r[k].second) break;
      i[k] = r[k].first;
      if (k == 0) return;
    }
  }
}

/// Contiguous float64 values of `a`.
std::vector<double> values_of(const NDArray& a) {
  const NDArray d = a.astype(DType::Float64).copy();
  return std::vector<double>(d.data_as<double>(), d.data_as<double>() + d.size());
}

/// The forward by pool.py's perform: the image padded with zeros, np.max /
/// np.sum / np.average over each region.
NDArray ref_pool(const PoolCase& c, const NDArray& x) {
  const Geo g = geo(c);
  const std::vector<double> xv = values_of(x);
  std::vector<double> out(static_cast<std::size_t>(g.nb * g.osz));
  const PoolMode m = c.p.mode;
  for (std::int64_t b = 0; b < g.nb; ++b)
    for_each_region(c, g, m == PoolMode::AverageIncPad || m == PoolMode::Sum, [&](std::int64_t o, const auto& r) {
      double acc = m == PoolMode::Max ? -INFINITY : 0;
      std::int64_t n = 0;
      for_each_in_region(c, g, r, [&](std::int64_t i) {
        const double e = i < 0 ? 0.0 : xv[static_cast<std::size_t>(b * g.isz + i)];
        acc = m == PoolMode::Max ? std::max(acc, e) : acc + e;
        ++n;
      });
      if (m == PoolMode::AverageIncPad || m == PoolMode::AverageExcPad) acc /= static_cast<double>(n);
      out[static_cast<std::size_t>(b * g.osz + o)] = acc;
    });
  return NDArray::from_vector(out, out_shape(c)).astype(x.dtype());
}

/// MaxPoolGrad by pool.py: gz of each window added at every position equal to its max.
NDArray ref_max_grad(const PoolCase& c, const NDArray& x, const NDArray& z, const NDArray& gz) {
  const Geo g = geo(c);
  const std::vector<double> xv = values_of(x), zv = values_of(z), gv = values_of(gz);
  std::vector<double> gx(xv.size(), 0.0);
  for (std::int64_t b = 0; b < g.nb; ++b)
    for_each_region(c, g, false, [&](std::int64_t o, const auto& r) {
      const auto oi = static_cast<std::size_t>(b * g.osz + o);
      for_each_in_region(c, g, r, [&](std::int64_t i) {
        const auto ii = static_cast<std::size_t>(b * g.isz + i);
        if (i >= 0 && xv[ii] == zv[oi]) gx[ii] += gv[oi];
      });
    });
  return NDArray::from_vector(gx, x.shape()).astype(x.dtype());
}

/// DownsampleFactorMaxGradGrad by pool.py: per window, ggx summed where x equals its max.
NDArray ref_gradgrad(const PoolCase& c, const NDArray& x, const NDArray& z, const NDArray& ggx) {
  const Geo g = geo(c);
  const std::vector<double> xv = values_of(x), zv = values_of(z), gv = values_of(ggx);
  std::vector<double> out(zv.size(), 0.0);
  for (std::int64_t b = 0; b < g.nb; ++b)
    for_each_region(c, g, false, [&](std::int64_t o, const auto& r) {
      const auto oi = static_cast<std::size_t>(b * g.osz + o);
      for_each_in_region(c, g, r, [&](std::int64_t i) {
        const auto ii = static_cast<std::size_t>(b * g.isz + i);
        if (i >= 0 && xv[ii] == zv[oi]) out[oi] += gv[ii];
      });
    });
  return NDArray::from_vector(out, z.shape()).astype(x.dtype());
}

/// AveragePoolGrad by pool.py: gz / region size (1 for sum) added over each region.
NDArray ref_avg_grad(const PoolCase& c, const NDArray& x, const NDArray& gz) {
  const Geo g = geo(c);
  const std::vector<double> gv = values_of(gz);
  std::vector<double> gx(static_cast<std::size_t>(x.size()), 0.0);
  const PoolMode m = c.p.mode;
  for (std::int64_t b = 0; b < g.nb; ++b)
    for_each_region(c, g, m != PoolMode::AverageExcPad, [&](std::int64_t o, const auto& r) {
      std::int64_t n = 1;
      for (const auto& [lo, hi] : r) n *= hi - lo;
      const double share = gv[static_cast<std::size_t>(b * g.osz + o)] / (m == PoolMode::Sum ? 1.0 : double(n));
      for_each_in_region(c, g, r, [&](std::int64_t i) {
        if (i >= 0) gx[static_cast<std::size_t>(b * g.isz + i)] += share;
      });
    });
  return NDArray::from_vector(gx, x.shape()).astype(x.dtype());
}

/// Small integers (many ties), as `dtype`.
NDArray ints(const Dims& shape, DType dtype, double phase) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = std::round(4 * std::sin(1.3 * static_cast<double>(i) + phase));
  if (dtype == DType::UInt8 || dtype == DType::UInt16 || dtype == DType::UInt32 || dtype == DType::UInt64)
    for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = std::abs(a.data_as<double>()[i]);
  return a.astype(dtype);
}

/// Distinct values (no ties: the max's derivative exists), float64.
NDArray distinct(const Dims& shape, double phase) {
  NDArray a = NDArray::empty(shape);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = std::sin(2.1 * static_cast<double>(i) + phase) + 0.01 * static_cast<double>(i);
  return a;
}

Var tensor_of(const Dims& shape, DType dt, const char* name) { return tensor::tensor(dt, StaticShape(shape.size()), name); }

const PoolMode kModes[] = {PoolMode::Max, PoolMode::Sum, PoolMode::AverageIncPad, PoolMode::AverageExcPad};

/// The configurations: 2-d and 3-d, leading axes 0 to 2, ignore_border both
/// ways, strides below / equal / above ws, pads (ignore_border only).
std::vector<PoolCase> configs(PoolMode m) {
  std::vector<PoolCase> cs;
  auto add = [&](Dims s, int nd, Dims ws, Dims st, Dims pad, bool ib) {
    cs.push_back({std::move(s), PoolParams{nd, std::move(ws), std::move(st), std::move(pad), ib, m}});
  };
  for (const bool ib : {false, true}) {
    add({5, 7}, 2, {2, 2}, {2, 2}, {0, 0}, ib);
    add({2, 5, 7}, 2, {3, 2}, {1, 2}, {0, 0}, ib);
    add({2, 3, 6, 5}, 2, {2, 3}, {3, 1}, {0, 0}, ib);
    add({1, 4, 4}, 2, {1, 1}, {1, 1}, {0, 0}, ib);
    add({3, 8}, 2, {5, 9}, {2, 2}, {0, 0}, ib);  // windows larger than the input
    add({4, 5, 6}, 3, {2, 2, 3}, {2, 1, 2}, {0, 0, 0}, ib);
    add({2, 3, 4, 5}, 3, {2, 3, 2}, {1, 2, 3}, {0, 0, 0}, ib);
    add({2, 0, 5}, 2, {2, 2}, {2, 2}, {0, 0}, ib);  // empty
    add({2, 5, 7, 8}, 3, {2, 3, 2}, {2, 3, 2}, {0, 0, 0}, ib);  // windows tiling the input, partial ones at the ends
  }
  add({2, 5, 7}, 2, {3, 2}, {2, 2}, {1, 1}, true);
  add({6, 6}, 2, {3, 3}, {1, 2}, {2, 0}, true);
  add({2, 0, 5}, 2, {3, 2}, {1, 2}, {2, 1}, true);  // empty, padding with room for a window of padding only
  add({2, 4, 5, 3}, 3, {2, 3, 2}, {1, 2, 1}, {1, 2, 1}, true);
  return cs;
}

Var pool_of(const Var& x, const PoolParams& p) { return OpPtr(new signal::Pool(p))->apply1({x}); }

}  // namespace

TEST_CASE("pool_2d and pool_3d: literal cases") {
  const Var x = matrix("x", DType::Float64);
  const NDArray a = NDArray::from_list<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, {4, 5});
  // 2x2 windows: ignore_border drops the last column, else a partial one.
  CHECK(array_equal(signal::pool_2d(x, {2, 2}, {.ignore_border = true}).eval({{x, a}}),
                    NDArray::from_list<double>({7, 9, 17, 19}, {2, 2})));
  CHECK(array_equal(signal::pool_2d(x, {2, 2}).eval({{x, a}}), NDArray::from_list<double>({7, 9, 10, 17, 19, 20}, {2, 3})));
  CHECK(array_equal(signal::pool_2d(x, {2, 2}, {.mode = PoolMode::Sum}).eval({{x, a}}),
                    NDArray::from_list<double>({16, 24, 15, 56, 64, 35}, {2, 3})));
  // average_inc_pad with pad 1: the corner window holds 1 of 4 elements.
  CHECK(allclose(signal::pool_2d(x, {2, 2}, {.ignore_border = true, .pad = {1, 1}, .mode = PoolMode::AverageIncPad})
                     .eval({{x, a}}),
                 NDArray::from_list<double>({0.25, 1.25, 2.25, 4.25, 10, 12, 4, 8.75, 9.75}, {3, 3})));
  CHECK(allclose(signal::pool_2d(x, {2, 2}, {.ignore_border = true, .pad = {1, 1}, .mode = PoolMode::AverageExcPad})
                     .eval({{x, a}}),
                 NDArray::from_list<double>({1, 2.5, 4.5, 8.5, 10, 12, 16, 17.5, 19.5}, {3, 3})));
  const Var y = signal::pool_3d(tensor3("t", DType::Float32), {2, 1, 2}, {.stride = {1, 1, 2}});
  // The props, pinned (they are the printed name and the function-record key).
  CHECK(y.owner()->op()->name() == "Pool{3,(2, 1, 2),(1, 1, 2),(0, 0, 0),False,max}");
  const Var g = grad(sum(signal::pool_2d(x, {2, 2}, {.ignore_border = true, .mode = PoolMode::AverageExcPad})), x);
  CHECK(g.owner()->op()->name() == "AveragePoolGrad{2,(2, 2),(2, 2),(0, 0),True,average_exc_pad}");
  CHECK(dtype_name(y.dtype()) == "float32");
  // Static shapes pool too.
  const Var s = tensor::tensor(DType::Float64, {Dim(3), std::nullopt, Dim(9)}, "s");
  const auto& st = tensor_type(signal::pool_2d(s, {2, 4}, {.ignore_border = true}))->shape();
  CHECK(st.at(0) == Dim(3));
  CHECK(!st.at(1).has_value());
  CHECK(st.at(2) == Dim(2));
}

TEST_CASE("Pool matches the pool.py reference over modes, borders, strides, pads, ranks, dtypes and strided inputs") {
  for (const PoolMode m : kModes) {
    CAPTURE(signal::pool_mode_name(m));
    for (const PoolCase& c : configs(m)) {
      CAPTURE(shape_to_string(c.shape));
      CAPTURE(shape_to_string(c.p.ws));
      CAPTURE(shape_to_string(c.p.stride));
      CAPTURE(shape_to_string(c.p.pad));
      CAPTURE(c.p.ignore_border);
      for (const DType dt : {DType::Float64, DType::Float32, DType::Int32, DType::UInt8}) {
        CAPTURE(dtype_name(dt));
        const Var x = tensor_of(c.shape, dt, "x");
        const Var y = pool_of(x, c.p);
        const NDArray a = ints(c.shape, dt, 0.4);
        // Integer averages: the reference's float quotient truncated, as C's division.
        const NDArray want = ref_pool(c, a);
        for (const NDArray& in : {a, test::strided_copy(a)}) {
          const NDArray got = y.eval({{x, in}});
          CHECK(got.shape() == out_shape(c));
          CHECK(allclose(got.astype(DType::Float64), want.astype(DType::Float64), 1e-6, 1e-6));
        }
      }
    }
  }
}

TEST_CASE("pool gradients match the pool.py reference, ties included") {
  for (const PoolMode m : kModes) {
    CAPTURE(signal::pool_mode_name(m));
    for (const PoolCase& c : configs(m)) {
      CAPTURE(shape_to_string(c.shape));
      CAPTURE(shape_to_string(c.p.ws));
      CAPTURE(shape_to_string(c.p.stride));
      CAPTURE(shape_to_string(c.p.pad));
      CAPTURE(c.p.ignore_border);
      const Var x = tensor_of(c.shape, DType::Float64, "x");
      const Var gz = tensor_of(out_shape(c), DType::Float64, "gz");
      const NDArray a = ints(c.shape, DType::Float64, 0.4);  // many ties
      const NDArray g = ints(out_shape(c), DType::Float64, 1.1);
      const NDArray z = ref_pool(c, a);
      const Var y = pool_of(x, c.p);
      const Var gx = y.owner()->op()->grad(*y.owner(), {gz}).at(0);
      const NDArray got = gx.eval({{x, test::strided_copy(a)}, {gz, test::strided_copy(g)}});
      if (m == PoolMode::Max) {
        CHECK(gx.owner()->op()->type_name() == "MaxPoolGrad");
        CHECK(allclose(got, ref_max_grad(c, a, z, g), 1e-12, 1e-12));
        // Contiguous inputs too (windows that tile the input walk such rows with typed pointers).
        CHECK(allclose(gx.eval({{x, a}, {gz, g}}), ref_max_grad(c, a, z, g), 1e-12, 1e-12));
        // The grad of the grad wrt gz: DownsampleFactorMaxGradGrad.
        const Var ggx = tensor_of(c.shape, DType::Float64, "ggx");
        const Var gg = gx.owner()->op()->grad(*gx.owner(), {ggx}).at(2);
        CHECK(gg.owner()->op()->type_name() == "DownsampleFactorMaxGradGrad");
        const NDArray b = ints(c.shape, DType::Float64, 2.3);
        CHECK(allclose(gg.eval({{x, a}, {ggx, test::strided_copy(b)}}), ref_gradgrad(c, a, z, b), 1e-12, 1e-12));
      } else {
        CHECK(gx.owner()->op()->type_name() == "AveragePoolGrad");
        CHECK(allclose(got, ref_avg_grad(c, a, g), 1e-12, 1e-12));
      }
    }
  }
}

TEST_CASE("pool infer_shape") {
  for (const PoolMode m : kModes)
    for (const PoolCase& c : configs(m)) {
      CAPTURE(shape_to_string(c.shape));
      CAPTURE(shape_to_string(c.p.ws));
      CAPTURE(c.p.ignore_border);
      const Var x = tensor_of(c.shape, DType::Float64, "x");
      const Var gz = tensor_of(out_shape(c), DType::Float64, "gz");
      const Var y = pool_of(x, c.p);
      std::vector<Var> outs{y, y.owner()->op()->grad(*y.owner(), {gz}).at(0)};
      if (m == PoolMode::Max) {
        const Var g = outs[1];
        outs.push_back(g.owner()->op()->grad(*g.owner(), {x}).at(2));
      }
      testing::check_infer_shape({x, gz}, outs, {ints(c.shape, DType::Float64, 0.2), ints(out_shape(c), DType::Float64, 0.5)});
    }
}

TEST_CASE("verify_grad: every mode, and the gradients' gradients") {
  const std::vector<PoolCase> cs{
      {{2, 5, 6}, PoolParams{2, {2, 3}, {2, 2}, {0, 0}, false, PoolMode::Max}},
      {{5, 6}, PoolParams{2, {3, 2}, {1, 2}, {1, 0}, true, PoolMode::Max}},
      {{2, 3, 4, 5}, PoolParams{3, {2, 2, 2}, {1, 2, 2}, {0, 1, 0}, true, PoolMode::Max}},
  };
  for (const PoolMode m : kModes)
    for (PoolCase c : cs) {
      c.p.mode = m;
      CAPTURE(signal::pool_mode_name(m));
      CAPTURE(shape_to_string(c.shape));
      const NDArray a = distinct(c.shape, 0.3);
      testing::verify_grad([&](const std::vector<Var>& in) { return pool_of(in[0], c.p); }, {a});
      // The gradient as a function of x and gz: its gradient wrt gz is
      // DownsampleFactorMaxGradGrad (max) or Pool (the others); wrt x zero.
      const NDArray g = distinct(out_shape(c), 1.7);
      testing::verify_grad(
          [&](const std::vector<Var>& in) {
            const Var y = pool_of(in[0], c.p);
            return y.owner()->op()->grad(*y.owner(), {in[1]}).at(0);
          },
          {a, g});
      if (m == PoolMode::Max) {
        // DownsampleFactorMaxGradGrad's own gradient (MaxPoolGrad) wrt ggx.
        testing::verify_grad(
            [&](const std::vector<Var>& in) {
              const Var y = pool_of(in[0], c.p);
              const Var gx = y.owner()->op()->grad(*y.owner(), {zeros_like(y)}).at(0);
              return gx.owner()->op()->grad(*gx.owner(), {in[1]}).at(2);
            },
            {a, distinct(c.shape, 2.9)});
      }
    }
  // Through grad(): the second derivative of a sum of squares of a pool.
  const Var x = tensor3("x", DType::Float64);
  const Var y = signal::pool_2d(x, {2, 2}, {.ignore_border = true, .mode = PoolMode::AverageIncPad});
  const Var g = grad(sum(mul(y, y)), x);
  testing::verify_grad([&](const std::vector<Var>& in) {
    const Var yy = signal::pool_2d(in[0], {2, 2}, {.ignore_border = true, .mode = PoolMode::AverageIncPad});
    return grad(sum(mul(yy, yy)), in[0]);
  }, {distinct({2, 4, 4}, 0.1)});
  CHECK(g.dtype() == DType::Float64);
}

TEST_CASE("Rop of a max pool: DownsampleFactorMaxGradGrad's values") {
  const PoolCase c{{2, 5, 7}, PoolParams{2, {2, 3}, {1, 2}, {0, 0}, false, PoolMode::Max}};
  const Var x = tensor3("x", DType::Float64), v = tensor3("v", DType::Float64);
  const Var y = pool_of(x, c.p);
  const Var r = Rop(y, x, v);
  const NDArray a = distinct(c.shape, 0.6), e = distinct(c.shape, 1.9);
  CHECK(allclose(r.eval({{x, a}, {v, e}}), ref_gradgrad(c, a, ref_pool(c, a), e), 1e-12, 1e-12));
  // Averages and sums are linear: Rop is the pool of the direction.
  const Var ra = Rop(signal::pool_2d(x, {2, 3}, {.mode = PoolMode::AverageExcPad}), x, v);
  PoolCase ca = c;
  ca.p.mode = PoolMode::AverageExcPad;
  ca.p.stride = {2, 3};
  CHECK(allclose(ra.eval({{x, a}, {v, e}}), ref_pool(ca, e), 1e-12, 1e-12));
}

TEST_CASE("pool errors name the op, the variable and what was expected") {
  const Var x = tensor4("images", DType::Float64);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {0, 2}), doctest::Contains("pooling images: every window size (ws) must be at least 1, got 0"),
                       ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {2, 2}, {.stride = {1, 0}}),
                       doctest::Contains("pooling images: every stride must be at least 1, got 0"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {2, 2}, {.ignore_border = true, .pad = {2, 0}}),
                       doctest::Contains("smaller than its window size, got 2"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {2, 2}, {.ignore_border = true, .pad = {-1, 0}}),
                       doctest::Contains("every pad must be at least 0"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {2, 2}, {.pad = {1, 1}}),
                       doctest::Contains("padding works only with ignore_border=True, got pad 1"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(x, {2, 2, 2}), doctest::Contains("pool_2d: ws needs 2 entries, got 3"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_3d(x, {2, 2, 2}, {.stride = {1}}),
                       doctest::Contains("pool_3d: stride needs 3 entries"), ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_3d(x, {2, 2, 2}, {.pad = {1}}), doctest::Contains("pool_3d: pad needs 3 entries"),
                       ValueError);
  CHECK_THROWS_WITH_AS(signal::pool_3d(matrix("m"), {2, 2, 2}),
                       doctest::Contains("input m of type TensorType(float64, matrix) has 2 axes; pooling 3 axes needs at least 3"),
                       TypeError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(matrix("h", DType::Float16), {2, 2}),
                       doctest::Contains("input h has dtype float16; pooling supports float32, float64, int8"), TypeError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(matrix("c", DType::Complex128), {2, 2}),
                       doctest::Contains("has dtype complex128; pooling supports"), TypeError);
  CHECK_THROWS_WITH_AS(signal::pool_2d(matrix("b", DType::Bool), {2, 2}), doctest::Contains("has dtype bool"), TypeError);
  CHECK_THROWS_WITH_AS(signal::MaxPoolGrad(PoolParams{2, {2, 2}, {2, 2}, {0, 0}, false, PoolMode::Sum}),
                       doctest::Contains("MaxPoolGrad: mode must be 'max', got 'sum'"), ValueError);
  CHECK_THROWS_WITH_AS(signal::AveragePoolGrad(PoolParams{2, {2, 2}, {2, 2}, {0, 0}, false, PoolMode::Max}),
                       doctest::Contains("AveragePoolGrad: mode must be"), ValueError);
  CHECK_THROWS_WITH_AS(signal::Pool(PoolParams{4, {2, 2, 2, 2}, {2, 2, 2, 2}, {0, 0, 0, 0}, false, PoolMode::Max}),
                       doctest::Contains("Pool: pools 1 to 3 axes, got ndim 4"), ValueError);
  CHECK_THROWS_WITH_AS(signal::Pool(PoolParams{2, {2, 2}, {2}, {0, 0}, false, PoolMode::Max}),
                       doctest::Contains("Pool: ws, stride and pad need 2 entries each"), ValueError);
  // Gradient inputs: types must be x's, values the pooled shape of x.
  const PoolParams p{2, {2, 2}, {2, 2}, {0, 0}, true, PoolMode::Max};
  const Var m = matrix("m", DType::Float64);
  CHECK_THROWS_WITH_AS(OpPtr(new signal::MaxPoolGrad(p))->apply1({m, matrix("z", DType::Float32), m}),
                       doctest::Contains("maxout z of type TensorType(float32, matrix) must have the type of x m"),
                       TypeError);
  const Var gz = matrix("gz", DType::Float64);
  const Var bad = OpPtr(new signal::MaxPoolGrad(p))->apply1({m, gz, gz});
  CHECK_THROWS_WITH_AS(bad.eval({{m, NDArray::zeros({4, 4})}, {gz, NDArray::zeros({2, 3})}}),
                       doctest::Contains("not the pooled shape of x (4, 4): a gradient input does not have the pooled shape "
                                         "of x, at axis 1, expected length 2"),
                       ShapeError);
  const Var bad2 = OpPtr(new signal::AveragePoolGrad(PoolParams{2, {2, 2}, {2, 2}, {0, 0}, true, PoolMode::Sum}))
                       ->apply1({m, gz});
  CHECK_THROWS_AS(bad2.eval({{m, NDArray::zeros({5, 4})}, {gz, NDArray::zeros({3, 2})}}), ShapeError);
  CHECK_THROWS_AS(OpPtr(new signal::MaxPoolGrad(p))->apply1({m, m}), TypeError);
}

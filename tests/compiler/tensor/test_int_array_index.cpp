// Indexing with integer arrays of any rank (numpy's advanced indexing: an
// array alone on one axis, or several leading arrays and scalars broadcast
// together), its set / inc forms and gradients, against the NumPy fixtures of
// tests/data/int_index/gen_int_index_fixtures.py, through compiled functions.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "test_util.h"
#include "theano/testing.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
using theano::test::error_of;

namespace {

NDArray load(const std::string& name) { return load_npy(std::string(THEANO_TEST_DATA_DIR) + "/int_index/" + name); }

/// One fixture case: its index expression on x, and the index variables it uses.
struct IntIndexCase {
  std::string name;
  int arrays;  // how many index arrays (i0, i1)
  std::vector<int> ranks;
  Var (*index)(const Var& x, const std::vector<Var>& i);
};

const std::vector<IntIndexCase>& cases() {
  static const std::vector<IntIndexCase> c{
      {"m0", 1, {2}, [](const Var& x, const std::vector<Var>& i) { return x[i[0]]; }},
      {"m1", 1, {2}, [](const Var& x, const std::vector<Var>& i) { return x[{all, i[0]}]; }},
      {"m2", 1, {3}, [](const Var& x, const std::vector<Var>& i) { return x[{all, all, i[0]}]; }},
      {"t0", 1, {3}, [](const Var& x, const std::vector<Var>& i) { return x[i[0]]; }},
      {"p2", 2, {2, 2}, [](const Var& x, const std::vector<Var>& i) { return x[{i[0], i[1]}]; }},
      {"s2", 1, {2}, [](const Var& x, const std::vector<Var>& i) { return x[{i[0], 4}]; }},
  };
  return c;
}

}  // namespace

TEST_CASE("x[int array of any rank] against NumPy: values, shapes, set and inc (repeats accumulate), infer_shape") {
  const NDArray xv = load("x.npy");
  for (const IntIndexCase& c : cases()) {
    CAPTURE(c.name);
    Var x = dtensor3("x"), y = tensor::tensor(DType::Float64, StaticShape(load(c.name + "_y.npy").ndim(), std::nullopt), "y");
    std::vector<Var> idx;
    std::vector<NDArray> iv;
    for (int k = 0; k < c.arrays; ++k) {
      iv.push_back(load(c.name + "_i" + std::to_string(k) + ".npy"));
      REQUIRE(static_cast<int>(iv.back().ndim()) == c.ranks[static_cast<std::size_t>(k)]);
      // Theano broadcasts the axes a type says are 1 (x[A, B] with A (3, 1), B (1, 2)).
      StaticShape st;
      for (std::int64_t d : iv.back().shape()) st.push_back(d == 1 ? Dim(1) : Dim());
      idx.push_back(tensor::tensor(DType::Int64, st, "i" + std::to_string(k)));
    }
    const Var sub = c.index(x, idx);
    const NDArray want = load(c.name + "_out.npy"), yv = load(c.name + "_y.npy");
    CHECK(tensor_type(sub)->ndim() == static_cast<int>(want.ndim()));
    std::vector<Var> ins{x, y};
    ins.insert(ins.end(), idx.begin(), idx.end());
    std::vector<NDArray> args{xv, yv};
    args.insert(args.end(), iv.begin(), iv.end());
    Function f = function(std::vector<In>(ins.begin(), ins.end()),
                          std::vector<Out>{sub, set_subtensor(sub, y), inc_subtensor(sub, y)});
    const std::vector<NDArray> got = f(args);
    CHECK(got[0].shape() == want.shape());
    CHECK(array_equal(got[0], want));
    CHECK(array_equal(got[1], load(c.name + "_set.npy")));
    CHECK(allclose(got[2], load(c.name + "_inc.npy"), 1e-14, 1e-14));
    testing::check_infer_shape(ins, {sub, inc_subtensor(sub, y)}, args);
  }
}

TEST_CASE("x[int matrix]: float32, a broadcast value, out-of-range indices named, the gradient a scatter-add") {
  Var E = fmatrix("E"), I = lmatrix("I");
  const NDArray ev = NDArray::from_list<float>({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  const NDArray iv = NDArray::from_list<std::int64_t>({3, 0, 3, -1, 1, 1}, {2, 3});
  Function f = function({E, I}, {E[I], set_subtensor(E[I], 9.0f)});
  const std::vector<NDArray> r = f({ev, iv});
  CHECK(r[0].shape() == std::vector<std::int64_t>{2, 3, 2});
  CHECK(r[0].dtype() == DType::Float32);
  CHECK(array_equal(r[0], NDArray::from_list<float>({6, 7, 0, 1, 6, 7, 6, 7, 2, 3, 2, 3}, {2, 3, 2})));
  CHECK(array_equal(r[1], NDArray::from_list<float>({9, 9, 9, 9, 4, 5, 9, 9}, {4, 2})));
  const std::string msg = error_of([&] { f({ev, NDArray::from_list<std::int64_t>({0, 4}, {1, 2})}); });
  CHECK(msg.find("out of") != std::string::npos);
  CHECK(msg.find("4") != std::string::npos);
  // An embedding's gradient: rows used more than once accumulate (W13's shape).
  Var cost = 0.5 * sum(sqr(tanh(E[I])));
  const NDArray g = function({E, I}, {grad(cost, E)})({ev, iv})[0];
  NDArray want = NDArray::zeros({4, 2}, DType::Float32);
  for (std::int64_t n = 0; n < 6; ++n) {
    std::int64_t row = iv.data_as<std::int64_t>()[n];
    if (row < 0) row += 4;
    for (std::int64_t j = 0; j < 2; ++j) {
      const float t = std::tanh(ev.at<float>({row, j}));
      want.data_as<float>()[row * 2 + j] += t * (1 - t * t);
    }
  }
  CHECK(allclose(g, want, 1e-6, 1e-6));
  testing::verify_grad([&](const std::vector<Var>& in) { return tanh(in[0][constant(iv)]); },
                       {NDArray::from_list<double>({0.1, -0.4, 0.3, 0.9, -0.2, 0.5, 0.7, -0.8}, {4, 2})});
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return inc_subtensor(in[0][{all, constant(iv)}], in[1]) * in[0].sum(); },
      {NDArray::from_list<double>({0.1, -0.4, 0.3, 0.9, -0.2, 0.5, 0.7, -0.8}, {2, 4}),
       NDArray::from_list<double>({0.5, -1, 2, 0.25, 1.5, -0.5, 1, 2, 3, -2, 0.1, 0.2}, {2, 2, 3})});
  CHECK_THROWS_WITH_AS(E[fmatrix("m")], doctest::Contains("must be an integer scalar, an integer array or a boolean array"), TypeError);
  CHECK_THROWS_WITH_AS(take(E, fvector("v"), 1), doctest::Contains("take: indices (v) must be an integer tensor"),
                       TypeError);
}

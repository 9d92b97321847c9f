// BLAS ops against NumPy fixtures (tests/data/blas/gen_blas.py): Dot for every
// vector/matrix combination in float64/float32/int32, on C-ordered, Fortran-
// ordered (transposed), strided and negatively strided operands; Dot22 reaching
// OpenBLAS; Gemm/Gemv/Ger (non-inplace and inplace); outer, tensordot,
// batched_dot; static and run-time shape errors.
#include <cmath>
#include <tuple>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;

namespace theano::tensor::blas_detail {
bool last_call_used_blas();  // internal probe (compiler/src/tensor/blas/blas_kernels.h)
}

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/blas/" + name; }
NDArray load(const std::string& name) { return load_npy(fixture(name + ".npy")); }

Var var_of(const NDArray& a, const std::string& name) {
  return tensor::tensor(a.dtype(), StaticShape(static_cast<std::size_t>(a.ndim()), Dim()), name);
}

// The same values in other memory layouts: Fortran order (a transposed view),
// every other element of a wider buffer, and negative strides.
std::vector<NDArray> layouts(const NDArray& a) {
  std::vector<NDArray> r{a};
  const int nd = a.ndim();
  r.push_back(a.transpose().copy().transpose());
  std::vector<int64_t> wide = a.shape();
  wide.back() *= 2;
  NDArray big = NDArray::zeros(wide, a.dtype());
  NDArray strided = big.slice(nd - 1, std::nullopt, std::nullopt, 2);
  strided.assign(a);
  r.push_back(strided);
  NDArray rev = a;
  for (int d = 0; d < nd; ++d) rev = rev.slice(d, std::nullopt, std::nullopt, -1);
  rev = rev.copy();
  for (int d = 0; d < nd; ++d) rev = rev.slice(d, std::nullopt, std::nullopt, -1);
  r.push_back(rev);
  return r;
}

void check_close(const NDArray& got, const NDArray& expected) {
  REQUIRE(dtype_name(got.dtype()) == dtype_name(expected.dtype()));
  REQUIRE(got.shape() == expected.shape());
  if (is_float(expected.dtype())) {
    const double rtol = expected.dtype() == DType::Float32 ? 1e-5 : 1e-12;
    CHECK_MESSAGE(allclose(got, expected, rtol, 1e-6), got.str() << "\nvs\n" << expected.str());
  } else {
    CHECK_MESSAGE(array_equal(got, expected), got.str() << "\nvs\n" << expected.str());
  }
}

}  // namespace

TEST_CASE("dot matches NumPy for every vector/matrix combination, dtype and layout") {
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"vv", "v5a", "v5b"}, {"mv", "A", "v5a"}, {"vm", "v3", "A"}, {"mm", "A", "B"}};
  for (const std::string dt : {"float64", "float32", "int32"})
    for (const auto& [res, an, bn] : cases) {
      CAPTURE(dt);
      CAPTURE(res);
      const NDArray a = load(an + "_" + dt), b = load(bn + "_" + dt), expected = load(res + "_" + dt);
      const Var x = var_of(a, "x"), y = var_of(b, "y");
      const Var d = dot(x, y);
      CHECK(tensor_type(d)->ndim() == expected.ndim());
      for (const NDArray& la : layouts(a))
        for (const NDArray& lb : layouts(b)) check_close(d.eval({{x, la}, {y, lb}}), expected);
      // With static shapes the output type knows its shape.
      Var xs = tensor::tensor(a.dtype(), StaticShape(a.shape().begin(), a.shape().end()), "xs");
      Var ys = tensor::tensor(b.dtype(), StaticShape(b.shape().begin(), b.shape().end()), "ys");
      const Var ds = dot(xs, ys);
      CHECK(tensor_type(ds)->shape() == StaticShape(expected.shape().begin(), expected.shape().end()));
      check_close(ds.eval({{xs, a}, {ys, b}}), expected);
    }
}

TEST_CASE("dot promotes dtypes, multiplies scalars and contracts higher ranks") {
  const NDArray a = load("A_float32"), b = load("B_float64");
  const Var x = fmatrix("x"), y = dmatrix("y");
  const Var d = dot(x, y);
  CHECK(tensor_type(d)->dtype() == DType::Float64);
  // float32 x float64: the float32 operand is widened first.
  const Var p = dmatrix("p"), q = dmatrix("q");
  CHECK(allclose(d.eval({{x, a}, {y, b}}), dot(p, q).eval({{p, a.astype(DType::Float64)}, {q, b}}), 1e-12));
  // Scalars multiply elementwise.
  const Var s = dscalar("s");
  CHECK(dot(s, y).owner()->op()->type_name() == "Elemwise");
  CHECK(allclose(dot(s, y).eval({{s, NDArray::scalar(2.0)}, {y, b}}), dot(2.0, y).eval({{y, b}})));
  // numpy.dot of a 3-d tensor and a matrix.
  const NDArray t = load("x234"), m = load("x45");
  const Var tv = dtensor3("t"), mv = dmatrix("m");
  check_close(dot(tv, mv).eval({{tv, t}, {mv, m}}), load("dot_nd"));
  // float16 goes through float32.
  const Var h = tensor::tensor(DType::Float16, {std::nullopt}, "h");
  const NDArray hv = NDArray::from_list<double>({1, 2, 3}).astype(DType::Float16);
  const NDArray hd = dot(h, h).eval({{h, hv}});
  CHECK(hd.dtype() == DType::Float16);
  CHECK(hd.item<double>() == 14.0);
}

TEST_CASE("dot of empty operands") {
  const Var x = dmatrix("x"), y = dmatrix("y");
  const NDArray r = dot(x, y).eval({{x, NDArray::ones({3, 0})}, {y, NDArray::ones({0, 4})}});
  CHECK(array_equal(r, NDArray::zeros({3, 4})));
  CHECK(dot(x, y).eval({{x, NDArray::ones({0, 5})}, {y, NDArray::ones({5, 4})}}).shape() ==
        std::vector<int64_t>{0, 4});
  const Var v = dvector("v");
  CHECK(dot(v, v).eval({{v, NDArray::ones({0})}}).item<double>() == 0.0);
}

TEST_CASE("Dot22 calls OpenBLAS, also for transposed operands") {
  for (const std::string dt : {"float64", "float32"}) {
    const NDArray a = load("A_" + dt), b = load("B_" + dt);
    const Var x = var_of(a, "x"), y = var_of(b, "y");
    const Var d = dot22(x, y);
    CHECK(d.owner()->op()->name() == "Dot22");
    const ApplyPtr node = d.owner();
    for (const NDArray& la : layouts(a)) {
      std::vector<NDArray> out(1);
      const std::vector<NDArray> in{la, b};
      node->op()->perform(*node, in, out);
      CHECK(blas_detail::last_call_used_blas());
      check_close(out[0], load("mm_" + dt));
    }
  }
  // Integer Dot uses the exact loop instead.
  const Var i = imatrix("i");
  const ApplyPtr n = dot(i, i).owner();
  std::vector<NDArray> out(1);
  const std::vector<NDArray> in{NDArray::ones({2, 2}, DType::Int32), NDArray::ones({2, 2}, DType::Int32)};
  n->op()->perform(*n, in, out);
  CHECK_FALSE(blas_detail::last_call_used_blas());
  CHECK(array_equal(out[0], NDArray::full({2, 2}, 2, DType::Int32)));
}

TEST_CASE("Gemm, Gemv and Ger match their formulas") {
  for (const std::string dt : {"float64", "float32"}) {
    CAPTURE(dt);
    const DType d = dtype_from_name(dt);
    const NDArray z = load("Z_" + dt), a = load("A_" + dt), b = load("B_" + dt), v3 = load("v3_" + dt),
                  v5 = load("v5a_" + dt);
    const Var zv = var_of(z, "z"), av = var_of(a, "a"), bv = var_of(b, "b"), v3v = var_of(v3, "v3"),
              v5v = var_of(v5, "v5");
    const Var alpha = tensor::tensor(d, {}, "alpha"), beta = tensor::tensor(d, {}, "beta");
    const NDArray al = NDArray::full({}, 0.75, d), be = NDArray::full({}, -1.25, d);
    for (const NDArray& la : layouts(a)) {
      check_close(gemm(zv, alpha, av, bv, beta).eval({{zv, z}, {alpha, al}, {av, la}, {bv, b}, {beta, be}}),
                  load("gemm_" + dt));
      check_close(gemv(v3v, alpha, av, v5v, beta).eval({{v3v, v3}, {alpha, al}, {av, la}, {v5v, v5}, {beta, be}}),
                  load("gemv_" + dt));
    }
    for (const NDArray& lz : layouts(a))
      check_close(ger(av, alpha, v3v, v5v).eval({{av, lz}, {alpha, al}, {v3v, v3}, {v5v, v5}}), load("ger_" + dt));
    // The non-inplace forms left their first input alone.
    CHECK(array_equal(z, load("Z_" + dt)));
    CHECK(array_equal(a, load("A_" + dt)));
  }
}

TEST_CASE("inplace Gemm/Gemv and destructive Ger overwrite their first input") {
  const NDArray z0 = load("Z_float64"), a = load("A_float64"), b = load("B_float64"), v3 = load("v3_float64"),
                v5 = load("v5a_float64");
  const NDArray al = NDArray::scalar(0.75), be = NDArray::scalar(-1.25);
  const Var z = dmatrix("z"), x = dmatrix("x"), y = dmatrix("y"), s = dscalar("s"), t = dscalar("t");
  const OpPtr g(new Gemm(true));
  CHECK(g->name() == "Gemm{inplace}");
  CHECK(Gemm(false).name() == "Gemm{no_inplace}");
  CHECK(g->destroy_map() == ViewMap{{0, {0}}});
  CHECK(Gemm(false).destroy_map().empty());
  const ApplyPtr node = g->make_node({z, s, x, y, t});
  // Z as a Fortran-ordered buffer: BLAS writes it through a temporary.
  for (NDArray zz : {z0.copy(), z0.transpose().copy().transpose()}) {
    std::vector<NDArray> out(1);
    const std::vector<NDArray> in{zz, al, a, b, be};
    g->perform(*node, in, out);
    CHECK(out[0].shares_buffer(zz));
    check_close(zz.copy(), load("gemm_float64"));
  }
  // X aliasing Z: the op copies X before writing Z.
  {
    NDArray sq = NDArray::arange(0, 9).reshape({3, 3});
    const NDArray expect = [&] {
      const Var p = dmatrix("p");
      return gemm(p, 1.0, p, p, 1.0).eval({{p, sq}});
    }();
    const ApplyPtr n2 = g->make_node({z, s, z, y, t});
    std::vector<NDArray> out(1);
    const std::vector<NDArray> in{sq, NDArray::scalar(1.0), sq, sq.copy(), NDArray::scalar(1.0)};
    g->perform(*n2, in, out);
    check_close(sq, expect);
  }
  const OpPtr gv(new Gemv(true));
  CHECK(gv->name() == "Gemv{inplace}");
  const Var yv = dvector("yv"), xv = dvector("xv");
  std::vector<NDArray> out(1);
  // y in place (the vector rule: a positive increment), strided, or reversed
  // (BLAS writes it through a temporary): y's own buffer holds the result.
  for (NDArray yy : layouts(v3.copy())) {
    CAPTURE(yy.strides()[0]);
    gv->perform(*gv->make_node({yv, s, x, xv, t}), std::vector<NDArray>{yy, al, a, v5, be}, out);
    CHECK(out[0].shares_buffer(yy));
    check_close(yy.copy(), load("gemv_float64"));
  }
  const OpPtr gr(new Ger(true));
  CHECK(gr->name() == "Ger{destructive}");
  CHECK(Ger(false).name() == "Ger{non-destructive}");
  NDArray aa = a.copy();
  gr->perform(*gr->make_node({x, s, yv, xv}), std::vector<NDArray>{aa, al, v3, v5}, out);
  check_close(aa, load("ger_float64"));
}

TEST_CASE("beta == 0 does not read Z (NaN stays out)") {
  const Var z = dmatrix("z"), x = dmatrix("x");
  const NDArray nan = NDArray::full({2, 2}, std::nan(""));
  const NDArray r = gemm(z, 1.0, x, x, 0.0).eval({{z, nan}, {x, NDArray::ones({2, 2})}});
  CHECK(array_equal(r, NDArray::full({2, 2}, 2.0)));
}

TEST_CASE("outer, tensordot and batched_dot match NumPy") {
  for (const std::string dt : {"float64", "float32", "int32"}) {
    const NDArray a = load("v3_" + dt), b = load("v4_" + dt);
    const Var x = var_of(a, "x"), y = var_of(b, "y");
    check_close(outer(x, y).eval({{x, a}, {y, b}}), load("outer_" + dt));
  }
  const NDArray t234 = load("x234"), t345 = load("x345"), t435 = load("x435"), m45 = load("x45");
  const Var a = dtensor3("a"), b = dtensor3("b"), m = dmatrix("m"), w = dvector("w");
  check_close(tensordot(a, b, 2).eval({{a, t234}, {b, t345}}), load("td_axes2"));
  check_close(tensordot(a, b, std::make_pair(std::vector<int>{1, 2}, std::vector<int>{1, 0})).eval({{a, t234}, {b, t435}}),
              load("td_pair"));
  check_close(tensordot(a, m, 1).eval({{a, t234}, {m, m45}}), load("td_axes1"));
  check_close(tensordot(m, w, 0).eval({{m, m45}, {w, m45.index(0, 0)}}), load("td_axes0"));
  // Static shapes take the reshape-by-constants path.
  const Var as = tensor::tensor(DType::Float64, {2, 3, 4}, "as"), bs = tensor::tensor(DType::Float64, {3, 4, 5}, "bs");
  const Var td = tensordot(as, bs, 2);
  CHECK(tensor_type(td)->shape() == StaticShape{2, 5});
  check_close(td.eval({{as, t234}, {bs, t345}}), load("td_axes2"));

  const NDArray b324 = load("b324"), b345 = load("b345"), b34 = load("b34"), b3542 = load("b3542");
  const Var p = dtensor3("p"), q = dtensor3("q"), r = dmatrix("r"), s = dmatrix("s"), u = dtensor4("u");
  check_close(batched_dot(p, q).eval({{p, b324}, {q, b345}}), load("bd_33"));
  check_close(batched_dot(r, s).eval({{r, b34}, {s, b34}}), load("bd_22"));
  check_close(batched_dot(p, r).eval({{p, b324}, {r, b34}}), load("bd_32"));
  check_close(batched_dot(r, q).eval({{r, b34}, {q, b345}}), load("bd_23"));
  check_close(batched_dot(p, u).eval({{p, b324}, {u, b3542}}), load("bd_34"));
}

TEST_CASE("shape errors name both shapes") {
  const Var x = tensor::tensor(DType::Float64, {2, 3}, "x"), y = tensor::tensor(DType::Float64, {4, 5}, "y");
  CHECK_THROWS_WITH_AS(dot(x, y), doctest::Contains("Dot: shapes (2, 3) and (4, 5) are not aligned"), ShapeError);
  CHECK_THROWS_WITH_AS(dot22(x, y), doctest::Contains("Dot22: shapes (2, 3) and (4, 5) are not aligned"), ShapeError);
  const Var v = tensor::tensor(DType::Float64, {4}, "v");
  CHECK_THROWS_WITH_AS(dot(x, v), doctest::Contains("shapes (2, 3) and (4,) are not aligned: x has 3"), ShapeError);
  // Unknown static sizes: the error comes at run time, with the values' shapes.
  const Var a = dmatrix("a"), b = dmatrix("b");
  CHECK_THROWS_WITH_AS(dot(a, b).eval({{a, NDArray::ones({2, 3})}, {b, NDArray::ones({2, 3})}}),
                       doctest::Contains("shapes (2, 3) and (2, 3) are not aligned"), ShapeError);
  const Var z = dmatrix("z");
  CHECK_THROWS_WITH_AS(
      gemm(z, 1.0, a, b, 1.0).eval({{z, NDArray::ones({2, 2})}, {a, NDArray::ones({2, 3})}, {b, NDArray::ones({3, 4})}}),
      doctest::Contains("Z has shape (2, 2) but dot(X, Y) of shapes (2, 3) and (3, 4) has shape (2, 4)"), ShapeError);
  CHECK_THROWS_WITH_AS(tensordot(x, y, 1), doctest::Contains("tensordot: shape mismatch for summed axes"), ShapeError);
  CHECK_THROWS_WITH_AS(batched_dot(tensor::tensor(DType::Float64, {3, 2, 4}), tensor::tensor(DType::Float64, {2, 4, 5})),
                       doctest::Contains("batched_dot: batch sizes differ"), ShapeError);
}

TEST_CASE("type errors name the op and the variable") {
  CHECK_THROWS_WITH_AS(OpPtr(new Dot())->make_node({dtensor3("t"), dmatrix("m")}),
                       doctest::Contains("Dot: expected vectors or matrices, got t"), TypeError);
  CHECK_THROWS_WITH_AS(dot22(imatrix("i"), imatrix("j")), doctest::Contains("Dot22: x must be float32 or float64, got i"),
                       TypeError);
  CHECK_THROWS_WITH_AS(dot22(fmatrix("f"), dmatrix("d")),
                       doctest::Contains("Dot22: y must have dtype float32 like the other operands, got d"), TypeError);
  CHECK_THROWS_WITH_AS(gemm(dmatrix("z"), dvector("al"), dmatrix(), dmatrix(), 1.0),
                       doctest::Contains("Gemm{no_inplace}: alpha must be a real 0-d tensor, got al"), TypeError);
  CHECK_THROWS_WITH_AS(gemv(dvector("y"), 1.0, dvector("A"), dvector(), 1.0),
                       doctest::Contains("Gemv{no_inplace}: A must be a 2-d tensor, got A"), TypeError);
  CHECK_THROWS_WITH_AS(tensordot(dmatrix("m"), dmatrix(), 3), doctest::Contains("tensordot: axes=3"), ValueError);
  CHECK_THROWS_WITH_AS(tensordot(dmatrix("m"), dmatrix(), std::make_pair(std::vector<int>{0, 0}, std::vector<int>{0, 1})),
                       doctest::Contains("tensordot: axis 0 of the first operand m is repeated"), ValueError);
  CHECK_THROWS_WITH_AS(batched_dot(dvector("v"), dmatrix()), doctest::Contains("batched_dot"), TypeError);
}

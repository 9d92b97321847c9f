// The BLAS rewrites (dot22, gemm / gemv / ger) and the inplace stages:
// graphs before/after, numeric agreement with the unoptimized reference, and
// the safety rules of the inplace pass (protected inputs, outputs, later
// readers, updated shared variables).
#include <cmath>

#include <doctest/doctest.h>

#include "rewrite_test_util.h"
#include "test_util.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {

/// The optimized graph of `outs` under fast_run with the inplace stages
/// (they need function()'s MutableInputs, so go through function()).
Function compiled(const std::vector<In>& ins, const std::vector<Out>& outs, const FunctionOptions& o = {}) {
  FunctionOptions opt = o;
  opt.optimizer_excluding.push_back("fusion");
  return function(ins, outs, opt);
}

int count_ops(const FunctionGraph& fg, std::string_view name) {
  int n = 0;
  for (Apply* node : fg.apply_nodes()) n += node->op()->name() == name ? 1 : 0;
  return n;
}

std::string ops_of(const FunctionGraph& fg) {
  std::string s;
  for (Apply* node : fg.toposort()) s += node->op()->name() + " ";
  return s;
}

NDArray mat(std::int64_t r, std::int64_t c, int salt) {
  NDArray a = NDArray::empty({r, c}, DType::Float64);
  for (std::int64_t i = 0; i < a.size(); ++i)
    a.data_as<double>()[i] = 0.1 * static_cast<double>((i * 7 + salt) % 11) - 0.5;
  return a;
}


}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("local_dot_to_dot22: dot of two float matrices -> dot22") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y");
    check_rewrite({x, y}, {T::exp(T::dot(x, y))}, {T::exp(T::dot22(x, y))});
    // Not for vectors or integer matrices.
    Var v = T::dvector("v");
    check_rewrite({x, v}, {T::exp(T::dot(x, v))}, {T::exp(T::dot(x, v))}, "fast_run");
  }

  TEST_CASE("local_gemm: b*z + a*dot(x, y) -> gemm(z, a, x, y, b), and the sub / neg forms") {
    Var x = T::dmatrix("x"), y = T::dmatrix("y"), z = T::dmatrix("z"), a = T::dscalar("a"), b = T::dscalar("b");
    auto one = [] { return T::constant(NDArray::full({}, 1.0, DType::Float64)); };
    auto k = [](double v) { return T::constant(NDArray::full({}, v, DType::Float64)); };
    check_rewrite({x, y, z}, {z + T::dot(x, y)}, {T::gemm(z, one(), x, y, one())});
    check_rewrite({x, y, z, a, b}, {b * z + a * T::dot(x, y)}, {T::gemm(z, a, x, y, b)});
    check_rewrite({x, y, z, a}, {z - a * T::dot(x, y)}, {T::gemm(z, T::neg(a), x, y, one())});
    check_rewrite({x, y, z}, {0.25 * z + 0.5 * T::dot(x, y)}, {T::gemm(z, k(0.5), x, y, k(0.25))});
    // Three terms: the product folds into the matching one, the rest stays.
    Var w = T::dmatrix("w");
    check_rewrite({x, y, z, w}, {z + T::dot(x, y) + w}, {T::gemm(z, one(), x, y, one()) + w});
    // A product used twice is not folded (it would be computed twice).
    Var d = T::dot(x, y);
    check_rewrite({x, y, z}, {z + d, T::exp(d)}, {z + T::dot22(x, y), T::exp(T::dot22(x, y))});
    // Broadcasting z (a row) cannot be Gemm's accumulator.
    Var row = T::tensor(DType::Float64, {1, std::nullopt}, "row");
    check_rewrite({x, y, row}, {row + T::dot(x, y)}, {row + T::dot22(x, y)});
  }

  TEST_CASE("local_gemm: gemv for matrix-vector products, ger for outer products") {
    Var A = T::dmatrix("A"), x = T::dvector("x"), y = T::dvector("y"), a = T::dscalar("a");
    auto one = [] { return T::constant(NDArray::full({}, 1.0, DType::Float64)); };
    check_rewrite({A, x, y, a}, {y + a * T::dot(A, x)}, {T::gemv(y, a, A, x, one())});
    check_rewrite({A, x, y, a}, {y + a * T::dot(x, A)}, {T::gemv(y, a, T::dimshuffle(A, {1, 0}), x, one())});
    check_rewrite({A, x, y, a}, {A + a * T::outer(x, y)}, {T::ger(A, a, x, y)});
  }

  TEST_CASE("inplace: an update W <- W - lr*dot(a, b) becomes one in-place Gemm on W's storage") {
    const NDArray w0 = mat(4, 3, 1);
    Var W = shared(w0, "W");
    Var a = T::dmatrix("a"), b = T::dmatrix("b");
    FunctionOptions o;
    o.updates = {{W, W - 0.1 * T::dot(a, b)}};
    Function f = compiled({a, b}, {}, o);
    CAPTURE(ops_of(f.fgraph()));
    CHECK(count_ops(f.fgraph(), "Gemm{inplace}") == 1);
    CHECK(count_ops(f.fgraph(), "Dot22") == 0);
    const NDArray av = mat(4, 5, 2), bv = mat(5, 3, 3);
    const NDArray before = get_value(W);
    f({av, bv});
    FunctionOptions raw;
    raw.mode = "unoptimized";
    Var a2 = T::dmatrix("a2"), b2 = T::dmatrix("b2"), w2 = T::dmatrix("w2");
    const NDArray want = function({w2, a2, b2}, {w2 - 0.1 * T::dot(a2, b2)}, raw)({before, av, bv})[0];
    CHECK(close_enough(get_value(W), want));
  }

  TEST_CASE("inplace: protected inputs, returned values and later readers are never overwritten") {
    Var x = T::dvector("x"), y = T::dvector("y");
    {
      // x is a protected input: exp(x) gets a fresh buffer; exp(x)+y may overwrite exp's output.
      Function f = compiled({x, y}, {T::exp(x) + y});
      CAPTURE(ops_of(f.fgraph()));
      CHECK(count_ops(f.fgraph(), "Elemwise{exp,no_inplace}") == 1);
      CHECK(count_ops(f.fgraph(), "Elemwise{add,inplace}") == 1);
      const NDArray xv = vec({0.5, 1.5}), yv = vec({1, 2});
      f({xv, yv});
      CHECK(close_enough(xv, vec({0.5, 1.5})));  // untouched
      CHECK(close_enough(yv, vec({1, 2})));
    }
    {
      // e = exp(x) is returned and also read by e + y: e + y must not overwrite e.
      Var e = T::exp(x);
      Function f = compiled({x, y}, {e, e + y});
      CAPTURE(ops_of(f.fgraph()));
      const auto r = f({vec({0, 1}), vec({1, 1})});
      CHECK(close_enough(r[0], vec({1, std::exp(1.0)})));
      CHECK(close_enough(r[1], vec({2, std::exp(1.0) + 1})));
    }
    {
      // e is read by a later node (after the candidate): log(e) + e, exp(e) ...
      Var e = T::exp(x);
      Var s = T::sin(e);
      Var out = s * e + T::cos(e);
      Function f = compiled({x}, {out});
      const NDArray xv = vec({0.1, 0.2, 0.3});
      FunctionOptions raw;
      raw.mode = "unoptimized";
      CHECK(close_enough(f({xv})[0], function({x}, {out}, raw)({xv})[0]));
    }
    {
      // Broadcasting: a row cannot be overwritten by a matrix-shaped result.
      Var m = T::dmatrix("m");
      Var row = T::tensor(DType::Float64, {1, std::nullopt}, "row");
      Function f = compiled({m, row}, {T::exp(row) + m});
      CAPTURE(ops_of(f.fgraph()));
      CHECK(count_ops(f.fgraph(), "Elemwise{add,no_inplace}") == 1);
    }
  }

  TEST_CASE("inplace: In(mutable=True) lets the function overwrite the caller's array") {
    Var x = T::dvector("x");
    In in(x);
    in.mutable_ = true;
    Function f = compiled({in}, {T::exp(x)});
    CAPTURE(ops_of(f.fgraph()));
    CHECK(count_ops(f.fgraph(), "Elemwise{exp,inplace}") == 1);
    const NDArray xv = vec({0, 1});
    const NDArray r = f({xv})[0];
    CHECK(close_enough(r, vec({1, std::exp(1.0)})));
  }

  TEST_CASE("inplace: set_subtensor on an intermediate becomes inplace, on a protected input it does not") {
    Var x = T::dvector("x"), y = T::dscalar("y");
    Var e = T::exp(x);
    Var s = T::set_subtensor(e[T::slice(0, 1)], y);
    Function f = compiled({x, y}, {s});
    CAPTURE(ops_of(f.fgraph()));
    bool inplace = false;
    for (Apply* n : f.fgraph().apply_nodes())
      if (const auto* op = dynamic_cast<const T::IncSubtensor*>(n->op().get())) inplace = op->inplace();
    CHECK(inplace);
    CHECK(close_enough(f({vec({0, 1}), NDArray::scalar<double>(5)})[0], vec({5, std::exp(1.0)})));
    Function g = compiled({x, y}, {T::set_subtensor(x[T::slice(0, 1)], y)});
    for (Apply* n : g.fgraph().apply_nodes())
      if (const auto* op = dynamic_cast<const T::IncSubtensor*>(n->op().get())) CHECK_FALSE(op->inplace());
    const NDArray xv = vec({0, 1});
    CHECK(close_enough(g({xv, NDArray::scalar<double>(5)})[0], vec({5, 1})));
    CHECK(close_enough(xv, vec({0, 1})));
  }

  TEST_CASE("inplace stages are tagged inplace: o3 and unsafe leave them out") {
    Var x = T::dvector("x"), y = T::dvector("y");
    FunctionOptions o;
    o.mode = "o3";
    Function f = compiled({x, y}, {T::exp(x) + y}, o);
    CHECK(count_ops(f.fgraph(), "Elemwise{add,no_inplace}") == 1);
    CHECK(f.fgraph().find_feature<DestroyHandler>() == nullptr);
    const std::string summary = rewrite::print_summary("fast_run");
    CHECK(summary.find("inplace_elemwise") != std::string::npos);
    CHECK(summary.find("blas_opt") != std::string::npos);
    CHECK(rewrite::print_summary("o3").find("inplace_elemwise") == std::string::npos);
  }
}

TEST_SUITE("rewrite_tests") {
  TEST_CASE("inplace_random: a stream's state advances in place, draws unchanged") {
    auto draws = [](const std::string& mode, bool& inplace) {
      T::RandomStream rs(7);
      Var u = rs.uniform({4});
      Var n = rs.normal({2, 2});
      FunctionOptions o;
      o.mode = mode;
      Function f = function({}, {u, n}, o);
      inplace = false;
      for (Apply* node : f.fgraph().apply_nodes())
        if (const auto* op = dynamic_cast<const T::RandomFunction*>(node->op().get())) inplace = inplace || op->inplace();
      std::vector<NDArray> all;
      for (int k = 0; k < 3; ++k)
        for (const NDArray& a : f({})) all.push_back(a);
      return all;
    };
    bool in_fast = false, in_o3 = true;
    const auto fast = draws("fast_run", in_fast);
    const auto o3 = draws("o3", in_o3);
    CHECK(in_fast);
    CHECK_FALSE(in_o3);
    REQUIRE(fast.size() == o3.size());
    for (std::size_t k = 0; k < fast.size(); ++k) CHECK(array_equal(fast[k], o3[k]));
    CHECK_FALSE(array_equal(fast[0], fast[2]));  // the stream advanced between calls
  }
}

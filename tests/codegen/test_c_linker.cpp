// CLinker (linker "cpp"): generated whole-graph C++ against the PerformLinker.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/codegen/code_writer.h>
#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using theano::codegen::CLinker;

namespace {

/// Random values in [lo, hi) (integers: rounded) of `shape` and `dtype`.
NDArray random_array(std::mt19937_64& rng, std::vector<std::int64_t> shape, DType dtype, double lo, double hi) {
  NDArray a = NDArray::empty(shape, DType::Float64);
  std::uniform_real_distribution<double> u(lo, hi);
  double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < a.size(); ++k) p[k] = is_float(dtype) ? u(rng) : static_cast<double>(static_cast<std::int64_t>(u(rng)));
  return a.astype(dtype);
}

std::shared_ptr<FunctionGraph> graph(std::vector<Var> ins, std::vector<Var> outs) {
  return std::make_shared<FunctionGraph>(std::move(ins), std::move(outs));
}

/// Runs `fg` with the PerformLinker and the cpp linker on `values`; checks they agree.
void compare(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp, const std::vector<NDArray>& values,
             const std::vector<std::string>& labels = {}) {
  auto ref = make_perform_linker()->make_thunk(fg);
  std::vector<NDArray> want(fg->outputs().size()), got(fg->outputs().size());
  ref->run(values, want);
  cpp.run(values, got);
  for (std::size_t o = 0; o < want.size(); ++o) {
    CAPTURE(o);
    if (o < labels.size()) CAPTURE(labels[o]);
    INFO("want " << want[o] << "\ngot  " << got[o]);
    REQUIRE(got[o].defined());
    CHECK(got[o].dtype() == want[o].dtype());
    CHECK(got[o].shape() == want[o].shape());
    if (is_float(want[o].dtype())) {
      const double rtol = want[o].dtype() == DType::Float32 ? 1e-6 : 1e-10;
      CHECK(allclose(got[o], want[o], rtol, 1e-12, true));
    } else {
      CHECK(array_equal(got[o], want[o]));
    }
  }
}

codegen::CompileOptions quick() {
  codegen::CompileOptions o;
  o.opt = codegen::OptLevel::O1;
  return o;
}

}  // namespace

TEST_SUITE("c_linker") {
  TEST_CASE("CodeWriter indents blocks and assembles node fragments") {
    codegen::CodeWriter w;
    w.open("int f()", "f").line("return 0;").close();
    CHECK(w.str() == "int f() {\n  return 0;\n}  // f\n");
    std::vector<codegen::NodeCode> nodes(2);
    nodes[0].name = "a";
    nodes[0].init.line("int a;");
    nodes[0].compute.line("a = 1;");
    nodes[0].cleanup.line("(void)a;");
    nodes[1].name = "b";
    nodes[1].compute.line("b();");
    nodes[1].cleanup.line("end_b();");
    codegen::CodeWriter out;
    out.open("void g()");
    codegen::assemble(out, nodes);
    out.close();
    CHECK(out.str() ==
          "void g() {\n  // init: a\n  int a;\n  // compute: a\n  a = 1;\n  // compute: b\n  b();\n"
          "  // cleanup: b\n  end_b();\n  // cleanup: a\n  (void)a;\n}\n");
  }

  TEST_CASE("every scalar-table op: generated code matches perform") {
    std::mt19937_64 rng(42);
    for (DType dt : {DType::Float64, DType::Float32, DType::Int32}) {
      CAPTURE(dtype_name(dt));
      // x: matrix, y: row (broadcasts over rows), z: matrix.
      Var x = tensor::tensor(dt, {std::nullopt, std::nullopt}, "x");
      Var y = tensor::tensor(dt, {1, std::nullopt}, "y");
      Var z = tensor::tensor(dt, {std::nullopt, std::nullopt}, "z");
      std::vector<Var> outs;
      std::vector<std::string> labels;
      for (const ScalarOpInfo& info : scalar_op_table()) {
        if (info.c_expr.empty()) continue;
        const int arity = info.arity < 0 ? 3 : info.arity;
        std::vector<Var> args = arity == 1 ? std::vector<Var>{x} : arity == 2 ? std::vector<Var>{x, y} : std::vector<Var>{x, y, z};
        try {
          outs.push_back(elemwise(info.name, args));
          labels.push_back(info.name);
        } catch (const TypeError&) {  // e.g. bitwise ops on floats
        }
      }
      REQUIRE(outs.size() > 20);
      auto fg = graph({x, y, z}, outs);
      auto cpp = CLinker(quick()).make_thunk(fg);
      const bool fl = is_float(dt);
      for (std::vector<std::int64_t> shape : std::vector<std::vector<std::int64_t>>{{3, 4}, {1, 1}, {5, 1}, {0, 3}, {7, 33}}) {
        CAPTURE(shape[0]);
        CAPTURE(shape[1]);
        NDArray xv = random_array(rng, shape, dt, fl ? 0.05 : -6, fl ? 0.95 : 6);
        NDArray yv = random_array(rng, {1, shape[1]}, dt, fl ? 0.05 : 1, fl ? 0.95 : 4);  // int: positive exponents for pow
        NDArray zv = random_array(rng, shape, dt, fl ? 0.5 : 0, fl ? 0.9 : 5);
        compare(fg, *cpp, {xv, yv, zv}, labels);
        // Non-contiguous x (a transposed copy) and z (a sliced view).
        NDArray xt = random_array(rng, {shape[1], shape[0]}, dt, fl ? 0.05 : -6, fl ? 0.95 : 6).transpose();
        NDArray zbig = random_array(rng, {shape[0], shape[1] * 2}, dt, fl ? 0.5 : 0, fl ? 0.9 : 5);
        NDArray zs = zbig.slice(1, 0, shape[1] * 2, 2);
        if (shape[0] > 1 && shape[1] > 1) REQUIRE_FALSE(xt.is_c_contiguous());
        compare(fg, *cpp, {xt, yv, zs}, labels);
      }
    }
  }

  TEST_CASE("exp (libmvec's vector exp in loops) is within 4 ulp of libm, subnormal results, overflow and NaN included") {
    std::vector<double> xs{0.0, -0.0, 1e-300, -1e-300, 1e-17, 0.5, -0.5, 0.34657359, -0.34657359, 1.0, 88.7,
                           -87.3, 700.0, 709.78, 709.782712893384, 709.79, 710.0, 1000.0, -700.0, -708.39, -708.4,
                           -720.0, -740.0, -744.44, -745.0, -745.13, -745.2, -746.0, -1e300, 1e300};
    for (double x = -750; x <= 712; x += 0.3712) xs.push_back(x);
    for (double x = -2; x <= 2; x += 0.001013) xs.push_back(x);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    xs.insert(xs.end(), {nan, inf, -inf});
    Var x = dvector("x");
    auto fg = graph({x}, {exp(x)});
    auto cpp = CLinker().make_thunk(fg);
    const NDArray in = NDArray::from_vector(xs, {static_cast<std::int64_t>(xs.size())});
    std::vector<NDArray> got(1);
    cpp->run(std::vector<NDArray>{in}, got);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double g = got[0].data_as<double>()[i];
      const double w = std::exp(xs[i]);
      CAPTURE(xs[i]);
      if (std::isnan(w)) {
        CHECK(std::isnan(g));
      } else if (w == 0 || std::isinf(w)) {
        CHECK(g == w);
      } else {
        // ulp of w (subnormals: one unit of the smallest subnormal). glibc's
        // vector exp (_ZGVdN4v_exp) is not correctly rounded: up to ~2 ulp seen.
        const double ulp = std::max(std::nextafter(w, inf) - w, std::numeric_limits<double>::denorm_min());
        CAPTURE(g);
        CAPTURE(w);
        CHECK(std::abs(g - w) <= 4 * ulp);
      }
    }
  }

  TEST_CASE("softsign: generated code and perform agree, also at extreme inputs") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    // x -> x / (1 + |x|): exact where representable; +-1 at +-1e300 and +-inf (not inf / inf = NaN).
    const std::vector<std::pair<double, double>> cases{{0.0, 0.0},  {1.0, 0.5},    {-3.0, -0.75}, {0.25, 0.2},
                                                       {1e300, 1.0}, {-1e300, -1.0}, {inf, 1.0},    {-inf, -1.0},
                                                       {1e-300, 1e-300}, {nan, nan}};
    for (const DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      Var x = dt == DType::Float64 ? dvector("x") : fvector("x");
      auto fg = graph({x}, {softsign(x)});
      std::vector<double> xs;
      for (const auto& c : cases) xs.push_back(c.first);
      const NDArray in = NDArray::from_vector(xs, {static_cast<std::int64_t>(xs.size())}).astype(dt);
      for (const bool generated : {true, false}) {
        CAPTURE(generated);
        auto thunk = generated ? CLinker().make_thunk(fg) : make_perform_linker()->make_thunk(fg);
        std::vector<NDArray> got(1);
        thunk->run(std::vector<NDArray>{in}, got);
        REQUIRE(got[0].dtype() == dt);
        const NDArray g = got[0].astype(DType::Float64);
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const double want = dt == DType::Float32 ? static_cast<double>(static_cast<float>(cases[i].second)) : cases[i].second;
          CAPTURE(cases[i].first);
          if (std::isnan(want)) CHECK(std::isnan(g.data_as<double>()[i]));
          else CHECK(g.data_as<double>()[i] == want);
        }
      }
    }
  }

  TEST_CASE("tanh, sigmoid and softplus (written with exp/log for vectorization) match libm closely") {
    std::vector<double> xs{0.0, -0.0, 1e-300, -1e-300, 1e-12, -1e-12, 0.3, 0.6249, 0.6251, -0.7, 1.0, 3.0, 19.0,
                           -19.0, 40.0, -40.0, 300.0, -300.0, 800.0, -800.0, 1e300, -1e300};
    for (double x = -25; x <= 25; x += 0.0137) xs.push_back(x);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    xs.insert(xs.end(), {nan, inf, -inf});
    Var x = dvector("x");
    auto fg = graph({x}, {tanh(x), sigmoid(x), softplus(x)});
    auto cpp = CLinker().make_thunk(fg);
    auto ref = make_perform_linker()->make_thunk(fg);
    const NDArray in = NDArray::from_vector(xs, {static_cast<std::int64_t>(xs.size())});
    std::vector<NDArray> got(3), want(3);
    cpp->run(std::vector<NDArray>{in}, got);
    ref->run(std::vector<NDArray>{in}, want);
    for (int o = 0; o < 3; ++o) {
      CAPTURE(o);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        const double g = got[static_cast<std::size_t>(o)].data_as<double>()[i];
        const double w = want[static_cast<std::size_t>(o)].data_as<double>()[i];
        CAPTURE(xs[i]);
        if (std::isnan(w)) {
          CHECK(std::isnan(g));
        } else {
          CHECK((g == w || std::abs(g - w) <= 1e-15 * std::abs(w) + 1e-300));  // about 4 ulp
        }
      }
    }
  }

  TEST_CASE("a Composite and a DimShuffle + Elemwise chain") {
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    Var inner = scalar_op("add")->apply1({scalar_op("mul")->apply1({a, st->make_constant(NDArray::scalar(2.0))}),
                                          scalar_op("tanh")->apply1({b})});
    ScalarOpPtr comp(new Composite({a, b}, inner));
    Var x = dmatrix("x"), v = dvector("v");
    Var e = elemwise(comp, {x, v});                     // v is padded on the left (a DimShuffle)
    Var chain = exp(transpose(e)) * dimshuffle(v, {0, kNewAxis}) + constant(NDArray::scalar(1.5));
    auto fg = graph({x, v}, {e, chain, transpose(x)});
    auto cpp = CLinker(quick()).make_thunk(fg);
    std::mt19937_64 rng(7);
    compare(fg, *cpp, {random_array(rng, {4, 3}, DType::Float64, -2, 2), random_array(rng, {3}, DType::Float64, -2, 2)});
    compare(fg, *cpp, {random_array(rng, {1, 5}, DType::Float64, -2, 2), random_array(rng, {5}, DType::Float64, -2, 2)});
  }

  TEST_CASE("a multi-output Composite: every output from one loop, broadcast, strided, integer and in place") {
    auto st = ScalarType::make(DType::Float64);
    Var a = st->make_variable("a"), b = st->make_variable("b");
    Var s = scalar_op("add")->apply1({a, b});
    Var o0 = scalar_op("mul")->apply1({s, st->make_constant(NDArray::scalar(2.0))});
    Var o1 = scalar_op("tanh")->apply1({s});
    ScalarOpPtr comp(new Composite({a, b}, std::vector<Var>{o0, o1, s}));
    Var x = dmatrix("x"), r = drow("r");
    ApplyPtr node = OpPtr(new Elemwise(comp))->make_node({x, r});
    auto fg = graph({x, r}, {node->output(0), node->output(1), node->output(2)});
    auto cpp = CLinker(quick()).make_thunk(fg);
    std::mt19937_64 rng(11);
    const NDArray xv = random_array(rng, {4, 3}, DType::Float64, -2, 2), rv = random_array(rng, {1, 3}, DType::Float64, -2, 2);
    compare(fg, *cpp, {xv, rv});                                                  // r broadcast over rows
    compare(fg, *cpp, {transpose(x).eval({{x, random_array(rng, {3, 4}, DType::Float64, -2, 2)}}), rv});  // strided x
    compare(fg, *cpp, {NDArray::zeros({0, 3}), rv});                               // empty
    // Integers, output 1 written over input 0 (a copy: x is the caller's).
    auto si = ScalarType::make(DType::Int64);
    Var ia = si->make_variable("a"), ib = si->make_variable("b");
    Var is = scalar_op("add")->apply1({ia, ib});
    ScalarOpPtr icomp(new Composite({ia, ib}, std::vector<Var>{scalar_op("mul")->apply1({is, is}),
                                                              scalar_op("int_div")->apply1({is, ib})}));
    Var lx = lvector("lx"), ly = lvector("ly");
    ApplyPtr inode = OpPtr(new Elemwise(icomp, {{1, 0}}))->make_node({lx, ly});
    auto ifg = graph({lx, ly}, {inode->output(0), inode->output(1)});
    auto icpp = CLinker(quick()).make_thunk(ifg);
    const NDArray lxv = NDArray::from_list<std::int64_t>({3000000000, -7, 0, 9}),
                  lyv = NDArray::from_list<std::int64_t>({5, 2, -1, -4});
    compare(ifg, *icpp, {lxv, lyv});
    CHECK(lxv.data_as<std::int64_t>()[1] == -7);  // the caller's array is untouched
  }

  TEST_CASE("the same graph gives byte-identical source") {
    auto build = [] {
      Var x = dmatrix("x"), y = drow("y");
      Var out = sigmoid(x * y + 2.0) - transpose(x) * 0.5;
      return graph({x, y}, {out, x + 1.0});
    };
    const std::string a = CLinker::generate_source(*build()), b = CLinker::generate_source(*build());
    CHECK(a == b);
    CHECK(a.find("extern \"C\" int theano_entry(TheanoContext* ctx)") != std::string::npos);
    CHECK(a.find("#include") == std::string::npos);
    CHECK(a.rfind(std::string(CLinker::prelude()), 0) == 0);
  }

  TEST_CASE("node functions are compiled unoptimized, the loops they call are not") {
    Var x = dmatrix("x"), s = dscalar("s");
    Var t = transpose(x);           // node 0: DimShuffle (a view)
    Var u = exp(t) + 1.0;           // a loop over a matrix of unknown size
    Var v = s * 2.0;                // a 0-d value: statically tiny
    auto fg = graph({x, s}, {u, v});
    const std::string src = CLinker::generate_source(*fg, {}, false);
    // Whether the definition starting with `head` is marked THEANO_UNOPTIMIZED (npos: no such definition).
    auto unoptimized = [&](const std::string& head) -> std::optional<bool> {
      const auto at = src.find(head);
      if (at == std::string::npos) return std::nullopt;
      const auto line = src.rfind('\n', at);
      return src.substr(line + 1, at - line - 1).find("THEANO_UNOPTIMIZED") != std::string::npos;
    };
    const std::vector<Apply*> order = fg->toposort();
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::string fn = "node" + std::to_string(k);
      const bool elemwise_over_matrix = order[k]->op()->type_name() == "Elemwise" && order[k]->output(0).ndim() == 2;
      CAPTURE(order[k]->op()->name());
      // The node function only checks, allocates and calls (views, shape
      // queries, a 0-d value: all it does; a loop over a matrix: its part
      // function's, optimized).
      CHECK(unoptimized("THEANO_LINKAGE int " + fn + "(") == std::optional<bool>(true));
      std::optional<bool> part = unoptimized("static void " + fn + "_flat(");  // exp(t)
      if (!part) part = unoptimized("static void " + fn + "_rows(");          // + 1.0, broadcast
      CHECK(part == (elemwise_over_matrix ? std::optional<bool>(false) : std::nullopt));
    }
    // Still correct.
    auto cpp = CLinker(quick()).make_thunk(fg);
    std::mt19937_64 rng(5);
    compare(fg, *cpp, {random_array(rng, {3, 2}, DType::Float64, -1, 1), NDArray::scalar(1.5)});
  }

  TEST_CASE("a shape mismatch at call time is a ShapeError naming node, op and shapes") {
    Var x = dmatrix("x"), y = dmatrix("y");
    auto fg = graph({x, y}, {exp(x) + y});
    auto cpp = CLinker(quick()).make_thunk(fg);
    std::vector<NDArray> out(1);
    const std::vector<NDArray> in{NDArray::zeros({2, 3}), NDArray::zeros({4, 3})};
    CHECK_THROWS_AS(cpp->run(in, out), ShapeError);
    const std::string msg = test::error_of([&] { cpp->run(in, out); });
    CHECK(msg.find("node 1 (Elemwise{add,no_inplace})") != std::string::npos);
    CHECK(msg.find("at dimension 0, input 0 has size 2 but input 1 has size 4: only dimensions whose type says "
                   "size 1 broadcast") != std::string::npos);
    CHECK(msg.find("(2, 3), (4, 3)") != std::string::npos);
    // A declared-broadcastable dimension with another size.
    Var r = drow("r");
    auto fg2 = graph({x, r}, {x * r});
    auto cpp2 = CLinker(quick()).make_thunk(fg2);
    const std::vector<NDArray> in2{NDArray::zeros({2, 3}), NDArray::zeros({2, 3})};
    CHECK_THROWS_AS(cpp2->run(in2, out), ShapeError);
    const std::string msg2 = test::error_of([&] { cpp2->run(in2, out); });
    CHECK(msg2.find("at dimension 0, input 1 has size 2: a dimension declared broadcastable (size 1 in its type) "
                    "must have size 1") != std::string::npos);
    // Perform says the same through the same rule (theano_broadcast_rule).
    std::vector<NDArray> ref_out(1);
    const std::string ref_msg = test::error_of([&] { make_perform_linker()->make_thunk(fg2)->run(in2, ref_out); });
    CHECK(ref_msg.find("at dimension 0, input 1 (r, shape (2, 3), type (1, ?)) has size 2: a dimension declared "
                       "broadcastable (size 1 in its type) must have size 1") != std::string::npos);
    // The call still works afterwards.
    std::vector<NDArray> ok(1);
    const std::vector<NDArray> ones{NDArray::ones({2, 3}), NDArray::ones({2, 3})};
    cpp->run(ones, ok);
    CHECK(ok[0].at<double>({1, 2}) == doctest::Approx(std::exp(1.0) + 1));
  }

  TEST_CASE("ops without a lowering run their perform through the host, or are refused when asked") {
    // An op with a perform but no lowering.
    class NoCodeOp final : public Op {
     public:
      std::string_view type_name() const override { return "NoCodeOp"; }
      ApplyPtr make_node(std::vector<Var> inputs) const override {
        Var out = inputs.at(0).type()->make_variable();
        return Apply::create(OpPtr(this), std::move(inputs), {out});
      }
      bool has_perform() const override { return true; }
      void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
        THEANO_USER_CHECK(in[0].size() > 0, IndexError) << "NoCodeOp: empty input";
        out[0] = in[0].copy();
        out[0].data_as<double>()[0] += 100;
      }
    };
    Var x = dmatrix("x");
    Var y = OpPtr(new NoCodeOp())->make_node({exp(x)})->output(0);
    auto fg = graph({x}, {y * 2.0, exp(y)});
    // Default: the generated code calls back into perform between lowered nodes.
    auto thunk = CLinker(quick()).make_thunk(fg);
    compare(fg, *thunk, {test::vec({1.0, 2.0, 3.0, 4.0}).reshape({2, 2})});
    const std::string src = CLinker::generate_source(*fg);
    CHECK(src.find("ctx->perform(ctx->host, 0") != std::string::npos);
    // Exceptions from the fallback keep their type.
    std::vector<NDArray> out(2);
    const std::vector<NDArray> empty{NDArray::zeros({0, 3})};
    CHECK_THROWS_AS(thunk->run(empty, out), IndexError);
    // Refused when fallbacks are not allowed.
    CHECK_THROWS_AS(CLinker(quick()).allow_perform_fallback(false).make_thunk(fg), MethodNotDefined);
    const std::string msg =
        test::error_of([&] { CLinker(quick()).allow_perform_fallback(false).make_thunk(fg); });
    CHECK(msg.find("the cpp linker cannot compile op NoCodeOp") != std::string::npos);
    CHECK(msg.find("use linker=py") != std::string::npos);
  }

  TEST_CASE("registered as linker cpp and c, THEANO_FLAGS linker=cpp selects it") {
    codegen::register_linkers();
    const auto names = registered_linkers();
    CHECK(std::find(names.begin(), names.end(), "cpp") != names.end());
    CHECK(std::find(names.begin(), names.end(), "c") != names.end());
    Config c = config();
    c.flags["linker"] = "cpp";
    ConfigGuard guard(c);
    Var x = dvector("x");
    Function f = function({x}, {x * 2.0 + 1.0});
    CHECK(f.mode().linker == "cpp");
    CHECK(array_equal(f({test::vec({1, 2})})[0], test::vec({3, 5})));
  }
}

// Function records, the warm start (issue 18): function() keys the request
// (the user's graph before rewriting, with mode, tags, flags and options) and
// finds the thunk an equal request built before, in this process or another,
// without rewriting, generating source or compiling. The key must tell apart
// requests that differ only in a constant, a dtype, a broadcast pattern, a
// name or an option; a damaged record is ignored, never trusted.
#include <doctest/doctest.h>

#include <theano/codegen/compiledir.h>
#include <theano/config.h>
#include <theano/printing.h>
#include <theano/theano.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../../codegen/src/cache/function_record.h"
#include "compiledir_test_util.h"
#include "stderr_capture.h"
#include "temp_dir.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using theano::test::TempDir;
using theano::test::from_record;
using theano::test::with_compiledir;
namespace fs = std::filesystem;

TEST_SUITE("compile_cache") {
  TEST_CASE("an equal request finds its function record: no rewrite, codegen or compile, the same results") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    auto build = [] {
      Var x = dmatrix("x"), b = dvector("b");
      Var y = tanh(dot(x, transpose(x)) + b) * 2.0;
      return function({x, b}, {y, sum(y)});
    };
    Function f = build();
    CHECK_FALSE(from_record(f));
    CHECK(f.profile().build.cache == "miss");
    Function g = build();
    CHECK(from_record(g));
    CHECK(g.profile().build.cache == "hit");
    CHECK(g.profile().build.compile_ms == 0);
    CHECK(g.profile().build.codegen_ms == 0);
    const std::vector<NDArray> args{test::range({3, 4}), test::vec({0.5, -1, 2})};
    const std::vector<NDArray> a = f(args), b = g(args);
    CHECK(allclose(a[0], b[0]));
    CHECK(allclose(a[1], b[1]));
    // The optimized graph is built when asked: the same as the compiled one.
    CHECK(debugprint(g.fgraph()) == debugprint(f.fgraph()));
  }

  // A hit builds no FunctionGraph: the thunk checks its arguments against the
  // request's own inputs, and says what the compiled one says.
  TEST_CASE("a function from its record checks its arguments by the request's inputs, as a compiled one does") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    auto build = [] {
      Var x = dmatrix("weights"), b = dvector("bias");
      FunctionOptions opts;
      opts.trust_input = true;  // the thunk's own checks, not the call's filtering
      return function({x, b}, {x + b, sum(x)}, opts);
    };
    Function f = build();
    Function g = build();
    CHECK_FALSE(from_record(f));
    REQUIRE(from_record(g));
    const NDArray x = test::range({2, 3});
    const NDArray b = test::vec({1, 2, 3});
    const std::vector<NDArray> good{x, b};
    CHECK(allclose(g(good)[0], f(good)[0]));
    CHECK(allclose(g(good)[1], f(good)[1]));
    const std::vector<NDArray> bad{x, b.astype(DType::Float32)};
    std::string from_f, from_g;
    try {
      f(bad);
    } catch (const TypeError& e) {
      from_f = e.what();
    }
    try {
      g(bad);
    } catch (const TypeError& e) {
      from_g = e.what();
    }
    CHECK(from_g.find("input 1 (bias)") != std::string::npos);
    CHECK(from_g == from_f);
  }

  TEST_CASE("requests that differ in a constant, a dtype, a broadcast pattern, a name or an option do not share") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    Var x = dvector("x");
    Function base = function({x}, {x * 2.0 + 1.0});
    REQUIRE_FALSE(from_record(base));
    CHECK(from_record(function({x}, {x * 2.0 + 1.0})));

    // A constant.
    Function c3 = function({x}, {x * 3.0 + 1.0});
    CHECK_FALSE(from_record(c3));
    CHECK(allclose(c3({test::vec({1, 2})})[0], test::vec({4, 7})));
    // A constant that prints the same at 6 digits.
    Function close = function({x}, {x * 2.0000000001 + 1.0});
    CHECK_FALSE(from_record(close));
    // A dtype.
    Var xf = fvector("x");
    CHECK_FALSE(from_record(function({xf}, {xf * 2.0f + 1.0f})));
    // A broadcast pattern: a matrix and a row of the same name and dtype.
    Var m = dmatrix("m"), r = drow("m");
    Function fm = function({m}, {m * 2.0});
    CHECK_FALSE(from_record(fm));
    CHECK_FALSE(from_record(function({r}, {r * 2.0})));
    // A name: messages inside the compiled code quote it.
    Var other = dvector("other");
    CHECK_FALSE(from_record(function({other}, {other * 2.0 + 1.0})));
    // Options: the mode, an excluded rewrite tag, a borrowed output, a mutable input.
    FunctionOptions fast_compile;
    fast_compile.mode = "fast_compile";
    CHECK_FALSE(from_record(function({x}, {x * 2.0 + 1.0}, fast_compile)));
    FunctionOptions no_fusion;
    no_fusion.optimizer_excluding = {"fusion"};
    CHECK_FALSE(from_record(function({x}, {x * 2.0 + 1.0}, no_fusion)));
    CHECK_FALSE(from_record(function({x}, {Out(x * 2.0 + 1.0, true)})));
    In mut(x);
    mut.mutable_ = true;
    CHECK_FALSE(from_record(function({mut}, {x * 2.0 + 1.0})));
    // A flag.
    {
      Config c = config();
      c.flags["threads"] = "1";
      ConfigGuard one_thread(c);
      CHECK_FALSE(from_record(function({x}, {x * 2.0 + 1.0})));
    }
    // log_compile only reports on a compile: the same request.
    {
      Config c = config();
      c.flags["log_compile"] = "True";
      ConfigGuard logging(c);
      test::StderrCapture quiet(d.path / "stderr.txt");
      CHECK(from_record(function({x}, {x * 2.0 + 1.0})));
      CHECK(quiet.text().find("found its function record") != std::string::npos);
    }
    // keep_sources does not: a record hit would generate no source to keep.
    {
      Config c = config();
      c.flags["keep_sources"] = "True";
      ConfigGuard keeping(c);
      CHECK_FALSE(from_record(function({x}, {x * 2.0 + 1.0})));
    }
    // A constant of one repeated value is written once ("fill"): its value,
    // its shape, its sign bit and any one element that differs all count.
    {
      auto with = [&](const NDArray& c) { return function({x}, {x + constant(c)}); };
      NDArray one_off = NDArray::zeros({64});
      one_off.data_as<double>()[63] = 1e-300;
      CHECK_FALSE(from_record(with(NDArray::zeros({64}))));
      CHECK(from_record(with(NDArray::zeros({64}))));
      CHECK_FALSE(from_record(with(one_off)));
      CHECK_FALSE(from_record(with(NDArray::full({64}, -0.0))));
      CHECK_FALSE(from_record(with(NDArray::full({64}, 2.0))));
      CHECK_FALSE(from_record(with(NDArray::zeros({65}))));
      Function two = with(NDArray::full({64}, 2.0));
      REQUIRE(from_record(two));
      CHECK(allclose(two({NDArray::full({64}, 1.0)})[0], NDArray::full({64}, 3.0)));
    }
    // And each of those is found again the second time.
    CHECK(from_record(function({x}, {x * 3.0 + 1.0})));
    CHECK(from_record(function({r}, {r * 2.0})));
  }

  TEST_CASE("a function record with shared variables and updates keeps updating them") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    auto build = [](Var& w) {
      w = shared(test::vec({1, 2, 3}), "w");
      Var x = dvector("x");
      FunctionOptions o;
      o.updates = {{w, w - 0.5 * x}};
      return function({x}, {sum(w * x)}, o);
    };
    Var w1, w2;
    Function f = build(w1);
    Function g = build(w2);
    CHECK_FALSE(from_record(f));
    CHECK(from_record(g));
    const NDArray x = test::vec({1, 1, 2});
    CHECK(g({x})[0].item<double>() == doctest::Approx(1 + 2 + 6));
    CHECK(allclose(get_value(w2), test::vec({0.5, 1.5, 2})));
    CHECK(allclose(get_value(w1), test::vec({1, 2, 3})));  // f's own variable: untouched
    CHECK(g({x})[0].item<double>() == doctest::Approx(0.5 + 1.5 + 4));
  }

  TEST_CASE("a scan's request spells out its step graph: an equal scan finds its record, another step does not") {
    TempDir d;
    ConfigGuard guard(with_compiledir(d.path / "cd"));
    // h <- tanh(h * c) + x_t over the rows of x (forwards or backwards), the
    // last state and the gradient of its sum with respect to h0 and x.
    auto build = [](double c, bool backwards) {
      Var x = dmatrix("x"), h0 = dvector("h0");
      ScanResult r = scan([c](const std::vector<Var>& a) { return StepResult{{tanh(a[1] * c) + a[0]}}; },
                          ScanArgs().sequences(x).outputs_info(h0).go_backwards(backwards).name("rnn"));
      Var cost = sum(last_value(r.outputs[0], h0));
      std::vector<Var> g = grad(cost, {h0, x});
      return function({x, h0}, {cost, g[0], g[1]});
    };
    const std::vector<NDArray> args{test::range({4, 3}), test::vec({0.5, -1, 2})};
    Function f = build(0.5, false);
    CHECK_FALSE(from_record(f));
    Function g = build(0.5, false);
    CHECK(from_record(g));
    const std::vector<NDArray> a = f(args), b = g(args);
    for (std::size_t k = 0; k < a.size(); ++k) CHECK(allclose(a[k], b[k]));
    CHECK(debugprint(g.fgraph()) == debugprint(f.fgraph()));
    // Another constant inside the step, another direction: their own records.
    Function c = build(0.25, false);
    CHECK_FALSE(from_record(c));
    CHECK_FALSE(allclose(c(args)[0], a[0]));
    Function back = build(0.5, true);
    CHECK_FALSE(from_record(back));
    CHECK_FALSE(allclose(back(args)[0], a[0]));
    CHECK(from_record(build(0.25, false)));
    CHECK(from_record(build(0.5, true)));

    // A scan inside a scan's step: keyed by both steps.
    auto nested = [](double c) {
      Var x = dmatrix("x");
      Var n = lscalar("n");
      ScanResult r = scan(
          [&](const std::vector<Var>& a) {
            ScanResult inner = scan([&](const std::vector<Var>& b) { return StepResult{{tanh(b[0] * c + a[0])}}; },
                                    ScanArgs().outputs_info(a[1]).n_steps(n).name("inner"));
            return StepResult{{last_value(inner.outputs[0], a[1])}};
          },
          ScanArgs().sequences(x).outputs_info(zeros_like(subtensor(x, {Index(std::int64_t{0})}))).name("outer"));
      return function({x, n}, {r.outputs[0]});
    };
    const std::vector<NDArray> nargs{test::range({3, 2}), NDArray::scalar<std::int64_t>(4)};
    Function n1 = nested(0.5);
    CHECK_FALSE(from_record(n1));
    Function n2 = nested(0.5);
    CHECK(from_record(n2));
    CHECK(allclose(n1(nargs)[0], n2(nargs)[0]));
    Function n3 = nested(0.75);
    CHECK_FALSE(from_record(n3));
    CHECK_FALSE(allclose(n3(nargs)[0], n1(nargs)[0]));
  }

  TEST_CASE("a function record survives a new process, and a damaged one is ignored") {
    TempDir d;
    const fs::path dir = d.path / "cd";
    {
      ConfigGuard guard(with_compiledir(dir));
      Var x = dvector("x");
      CHECK_FALSE(from_record(function({x}, {exp(x) - 1.0})));
    }
    // Damage every record file (the cache's checksum refuses it): the full
    // path runs and the results stay right.
    int damaged = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir / codegen::kRecordsDir)) {
      if (e.path().extension() != ".o") continue;
      std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(40);
      f.put('X');
      ++damaged;
    }
    CHECK(damaged == 1);
    ConfigGuard guard(with_compiledir(dir));
    Var x = dvector("x");
    Function g = function({x}, {exp(x) - 1.0});
    CHECK_FALSE(from_record(g));
    CHECK(allclose(g({test::vec({0, 1})})[0], test::vec({0, std::exp(1.0) - 1})));
  }

  TEST_CASE("records are parsed as untrusted bytes: only exactly what serialize writes") {
    codegen::detail::FunctionRecord r;
    r.object_key = std::string(40, 'a');
    r.nslots = 7;
    r.nvars = 12;
    r.destroyed_inputs = {0, 2};
    r.labels = {"node 0 (Elemwise{add})", std::string("with\nnewline and \0 byte", 24)};
    r.constants = {test::vec({1.5, -2}), NDArray::scalar(3.0), NDArray::zeros({0, 3}),
                   NDArray::full({3, 1000}, -0.25, DType::Float32), NDArray::zeros({4096}, DType::Int64)};
    const std::string bytes = codegen::detail::serialize(r);
    // The two filled ones are written as one element each.
    CHECK(bytes.size() < 1000);
    CHECK(bytes.find("3 1000 fill\n") != std::string::npos);
    const auto back = codegen::detail::parse_function_record(bytes);
    REQUIRE(back.has_value());
    CHECK(back->object_key == r.object_key);
    CHECK(back->nslots == 7);
    CHECK(back->nvars == 12);
    CHECK(back->destroyed_inputs == r.destroyed_inputs);
    CHECK(back->labels == r.labels);
    REQUIRE(back->constants.size() == 5);
    CHECK(allclose(back->constants[0], r.constants[0]));
    CHECK(back->constants[1].item<double>() == 3.0);
    CHECK(back->constants[2].shape() == std::vector<std::int64_t>{0, 3});
    // The 32 KB zero fill comes back in fresh anonymous pages (zero_pages):
    // page-aligned, where an allocated array is 64-byte aligned.
    CHECK(reinterpret_cast<std::uintptr_t>(back->constants[4].data()) % 4096 == 0);
    for (std::size_t k : {3, 4}) {
      CHECK(back->constants[k].dtype() == r.constants[k].dtype());
      CHECK(back->constants[k].shape() == r.constants[k].shape());
      CHECK(std::memcmp(back->constants[k].data(), r.constants[k].data(),
                        static_cast<std::size_t>(r.constants[k].nbytes())) == 0);
    }
    // Every truncation, and a flipped byte in each header line, is refused.
    for (std::size_t n = 0; n < bytes.size(); ++n)
      CHECK_FALSE(codegen::detail::parse_function_record(std::string_view(bytes).substr(0, n)).has_value());
    CHECK_FALSE(codegen::detail::parse_function_record(bytes + "x").has_value());
    std::string bad_key = bytes;
    bad_key[bad_key.find("object ") + 7] = 'G';
    CHECK_FALSE(codegen::detail::parse_function_record(bad_key).has_value());
    std::string huge = bytes;
    huge.replace(huge.find("nslots 7"), 8, "nslots 99999999999");
    CHECK_FALSE(codegen::detail::parse_function_record(huge).has_value());
    std::string wrong_size = bytes;
    const std::size_t at = wrong_size.find(" 16\n");
    REQUIRE(at != std::string::npos);
    wrong_size.replace(at, 4, " 17\n");
    CHECK_FALSE(codegen::detail::parse_function_record(wrong_size).has_value());
    std::string bad_dtype = bytes;
    bad_dtype.replace(bad_dtype.find("constants 3\n") + 12, 2, "99");
    CHECK_FALSE(codegen::detail::parse_function_record(bad_dtype).has_value());
    // A fill is bounded like the rest: not more than 4 GiB (what serialize
    // writes out instead), not one element, not a missing element.
    for (const char* dims : {"3 1000000000 fill\n", "1 1 fill\n"}) {
      std::string bad_fill = bytes;
      bad_fill.replace(bad_fill.find("3 1000 fill\n"), 12, dims);
      CHECK_FALSE(codegen::detail::parse_function_record(bad_fill).has_value());
    }
    std::string short_fill = bytes;
    short_fill.erase(short_fill.find("3 1000 fill\n") + 12, 1);
    CHECK_FALSE(codegen::detail::parse_function_record(short_fill).has_value());
  }
}

// The host workspace of generated code under a scan (issue 33): the arrays a
// call keeps by owner must not grow with a loop's steps (the loop releases
// what each step made, TheanoContext::release), and a memory-plan slot the
// thunk does not have (a function record that does not match its object) is
// an error, not an out-of-bounds write.
#include <doctest/doctest.h>

#include <theano/cache/compile_cache.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/compiledir.h>
#include <theano/config.h>
#include <theano/control/scan.h>
#include <theano/fgraph/function_graph.h>
#include <theano/rewrite/optdb.h>
#include <theano/runtime/error.h>
#include <theano/extending.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "../../codegen/src/cache/function_record.h"
#include "../../codegen/src/run/c_thunk.h"
#include "temp_dir.h"
#include "test_util.h"

using namespace theano;
namespace T = theano::tensor;
using theano::codegen::CLinker;
namespace fs = std::filesystem;

namespace {

/// h <- tanh(h * 0.5) + 1 for n steps from h0 (a 1-element state), every
/// state stacked, and the last state (the loop).
struct Loop {
  Var h0 = T::dvector("h0");
  Var n = T::lscalar("n");
  Var stacked, last;
  Loop() {
    ScanResult r = scan([](const std::vector<Var>& a) { return StepResult{{T::tanh(a[0] * 0.5) + 1.0}}; },
                        ScanArgs().outputs_info(h0).n_steps(n).name("loop"));
    stacked = r.outputs[0];
    last = last_value(stacked, h0);
  }
};

double reference(double h, std::int64_t n) {
  for (std::int64_t t = 0; t < n; ++t) h = std::tanh(h * 0.5) + 1.0;
  return h;
}

}  // namespace

TEST_SUITE("scan workspace") {
  TEST_CASE("a scan's loop holds as many host arrays for 100000 steps as for 10") {
    for (bool optimize : {false, true}) {  // stacked, and (fast_run) the last value only
      CAPTURE(optimize);
      Loop l;
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{l.h0, l.n}, std::vector<Var>{l.last});
      if (optimize) rewrite::optimize(*fg, rewrite::mode_query("fast_run"));
      auto thunk = CLinker().make_thunk(fg);
      std::vector<NDArray> out(1);
      const NDArray h0 = NDArray::from_list<double>({0.25});
      thunk->run(std::vector<NDArray>{h0, NDArray::scalar<std::int64_t>(10)}, out);
      CHECK(out[0].at<double>({0}) == doctest::Approx(reference(0.25, 10)).epsilon(1e-12));
      const std::size_t after_10 = codegen::peak_arrays(*thunk);
      CHECK(after_10 > 0);
      thunk->run(std::vector<NDArray>{h0, NDArray::scalar<std::int64_t>(100000)}, out);
      CHECK(out[0].at<double>({0}) == doctest::Approx(reference(0.25, 100000)).epsilon(1e-12));
      // One step's arrays at most beside the outer graph's: no growth with the steps.
      CHECK(codegen::peak_arrays(*thunk) == after_10);
    }
  }

  TEST_CASE("nested scans release each inner and outer step: the arrays do not grow with either") {
    Var x = T::dmatrix("x");
    Var n = T::lscalar("n");
    // Outer step over the rows of x; inner loop: n steps of a running tanh.
    ScanResult r = scan(
        [&](const std::vector<Var>& a) {
          ScanResult inner = scan([&](const std::vector<Var>& b) { return StepResult{{T::tanh(b[0] + a[0])}}; },
                                  ScanArgs().outputs_info(a[1]).n_steps(n).name("inner"));
          return StepResult{{last_value(inner.outputs[0], a[1])}};
        },
        ScanArgs()
            .sequences(x)
            .outputs_info(T::zeros_like(T::subtensor(x, {T::Index(std::int64_t{0})})))
            .name("outer"));
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x, n}, std::vector<Var>{r.outputs[0]});
    auto thunk = CLinker().make_thunk(fg);
    std::vector<NDArray> out(1);
    auto rows = [](std::int64_t m, double scale) {
      NDArray a = NDArray::empty({m, 2});
      for (std::int64_t i = 0; i < 2 * m; ++i) a.data_as<double>()[i] = scale * static_cast<double>(i % 7 - 3);
      return a;
    };
    const NDArray small = rows(3, 0.1);
    thunk->run(std::vector<NDArray>{small, NDArray::scalar<std::int64_t>(3)}, out);
    const std::size_t base = codegen::peak_arrays(*thunk);
    const NDArray big = rows(300, 0.01);
    thunk->run(std::vector<NDArray>{big, NDArray::scalar<std::int64_t>(300)}, out);
    CHECK(codegen::peak_arrays(*thunk) == base);
    // The values: against a plain loop.
    std::vector<double> h(2, 0.0);
    for (std::int64_t t = 0; t < 300; ++t)
      for (std::int64_t j = 0; j < 2; ++j) {
        double v = h[static_cast<std::size_t>(j)];
        for (int k = 0; k < 300; ++k) v = std::tanh(v + big.at<double>({t, j}));
        h[static_cast<std::size_t>(j)] = v;
        CHECK(out[0].at<double>({t, j}) == doctest::Approx(v).epsilon(1e-12));
      }
  }

  TEST_CASE("a function record whose plan has fewer slots than its code uses is an error, not a write past the slots") {
    test::TempDir d;
    Config c = config();
    c.flags["compiledir"] = (d.path / "cd").string();
    ConfigGuard guard(c);
    auto build = [] {
      Var x = T::dmatrix("x"), b = T::dvector("b");
      Var y = T::tanh(T::dot(x, T::transpose(x)) + b) * 2.0;
      return function({x, b}, {T::sum(y * y)});
    };
    const std::vector<NDArray> args{test::range({3, 4}), test::vec({0.5, -1, 2})};
    const double want = build()(args)[0].item<double>();
    // The record it wrote, rewritten with no slots (its checksum made anew, as
    // a record written by a mismatched build would be).
    cache::CompileCache* records = codegen::current_record_cache();
    REQUIRE(records != nullptr);
    const auto entries = records->entries();
    REQUIRE(entries.size() == 1);
    const std::string key = entries[0].key;
    const auto bytes = records->lookup(key);
    REQUIRE(bytes.has_value());
    auto record = codegen::detail::parse_function_record(*bytes);
    REQUIRE(record.has_value());
    REQUIRE(record->nslots > 0);
    record->nslots = 0;
    records->clear();
    records->get_or_produce(key, [&] {
      cache::Entry e{codegen::detail::serialize(*record), "", 0, "function record with no slots"};
      e.kind = "function record";
      return e;
    });
    Function g = build();
    REQUIRE(g.profile().build.function_record);
    const std::string msg = test::error_of([&] { (void)g(args); });
    CAPTURE(msg);
    CHECK(msg.find("memory-plan slot") != std::string::npos);
    CHECK_THROWS_AS((void)g(args), InternalError);
    // The record removed, the full path builds the function again, with the right value.
    records->clear();
    Function f = build();
    CHECK_FALSE(f.profile().build.function_record);
    CHECK(f(args)[0].item<double>() == doctest::Approx(want).epsilon(1e-12));
  }
}

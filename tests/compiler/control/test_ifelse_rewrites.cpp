// The IfElse rewrites (rewrite/ifelse.cpp) as before/after graphs, each also
// checked numerically by check_rewrite (optimized against unoptimized).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "compiler/rewrite/rewrite_test_util.h"
#include "use_linker.h"
#include "theano/extending.hpp"

using namespace theano;
namespace T = theano::tensor;
using theano::test::check_rewrite;

namespace {

std::string optimized_text(const std::vector<Var>& ins, const std::vector<Var>& outs) {
  FunctionGraph fg(ins, outs);
  rewrite::optimize(fg, rewrite::mode_query("fast_run").excluding({"fusion", "inplace"}));
  return debugprint(fg);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST_SUITE("ifelse rewrites") {
  TEST_CASE("ifelse_constant_condition: ifelse(1, a, b) -> a, ifelse(0, a, b) -> b") {
    Var x = T::dvector("x"), y = T::dvector("y");
    check_rewrite({x, y}, {ifelse(T::constant(NDArray::scalar<std::int64_t>(3)), T::exp(x), T::sin(y))}, {T::exp(x)});
    check_rewrite({x, y}, {ifelse(T::constant(NDArray::scalar<double>(0.0)), T::exp(x), T::sin(y))}, {T::sin(y)});
  }

  TEST_CASE("ifelse_same_branches: an output equal in both branches leaves the IfElse") {
    Var c = T::lscalar("c");
    Var x = T::dvector("x"), y = T::dvector("y");
    Var e = T::exp(x);
    const std::vector<Var> r = ifelse(c, {e, T::sin(x)}, {e, y});
    check_rewrite({c, x, y}, r, {T::exp(x), ifelse(c, T::sin(x), y)});
    check_rewrite({c, x}, {ifelse(c, T::exp(x), T::exp(x))}, {T::exp(x)});  // merged first, then identical
  }

  TEST_CASE("ifelse_lift: elementwise work on IfElse outputs moves into the branches") {
    Var c = T::lscalar("c");
    Var a = T::dvector("a"), b = T::dvector("b"), d = T::dvector("d"), e = T::dvector("e"), x = T::dvector("x");
    Var before = T::exp(ifelse(c, a, b)) * ifelse(c, d, e) + x;
    const std::string text = optimized_text({c, a, b, d, e, x}, {before});
    CAPTURE(text);
    // Everything elementwise is inside the branches: the IfElse is the output.
    CHECK(text.rfind("IfElse", text.find('\n')) != std::string::npos);
    check_rewrite({c, a, b, d, e, x}, {before}, {ifelse(c, T::exp(a) * d + x, T::exp(b) * e + x)});
    // Different conditions: nothing to lift.
    Var c2 = T::lscalar("c2");
    Var mixed = ifelse(c, a, b) + ifelse(c2, d, e);
    check_rewrite({c, c2, a, b, d, e}, {mixed}, {ifelse(c, a, b) + ifelse(c2, d, e)});
  }

  TEST_CASE("ifelse_merge: independent IfElses on one condition become one node") {
    Var c = T::lscalar("c");
    Var x = T::dvector("x"), y = T::dvector("y");
    Var p = ifelse(c, T::exp(x), T::sin(y));
    Var q = ifelse(c, T::sum(x), T::max(y));
    // p and q feed one product; no lifting: the other factor also depends on an IfElse of c.
    Var r = T::sum(p) * q;
    const std::string text = optimized_text({c, x, y}, {r});
    CAPTURE(text);
    CHECK(count(text, "IfElse{1}") == 0);
    CHECK(count(text, "IfElse{2}.0 [id C]") == 1);
    CHECK(count(text, "IfElse{2}.1 [id C]") == 1);
    const std::vector<Var> m = ifelse(c, {T::exp(x), T::sum(x)}, {T::sin(y), T::max(y)});
    check_rewrite({c, x, y}, {r}, {T::sum(m[0]) * m[1]});
    // One feeding the other's branch: they stay apart (merging would make a cycle).
    Var inner = ifelse(c, T::exp(x), T::sin(x));
    Var outer = ifelse(c, T::sum(inner), T::max(y));
    const std::string nested = optimized_text({c, x, y}, {outer});
    CAPTURE(nested);
    CHECK(count(nested, "IfElse{1}") == 2);
  }

  TEST_CASE("ifelse_lift: a chain h = ifelse(c_k, h + 1, h * 2) stays linear in its length") {
    // Each link's IfElse output has two clients (h + 1, h * 2): lifting them
    // into the branches copied the IfElses below, so the graph grew
    // exponentially (10 links: 393 nodes). Only single-client outputs lift now.
    for (int links : {10, 50}) {
      CAPTURE(links);
      Var h0 = T::dvector("h0");
      std::vector<Var> ins{h0};
      Var h = h0;
      for (int k = 0; k < links; ++k) {
        Var ck = T::lscalar("c" + std::to_string(k));
        ins.push_back(ck);
        h = ifelse(ck, h + T::constant(NDArray::scalar<double>(1)), h * T::constant(NDArray::scalar<double>(2)));
      }
      FunctionGraph fg(ins, {h});
      rewrite::optimize(fg, rewrite::mode_query("fast_run"));
      CHECK(fg.apply_nodes().size() <= static_cast<std::size_t>(5 * links));
      // The values: conditions alternating in a pattern, against the py linker, unoptimized.
      std::vector<NDArray> args{theano::test::vec({0.5, -1.0, 2.0})};
      for (int k = 0; k < links; ++k) args.push_back(NDArray::scalar<std::int64_t>((k * 7 + 3) % 3 == 0 ? 1 : 0));
      std::vector<NDArray> want;
      {
        theano::test::UseLinker l("py");
        FunctionOptions raw;
        raw.mode = "unoptimized";
        want = function({ins.begin(), ins.end()}, {h}, raw)(args);
      }
      const auto got = function({ins.begin(), ins.end()}, {h})(args);
      CHECK(theano::test::close_enough(got[0], want[0]));
    }
  }
}

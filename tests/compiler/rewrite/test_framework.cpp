// The rewrite framework: the equilibrium driver's use cap (naming the
// rewrite), queries (include / exclude / require / position cut-off),
// print_summary, optimizer_including / optimizer_excluding from the config
// and in code, per-function statistics.
#include <sstream>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/extending.hpp"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;
namespace R = theano::rewrite;

namespace {

// Deliberately ping-ponging pair: sin(x) -> cos(x) and cos(x) -> sin(x).
R::NodeRewriterPtr ping() {
  return R::make_node_rewriter("test_ping", {"Elemwise:sin"}, "sin(x) -> cos(x)",
                               [](FunctionGraph&, Apply& n) -> R::RewriteResult { return T::cos(n.input(0)); });
}
R::NodeRewriterPtr pong() {
  return R::make_node_rewriter("test_pong", {"Elemwise:cos"}, "cos(x) -> sin(x)",
                               [](FunctionGraph&, Apply& n) -> R::RewriteResult { return T::sin(n.input(0)); });
}

bool has_pow(const FunctionGraph& fg) {
  for (Apply* n : fg.apply_nodes())
    if (T::is_elemwise(n, "pow")) return true;
  return false;
}

}  // namespace

TEST_SUITE("rewrite_tests") {
  TEST_CASE("equilibrium: the use cap names the rewrite") {
    Var x = T::dvector("x");
    {
      FunctionGraph fg({x}, {T::exp(T::sin(x))});
      R::EquilibriumRewriter eq("pingpong", {ping(), pong()}, {}, 2.0, R::CapPolicy::Raise);
      R::RewriteStats stats;
      const std::string msg = error_of([&] { eq.apply(fg, stats); });
      CHECK(msg.find("pingpong") != std::string::npos);
      CHECK(msg.find("test_ping") != std::string::npos);
      CHECK(msg.find("sin(x) -> cos(x)") != std::string::npos);
      fg.check_integrity();
    }
    {
      FunctionGraph fg({x}, {T::exp(T::sin(x))});
      R::EquilibriumRewriter eq("pingpong", {ping(), pong()}, {}, 2.0, R::CapPolicy::Warn);
      R::RewriteStats stats;
      CHECK(eq.apply(fg, stats));
      REQUIRE(stats.capped.size() == 1);
      CHECK(stats.capped[0] == "test_ping");
      CHECK(stats.applied("test_ping") == 5);  // ceil(2.0 * 2 nodes) + 1
    }
  }

  TEST_CASE("equilibrium: a rewrite returning a different type is reported as a bug") {
    Var x = T::dvector("x");
    auto bad = R::make_node_rewriter("test_bad_type", {"Elemwise:exp"}, "exp(x) -> float32 exp(x)",
                                     [](FunctionGraph&, Apply& n) -> R::RewriteResult {
                                       return T::cast(n.input(0), DType::Float32);
                                     });
    FunctionGraph fg({x}, {T::exp(x)});
    R::EquilibriumRewriter eq("bad", {bad});
    R::RewriteStats stats;
    const std::string msg = error_of([&] { eq.apply(fg, stats); });
    CHECK(msg.find("test_bad_type") != std::string::npos);
    CHECK(msg.find("keep the type") != std::string::npos);
  }


  TEST_CASE("query: include, exclude, require by tag and name") {
    R::Query q{{"fast_run"}, {}, {}, {}};
    CHECK(q.selects("a", {"fast_run", "x"}));
    CHECK_FALSE(q.selects("a", {"fast_compile"}));
    CHECK(q.including({"a"}).selects("a", {}));
    CHECK_FALSE(q.excluding({"x"}).selects("a", {"fast_run", "x"}));
    CHECK_FALSE(q.excluding({"a"}).selects("a", {"fast_run"}));
    CHECK_FALSE(q.requiring({"y"}).selects("a", {"fast_run", "x"}));
    CHECK(q.requiring({"x"}).selects("a", {"fast_run", "x"}));
  }

  TEST_CASE("optdb: stage layout and position cut-off") {
    const auto names = R::optdb().stage_names();
    CHECK(names == std::vector<std::string>{"merge1", "sparse_expand", "canonicalize", "stabilize", "blas_opt",
                                            "specialize", "uncanonicalize", "specialize_device", "AbstractConvCheck",
                                            "stream_gemv", "elemwise_fusion", "merge2", "gpu_transfer",
                                            "add_destroy_handler", "inplace_setsubtensor", "blas_opt_inplace",
                                            "gemm_scaled_copy", "inplace_elemwise", "inplace_random", "merge3"});
    const std::string stab = R::print_summary("stabilize");
    CHECK(stab.find("stabilize [fast_compile, fast_run]") != std::string::npos);
    CHECK(stab.find("specialize") == std::string::npos);
    const std::string o1 = R::print_summary("o1");
    CHECK(o1.find("constant_folding") != std::string::npos);
    CHECK(o1.find("local_neg_neg") == std::string::npos);
    // fast_compile's stabilize stage holds only the two log-sum-exp stabilizations (PyTensor's tags).
    CHECK(o1.find("local_log_sum_exp [fast_compile") != std::string::npos);
    CHECK(o1.find("local_log_softmax") == std::string::npos);
    CHECK(R::print_summary("fast_run").find("local_remove_all_assert") == std::string::npos);
    CHECK(R::print_summary("unsafe").find("local_remove_all_assert") != std::string::npos);
    CHECK(R::print_summary("unoptimized") == "mode unoptimized:\n");
    CHECK_THROWS_AS(R::mode_query("o7"), ValueError);
  }

  TEST_CASE("print_summary: the rewrites of a mode in order with tags") {
    const std::string s = R::print_summary("fast_compile");
    CHECK(s ==
          "mode fast_compile:\n"
          "    0  merge1 [fast_compile, fast_run, merge]\n"
          "    1  canonicalize [canonicalize_db, fast_compile, fast_run]\n"
          "         merge [fast_compile, fast_run, merge]\n"
          "         constant_folding [constant_folding, fast_compile, fast_run] : op(c1, c2, ...) -> "
          "Constant(perform(c1, c2, ...))\n"
          "         local_remove_index_expression [canonicalize, fast_compile, fast_run] : IndexExpression(r, x, "
          "indices...) -> r\n"
          "  1.5  stabilize [fast_compile, fast_run]\n"
          "         local_log_sum_exp [fast_compile, fast_run, stabilize] : log(sum(exp(x), axes)) -> "
          "log(sum(exp(x - m), axes)) + m, m = max(x, axes), 0 where infinite; keepdims kept\n"
          "         local_logaddexp [fast_compile, fast_run, stabilize] : log(exp(x) + exp(y)) -> "
          "switch(isinf(m), m, m + softplus(-|x - y|)), m = maximum(x, y); n > 2 terms (flat or nested adds) -> "
          "switch(isinf(m), m, m + log(sum_i exp(x_i - m))), m = max_i x_i\n"
          " 48.6  specialize_device [fast_compile, fast_run]\n"
          "         local_abstractconv_corrmm [conv_gemm, fast_compile, fast_run] : AbstractConv(x, w) -> "
          "CorrMM(x, flip(w)); AbstractConv_gradInputs(w, top, s) -> CorrMM_gradInputs(flip(w), top, s); "
          "AbstractConv_gradWeights(x, top, s) -> flip(CorrMM_gradWeights(x, top, s)) (flip: filter_flip)\n"
          " 48.7  AbstractConvCheck [fast_compile, fast_run]\n"
          "         local_abstractconv_check [fast_compile, fast_run] : AbstractConv* left after optimization -> "
          "error\n");
    const std::string f = R::print_summary("fast_run");
    const auto pos = [&](const std::string& k) { return f.find(k); };
    CHECK(pos("merge1") < pos("canonicalize"));
    CHECK(pos("canonicalize") < pos("local_log_softmax"));
    CHECK(pos("local_log_softmax") < pos("local_mul_specialize"));
    CHECK(pos("local_mul_specialize") < pos("merge3"));
    CHECK(f.find("local_mul_specialize [fast_run, specialize] : mul(x, 1) -> x") != std::string::npos);
  }

  TEST_CASE("optimizer_excluding / optimizer_including from THEANO_FLAGS and in code") {
    // x**2 -> sqr(x) is local_pow_specialize's alone (fusion is excluded
    // throughout: it would hide the pow inside a Composite).
    Var x = T::dvector("x");
    Var y = T::exp(T::pow(x, T::constant(vec({2}))));
    {
      Config cfg = config();
      cfg.flags["optimizer_excluding"] = "local_pow_specialize:fusion";
      ConfigGuard guard(cfg);
      Function f = function({x}, {y});
      CHECK(has_pow(f.fgraph()));
      CHECK(f.rewrite_stats().applied("local_pow_specialize") == 0);
    }
    {
      FunctionOptions o;
      o.optimizer_excluding = {"fusion"};
      Function f = function({x}, {y}, o);
      CHECK_FALSE(has_pow(f.fgraph()));
      CHECK(f.rewrite_stats().applied("local_pow_specialize") == 1);
      // The summary's line of the rewrite (names are padded to the longest one).
      const std::string summary = f.rewrite_stats().summary();
      const std::size_t at = summary.find("local_pow_specialize ");
      REQUIRE(at != std::string::npos);
      const std::string line = summary.substr(at, summary.find('\n', at) - at);
      CHECK(line.find(" applied=1 ") != std::string::npos);
    }
    {
      FunctionOptions o;
      o.optimizer_excluding = {"specialize", "fusion"};
      CHECK(has_pow(function({x}, {y}, o).fgraph()));
    }
    {
      // fast_compile does not specialize, unless asked to by name.
      FunctionOptions o;
      o.mode = "fast_compile";
      CHECK(has_pow(function({x}, {y}, o).fgraph()));
      Config cfg = config();
      cfg.flags["optimizer_including"] = "specialize_db:local_pow_specialize";
      ConfigGuard guard(cfg);
      CHECK_FALSE(has_pow(function({x}, {y}, o).fgraph()));
    }
  }

  TEST_CASE("optimizer_including: a name that is no rewrite, stage or tag is a ValueError naming it") {
    Var x = T::dvector("x");
    Var y = T::exp(x);
    {
      FunctionOptions o;
      o.optimizer_including = {"nonexistenttag"};
      CHECK_THROWS_WITH_AS(function({x}, {y}, o),
                           doctest::Contains("FunctionOptions::optimizer_including: no rewrite, stage or tag of the "
                                             "optimizer is named 'nonexistenttag'"),
                           ValueError);
      o.optimizer_including = {"local_pow_specialize", "fusion", "stabilize"};  // a rewrite, a tag, a stage
      CHECK_NOTHROW(function({x}, {y}, o));
    }
    {
      Config cfg = config();
      cfg.flags["optimizer_including"] = "local_pow_specialize:nonexistenttag";
      ConfigGuard guard(cfg);
      CHECK_THROWS_WITH_AS(function({x}, {y}),
                           doctest::Contains("THEANO_FLAGS optimizer_including: no rewrite, stage or tag of the "
                                             "optimizer is named 'nonexistenttag'"),
                           ValueError);
    }
  }

  TEST_CASE("optimize: dump the graph after a stage on request") {
    Var x = T::dvector("x");
    FunctionGraph fg({x}, {T::log(T::constant(vec({1})) + T::exp(x))});
    std::ostringstream os;
    R::optimize(fg, R::mode_query("fast_run"), "stabilize", &os);
    CHECK(os.str().rfind("=== after stabilize ===\n", 0) == 0);
    CHECK(os.str().find("softplus") != std::string::npos);
    CHECK(os.str().find("=== after specialize") == std::string::npos);
    std::ostringstream all;
    FunctionGraph fg2({x}, {T::exp(x)});
    R::optimize(fg2, R::mode_query("fast_compile"), "all", &all);
    CHECK(all.str().find("=== after merge1 ===") != std::string::npos);
    CHECK(all.str().find("=== after canonicalize ===") != std::string::npos);
  }
}

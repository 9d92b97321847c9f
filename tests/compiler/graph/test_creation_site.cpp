// Variable creation sites (THEANO_FLAGS traceback_limit): recorded only when
// asked, carried through cloning and rewriting, and printed with a run-time
// error so it points at the line of user code that built the failing value.
#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/theano.hpp"

using namespace theano;
namespace T = theano::tensor;

// Outside any namespace and not inlined: its name must show in the site.
__attribute__((noinline)) Var build_bad_sum(const Var& x, const Var& y) {
  Var s = T::exp(x + y);
  s->set_name("bad_sum");
  return s;
}

TEST_CASE("creation sites: off by default, recorded with traceback_limit, printed with run-time errors") {
  Var x = T::dvector("x"), y = T::dvector("y");
  CHECK(build_bad_sum(x, y)->creation_site() == nullptr);

  Config c = config();
  c.traceback_limit = 4;
  ConfigGuard guard(c);
  Var s = build_bad_sum(x, y);
  REQUIRE(s->creation_site() != nullptr);
  const std::string where = s->creation_site()->str();
  CAPTURE(where);
  CHECK(where.find("build_bad_sum") != std::string::npos);
  CHECK(where.find("theano::tensor::exp") == std::string::npos);  // theano's own frames are left out
  CHECK(s.owner()->input(0)->creation_site() != nullptr);          // x + y too

  // Clones carry it.
  CHECK(s->clone()->creation_site() == s->creation_site());

  // A shape mismatch at run time names the line that built the value, after
  // the optimizer rewrote the graph (fusion makes exp(x + y) one node).
  for (const char* mode : {"fast_run", "fast_compile"}) {
    CAPTURE(mode);
    FunctionOptions o;
    o.mode = mode;
    Function f = function({x, y}, {s}, o);
    const std::string e = test::error_of([&] { f({test::vec({1, 2}), test::vec({1, 2, 3})}); });
    CAPTURE(e);
    CHECK(e.find("was created at:") != std::string::npos);
    CHECK(e.find("build_bad_sum") != std::string::npos);
  }
}

TEST_CASE("creation sites: THEANO_FLAGS spelling and validation") {
  CHECK(Config::from_flags("traceback_limit=3").traceback_limit == 3);
  CHECK(Config::from_flags("traceback__limit=5").traceback_limit == 5);
  CHECK(Config::from_flags("").traceback_limit == 0);
  CHECK_THROWS_AS(Config::from_flags("traceback_limit=many"), ValueError);
  CHECK_THROWS_AS(Config::from_flags("traceback_limit=-1"), ValueError);
}

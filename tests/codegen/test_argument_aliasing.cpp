// Arguments that alias storage the compiled code may overwrite (issue 15): as
// in Theano, such an argument is copied before the call, so the graph never
// reads a value it already overwrote in place. Checked with every linker.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/shared.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <string>

#include "test_util.h"

using namespace theano;
using namespace theano::tensor;

TEST_SUITE("argument aliasing") {
  TEST_CASE("an argument that is the storage of an updated shared variable is read before the update") {
    codegen::register_linkers();
    for (std::string linker : {"cpp", "opwise", "py"}) {
      CAPTURE(linker);
      Config c = config();
      c.flags["linker"] = linker;
      ConfigGuard guard(c);
      Var w = shared(test::vec({1, 2, 3}), "W");
      Var x = dvector("x");
      // W <- W + 1 may be computed in place in W's buffer; x * sum(W + 1)
      // reads x, which here IS that buffer.
      Function f = function({x}, {x * sum(w + 1.0)}, {.updates = {{w, w + 1.0}}});
      const NDArray arg = get_value(w, /*borrow=*/true);
      const NDArray r = f({arg})[0];
      CHECK(array_equal(r, test::vec({9, 18, 27})));
      CHECK(array_equal(get_value(w), test::vec({2, 3, 4})));
      // Twice: the second call reads the updated storage the same way.
      CHECK(array_equal(f({get_value(w, true)})[0], test::vec({24, 36, 48})));
    }
  }

  TEST_CASE("the same array passed as a mutable input and as another input") {
    codegen::register_linkers();
    for (std::string linker : {"cpp", "py"}) {
      CAPTURE(linker);
      Config c = config();
      c.flags["linker"] = linker;
      ConfigGuard guard(c);
      Var a = dvector("a"), b = dvector("b");
      In ain(a);
      ain.mutable_ = true;
      // exp(a) may be computed in place in a's buffer; b is read afterwards.
      Function f = function({ain, b}, {exp(a) + b * 0.0 + sum(b)});
      NDArray v = test::vec({0, 0, 0});
      const NDArray r = f({v, v})[0];
      CHECK(array_equal(r, test::vec({1, 1, 1})));
    }
  }
}

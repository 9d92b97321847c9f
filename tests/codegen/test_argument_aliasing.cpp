// Arguments that alias storage the compiled code may overwrite (issue 15): as
// in Theano, such an argument is copied before the call, so the graph never
// reads a value it already overwrote in place; so is an overwritable argument
// or shared value whose own elements overlap (a broadcast view, issue 33).
// And a borrowed output aliases an argument only when that is borrowed too
// (issue 33). Checked with every linker.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/shared.h>
#include <theano/config.h>
#include <theano/runtime/dlpack.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <string>
#include <vector>

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

  TEST_CASE("a borrowed output that is a view of an argument not borrowed is a copy") {
    codegen::register_linkers();
    for (std::string linker : {"cpp", "opwise", "py"}) {
      CAPTURE(linker);
      Config c = config();
      c.flags["linker"] = linker;
      ConfigGuard guard(c);
      Var x = dvector("x");
      const std::vector<Out> views = {Out(x, true), Out(dimshuffle(x, {0})[1], true)};
      // In(x) is not borrowed: writing the outputs leaves the caller's array alone.
      Function f = function({x}, views);
      NDArray a = test::vec({1, 2, 3});
      std::vector<NDArray> r = f({a});
      CHECK_FALSE(r[0].shares_buffer(a));
      CHECK_FALSE(r[1].shares_buffer(a));
      r[0].data_as<double>()[0] = -1;
      r[1].data_as<double>()[0] = -2;
      CHECK(array_equal(a, test::vec({1, 2, 3})));
      CHECK(array_equal(r[0], test::vec({-1, 2, 3})));
      // Nor a stored default value.
      Function d = function({In(x, test::vec({4, 5}))}, views);
      d({})[0].data_as<double>()[1] = -3;
      CHECK(array_equal(d.input_value(0), test::vec({4, 5})));
      // Borrowed on both sides: views of the caller's array.
      In xb(x);
      xb.borrow = true;
      Function g = function({xb}, views);
      r = g({a});
      CHECK(r[0].shares_buffer(a));
      CHECK(r[1].shares_buffer(a));
      // A borrowed view of an output that is not borrowed is a copy too; of a borrowed one, a view.
      Var y = x + 1.0;
      Function h = function({x}, {Out(y), Out(dimshuffle(y, {0})[0], true)});
      r = h({a});
      CHECK_FALSE(r[1].shares_buffer(r[0]));
      r[1].data_as<double>()[0] = -4;
      CHECK(array_equal(r[0], test::vec({2, 3, 4})));
      Function k = function({x}, {Out(y, true), Out(dimshuffle(y, {0})[0], true)});
      r = k({a});
      CHECK(r[1].shares_buffer(r[0]));
    }
  }

  TEST_CASE("a mutable argument or updated shared value whose elements overlap is copied before in-place code") {
    codegen::register_linkers();
    for (std::string linker : {"cpp", "opwise", "py"}) {
      CAPTURE(linker);
      Config c = config();
      c.flags["linker"] = linker;
      ConfigGuard guard(c);
      Var x = dvector("x");
      In xin(x);
      xin.mutable_ = true;
      // x * 2 + 1 may be computed in place in x's buffer: one element seen four times.
      Function f = function({xin}, {x * 2.0 + 1.0});
      NDArray five = NDArray::from_list<double>({5});
      CHECK(array_equal(f({five.broadcast_to({4})})[0], test::vec({11, 11, 11, 11})));
      CHECK(array_equal(five, test::vec({5})));
      // The same through DLPack (a stride-0 import).
      CHECK(array_equal(f({from_dlpack(to_dlpack(five.broadcast_to({4})))})[0], test::vec({11, 11, 11, 11})));
      CHECK(array_equal(five, test::vec({5})));
      // Rows that overlap (strides 16, 8 bytes over 4 float64 columns).
      Var m = dmatrix("m");
      In min(m);
      min.mutable_ = true;
      Function fm = function({min}, {m * 2.0 + 1.0});
      NDArray buf = NDArray::arange(0, 12);
      const NDArray buf_before = buf.copy();
      const NDArray folded = NDArray::from_strided(buf.owner(), buf.data(), DType::Float64, {3, 4}, {16, 8});
      const NDArray want = fm({folded.copy()})[0];
      CHECK(array_equal(fm({folded})[0], want));
      CHECK(array_equal(buf, buf_before));
      // A shared variable given a broadcast view (borrowed) and updated in place.
      Var w = shared(test::vec({0, 0, 0, 0}), "w");
      set_value(w, five.broadcast_to({4}), /*borrow=*/true);
      Function inc = function({}, {}, {.updates = {{w, w + 1.0}}});
      inc({});
      CHECK(array_equal(get_value(w), test::vec({6, 6, 6, 6})));
      CHECK(array_equal(five, test::vec({5})));
      inc({});
      CHECK(array_equal(get_value(w), test::vec({7, 7, 7, 7})));
    }
  }
}

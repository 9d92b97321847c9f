// The PerformLinker: run-time errors with node context, ops without perform,
// protection of inputs from in-place ops, freeing of intermediates, output type
// checks, and the linker registry.
#include <doctest/doctest.h>

#include <algorithm>
#include <memory>

#include "test_util.h"
#include "theano/compile/function.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::test;
namespace T = theano::tensor;

namespace {


/// A configurable unary op on float64 tensors for the linker tests.
class ProbeOp final : public Op {
 public:
  enum Kind { AddOneInplace, NoPerform, WrongDtype, Record, CheckReleased };
  explicit ProbeOp(Kind kind) : kind_(kind) {}
  std::string_view type_name() const override { return "ProbeOp"; }
  Props props() const override { return {{"kind", std::int64_t{kind_}}}; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    Var out = inputs.at(0).type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {out});
  }
  bool has_perform() const override { return kind_ != NoPerform; }
  void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
    switch (kind_) {
      case AddOneInplace: {
        NDArray x = in[0];
        for (std::int64_t i = 0; i < x.size(); ++i) x.data_as<double>()[i] += 1;
        out[0] = x;
        break;
      }
      case WrongDtype:
        out[0] = in[0].astype(DType::Float32);
        break;
      case Record:
        out[0] = in[0].copy();
        recorded() = out[0].owner();
        break;
      case CheckReleased:
        released() = recorded().expired();
        out[0] = in[0].copy();
        break;
      case NoPerform:
        break;
    }
  }
  ViewMap destroy_map() const override {
    if (kind_ == AddOneInplace) return {{0, {0}}};
    return {};
  }
  static std::weak_ptr<void>& recorded() {
    static std::weak_ptr<void> w;
    return w;
  }
  static bool& released() {
    static bool b = false;
    return b;
  }

 private:
  Kind kind_;
};

Var probe(ProbeOp::Kind kind, const Var& x) { return OpPtr(new ProbeOp(kind))->apply1({x}); }

}  // namespace

TEST_SUITE("compile_tests") {
  TEST_CASE("PerformLinker: run-time errors name the node, keeping the exception type") {
    Var x = T::dvector("x"), y = T::dvector("y");
    Function f = function({x, y}, {x + y});
    const std::string e = error_of([&] { f({vec({1, 2}), vec({1, 2, 3})}); });
    CHECK(e.find("Apply node that caused the error: Elemwise{add,no_inplace}(x, y)") != std::string::npos);
    CHECK(e.find("Toposort index: 0") != std::string::npos);
    CHECK(e.find("Inputs shapes: [(2,), (3,)]") != std::string::npos);
    CHECK_THROWS_AS(f({vec({1, 2}), vec({1, 2, 3})}), ShapeError);
  }

  TEST_CASE("PerformLinker: an op without perform is refused at compile time") {
    Var x = T::dvector("x");
    const std::string e = error_of([&] { function({x}, {probe(ProbeOp::NoPerform, x)}); });
    CHECK(e.find("has no reference implementation (perform)") != std::string::npos);
    CHECK_THROWS_AS(function({x}, {probe(ProbeOp::NoPerform, x)}), MethodNotDefined);
  }

  TEST_CASE("PerformLinker: an output of the wrong type is an error naming the op") {
    Var x = T::dvector("x");
    Function f = function({x}, {probe(ProbeOp::WrongDtype, x)});
    const std::string e = error_of([&] { f({vec({1})}); });
    CHECK(e.find("ProbeOp") != std::string::npos);
    CHECK(e.find("float64") != std::string::npos);
  }

  TEST_CASE("PerformLinker: in-place ops never write into protected values") {
    Var x = T::dvector("x");
    NDArray a = vec({1, 2});
    Function f = function({x}, {probe(ProbeOp::AddOneInplace, x)});
    CHECK(array_equal(f({a})[0], vec({2, 3})));
    CHECK(array_equal(a, vec({1, 2})));  // the caller's array is intact
    In m(x);
    m.mutable_ = true;
    Function g = function({m}, {Out(probe(ProbeOp::AddOneInplace, x), true)});
    g({a});
    CHECK(array_equal(a, vec({2, 3})));  // mutable: written in place
    // Shared values and constants are protected too.
    Var w = shared(vec({5}), "w");
    function({}, {probe(ProbeOp::AddOneInplace, w)})({});
    CHECK(array_equal(get_value(w), vec({5})));
    Var c = T::constant(vec({7}));
    Function h = function({}, {probe(ProbeOp::AddOneInplace, c)});
    h({});
    CHECK(array_equal(h({})[0], vec({8})));
  }

  TEST_CASE("PerformLinker: intermediates are released after their last client") {
    Var x = T::dvector("x");
    Var a = probe(ProbeOp::Record, x);        // its output is read only by b
    Var b = a * 2.0;                          // after b, a's value is dead
    Var c = probe(ProbeOp::CheckReleased, b);  // checks a's buffer is gone
    ProbeOp::released() = false;
    // (without the inplace stages, which would let b overwrite a's buffer)
    Function f = function({x}, {c}, {.optimizer_excluding = {"inplace"}});
    CHECK(array_equal(f({vec({1, 2})})[0], vec({2, 4})));
    CHECK(ProbeOp::released());
    // When a is also an output, it stays alive.
    Function g = function({x}, {c, a}, {.optimizer_excluding = {"inplace"}});
    g({vec({1, 2})});
    CHECK_FALSE(ProbeOp::released());
  }

  TEST_CASE("linker registry") {
    static int made = 0;
    register_linker("counting", [] {
      ++made;
      return make_perform_linker();
    });
    const auto names = registered_linkers();
    CHECK(std::find(names.begin(), names.end(), "counting") != names.end());
    Config c = config();
    c.flags["linker"] = "counting";
    ConfigGuard guard(c);
    Var x = T::dscalar("x");
    Function f = function({x}, {x * 2.0});
    CHECK(made == 1);
    CHECK(f.mode().linker == "counting");
    CHECK(f({NDArray::scalar(2.0)})[0].item<double>() == 4.0);
    CHECK(error_of([] { make_linker("nope"); }).find("unknown linker 'nope'") != std::string::npos);
  }
}

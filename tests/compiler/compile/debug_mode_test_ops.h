// Deliberately broken ops for the DebugMode and NanGuardMode tests (also used
// by tests/codegen/test_debug_mode_jit.cpp): each has one bug DebugMode must
// report, and none has a lowering, so the cpp linker runs their perform.
#pragma once

#include <string>

#include "theano/compile/debug_mode.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/tensor/math.h"

namespace theano::test {

class BrokenOp final : public Op {
 public:
  enum Kind {
    IgnoresStrides,   // perform reads the input as if C-contiguous: 2*x, wrong for a transposed view
    ChangesInput,     // perform adds 1 to its input in place, with no destroy_map
    AliasesInput,     // perform returns its input itself, with no view_map
    LyingShape,       // infer_shape says one more row than perform makes
    Correct,          // 2*x, no bug (infer_shape included)
  };
  explicit BrokenOp(Kind kind) : kind_(kind) {}
  std::string_view type_name() const override { return "BrokenOp"; }
  Props props() const override { return {{"kind", std::int64_t{kind_}}}; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    Var out = inputs.at(0).type()->make_variable();
    return Apply::create(OpPtr(this), std::move(inputs), {out});
  }
  bool has_perform() const override { return true; }
  void perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const override {
    const NDArray& x = in[0];
    switch (kind_) {
      case IgnoresStrides: {
        NDArray r = NDArray::empty(x.shape(), DType::Float64);
        const double* src = static_cast<const double*>(x.data());  // the bug: no strides
        for (std::int64_t i = 0; i < x.size(); ++i) r.data_as<double>()[i] = 2 * src[i];
        out[0] = r;
        break;
      }
      case ChangesInput: {
        NDArray r = x.copy();
        for (std::int64_t i = 0; i < r.size(); ++i) r.data_as<double>()[i] += 1;
        NDArray alias = x;
        alias.assign(r);  // the bug: writes into the input
        out[0] = r;
        break;
      }
      case AliasesInput:
        out[0] = x;  // the bug: a view nobody declared
        break;
      case LyingShape:
      case Correct: {
        NDArray r = x.copy();
        for (std::int64_t i = 0; i < r.size(); ++i) r.data_as<double>()[i] *= 2;
        out[0] = r;
        break;
      }
    }
  }
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& shapes) const override {
    if (kind_ == LyingShape) {
      std::vector<Var> s = shapes.at(0);
      s.at(0) = tensor::add(s.at(0), 1);  // the bug
      return {s};
    }
    if (kind_ == Correct) return {shapes.at(0)};
    return Op::infer_shape(node, shapes);
  }

 private:
  Kind kind_;
};

inline Var broken(BrokenOp::Kind kind, const Var& x) { return OpPtr(new BrokenOp(kind))->apply1({x}); }

/// The DebugModeError `f` throws (fails the test when it throws anything else
/// or nothing); returns its message, and its kind through `kind`.
template <class F>
std::string debug_mode_error(F&& f, DebugModeError::Kind* kind = nullptr) {
  try {
    f();
  } catch (const DebugModeError& e) {
    if (kind) *kind = e.kind();
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a DebugModeError: ") + e.what() + ">";
  }
  return "<no error>";
}

}  // namespace theano::test

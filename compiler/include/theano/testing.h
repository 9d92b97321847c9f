/// \file
/// Test helpers shared by every op's tests (Theano's `verify_grad` and
/// `InferShapeTester._compile_and_check`).
///
/// `verify_grad` compares the symbolic gradient of `sum(fun(inputs) * P)` (P a
/// fixed random projection with entries in [0.5, 1.5)) with central finite
/// differences. The symbolic side seeds `fun`'s output with P through
/// `known_grads`, so it tests exactly the ops inside `fun`. Symbolic inputs get
/// the value's dtype and rank, with static size 1 where the value has size 1
/// (so they may broadcast) and unknown sizes elsewhere. An element fails when
/// its absolute error exceeds `abs_tol` *and* its relative error
/// |a-b|/(|a|+|b|) exceeds `rel_tol`. With the default options, float32 values
/// use eps 3e-4 and tolerances 1e-2 (Theano's per-dtype table); float64 is the
/// recommended dtype.
///
/// `check_infer_shape` gives each output owner's `infer_shape` the input shapes
/// as symbolic int64 scalars (`Shape_i(d)(input)`), compiles those shapes and the
/// outputs, and compares them on `values`. It also refuses an `infer_shape`
/// whose graph needs the node's own outputs.
#pragma once

#include <cstdint>
#include <vector>

#include "theano/function_ref.h"
#include "theano/gradient.h"
#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"

namespace theano::testing {

struct VerifyGradOptions {
  double eps = 1e-7;
  double abs_tol = 1e-4;
  double rel_tol = 1e-4;
  std::uint64_t seed = 42;
};

/// Throws theano::GradientError naming the input, the element, the max abs/rel
/// errors and both gradients when they differ.
void verify_grad(FunctionRef<Var(const std::vector<Var>&)> fun, const std::vector<NDArray>& point,
                 VerifyGradOptions options = {});

/// Throws ShapeError naming the op and both shapes when an output's inferred
/// shape differs from the shape `perform` produced.
void check_infer_shape(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                       const std::vector<NDArray>& values);

}  // namespace theano::testing

// Large fused bodies are emitted blocked (emit/lower/elemwise_blocked.cpp): each
// inner value computed over a block by a shared helper. The code must compute
// what the unfused graph's code computes, on contiguous, strided, broadcast
// and in-place operands, with mixed dtypes and reused buffers.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/blas.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

/// The largest fused body (inner nodes) of `f`'s graph.
std::size_t largest_body(const Function& f) {
  std::size_t r = 0;
  for (Apply* n : f.fgraph().apply_nodes())
    if (const auto* e = dynamic_cast<const Elemwise*>(n->op().get()))
      if (const auto* c = dynamic_cast<const Composite*>(e->scalar_op().get())) r = std::max(r, c->inner_size());
  return r;
}

NDArray ramp(std::vector<std::int64_t> shape, double lo, double step, DType d = DType::Float64) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  std::vector<double> v;
  for (std::int64_t k = 0; k < n; ++k) v.push_back(lo + step * static_cast<double>(k % 97) - 0.001 * static_cast<double>(k / 97));
  return NDArray::from_vector(v, shape).astype(d);
}

Var c32(double v) { return constant(NDArray::full({}, v, DType::Float32)); }

void check_close(const NDArray& want, const NDArray& got) {
  REQUIRE(want.dtype() == got.dtype());
  REQUIRE(want.shape() == got.shape());
  const NDArray w = want.astype(DType::Float64).copy(), g = got.astype(DType::Float64).copy();
  for (std::int64_t k = 0; k < w.size(); ++k) {
    const double a = w.data_as<double>()[k], b = g.data_as<double>()[k];
    CAPTURE(k);
    CHECK(std::abs(a - b) <= 1e-12 * (1 + std::abs(a)));
  }
}

/// fast_run (one blocked fused node) against the unfused graph's code.
void check_blocked(const std::vector<Var>& ins, const Var& out, const std::vector<NDArray>& args) {
  Function fused = function({ins.begin(), ins.end()}, {out}, {.mode = "fast_run"});
  CHECK(largest_body(fused) > 64);  // above kBlockedLocals: the blocked form
  Function unfused = function({ins.begin(), ins.end()}, {out}, {.mode = "unoptimized"});
  check_close(unfused(args)[0], fused(args)[0]);
}

}  // namespace

TEST_SUITE("elemwise blocked") {
  TEST_CASE("a mixed-dtype body of 100+ nodes: contiguous, strided and broadcast operands") {
    Var x = matrix("x", DType::Float64), f = matrix("f", DType::Float32), k = matrix("k", DType::Int32);
    Var b = row("b", DType::Float64);
    Var y = x;
    for (int i = 0; i < 30; ++i)
      y = tanh(y) * 0.9 + cast(f * f, DType::Float64) * 1e-3 + cast(k * k + i, DType::Float64) * 1e-9 + b;
    const NDArray xv = ramp({37, 41}, -2.0, 0.05), fv = ramp({37, 41}, -1.0, 0.02, DType::Float32);
    const NDArray kv = ramp({37, 41}, -40000.0, 997.0, DType::Int32), bv = ramp({1, 41}, 0.5, -0.01);
    check_blocked({x, f, k, b}, y, {xv, fv, kv, bv});
    // Transposed (strided) operands.
    check_blocked({x, f, k, b}, y, {xv.transpose({1, 0}).copy().transpose({1, 0}), fv, kv, bv});
    Var xt = matrix("xt", DType::Float64);
    Var z = transpose(xt);
    for (int i = 0; i < 80; ++i) z = tanh(z) + 0.01 * i;
    check_blocked({xt}, z, {ramp({23, 19}, -1.0, 0.03)});
  }

  TEST_CASE("a float32 body of 100 nodes computes in float, blocked") {
    Var f = vector("f", DType::Float32);
    Var y = f;
    for (int i = 0; i < 100; ++i) y = sigmoid(y * c32(1.5)) - c32(0.25);
    REQUIRE(tensor_type(y)->dtype() == DType::Float32);
    check_blocked({f}, y, {ramp({1000}, -3.0, 0.07, DType::Float32)});
  }

  TEST_CASE("a blocked body overwriting its input in place: tanh^100(dot(a, b))") {
    Var a = matrix("a", DType::Float64), b = matrix("b", DType::Float64);
    Var y = dot(a, b);
    for (int i = 0; i < 100; ++i) y = tanh(y * 1.01);
    check_blocked({a, b}, y, {ramp({30, 20}, -0.5, 0.01), ramp({20, 300}, -0.3, 0.007)});
  }
}

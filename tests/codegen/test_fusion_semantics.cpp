// Fusion does not change values (issue 15): a fused Composite computes each
// inner node as the op would as an Elemwise of its own, in int64 when its
// inputs and output are integers (so `k + k` wraps), else in double, and
// converts the value to the node's dtype (so `cast(k, uint8)` wraps to
// [0, 255]) by the numpy conversions (float -> integer out of range included).
// Each graph is checked three ways against perform over the unoptimized graph:
// the fused node's perform (Composite::evaluate), its generated code
// (function in fast_run) and the generated code of the unfused graph.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace theano;
using namespace theano::tensor;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

NDArray ints(std::vector<std::int64_t> v, DType d = DType::Int64) {
  const auto n = static_cast<std::int64_t>(v.size());
  return NDArray::from_vector(v, {n}).astype(d);
}
NDArray reals(std::vector<double> v, DType d = DType::Float64) {
  const auto n = static_cast<std::int64_t>(v.size());
  return NDArray::from_vector(v, {n}).astype(d);
}

/// Same dtype, shape and bits (NaN equal to NaN).
void check_same(const NDArray& want, const NDArray& got, const std::string& what) {
  CAPTURE(what);
  REQUIRE(want.dtype() == got.dtype());
  REQUIRE(want.shape() == got.shape());
  const NDArray w = want.copy(), g = got.copy();
  for (std::int64_t k = 0; k < w.size(); ++k) {
    CAPTURE(k);
    if (is_float(w.dtype())) {
      const double a = w.astype(DType::Float64).data_as<double>()[k];
      const double b = g.astype(DType::Float64).data_as<double>()[k];
      CHECK(((std::isnan(a) && std::isnan(b)) || a == b));
      if (!((std::isnan(a) && std::isnan(b)) || a == b)) MESSAGE("want " << a << ", got " << b);
    } else {
      const std::int64_t a = w.astype(DType::Int64).data_as<std::int64_t>()[k];
      const std::int64_t b = g.astype(DType::Int64).data_as<std::int64_t>()[k];
      CHECK(a == b);
    }
  }
}

/// `out` over `inputs` fused by fast_run into one Elemwise{Composite} (or a
/// reduction with a fused op) agrees bit for bit with perform over the
/// unoptimized graph, through the fused node's perform, its generated code and
/// the unfused graph's generated code.
void check_fusion_keeps_values(const std::vector<Var>& inputs, const Var& out, const std::vector<NDArray>& args) {
  auto fg = std::make_shared<FunctionGraph>(inputs, std::vector<Var>{out});
  std::vector<NDArray> want(1);
  make_perform_linker()->make_thunk(fg)->run(args, want);

  const std::vector<In> ins(inputs.begin(), inputs.end());
  Function fused = function(ins, {out}, {.mode = "fast_run"});
  const std::vector<Apply*> order = fused.fgraph().toposort();
  REQUIRE(order.size() == 1);  // one fused node
  const Apply& node = *order[0];
  const ScalarOp* s = nullptr;
  if (const auto* e = dynamic_cast<const Elemwise*>(node.op().get())) s = e->scalar_op().get();
  if (const auto* r = dynamic_cast<const CAReduce*>(node.op().get())) s = r->pre().get();
  REQUIRE(dynamic_cast<const Composite*>(s) != nullptr);
  CAPTURE(node.op()->name());

  // The fused node's perform, on the arguments in its input order.
  const std::vector<Var>& fg_inputs = fused.fgraph().inputs();
  std::vector<NDArray> node_in;
  for (const Var& v : node.inputs()) {
    std::size_t i = 0;
    while (i < fg_inputs.size() && fg_inputs[i] != v) ++i;
    REQUIRE(i < args.size());
    node_in.push_back(args[i]);
  }
  std::vector<NDArray> node_out(1);
  node.op()->perform(node, node_in, node_out);
  check_same(want[0], node_out[0], "the fused node's perform");
  check_same(want[0], fused(args)[0], "the fused node's generated code");
  Function unfused = function(ins, {out}, {.mode = "unoptimized"});
  check_same(want[0], unfused(args)[0], "the unfused graph's generated code");
}

}  // namespace

TEST_SUITE("fusion semantics") {
  TEST_CASE("an int64 node inside a float Composite wraps as it does alone: x + (k + k), k3 * k2") {
    Var x = vector("x", DType::Float64), k = vector("k", DType::Int64), j = vector("j", DType::Int64);
    const NDArray xv = reals({0.5, 1.0, -2.0, 3.0});
    const NDArray kv = ints({std::int64_t{1} << 62, kMax, kMin, 3});
    const NDArray jv = ints({5, 1 << 20, -7, kMax});
    check_fusion_keeps_values({x, k}, x + (k + k), {xv, kv});
    check_fusion_keeps_values({x, k, j}, cast(k * j, DType::Float64) * x, {xv, kv, jv});
  }

  TEST_CASE("narrow integer nodes are converted to their dtype inside the loop") {
    Var x = vector("x", DType::Float64), k = vector("k", DType::Int64), n = vector("n", DType::Int32);
    const NDArray xv = reals({1.0, 2.0, 0.5, -1.0});
    const NDArray kv = ints({kMax, kMin, 256 + 7, -1});
    const NDArray nv = ints({std::numeric_limits<std::int32_t>::min(), -9, 7, 1}, DType::Int32);
    // cast(INT64_MAX, uint8) is 255, cast(INT64_MIN, int32) is 0.
    check_fusion_keeps_values({x, k}, cast(k, DType::UInt8) * x, {xv, kv});
    check_fusion_keeps_values({x, k}, cast(k, DType::Int32) + x, {xv, kv});
    // abs(INT32_MIN) wraps in int32 before the division.
    check_fusion_keeps_values({x, n}, int_div(abs(n), 4) * x, {xv, nv});
    // An all-integer Composite: int32 arithmetic wraps at 32 bits.
    check_fusion_keeps_values({n, k}, (n * n + n) * cast(k, DType::Int32), {nv, kv});
  }

  TEST_CASE("float -> integer conversions out of range follow numpy, fused or not") {
    Var x = vector("x", DType::Float64);
    const double inf = std::numeric_limits<double>::infinity();
    const NDArray xv = reals({300.7, -1e300, std::nan(""), inf, 4294967553.0, -0.9, 1e19, 2.5e9});
    for (DType d : {DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::UInt32, DType::Int64,
                    DType::UInt64, DType::Bool}) {
      CAPTURE(dtype_name(d));
      check_fusion_keeps_values({x}, cast(cast(x * 1.0 + 0.0, d), DType::Float64) + 0.5, {xv});
    }
  }

  TEST_CASE("invert of a bool inside a Composite is logical not") {
    Var x = vector("x", DType::Float64);
    const NDArray xv = reals({-1.0, 0.0, 2.0, 5.0});
    check_fusion_keeps_values({x}, switch_(invert(gt(x, 0.0)), x * 2.0, x + 1.0), {xv});
    check_fusion_keeps_values({x}, cast(invert(gt(x, 1.0)), DType::Float64) * x, {xv});
  }

  TEST_CASE("uint64 values past 2^63 convert to double as unsigned inside a Composite") {
    Var x = vector("x", DType::Float64), u = vector("u", DType::UInt64);
    const NDArray xv = reals({1.0, 2.0, 3.0});
    NDArray uv = NDArray::empty({3}, DType::UInt64);
    const std::uint64_t big[3] = {~std::uint64_t{0}, std::uint64_t{1} << 63, 12345};
    std::memcpy(uv.data_as<std::uint64_t>(), big, sizeof big);
    check_fusion_keeps_values({x, u}, cast(u + u, DType::Float64) * x, {xv, uv});
  }

  TEST_CASE("a reduction with a fused mixed-domain op: sum(x * (k + k))") {
    Var x = vector("x", DType::Float64), k = vector("k", DType::Int64);
    const NDArray xv = reals({0.5, 1.0, -2.0, 3.0});
    const NDArray kv = ints({std::int64_t{1} << 62, kMax, kMin, 3});
    check_fusion_keeps_values({x, k}, sum(x * cast(k + k, DType::Float64)), {xv, kv});
  }

  TEST_CASE("a float32 value inside a fused loop is rounded to float32: cast(cast(x, float32), float64) * 3") {
    // 1 + 2^-30 is 1 in float32; 1 + 2^-20 is a float32 whose square is not.
    Var x = vector("x", DType::Float64), f = vector("f", DType::Float32);
    const double e30 = std::ldexp(1.0, -30), e20 = std::ldexp(1.0, -20);
    const NDArray xv = reals({1.0 + e30, -1.0 - 3 * e30, 1e-50, 3.0e38 * 1.5, 0.1});
    check_fusion_keeps_values({x}, cast(cast(x, DType::Float32), DType::Float64) * 3.0, {xv});
    check_fusion_keeps_values({x}, cast(cast(x, DType::Float32) * cast(x, DType::Float32), DType::Float64) - x, {xv});
    // A float32 intermediate of a mixed-dtype Composite.
    const NDArray fv = reals({1.0 + e20, -1.0 - e20, 3.0, 1.0 + 3 * e20, 0.5}, DType::Float32);
    check_fusion_keeps_values({x, f}, cast(f * f + f, DType::Float64) * x, {xv, fv});
  }

  TEST_CASE("a float32 op inside a mixed-dtype loop computes as its unfused code does: cast(tanh(f), float64) + x") {
    Var x = vector("x", DType::Float64), f = vector("f", DType::Float32);
    std::vector<double> fvals, xvals;
    for (int k = 0; k < 64; ++k) {
      fvals.push_back(-3.0 + 0.0937 * k);
      xvals.push_back(0.25 * k);
    }
    const NDArray fv = reals(fvals, DType::Float32), xv = reals(xvals);
    for (const Var& out : {cast(tanh(f), DType::Float64) + x, cast(exp(f) * f, DType::Float64) * x}) {
      Function fused = function({x, f}, {out}, {.mode = "fast_run"});
      REQUIRE(fused.fgraph().toposort().size() == 1);
      Function unfused = function({x, f}, {out}, {.mode = "unoptimized"});
      REQUIRE(unfused.fgraph().toposort().size() > 1);
      check_same(unfused({xv, fv})[0], fused({xv, fv})[0], "fused vs unfused generated code");
    }
  }
}

// Memory safety from input data (issue 15): sizes near the int64 limit are
// refused with a ValueError by perform AND by generated code (one rule,
// runtime/include/theano/runtime/kernels/shape_rules.h), never turned into a view
// larger than its buffer; more than THEANO_MAX_NDIM dimensions are a TypeError
// everywhere an array or a tensor type is made.
#include <doctest/doctest.h>
#include <theano/compile/function.h>
#include <theano/runtime/dlpack.h>
#include <theano/runtime/error.h>
#include <theano/runtime/memory_error.h>
#include <theano/runtime/npy.h>
#include <theano/runtime/kernels/shape_rules.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/join.h>
#include <theano/tensor/math.h>
#include <theano/tensor/random.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/shape.h>
#include <theano/tensor/subtensor.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codegen/lowering_test_util.h"
#include "huge_alloc.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

/// An exact 0-d int64 (a double could not hold the values near the limit).
NDArray sc(std::int64_t v) {
  NDArray a = NDArray::empty({}, DType::Int64);
  *a.data_as<std::int64_t>() = v;
  return a;
}

}  // namespace

TEST_SUITE("shape safety") {
  TEST_CASE("the shared rules: checked products, sums and reshape") {
    std::int64_t r = 0, bad = 0, size = 0;
    CHECK(theano_checked_mul(std::int64_t{1} << 62, 2, &r) == THEANO_RULE_OVERFLOW);
    CHECK(theano_checked_mul(std::int64_t{1} << 61, 2, &r) == THEANO_RULE_OK);
    CHECK(r == std::int64_t{1} << 62);
    CHECK(theano_checked_add(kMax, 1, &r) == THEANO_RULE_OVERFLOW);
    // 4 * (2^62 + 1) wraps to 4 in int64: the old check let it pass.
    const std::int64_t req[2] = {4, (std::int64_t{1} << 62) + 1};
    std::int64_t out[2];
    CHECK(theano_reshape_rule(4, req, 2, 8, out, &bad) == THEANO_RULE_OVERFLOW);
    CHECK(bad == 1);
    // A zero entry does not excuse the others' product: strides must fit.
    const std::int64_t zeros[3] = {0, std::int64_t{1} << 40, std::int64_t{1} << 40};
    CHECK(theano_shape_size(zeros, 3, 8, &size, &bad) == THEANO_RULE_OVERFLOW);
    const std::int64_t fine[3] = {0, 1 << 20, 1 << 20};
    CHECK(theano_shape_size(fine, 3, 8, &size, &bad) == THEANO_RULE_OK);
    CHECK(size == 0);
    const std::int64_t split[3] = {kMax, kMax, 6};
    CHECK(theano_split_rule(4, split, 3, &bad) == THEANO_RULE_OVERFLOW);
    const std::int64_t minus[2] = {-1, 0};
    CHECK(theano_reshape_rule(0, minus, 2, 8, out, &bad) == THEANO_RULE_NOT_DIVISIBLE);
    std::int64_t n = 0;
    CHECK(theano_arange_length_int(std::numeric_limits<std::int64_t>::min(), kMax, 1, &n) == THEANO_RULE_TOO_LONG);
    CHECK(theano_arange_length_real(0, 1e300, 1, &n) == THEANO_RULE_TOO_LONG);
  }

  TEST_CASE("reshape into a shape whose product wraps to the input size is a ValueError") {
    Var x = dvector("x");
    Var s = lvector("s");
    Var r = reshape(x, s, 2);
    const NDArray xv = NDArray::from_list<double>({1, 2, 3, 4});
    const NDArray sv = ivec({4, (std::int64_t{1} << 62) + 1});
    check_error<ValueError>({x, s}, {r}, {xv, sv}, "Reshape", "does not fit in int64");
    // Read through the view afterwards: before the fix this read heap memory.
    Var elem = r[0][std::int64_t{1} << 40];
    check_error<ValueError>({x, s}, {elem}, {xv, sv}, "Reshape");
    // Through function(), with the input overwritable in place.
    In xin(x);
    xin.mutable_ = true;
    Function f = function({xin, s}, {set_subtensor(r[0][5], 7.0)});
    CHECK_THROWS_AS(f({xv.copy(), sv}), ValueError);
    // A -1 beside huge entries, and a size below -1.
    check_error<ValueError>({x, s}, {r}, {xv, ivec({-1, kMax})}, "Reshape");
    check_error<ValueError>({x, s}, {r}, {xv, ivec({-2, -2})}, "Reshape", "invalid size -2");
    // Still fine: a valid reshape and a 0-size one with a -1 and a zero.
    check_lowering({x, s}, {r}, {xv, ivec({2, 2})});
    check_lowering({x, s}, {r}, {xv, ivec({-1, 2})});
  }

  TEST_CASE("split with sizes summing past int64 is a ValueError") {
    Var x = dvector("x");
    Var s = lvector("s");
    std::vector<Var> parts = split(x, s, 3, 0);
    const NDArray xv = NDArray::from_list<double>({1, 2, 3, 4, 5, 6});
    check_error<ValueError>({x, s}, {parts[2]}, {xv, ivec({kMax, kMax, 6})}, "Split", "does not fit in int64");
    check_error<ValueError>({x, s}, {parts[0]}, {xv, ivec({kMax, 2, -kMax + 4})}, "Split", "negative");
    check_error<ShapeError>({x, s}, {parts[0]}, {xv, ivec({1, 2, 4})}, "Split",
                            "sum to 7, but dimension 0 of the input has size 6");
    check_lowering({x, s}, {parts[0], parts[1], parts[2]}, {xv, ivec({1, 2, 3})});
  }

  TEST_CASE("join of empty arrays whose lengths sum past int64 is a ValueError") {
    Var a = bmatrix("a"), b = bmatrix("b");
    Var j = join(0, {a, b, a});
    const std::int64_t big = std::int64_t{1} << 62;
    // (2^62, 0) int8 arrays hold no element, so they are cheap to make.
    const NDArray e = NDArray::from_strided(nullptr, nullptr, DType::Int8, {big, 0}, {1, 1});
    check_error<ValueError>({a, b}, {j}, {e, e}, "Join", "does not fit in int64");
    // Sizes that differ off the axis: both are said.
    check_error<ShapeError>({a, b}, {j}, {NDArray::zeros({2, 3}, DType::Int8), NDArray::zeros({2, 4}, DType::Int8)},
                            "Join", "along dimension 1, input 0 has size 3 and input 1 has size 4");
  }

  TEST_CASE("empty arrays with a huge dimension: ops that compute in a wider dtype accept them") {
    // A float32 (0, 2^61 - 1) array is valid (its byte strides fit in int64),
    // but the same shape in float64 is not: perform, which computes elementwise
    // ops in int64 / float64 and reductions in their accumulator dtype, must
    // not convert an empty input to a wider dtype (it raised "array too big").
    const std::int64_t big = (std::int64_t{1} << 61) - 1;
    const NDArray e32 = NDArray::from_strided(nullptr, nullptr, DType::Float32, {0, big}, {4, 4});
    const NDArray e8 = NDArray::from_strided(nullptr, nullptr, DType::Int8, {0, big * 2}, {1, 1});
    Var x = fmatrix("x"), b = bmatrix("b");
    const NDArray b8 = NDArray::from_strided(nullptr, nullptr, DType::Int8, {0, big}, {1, 1});
    check_lowering({x, b}, {x * 2.0f, exp(x), x + cast(b, DType::Float32)}, {e32, b8});
    check_lowering({b}, {b + b, b * b - b, b.sum(), b.sum(Axes{1}), b.max(Axes{1})},
                   {e8});  // int8 (0, 2^62 - 2): computed in int64
    check_lowering({b}, {cast(b, DType::Int32) * 3}, {b8});
    check_lowering({x}, {x.sum(Axes{1}), x.max(Axes{1}), x.mean(Axes{1}), x.sum(), prod(x)}, {e32});
    check_lowering({x}, {(x * 2.0f).sum(Axes{1})}, {e32});  // a fused reduction
    // Views of an array with no data: the generated Subtensor keeps the null
    // base pointer of an empty view, as NDArray::index / slice do (no
    // arithmetic on a null pointer).
    const NDArray tall = NDArray::from_strided(nullptr, nullptr, DType::Float32, {big, 0}, {4, 4});
    Var v = x[5], w = x[slice(2, 9)];
    auto thunk = lowered_thunk({x}, {v, w});
    std::vector<NDArray> out(2);
    const std::vector<NDArray> in{tall};
    thunk->run(in, out);
    CHECK(out[0].shape() == std::vector<std::int64_t>{0});
    CHECK(out[0].data() == nullptr);
    CHECK(out[1].shape() == std::vector<std::int64_t>{7, 0});
    CHECK(out[1].data() == nullptr);
  }

  TEST_CASE("broadcasting: one rule per kind, the same error from perform and generated code") {
    // Elemwise (theano_broadcast_rule): a declared-1 dimension with another
    // size, and two sizes that differ.
    Var x = dmatrix("x"), r = drow("r");
    const std::string bcast = "at dimension 0, input 1 has size 2: a dimension declared broadcastable";
    check_error<ShapeError>({x, r}, {x + r}, {NDArray::zeros({2, 3}), NDArray::zeros({2, 3})}, "Elemwise", bcast);
    check_error<ShapeError>({x, r}, {x * x + r}, {NDArray::zeros({2, 3}), NDArray::zeros({1, 4})}, "Elemwise",
                            "at dimension 1, input 0 has size 3 but input 1 has size 4");
    // Alloc, IncSubtensor and random parameters (theano_broadcast_to_rule).
    const std::string to = "cannot be broadcast to the target shape at its dimension ";
    Var v = dvector("v"), n = lscalar("n"), m = lscalar("m");
    check_error<ShapeError>({v, n, m}, {alloc(v, {n, m})}, {NDArray::zeros({1}), sc(2), sc(3)}, "Alloc", to + "0");
    Var y = dvector("y");
    check_error<ShapeError>({x, y}, {set_subtensor(x[slice(0, 2)], y)}, {NDArray::zeros({3, 3}), NDArray::zeros({2})},
                            "IncSubtensor", to + "0");
    check_lowering({v, n, m}, {alloc(v, {n, m})}, {NDArray::zeros({3}), sc(2), sc(3)});
    Var st = tensor::tensor(DType::UInt64, {std::nullopt}, "state"), mu = dvector("mu");
    auto [ns, draw] =
        random_function(Distribution::Normal, st, RandomSize(std::vector<std::int64_t>{3}), mu, 1.0, DType::Float64);
    const NDArray state = NDArray::from_vector(std::vector<std::uint64_t>{1, 0}, {2});
    check_error<ShapeError>({st, mu}, {draw}, {state, NDArray::zeros({2})}, "RandomFunction", to + "0");
    check_lowering({st, mu}, {draw, ns}, {state, NDArray::zeros({1})});
  }

  TEST_CASE("alloc, eye and arange of sizes past int64 are ValueErrors naming the node") {
    Var n = lscalar("n"), m = lscalar("m");
    Var v = dscalar("v");
    Var al = alloc(v, {n, m});
    const std::int64_t big = std::int64_t{1} << 40;
    check_error<ValueError>({v, n, m}, {al}, {NDArray::full({}, 1.0, DType::Float64), sc(big), sc(big)}, "Alloc",
                            "does not fit in int64");
    Var ey = eye(n, m);
    check_error<ValueError>({n, m}, {ey}, {sc(big), sc(big)}, "Eye");
    Var a = lscalar("a"), b = lscalar("b"), s = lscalar("s");
    Var ar = arange(a, b, s);
    check_error<ValueError>({a, b, s}, {ar}, {sc(std::numeric_limits<std::int64_t>::min()), sc(kMax), sc(1)}, "ARange",
                            "more elements than int64 holds");
    check_error<ValueError>({a, b, s}, {ar}, {sc(0), sc(5), sc(0)}, "ARange", "step must not be zero");
  }

  TEST_CASE("alloc of a valid size no machine holds is a MemoryError naming the node, shape and bytes" *
            doctest::skip(kSkipHugeAllocations)) {
    // 2^40 float64: 8 TiB, the size arithmetic fine, the allocation not.
    Var n = lscalar("n");
    Var v = dscalar("v");
    const std::int64_t big = std::int64_t{1} << 40;
    check_error<MemoryError>({v, n}, {alloc(v, {n})}, {NDArray::full({}, 1.0, DType::Float64), sc(big)}, "Alloc",
                             "out of memory: cannot allocate 8796093022208 bytes for ");
    check_error<MemoryError>({v, n}, {alloc(v, {n})}, {NDArray::full({}, 1.0, DType::Float64), sc(big)}, "Alloc",
                             "array of shape (1099511627776,)");
    Var z = zeros(std::vector<TensorLike>{n, n});
    check_error<MemoryError>({n}, {z}, {sc(std::int64_t{1} << 21)}, "",
                             "out of memory: cannot allocate 35184372088832 bytes for ");
  }

  TEST_CASE("more than THEANO_MAX_NDIM dimensions is a TypeError naming the limit") {
    const std::vector<std::int64_t> shape17(17, 1);
    CHECK_THROWS_WITH_AS(TensorType::make(DType::Float64, StaticShape(17, std::nullopt)),
                         doctest::Contains("at most 16"), TypeError);
    CHECK_NOTHROW(TensorType::make(DType::Float64, StaticShape(16, std::nullopt)));
    CHECK_THROWS_WITH_AS(NDArray::zeros(shape17, DType::Float64), doctest::Contains("at most 16"), TypeError);
    NDArray a16 = NDArray::zeros(std::vector<std::int64_t>(16, 1), DType::Float64);
    CHECK_THROWS_AS(a16.reshape(shape17), TypeError);
    CHECK_THROWS_AS(a16.expand_dims(0), TypeError);
    // A broadcast view claiming more elements than int64 counts.
    CHECK_THROWS_AS(NDArray::zeros({1}, DType::Float64).broadcast_to({std::int64_t{1} << 40, std::int64_t{1} << 40}),
                    ValueError);
    // A 17-d function input cannot even be declared, so the ABI's fixed
    // shape[16] is never overrun.
    CHECK_THROWS_AS(tensor::tensor(DType::Float64, StaticShape(17, std::nullopt), "x17"), TypeError);
    CHECK_THROWS_AS(reshape(dvector("v"), shape17), TypeError);
    // DLPack and .npy imports refuse them too.
    std::vector<std::int64_t> dl_shape(17, 1);
    double one = 1;
    DLManagedTensor t{};
    t.dl_tensor.data = &one;
    t.dl_tensor.device = {kDLCPU, 0};
    t.dl_tensor.ndim = 17;
    t.dl_tensor.dtype = {kDLFloat, 64, 1};
    t.dl_tensor.shape = dl_shape.data();
    CHECK_THROWS_WITH_AS(from_dlpack(&t), doctest::Contains("at most 16"), TypeError);
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
    for (int i = 0; i < 17; ++i) header += "1, ";
    header += "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string file = std::string("\x93NUMPY\x01\x00", 8);
    file += static_cast<char>(header.size() & 0xff);
    file += static_cast<char>(header.size() >> 8);
    file += header;
    file += std::string(8, '\0');
    const auto* bytes = reinterpret_cast<const std::byte*>(file.data());
    CHECK_THROWS_WITH_AS(load_npy_bytes({bytes, file.size()}), doctest::Contains("at most 16"), TypeError);
  }

  TEST_CASE("slices with steps near the int64 limit: one rule, no overflowing stride") {
    // stride * step leaves int64 for these steps; the slice has one element.
    Var x = dvector("x");
    Var st = lscalar("st");
    Var r = x[{slice(none, none, st)}];
    const NDArray xv = NDArray::from_list<double>({1, 2, 3});
    for (std::int64_t step : {std::int64_t{1} << 62, -(std::int64_t{1} << 62), kMax}) {
      CAPTURE(step);
      check_lowering({x, st}, {r}, {xv, sc(step)});
      const NDArray v = xv.slice(0, std::nullopt, std::nullopt, step);
      CHECK(v.shape() == std::vector<std::int64_t>{1});
    }
    check_error<ValueError>({x, st}, {r}, {xv, sc(std::numeric_limits<std::int64_t>::min())}, "Subtensor",
                            "is out of range");
  }
}

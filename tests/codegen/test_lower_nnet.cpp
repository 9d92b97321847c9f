// Lowerings of Softmax, LogSoftmax, CrossentropyCategorical1Hot and
// CrossentropyCategorical1HotGrad: generated code against perform.
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/config.h>
#include <theano/fgraph/function_graph.h>
#include <theano/runtime/error.h>
#include <theano/tensor/nnet.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lowering_test_util.h"
#include "test_util.h"

using namespace theano;
using namespace theano::tensor;
using namespace theano::test;

namespace {

using Dims = std::vector<std::int64_t>;

/// Integer labels in [0, k) of `dtype`.
NDArray labels(std::mt19937_64& rng, std::int64_t n, std::int64_t k, DType dtype) {
  return random_array(rng, {n}, dtype, 0, static_cast<double>(k));
}

/// check_error, and perform's message says `what` too (the rules and their
/// words are one text: theano/runtime/kernels/crossentropy_rules.h).
template <class E>
void check_same_words(const std::shared_ptr<FunctionGraph>& fg, const Thunk& cpp, const std::vector<NDArray>& values,
                      const std::string& op, const std::string& what) {
  check_error<E>(fg, cpp, values, op, what);
  std::vector<NDArray> out(fg->outputs().size());
  auto ref = make_perform_linker()->make_thunk(fg);
  const std::string msg = error_of([&] { ref->run(values, out); });
  INFO(msg);
  CHECK(msg.find(op + ": " + what) != std::string::npos);
}

}  // namespace

TEST_SUITE("lower nnet") {
  TEST_CASE("Softmax / LogSoftmax: every axis of ranks 1-4, float64 and float32") {
    std::mt19937_64 rng(41);
    const std::vector<std::vector<Dims>> shapes = {
        {},
        {Dims{5}, Dims{1}, Dims{0}, Dims{100}, Dims{37}},
        {Dims{3, 4}, Dims{0, 3}, Dims{3, 0}, Dims{1, 7}, Dims{7, 1}, Dims{20, 50}, Dims{4, 300}, Dims{3, 1100}},
        {Dims{2, 3, 4}, Dims{2, 0, 3}, Dims{3, 20, 17}, Dims{1, 1, 1}},
        {Dims{2, 3, 2, 5}, Dims{1, 2, 1, 40}},
    };
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      std::vector<Var> ins, outs;
      for (int nd = 1; nd <= 4; ++nd) {
        ins.push_back(any_tensor(dt, nd, "x" + std::to_string(nd)));
        for (int a = 0; a < nd; ++a) {
          outs.push_back(nnet::softmax(ins.back(), a));
          outs.push_back(nnet::log_softmax(ins.back(), a));
        }
      }
      // Negative axes resolve to the same ops.
      outs.push_back(nnet::softmax(ins[1], -1));
      outs.push_back(nnet::log_softmax(ins[2], -2));
      std::vector<std::vector<NDArray>> sets;
      for (std::size_t k = 0; k < 8; ++k) {
        std::vector<NDArray> set;
        for (int nd = 1; nd <= 4; ++nd) {
          const auto& opts = shapes[static_cast<std::size_t>(nd)];
          // Large magnitudes: only the max-subtracted form stays finite.
          const double scale = k % 2 ? 60 : 3;
          set.push_back(random_array(rng, opts[k % opts.size()], dt, -scale, scale));
        }
        sets.push_back(set);
      }
      // float32: an absolute tolerance of a few ulp of the largest |x| (60).
      check_sets(ins, outs, sets, {.atol32 = 3e-5});
    }
  }

  TEST_CASE("Softmax / LogSoftmax: infinities, NaN, broadcast input") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (DType dt : {DType::Float64, DType::Float32}) {
      Var x = any_tensor(dt, 2, "x");
      const std::vector<Var> outs{nnet::softmax(x, 1), nnet::log_softmax(x, 1), nnet::softmax(x, 0),
                                  nnet::log_softmax(x, 0)};
      // Rows: ordinary, one -inf, all -inf, one +inf, a NaN.
      NDArray v = NDArray::from_list<double>({1, 2, 3, -inf, 0, 1, -inf, -inf, -inf, inf, 1, 2, 1, nan, 2})
                      .reshape({5, 3})
                      .astype(dt);
      check_sets({x}, outs, {{v}}, {.atol32 = 1e-6});
      // A row broadcast to 4 rows (stride 0 along axis 0).
      std::mt19937_64 rng(43);
      NDArray row = random_array(rng, {1, 6}, dt, -2, 2);
      const std::int64_t isz = static_cast<std::int64_t>(dtype_size(dt));
      NDArray b = NDArray::from_strided(row.owner(), row.data(), dt, {4, 6}, {0, isz});
      check_sets({x}, outs, {{b}}, {.atol32 = 1e-6});
      // Huge values: exp overflows unless the true lane maximum is subtracted
      // (it sits at each position of the 16-accumulator loop in turn).
      NDArray big = random_array(rng, {20, 20}, DType::Float64, -5, 5);
      for (std::int64_t i = 0; i < 20; ++i) big.data_as<double>()[i * 20 + i] = 800;
      check_sets({x}, outs, {{big.astype(dt)}}, {.atol32 = 1e-6});
    }
  }

  TEST_CASE("Softmax / LogSoftmax: perform runs the generated code's kernels (softmax.h), float32 bit for bit") {
    // One text: perform and generated code fold in the same order, in double.
    // float32 results are equal bit for bit; float64 ones differ only where
    // the JIT's vectorized exp (libmvec) and perform's libm exp round
    // differently, by a few ulp.
    const double inf = std::numeric_limits<double>::infinity();
    std::mt19937_64 rng(47);
    // The host's CPU, and the generic x86-64 (SSE only): the JIT may only call
    // the libmvec variants the target can run (a forced-width loop called the
    // AVX2 exp with its arguments in xmm registers: wrong sums).
    for (const char* cxxflags : {"", "-march=x86-64"})
    for (DType dt : {DType::Float32, DType::Float64}) {
      CAPTURE(cxxflags);
      Config target = config();
      target.flags["cxxflags"] = cxxflags;
      ConfigGuard guard(target);
      CAPTURE(dtype_name(dt));
      Var x = any_tensor(dt, 2, "x");
      // Axis 1: the lane kernels (contiguous or strided); axis 0: the column path (C-contiguous inputs).
      const std::vector<Var> outs{nnet::softmax(x, 1), nnet::log_softmax(x, 1), nnet::softmax(x, 0),
                                  nnet::log_softmax(x, 0)};
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, outs);
      // The default optimization level: the exp loops are vectorized (libmvec), as in a user's function.
      auto cpp = codegen::CLinker().allow_perform_fallback(false).make_thunk(fg);
      auto ref = make_perform_linker()->make_thunk(fg);
      std::vector<NDArray> values;
      for (const Dims& s : {Dims{1, 1}, Dims{7, 1}, Dims{1, 37}, Dims{16, 16}, Dims{33, 250}, Dims{300, 17}}) {
        for (double scale : {1e-3, 1.0, 30.0, 1e4}) {
          NDArray v = random_array(rng, s, DType::Float64, -scale, scale);
          // -inf entries: every 5th element of the first row and column.
          for (std::int64_t j = 0; j < s[1]; j += 5) v.data_as<double>()[j] = -inf;
          for (std::int64_t i = 1; i < s[0]; i += 5) v.data_as<double>()[i * s[1]] = -inf;
          values.push_back(v.astype(dt));
        }
      }
      // A transposed (strided) input.
      values.push_back(random_array(rng, {40, 23}, DType::Float64, -5, 5).astype(dt).transpose({1, 0}));
      int64_t worst = 0;
      for (const NDArray& v : values) {
        CAPTURE(shape_to_string(v.shape()));
        const NDArray xc = v.astype(DType::Float64);  // C order, as the outputs
        std::vector<NDArray> a(outs.size()), b(outs.size());
        const std::vector<NDArray> in{v};
        ref->run(in, a);
        cpp->run(in, b);
        for (std::size_t k = 0; k < outs.size(); ++k) {
          CAPTURE(k);
          REQUIRE(a[k].dtype() == dt);
          REQUIRE(b[k].dtype() == dt);
          const NDArray ac = a[k].astype(DType::Float64), bc = b[k].astype(DType::Float64);
          for (std::int64_t i = 0; i < ac.size(); ++i) {
            const double p = ac.data_as<double>()[i], q = bc.data_as<double>()[i];
            if (dt == DType::Float32) {
              // Same bits (NaN for an all -inf lane in both).
              const float pf = static_cast<float>(p), qf = static_cast<float>(q);
              std::uint32_t pb, qb;
              std::memcpy(&pb, &pf, 4);
              std::memcpy(&qb, &qf, 4);
              if (pb != qb && !(std::isnan(p) && std::isnan(q)))
                CHECK_MESSAGE(pb == qb, "element " << i << ": perform " << p << ", generated " << q);
            } else if (!(std::isnan(p) && std::isnan(q)) && p != q) {
              // The distance in ulp of the largest magnitude (the log form cancels x - lse).
              const double mag = std::max({std::fabs(p), std::fabs(q), std::fabs(xc.data_as<double>()[i])});
              const double ulp = std::nextafter(mag, inf) - mag;
              const auto d = static_cast<std::int64_t>(std::fabs(p - q) / ulp + 0.5);
              worst = std::max(worst, d);
            }
          }
        }
      }
      MESSAGE(dtype_name(dt) << ": the largest float64 difference is " << worst << " ulp");
      CHECK(worst <= 16);
    }
  }

  TEST_CASE("Softmax rejects integer inputs at graph construction") {
    CHECK_THROWS_AS(nnet::softmax(any_tensor(DType::Int32, 2, "x")), TypeError);
    CHECK_THROWS_AS(nnet::log_softmax(any_tensor(DType::Int64, 1, "x")), TypeError);
  }

  TEST_CASE("CrossentropyCategorical1Hot and its gradient: dtypes, label dtypes, shapes") {
    std::mt19937_64 rng(47);
    for (DType dt : {DType::Float64, DType::Float32}) {
      CAPTURE(dtype_name(dt));
      for (DType lt : {DType::Int64, DType::Int32, DType::UInt8, DType::Int8}) {
        CAPTURE(dtype_name(lt));
        for (DType gt : {DType::Float64, DType::Float32}) {
          CAPTURE(dtype_name(gt));
          Var c = any_tensor(dt, 2, "c"), l = any_tensor(lt, 1, "l"), g = any_tensor(gt, 1, "g");
          Var y = nnet::crossentropy_categorical_1hot(c, l);
          Var gc = OpPtr(new nnet::CrossentropyCategorical1HotGrad())->apply1({g, c, l});
          std::vector<std::vector<NDArray>> sets;
          for (const Dims& s : {Dims{5, 3}, Dims{0, 3}, Dims{4, 1}, Dims{1, 10}, Dims{40, 70}, Dims{0, 0}}) {
            sets.push_back({random_array(rng, s, dt, 0.05, 1.0), labels(rng, s[0], s[1], lt),
                            random_array(rng, {s[0]}, gt, -2, 2)});
          }
          check_sets({c, l, g}, {y, gc}, sets, {.atol32 = 1e-7});
        }
      }
    }
    // The categorical_crossentropy helper with integer labels is the same op.
    Var c = any_tensor(DType::Float64, 2, "c"), l = any_tensor(DType::Int64, 1, "l");
    std::mt19937_64 rng2(53);
    check_sets({c, l}, {nnet::categorical_crossentropy(c, l), nnet::categorical_crossentropy(nnet::softmax(c), l)},
               {{random_array(rng2, {6, 4}, DType::Float64, 0.1, 1), labels(rng2, 6, 4, DType::Int64)}},
               {.atol32 = 1e-7});
  }

  TEST_CASE("CrossentropyCategorical1Hot: labels out of range are IndexErrors, row mismatches ShapeErrors") {
    for (DType lt : {DType::Int64, DType::Int32, DType::UInt8}) {
      CAPTURE(dtype_name(lt));
      Var c = any_tensor(DType::Float64, 2, "c"), l = any_tensor(lt, 1, "l"), g = any_tensor(DType::Float64, 1, "g");
      auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{c, l},
                                                std::vector<Var>{nnet::crossentropy_categorical_1hot(c, l)});
      auto cpp = lowered_thunk(fg);
      const NDArray cv = NDArray::full({3, 4}, 0.25);
      auto lab = [&](std::vector<double> v) { return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())}).astype(lt); };
      const std::string op = "CrossentropyCategorical1Hot";
      check_same_words<IndexError>(fg, *cpp, {cv, lab({0, 4, 1})}, op, "label 4 of row 1 is out of range for 4 classes");
      if (lt != DType::UInt8)
        check_same_words<IndexError>(fg, *cpp, {cv, lab({0, 1, -1})}, op, "label -1 of row 2 is out of range for 4 classes");
      check_same_words<ShapeError>(fg, *cpp, {cv, lab({0, 1})}, op,
                              "coding_dist has shape (3, 4) but labels have shape (2,) (one label per row is expected)");
      // No classes but rows: every label is out of range.
      check_error<IndexError>(fg, *cpp, {NDArray::zeros({2, 0}), lab({0, 0})}, op, "out of range");
      // Still works afterwards.
      std::vector<NDArray> out(1);
      const std::vector<NDArray> ok{cv, lab({3, 2, 0})};
      cpp->run(ok, out);
      CHECK(out[0].at<double>({0}) == doctest::Approx(-std::log(0.25)));

      // The gradient: the same label checks, and g_y's length.
      auto fgg = std::make_shared<FunctionGraph>(
          std::vector<Var>{g, c, l},
          std::vector<Var>{OpPtr(new nnet::CrossentropyCategorical1HotGrad())->apply1({g, c, l})});
      auto cppg = lowered_thunk(fgg);
      const std::string opg = "CrossentropyCategorical1HotGrad";
      const NDArray gv = NDArray::ones({3});
      check_same_words<IndexError>(fgg, *cppg, {gv, cv, lab({0, 1, 7})}, opg, "label 7 of row 2 is out of range for 4 classes");
      check_same_words<ShapeError>(fgg, *cppg, {gv, cv, lab({0, 1, 2, 3})}, opg,
                                   "coding_dist has shape (3, 4) but labels have shape (4,) (one label per row is expected)");
      check_same_words<ShapeError>(fgg, *cppg, {NDArray::ones({2}), cv, lab({0, 1, 2})}, opg,
                              "g_y has shape (2,) but coding_dist has shape (3, 4)");
    }
  }
}

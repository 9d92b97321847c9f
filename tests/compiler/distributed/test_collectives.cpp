// Collective ops (theano/distributed/collectives.h) and the training helpers
// (distributed.h) against values computed here for any number of ranks:
// CTest runs this suite once per test case as a world of one, and whole
// under `mpirun -np 2` (tests/CMakeLists.txt), where every expectation below
// depends on the rank and the size. Each runs in the reference VM (perform)
// and the cpp linker (the generated code's collective callback), which must
// agree; errors (a shape that differs between ranks, a bad dtype, root or
// communicator) must be raised on every rank, never hang.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "test_util.h"
#include "use_linker.h"
#include "theano/codegen/c_linker.h"
#include "theano/extending.hpp"

using namespace theano;
namespace T = theano::tensor;
namespace D = theano::distributed;
using theano::test::error_of;
using theano::test::UseLinker;

namespace {

const char* const kLinkers[] = {"py", "cpp", "opwise"};

double r() { return static_cast<double>(D::rank()); }
double s() { return static_cast<double>(D::size()); }

NDArray filled(std::vector<std::int64_t> shape, const std::function<double(std::int64_t)>& f,
               DType dt = DType::Float64) {
  NDArray a = NDArray::empty(shape, DType::Float64);
  for (std::int64_t i = 0; i < a.size(); ++i) a.data_as<double>()[i] = f(i);
  return dt == DType::Float64 ? a : a.astype(dt);
}

std::int64_t count_ops(const Function& f, std::string_view type) {
  std::int64_t n = 0;
  for (const Apply* a : f.fgraph().toposort()) n += a->op()->type_name() == type;
  return n;
}

}  // namespace

TEST_SUITE("distributed") {
  TEST_CASE("allreduce sums, averages and takes the maximum over the ranks") {
    D::init();
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      for (DType dt : {DType::Float64, DType::Float32}) {
        CAPTURE(dtype_name(dt));
        UseLinker l(linker);
        Var x = T::tensor(dt, {std::nullopt}, "x");
        Function f = function({x}, {D::allreduce(x, D::ReduceOp::sum), D::allreduce(x, D::ReduceOp::mean),
                                    D::allreduce(x, D::ReduceOp::max)});
        // Rank q holds (q + 1, -(q + 1), 2q, 0.5).
        const NDArray xv = filled({4}, [](std::int64_t i) {
          const double v[] = {r() + 1, -(r() + 1), 2 * r(), 0.5};
          return v[i];
        }, dt);
        const auto out = f({xv});
        const double S = s(), tri = S * (S + 1) / 2;
        const double sum[] = {tri, -tri, S * (S - 1), 0.5 * S};
        const double max[] = {S, -1, 2 * (S - 1), 0.5};
        for (int i = 0; i < 4; ++i) {
          CHECK(out[0].astype(DType::Float64).data_as<double>()[i] == doctest::Approx(sum[i]));
          CHECK(out[1].astype(DType::Float64).data_as<double>()[i] == doctest::Approx(sum[i] / S));
          CHECK(out[2].astype(DType::Float64).data_as<double>()[i] == max[i]);
        }
        CHECK(out[0].dtype() == dt);
      }
    }
  }

  TEST_CASE("broadcast, allgather, rank and size, on strided inputs too") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      Var x = T::dmatrix("x");
      const std::int64_t root = D::size() - 1;
      // x.T: a strided view into the input, which the collective copies.
      Function f = function({x}, {D::broadcast(x.T(), root), D::allgather(x.T()), D::symbolic_rank(), D::symbolic_size()});
      const NDArray xv = filled({3, 2}, [](std::int64_t i) { return 10 * r() + static_cast<double>(i); });
      const auto out = f({xv});
      const NDArray xt = xv.transpose().copy();
      CHECK(out[0].shape() == std::vector<std::int64_t>{2, 3});
      for (std::int64_t i = 0; i < 6; ++i)
        CHECK(out[0].data_as<double>()[i] == xt.data_as<double>()[i] + 10 * static_cast<double>(root - D::rank()));
      CHECK(out[1].shape() == std::vector<std::int64_t>{2 * D::size(), 3});
      for (std::int64_t q = 0; q < D::size(); ++q)
        for (std::int64_t i = 0; i < 6; ++i)
          CHECK(out[1].data_as<double>()[q * 6 + i] ==
                xt.data_as<double>()[i] + 10 * static_cast<double>(q - D::rank()));
      CHECK(out[2].item<std::int64_t>() == D::rank());
      CHECK(out[3].item<std::int64_t>() == D::size());
      // The rank is read when the function runs, never folded into the code
      // the ranks share.
      CHECK(count_ops(f, "MpiRank") == 1);
    }
  }

  TEST_CASE("gradients of the collectives are collectives") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      Var x = T::dvector("x"), w = T::dvector("w"), W = T::dvector("W");
      // Rank q weighs the result by w_q = (q + 1) * (1, 2, 3); x differs per rank.
      Var ls = T::sum(D::allreduce(x, D::ReduceOp::sum) * w);
      Var lm = T::sum(D::allreduce(x, D::ReduceOp::mean) * w);
      Var lx = T::sum(D::allreduce(x, D::ReduceOp::max) * w);
      Var lb = T::sum(D::broadcast(x, 0) * w);
      Var lg = T::sum(D::allgather(x) * W);
      Function f = function({x, w, W}, {grad(ls, x), grad(lm, x), grad(lx, x), grad(lb, x), grad(lg, x)});
      const std::int64_t S = D::size(), q = D::rank();
      const NDArray xv = filled({3}, [](std::int64_t i) { return i == 1 ? 5 - r() : r() + static_cast<double>(i); });
      const NDArray wv = filled({3}, [](std::int64_t i) { return (r() + 1) * static_cast<double>(i + 1); });
      const NDArray Wv = filled({S * 3}, [](std::int64_t i) { return (r() + 1) * static_cast<double>(i + 1); });
      const auto g = f({xv, wv, Wv});
      const double tri = static_cast<double>(S * (S + 1)) / 2;  // sum over ranks of (rank + 1)
      for (std::int64_t i = 0; i < 3; ++i) {
        const double sum_w = tri * static_cast<double>(i + 1);
        CHECK(g[0].data_as<double>()[i] == doctest::Approx(sum_w));
        CHECK(g[1].data_as<double>()[i] == doctest::Approx(sum_w / static_cast<double>(S)));
        // The maximum of x[1] = 5 - rank is on rank 0; of the others on the last rank.
        const bool holds_max = i == 1 ? q == 0 : q == S - 1;
        CHECK(g[2].data_as<double>()[i] == doctest::Approx(holds_max ? sum_w : 0.0));
        CHECK(g[3].data_as<double>()[i] == doctest::Approx(q == 0 ? sum_w : 0.0));
        // allgather: rows q*3 .. q*3+2 of the summed W.
        CHECK(g[4].data_as<double>()[i] == doctest::Approx(tri * static_cast<double>(q * 3 + i + 1)));
      }
    }
  }

  TEST_CASE("a shape that differs between ranks raises the same ShapeError on every rank") {
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      Var x = T::dvector("x");
      Function f = function({x}, {D::allreduce(x)});
      const NDArray xv = NDArray::zeros({3 + D::rank()});
      if (D::size() == 1) {
        CHECK(f({xv})[0].shape() == std::vector<std::int64_t>{3});
        continue;
      }
      CHECK_THROWS_AS(f({xv}), ShapeError);
      const std::string e = error_of([&] { f({xv}); });
      CHECK(e.find("every rank must pass the same dtype and shape; rank " + std::to_string(D::rank()) +
                   " passed float64 (" + std::to_string(3 + D::rank()) + ",)") != std::string::npos);
      CHECK(e.find("range from (3,) to (" + std::to_string(2 + D::size()) + ",)") != std::string::npos);
      // The ranks are still in step: a correct call goes through.
      CHECK(f({NDArray::ones({2})})[0].data_as<double>()[0] == s());
    }
  }

  TEST_CASE("bad collectives are refused with messages naming them") {
    Var i = T::vector("counts", DType::Int64);
    CHECK(error_of([&] { D::allreduce(i); }).find("allreduce(sum): counts must be a float32 or float64 tensor") !=
          std::string::npos);
    CHECK(error_of([&] { D::allgather(T::dscalar("c")); }).find("allgather: c must have at least one dimension") !=
          std::string::npos);
    for (const char* linker : kLinkers) {
      CAPTURE(linker);
      UseLinker l(linker);
      Var x = T::dvector("x");
      Function bad_root = function({x}, {D::broadcast(x, D::size() + 2)});
      const std::string e = error_of([&] { bad_root({NDArray::ones({2})}); });
      CHECK(e.find("root rank " + std::to_string(D::size() + 2) + " is not in the communicator") != std::string::npos);
      Function bad_comm = function({x}, {D::allreduce(x, D::ReduceOp::sum, D::Communicator{41})});
      CHECK(error_of([&] { bad_comm({NDArray::ones({2})}); }).find("no communicator 41") != std::string::npos);
    }
  }

  TEST_CASE("average_gradients is one allreduce per dtype, and averages") {
    for (const char* linker : {"py", "cpp"}) {
      CAPTURE(linker);
      UseLinker l(linker);
      Var W = T::dmatrix("W"), b = T::dvector("b"), c = T::dscalar("c"), h = T::fvector("h");
      const std::vector<Var> grads{W * 2.0, b + 1.0, c * 3.0, h * 2.0f};
      const std::vector<Var> avg = D::average_gradients(grads);
      REQUIRE(avg.size() == 4);
      for (std::size_t k = 0; k < 4; ++k) CHECK(*avg[k].type() == *grads[k].type());
      Function f = function({W, b, c, h}, std::vector<Out>(avg.begin(), avg.end()));
      CHECK(count_ops(f, "MpiAllreduce") == 2);  // one float64, one float32
      const double scale = r() + 1, mean_scale = (s() + 1) / 2;
      const auto out = f({filled({2, 3}, [&](std::int64_t i) { return scale * static_cast<double>(i); }),
                          filled({4}, [&](std::int64_t i) { return scale * static_cast<double>(i) - 1; }),
                          NDArray::full({}, scale, DType::Float64),
                          filled({5}, [&](std::int64_t i) { return scale * static_cast<double>(i); }, DType::Float32)});
      CHECK(out[0].shape() == std::vector<std::int64_t>{2, 3});
      for (std::int64_t i = 0; i < 6; ++i)
        CHECK(out[0].data_as<double>()[i] == doctest::Approx(2 * mean_scale * static_cast<double>(i)));
      for (std::int64_t i = 0; i < 4; ++i)
        CHECK(out[1].data_as<double>()[i] == doctest::Approx(mean_scale * static_cast<double>(i)));
      CHECK(out[2].item<double>() == doctest::Approx(3 * mean_scale));
      for (std::int64_t i = 0; i < 5; ++i)
        CHECK(out[3].data_as<float>()[i] == doctest::Approx(2 * mean_scale * static_cast<double>(i)));
    }
    CHECK(error_of([] { D::average_gradients({T::vector("n", DType::Int64)}); })
              .find("average_gradients: gradient 0 (n) must be a float32 or float64 tensor") != std::string::npos);
  }

  TEST_CASE("broadcast_parameters gives every rank the root's values") {
    Var W = shared(NDArray::full({2, 2}, r() + 7), "W");
    Var b = shared(NDArray::full({3}, -r()), "b");
    D::broadcast_parameters({W, b});
    CHECK(as_shared(W)->get_value().data_as<double>()[3] == 7);
    CHECK(as_shared(b)->get_value().data_as<double>()[0] == 0);
    CHECK(error_of([&] { D::broadcast_parameters({T::dvector("v")}); })
              .find("broadcast_parameters: v is not a shared variable") != std::string::npos);
    if (D::size() > 1) {
      Var odd = shared(NDArray::zeros({1 + D::rank()}), "odd");
      CHECK(error_of([&] { D::broadcast_parameters({odd}); })
                .find("broadcast_parameters(odd): every rank must pass the same dtype and shape") != std::string::npos);
    }
  }

  TEST_CASE("a split communicator reduces over its own ranks") {
    // Even and odd ranks form two communicators.
    const D::Communicator half = D::Communicator::world().split(D::rank() % 2, D::rank());
    CHECK(half.size() == (D::size() + 1 - D::rank() % 2) / 2);
    UseLinker l("cpp");
    Var x = T::dvector("x");
    Function f = function({x}, {D::allreduce(x, D::ReduceOp::sum, half), D::symbolic_rank(half)});
    const auto out = f({NDArray::full({1}, 1.0)});
    CHECK(out[0].data_as<double>()[0] == static_cast<double>(half.size()));
    CHECK(out[1].item<std::int64_t>() == D::rank() / 2);
  }

  TEST_CASE("the cpp linker lowers every collective, gradients included, with no perform fallback") {
    Var x = T::dmatrix("x");
    Var y = D::allgather(D::broadcast(D::allreduce(x, D::ReduceOp::max), 0));
    Var cost = T::sum(y * T::cast(D::symbolic_size(), DType::Float64));
    FunctionGraph fg({x}, {cost, grad(cost, x)});
    rewrite::optimize(fg, rewrite::mode_query("fast_run"));
    std::string src;
    CHECK_NOTHROW(src = codegen::CLinker::generate_source(fg, {}, /*perform_fallback=*/false));
    for (int kind = 0; kind <= 6; ++kind)
      if (kind != 1)  // no mean here
        CHECK(src.find("ctx->collective(ctx->host, " + std::to_string(kind) + ", 0, ") != std::string::npos);
  }

  TEST_CASE("collectives are not constant-folded") {
    UseLinker l("cpp");
    Var c = T::constant(NDArray::full({2}, 1.0), "c");
    Function f = function(std::vector<In>{}, {D::allreduce(c)});
    CHECK(count_ops(f, "MpiAllreduce") == 1);
    CHECK(f({})[0].data_as<double>()[1] == s());
  }
}

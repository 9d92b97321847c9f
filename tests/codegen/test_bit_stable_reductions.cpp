// Bit-stable reductions (issue 15): a compiled sum of the same values, dtype
// and `threads` setting gives the same bits on every call, also while other
// threads keep the loop pool busy (before, a busy pool ran the reduction as one
// part and 40 calls gave 2 different results).
#include <doctest/doctest.h>

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/config.h>
#include <theano/tensor/math.h>
#include <theano/tensor/reduction.h>
#include <theano/tensor/type.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

using namespace theano;
using namespace theano::tensor;

TEST_CASE("compiled sum(x) gives the same bits on every call under pool contention") {
  codegen::register_linkers();
  Config c = config();
  c.flags["threads"] = "2";
  c.flags["linker"] = "cpp";
  ConfigGuard guard(c);
  constexpr std::int64_t n = 12288;
  NDArray xv = NDArray::empty({n}, DType::Float64);
  for (std::int64_t i = 0; i < n; ++i)
    xv.data_as<double>()[i] = (i % 7 ? 1.0 : 1e13) * (1.0 + static_cast<double>(i) * 1e-7);
  Var x = dvector("x");
  Function f = function({x}, {sum(x)});
  Var y = dvector("y");
  Function busy = function({y}, {sum(exp(y))});
  const NDArray big = NDArray::full({1 << 16}, 0.5, DType::Float64);
  const double want = f({xv})[0].item<double>();
  std::atomic<bool> stop{false};
  std::vector<std::thread> others;
  for (int t = 0; t < 2; ++t)
    others.emplace_back([&] {
      while (!stop.load()) busy({big});
    });
  int differ = 0;
  for (int k = 0; k < 40; ++k) {
    const double got = f({xv})[0].item<double>();
    if (std::memcmp(&got, &want, sizeof got) != 0) ++differ;
    if (k % 8 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  stop = true;
  for (auto& t : others) t.join();
  CHECK(differ == 0);
}

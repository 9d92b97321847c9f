// theano_stream_gemv_bench: W2's step (logistic regression, X of m x 784)
// at sizes around the caches, to choose where RowStreamGemv's code reads X
// in two BLAS products instead of one pass over its rows (THEANO_FLAGS
// stream_gemv_two_pass_bytes; codegen/src/emit/lower/row_stream_gemv.cpp
// holds the figures). Run it twice, with the flag at 0 (the one pass) and
// at 1e18 (the two products), and compare the medians (bench/README.md).
// Each size is timed with the same X every call (as W2: X stays in the
// cache) and with 16 matrices in turn (a new minibatch every call).
#include <theano/theano.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using namespace theano;
namespace T = theano::tensor;

namespace {

double median_call_us(const Function& f, const std::vector<NDArray>& xs, const NDArray& y, int calls) {
  std::vector<double> t;
  for (int r = 0; r < calls; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f({xs[static_cast<std::size_t>(r) % xs.size()], y});
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main() {
  constexpr std::int64_t D = 784;
  std::printf("dtype        m     X MB   same X us   16 X us\n");
  for (DType d : {DType::Float32, DType::Float64}) {
    for (std::int64_t m : {250, 500, 1000, 2000, 4000, 8000, 16000}) {
      auto c = [&](double v) { return T::constant(NDArray::full({}, v, d)); };
      Var X = T::matrix("X", d), y = T::vector("y", d);
      Var w = shared(NDArray::full({D}, 0.001, d), "w"), b = shared(NDArray::full({}, 0.0, d), "b");
      Var p = T::nnet::sigmoid(T::dot(X, w) + b);
      Var cost = T::mean(-y * T::log(p) - (c(1) - y) * T::log(c(1) - p)) + c(0.01) * T::sum(T::sqr(w));
      const auto g = grad(cost, std::vector<Var>{w, b});
      FunctionOptions o;
      o.updates = {{w, w - c(0.1) * g[0]}, {b, b - c(0.1) * g[1]}};
      const Function f = function({X, y}, {cost}, o);
      std::mt19937_64 rng(static_cast<std::uint64_t>(m));
      std::uniform_real_distribution<double> u(-1, 1);
      std::vector<NDArray> xs;
      for (int k = 0; k < 16; ++k) {
        NDArray a = NDArray::empty({m, D}, DType::Float64);
        for (std::int64_t i = 0; i < m * D; ++i) a.data_as<double>()[i] = u(rng);
        xs.push_back(a.astype(d));
      }
      const NDArray labels = NDArray::full({m}, 1.0, d);
      const double same = median_call_us(f, {xs[0]}, labels, 400), turn = median_call_us(f, xs, labels, 400);
      std::printf("%-7s %6lld %8.1f %11.1f %9.1f\n", std::string(dtype_name(d)).c_str(), static_cast<long long>(m),
                  static_cast<double>(m * D) * static_cast<double>(dtype_size(d)) / 1e6, same, turn);
    }
  }
}

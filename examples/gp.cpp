// Gaussian-process regression, as a PyMC or GPflow user would write it: data
// drawn from a GP with known hyperparameters (length scale, signal and noise
// standard deviations), the hyperparameters fitted by gradient ascent on the
// log marginal likelihood (cholesky, cho_solve and their gradients), then the
// posterior mean at held-out inputs compared with the noise-free function
// that generated the data.
//
// The data are drawn by a compiled function too: f = L z on the training and
// held-out inputs together (L the Cholesky factor of the generating kernel
// matrix, z standard normal from a RandomStream), y = f + noise on the
// training inputs.
//
//   gp [--train N] [--test N] [--iters N] [--seed N]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

namespace T = theano::tensor;
namespace LA = theano::tensor::linalg;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "gp";
// The generating hyperparameters.
constexpr double kLength = 0.8, kSignal = 1.0, kNoise = 0.15;
// Where the fit starts (deliberately off) and its step on the log-parameters.
constexpr double kLength0 = 2.0, kSignal0 = 0.5, kNoise0 = 0.5, kStep = 0.5;

struct Options {
  std::int64_t train = 200, test = 100, iters = 300, seed = 7;
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--train N] [--test N] [--iters N] [--seed N] [--help]\n"
     << "\n"
     << "Draws 1-d data from a Gaussian process (length scale " << kLength << ", signal sd " << kSignal
     << ", noise sd " << kNoise << "),\n"
     << "fits the three hyperparameters by gradient ascent on the log marginal likelihood and\n"
     << "prints them beside the generating ones, then the held-out error of the posterior mean.\n"
     << "\n"
     << "  --train N   training points (default 200)\n"
     << "  --test N    held-out points (default 100)\n"
     << "  --iters N   gradient-ascent steps (default 300)\n"
     << "  --seed N    the random stream's seed (default 7)\n"
     << "  --help      this text\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--train", "--test", "--iters", "--seed"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--train") o.train = parse_count(arg, value, 2, 5'000);
    else if (arg == "--test") o.test = parse_count(arg, value, 1, 5'000);
    else if (arg == "--iters") o.iters = parse_count(arg, value, 0, 100'000);
    else if (arg == "--seed") o.seed = parse_count(arg, value, 0, 1'000'000'000);
    else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  return true;
}

/// The squared-exponential kernel between the 1-d inputs a (n) and b (m):
/// signal^2 exp(-(a_i - b_j)^2 / (2 length^2)).
Var se_kernel(const Var& a, const Var& b, const Var& length, const Var& signal) {
  Var d = T::dimshuffle(a, {0, T::kNewAxis}) - T::dimshuffle(b, {T::kNewAxis, 0});
  return T::sqr(signal) * T::exp(-0.5 * T::sqr(d) / T::sqr(length));
}

int run(const Options& o) {
  const std::int64_t n = o.train, m = o.test;
  std::cout << "Gaussian-process regression: " << n << " training and " << m << " held-out points\n";

  // ---- the data: inputs evenly spread with a deterministic jitter, f drawn jointly
  NDArray xall = NDArray::empty({n + m});
  for (std::int64_t i = 0; i < n + m; ++i)
    xall.data_as<double>()[i] = -5.0 + 10.0 * (static_cast<double>(i) + 0.5 * std::sin(3.7 * i)) / (n + m);
  T::RandomStream rng(static_cast<std::uint64_t>(o.seed));
  Var xs = T::vector("x");
  Var kf = se_kernel(xs, xs, T::constant(NDArray::full({}, kLength)), T::constant(NDArray::full({}, kSignal))) + 1e-8 * T::eye(T::shape_i(xs, 0));
  Var f = T::dot(LA::cholesky(kf), rng.normal(T::shape(xs)));
  Function draw = theano::function({xs}, {f});
  const NDArray fall = draw({xall})[0];
  // Held out: the m indices where floor(i m / (n + m)) steps up, evenly spread; the rest train.
  NDArray xtr = NDArray::empty({n}), ytr = NDArray::empty({n}), xte = NDArray::empty({m}), fte = NDArray::empty({m});
  {
    Function noise = theano::function({}, {rng.normal({n})});
    const NDArray eps = noise({})[0];
    std::int64_t a = 0, b = 0;
    for (std::int64_t i = 0; i < n + m; ++i) {
      const bool held_out = ((i + 1) * m) / (n + m) > (i * m) / (n + m);
      if (held_out) {
        xte.data_as<double>()[b] = xall.data_as<double>()[i];
        fte.data_as<double>()[b++] = fall.data_as<double>()[i];
      } else {
        xtr.data_as<double>()[a] = xall.data_as<double>()[i];
        ytr.data_as<double>()[a] = fall.data_as<double>()[i] + kNoise * eps.data_as<double>()[a];
        ++a;
      }
    }
  }

  // ---- the model: log-parameters as shared variables, the log marginal likelihood
  Var log_length = theano::shared(NDArray::full({}, std::log(kLength0)), "log_length");
  Var log_signal = theano::shared(NDArray::full({}, std::log(kSignal0)), "log_signal");
  Var log_noise = theano::shared(NDArray::full({}, std::log(kNoise0)), "log_noise");
  Var x = T::vector("x"), y = T::vector("y"), xnew = T::vector("xnew");
  Var length = T::exp(log_length), signal = T::exp(log_signal), noise = T::exp(log_noise);
  Var k = se_kernel(x, x, length, signal) + T::sqr(noise) * T::eye(T::shape_i(x, 0));
  Var L = LA::cholesky(k);
  Var alpha = LA::cho_solve({L, true}, y);
  Var count = T::cast(T::shape_i(x, 0), theano::DType::Float64);
  Var logp = -0.5 * T::dot(y, alpha) - T::sum(T::log(LA::diagonal(L))) - 0.5 * count * std::log(2 * std::numbers::pi);
  logp->set_name("logp");
  const std::vector<Var> params{log_length, log_signal, log_noise};
  const std::vector<Var> g = theano::grad(logp, params);
  theano::FunctionOptions step_options;
  for (std::size_t i = 0; i < params.size(); ++i) step_options.updates[params[i]] = params[i] + kStep * g[i] / count;
  Clock::time_point t0 = Clock::now();
  Function step = theano::function({x, y}, {logp}, step_options);
  Function mean = theano::function({x, y, xnew}, {T::dot(se_kernel(xnew, x, length, signal), alpha)});
  std::printf("compiled the step and the posterior mean in %.0f ms\n", ms_since(t0));

  // ---- the fit
  const auto value = [](const Var& v) { return std::exp(theano::get_value(v).item<double>()); };
  const auto report = [&](std::int64_t it, double lp) {
    std::printf("iter %5lld  logp %10.3f  length %.3f  signal %.3f  noise %.4f\n", static_cast<long long>(it), lp,
                value(log_length), value(log_signal), value(log_noise));
  };
  t0 = Clock::now();
  double lp = 0;
  for (std::int64_t it = 0; it < o.iters; ++it) {
    lp = step({xtr, ytr})[0].item<double>();
    if (it == 0 || (it + 1) % 50 == 0 || it + 1 == o.iters) report(it + 1, lp);
  }
  std::printf("%lld steps in %.0f ms\n", static_cast<long long>(o.iters), ms_since(t0));
  std::printf("fitted: length scale %.3f (generating %.3f), signal sd %.3f (%.3f), noise sd %.4f (%.4f)\n",
              value(log_length), kLength, value(log_signal), kSignal, value(log_noise), kNoise);

  // ---- held-out error of the posterior mean against the noise-free function
  const NDArray mu = mean({xtr, ytr, xte})[0];
  double se = 0, se0 = 0, ybar = 0;
  for (std::int64_t i = 0; i < n; ++i) ybar += ytr.data_as<double>()[i] / static_cast<double>(n);
  for (std::int64_t j = 0; j < m; ++j) {
    const double t = fte.data_as<double>()[j];
    se += (mu.data_as<double>()[j] - t) * (mu.data_as<double>()[j] - t);
    se0 += (ybar - t) * (ybar - t);
  }
  std::printf("held-out RMSE: %.4f against the noise-free function (predicting the training mean: %.4f)\n",
              std::sqrt(se / static_cast<double>(m)), std::sqrt(se0 / static_cast<double>(m)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

// The Theano tutorial's "A Real Example: Logistic Regression" written exactly
// as the tutorial writes it: p_1 = 1 / (1 + exp(-dot(x, w) - b)) and
// log(1 - p_1) in the cross-entropy, on randn(N, feats) features and random
// 0/1 labels. With 784 features the scores dot(x, w) reach about +-100, where
// 1 / (1 + exp(-z)) rounds to 1 and a naive gradient divides by 1 - p_1 = 0;
// the optimizer's sigmoid rewrites (rewrite/sigmoid.cpp) make the forward
// and the gradient stable, so the program trains to a finite model that fits
// its training set. (examples/logistic_regression.cpp is the README's demo:
// the same model, written in its stable form, on two separable clouds.)
//
//   logistic_regression_tutorial [--steps N] [--feats N] [--samples N] [--seed N]
#include <ostream>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string_view>

#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

namespace T = theano::tensor;
using theano::NDArray, theano::Var;
using example::parse_count, example::UsageError;

constexpr const char* kProgram = "logistic_regression_tutorial";

struct Options {
  std::int64_t steps = 10000;  ///< training_steps
  std::int64_t feats = 784;    ///< number of input variables
  std::int64_t samples = 400;  ///< N, the training sample size
  std::int64_t seed = 0;       ///< the tutorial's numpy data is unseeded; here it is drawn from mt19937_64(seed)
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--steps N] [--feats N] [--samples N] [--seed N] [--help]\n"
     << "\n"
     << "The Theano tutorial's logistic regression, as the tutorial writes it, on\n"
     << "Gaussian features and random 0/1 labels. Prints the final b, whether w and b\n"
     << "are finite, and how many training predictions are right.\n"
     << "\n"
     << "  --steps N    training steps (default 10000)\n"
     << "  --feats N    features per sample (default 784)\n"
     << "  --samples N  training samples (default 400)\n"
     << "  --seed N     seed of the generated data and initial w (default 0)\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--steps", "--feats", "--samples", "--seed"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--steps") o.steps = parse_count(arg, value, 1, 100'000'000);
    else if (arg == "--feats") o.feats = parse_count(arg, value, 1, 100'000);
    else if (arg == "--samples") o.samples = parse_count(arg, value, 1, 100'000);
    else if (arg == "--seed") o.seed = parse_count(arg, value, 0, INT64_MAX);
    else throw UsageError{"unknown argument '" + std::string(arg) + "'"};
  }
  if (o.samples * o.feats > 50'000'000)
    throw UsageError{"--samples x --feats is " + std::to_string(o.samples * o.feats) + " values; at most 50000000"};
  return true;
}

bool all_finite(const NDArray& a) {
  const NDArray d = a.astype(theano::DType::Float64).contiguous();
  for (std::int64_t i = 0; i < d.size(); ++i)
    if (!std::isfinite(d.data_as<double>()[i])) return false;
  return true;
}

int run(const Options& o) {
  const std::int64_t N = o.samples, feats = o.feats;
  std::mt19937_64 rng(static_cast<std::uint64_t>(o.seed));
  std::normal_distribution<double> randn;
  std::uniform_int_distribution<int> randint(0, 1);

  // generate a dataset: D = (input_values, target_class)
  NDArray Dx = NDArray::empty({N, feats}), Dy = NDArray::empty({N});
  for (std::int64_t i = 0; i < N * feats; ++i) Dx.data_as<double>()[i] = randn(rng);
  for (std::int64_t i = 0; i < N; ++i) Dy.data_as<double>()[i] = randint(rng);
  const std::int64_t training_steps = o.steps;

  // Declare Theano symbolic variables
  Var x = T::dmatrix("x");
  Var y = T::dvector("y");
  // initialize the weight vector w randomly
  NDArray w0 = NDArray::empty({feats});
  for (std::int64_t j = 0; j < feats; ++j) w0.data_as<double>()[j] = randn(rng);
  Var w = theano::shared(w0, "w");
  // initialize the bias term
  Var b = theano::shared(NDArray::scalar(0.0), "b");

  // Construct Theano expression graph
  Var p_1 = 1 / (1 + T::exp(-T::dot(x, w) - b));               // Probability that target = 1
  Var prediction = p_1 > 0.5;                                   // The prediction thresholded
  Var xent = -y * T::log(p_1) - (1 - y) * T::log(1 - p_1);      // Cross-entropy loss function
  Var cost = T::mean(xent) + 0.01 * T::sum(T::pow(w, 2));      // The cost to minimize
  const std::vector<Var> g = theano::grad(cost, std::vector<Var>{w, b});  // gradient w.r.t. w and b
  const Var &gw = g[0], &gb = g[1];

  // Compile
  theano::Function train = theano::function({x, y}, {prediction, xent}, {.updates = {{w, w - 0.1 * gw}, {b, b - 0.1 * gb}}});
  theano::Function predict = theano::function({x}, {prediction});

  // Train
  NDArray err;
  for (std::int64_t i = 0; i < training_steps; ++i) err = train({Dx, Dy})[1];

  const NDArray wv = theano::get_value(w), bv = theano::get_value(b);
  const NDArray pred = predict({Dx})[0].astype(theano::DType::Float64);
  std::int64_t right = 0;
  for (std::int64_t i = 0; i < N; ++i) right += pred.data_as<double>()[i] == Dy.data_as<double>()[i];
  std::printf("logistic regression as the tutorial writes it: %lld samples, %lld features, %lld steps\n",
              static_cast<long long>(N), static_cast<long long>(feats), static_cast<long long>(training_steps));
  std::printf("Final model: b = %.6g; w %s, b %s, last xent %s\n", bv.item<double>(), all_finite(wv) ? "finite" : "NOT finite",
              std::isfinite(bv.item<double>()) ? "finite" : "NOT finite", all_finite(err) ? "finite" : "NOT finite");
  std::printf("prediction on D: %lld/%lld right\n", static_cast<long long>(right), static_cast<long long>(N));
  return all_finite(wv) && std::isfinite(bv.item<double>()) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

// docs/workloads.md's W3 MLP trained data-parallel over MPI:
//
//   mpirun -np 2 build/release/examples/mlp_mpi [--steps N] [--batch N] [--batches N] [--hidden N]
//
// Every rank builds the same graph; rank 0's initial parameters reach the
// others through distributed::broadcast_parameters; each step splits the
// global batch into equal shares, each rank computes the gradient of the mean
// loss on its share, distributed::average_gradients averages all gradients
// with one fused allreduce, and every rank applies the same SGD update. The
// loss printed is the allreduce mean of the ranks' losses: the loss of the
// whole batch. Rank 0 also trains a one-process replica on the whole batch
// and prints how far the two loss curves are apart (the program fails when
// more than 1e-12). Ranks on one host share the compiledir, so the training
// function is compiled once per host; the program prints how often it was
// compiled and loaded, summed over the ranks.
#include <ostream>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <theano/codegen/compiledir.h>
#include <theano/theano.hpp>

#include "example_cli.h"
#include "workload_inputs.h"  // bench/: W3's inputs, bit for bit

namespace {

namespace T = theano::tensor;
namespace D = theano::distributed;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "mlp_mpi";
constexpr std::int64_t kInputs = 784, kClasses = 10;
constexpr double kLearningRate = 0.1;
constexpr double kTolerance = 1e-12;

struct Options {
  std::int64_t steps = 20;
  std::int64_t batch = 256;  ///< the global batch, split evenly over the ranks
  std::int64_t batches = 1;  ///< distinct global batches, cycled (1: W3's batch every step)
  std::int64_t hidden = 512;
  bool reference = true;
};

void print_usage(std::ostream& os) {
  os << "usage: mpirun -np N " << kProgram << " [--steps N] [--batch N] [--batches N] [--hidden N] [--no-reference] [--help]\n"
     << "\n"
     << "Trains workloads.md's W3 MLP (784-H-10, tanh, softmax, cross-entropy, SGD 0.1)\n"
     << "data-parallel: each of the N ranks takes batch/N rows of every global batch, the\n"
     << "gradients are averaged with one allreduce. Rank 0 also trains one process on the\n"
     << "whole batch and checks that both loss curves agree within 1e-12.\n"
     << "\n"
     << "  --steps N       training steps (default 20)\n"
     << "  --batches N     distinct W3-style batches, cycled (default 1: W3's own batch)\n"
     << "  --batch N       global batch, a multiple of the number of ranks (default 256)\n"
     << "  --hidden N      hidden units (default 512)\n"
     << "  --no-reference  skip the one-process replica (for timing)\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--steps", "--batch", "--batches", "--hidden"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--steps") o.steps = parse_count(arg, value, 1, 100'000);
    else if (arg == "--batch") o.batch = parse_count(arg, value, 1, 65'536);
    else if (arg == "--batches") o.batches = parse_count(arg, value, 1, 1'000);
    else if (arg == "--hidden") o.hidden = parse_count(arg, value, 1, 16'384);
    else if (arg == "--no-reference") o.reference = false;
    else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  return true;
}

/// Global batch k: X = U(301 + 1000k; 0, 1), t = floor(10 U(302 + 1000k; 0, 1));
/// batch 0 is W3's own.
struct Batch {
  NDArray x, t;
};
Batch batch_of(std::int64_t k, std::int64_t rows) {
  const auto s = static_cast<std::uint64_t>(1000 * k);
  Batch b{theano::bench::uniform(301 + s, 0, 1, {rows, kInputs}), NDArray::empty({rows}, theano::DType::Int64)};
  const NDArray u = theano::bench::uniform(302 + s, 0, 1, {rows});
  for (std::int64_t j = 0; j < rows; ++j)
    b.t.data_as<std::int64_t>()[j] = static_cast<std::int64_t>(std::floor(10 * u.data_as<double>()[j]));
  return b;
}

/// W3's parameters: W1 = U(303; -a1, a1), b1 = 0, W2 = U(304; -a2, a2), b2 = 0.
std::vector<Var> parameters(std::int64_t hidden, bool zeros) {
  auto init = [&](std::uint64_t seed, std::int64_t in, std::int64_t out) {
    const double a = std::sqrt(6.0 / static_cast<double>(in + out));
    return zeros ? NDArray::zeros({in, out}) : theano::bench::uniform(seed, -a, a, {in, out});
  };
  return {theano::shared(init(303, kInputs, hidden), "W1"), theano::shared(NDArray::zeros({hidden}), "b1"),
          theano::shared(init(304, hidden, kClasses), "W2"), theano::shared(NDArray::zeros({kClasses}), "b2")};
}

/// The mean cross-entropy of the W3 model on (X, t), and its gradients.
Var loss_of(const std::vector<Var>& p, const Var& X, const Var& t) {
  Var h = T::tanh(T::dot(X, p[0]) + p[1]);
  Var logits = T::dot(h, p[2]) + p[3];
  return T::mean(T::nnet::crossentropy_categorical_1hot(T::nnet::softmax(logits), t));
}

Function sgd_step(const std::vector<Var>& params, const Var& X, const Var& t, const Var& loss,
                  const std::vector<Var>& grads, const char* name) {
  theano::FunctionOptions options{.name = name};
  for (std::size_t i = 0; i < params.size(); ++i)
    options.updates[params[i]] = params[i] - kLearningRate * grads[i];
  return theano::function({X, t}, {loss}, options);
}

/// The sum over the ranks of `v` (a host-side tally, not part of any graph).
double sum_over_ranks(double v) {
  NDArray in = NDArray::full({}, v), out = NDArray::empty({});
  theano::runtime::run_collective(theano::runtime::Collective::allreduce_sum, 0, 0, in, out, "tally");
  return out.item<double>();
}

int run(const Options& o) {
  D::init();
  const std::int64_t rank = D::rank(), ranks = D::size();
  if (o.batch % ranks != 0)
    throw UsageError{"--batch " + std::to_string(o.batch) + " must be a multiple of the " + std::to_string(ranks) +
                     " ranks"};
  const std::int64_t share = o.batch / ranks;
  const bool root = rank == 0;
  if (root)
    std::printf("mlp_mpi (W3 data-parallel): %lld ranks x %lld rows = global batch %lld, 784-%lld-10, %lld steps\n",
                static_cast<long long>(ranks), static_cast<long long>(share), static_cast<long long>(o.batch),
                static_cast<long long>(o.hidden), static_cast<long long>(o.steps));

  // The same graph on every rank; rank 0's initial values reach the others.
  const std::vector<Var> params = parameters(o.hidden, /*zeros=*/!root);
  D::broadcast_parameters(params);
  Var X = T::dmatrix("X"), t = T::vector("t", theano::DType::Int64);
  Var local_loss = loss_of(params, X, t);
  const std::vector<Var> grads = D::average_gradients(theano::grad(local_loss, params));
  Var loss = D::allreduce(local_loss, D::ReduceOp::mean);  // the whole batch's loss (equal shares)
  loss->set_name("loss");

  const theano::cache::CacheStats before = theano::codegen::compile_cache_stats();
  const auto c0 = Clock::now();
  Function train = sgd_step(params, X, t, loss, grads, "train");
  const double compile_ms = ms_since(c0);
  const theano::cache::CacheStats after = theano::codegen::compile_cache_stats();
  const double compiled = sum_over_ranks(static_cast<double>(after.compiles - before.compiles));
  const double loaded = sum_over_ranks(static_cast<double>(after.hits - before.hits));
  if (root) {
    std::printf("compile train: %.1f ms on rank 0\n", compile_ms);
    if (theano::codegen::current_cache() != nullptr)
      std::printf("compiledir shared by the ranks: train compiled %.0f time(s), loaded from the compiledir %.0f "
                  "time(s)\n",
                  compiled, loaded);
    else
      std::printf("no compiledir (THEANO_FLAGS compiledir=off): every rank compiled train itself\n");
  }

  // Rank 0's one-process replica on the whole batch.
  std::optional<Function> reference;
  if (root && o.reference) {
    const std::vector<Var> p1 = parameters(o.hidden, false);
    Var X1 = T::dmatrix("X"), t1 = T::vector("t", theano::DType::Int64);
    Var l1 = loss_of(p1, X1, t1);
    reference = sgd_step(p1, X1, t1, l1, theano::grad(l1, p1), "reference");
  }

  if (root) std::printf("\nstep  loss (%lld ranks)     one process           |difference|\n", static_cast<long long>(ranks));
  double worst = 0;
  std::vector<double> step_ms;
  for (std::int64_t k = 0; k < o.steps; ++k) {
    const Batch b = batch_of(k % o.batches, o.batch);
    const NDArray x = b.x.slice(0, rank * share, (rank + 1) * share), tt = b.t.slice(0, rank * share, (rank + 1) * share);
    D::barrier();
    const auto s0 = Clock::now();
    const double l = train({x, tt})[0].item<double>();
    step_ms.push_back(ms_since(s0));
    if (!root) continue;
    if (reference) {
      const double l1 = (*reference)({b.x, b.t})[0].item<double>();
      worst = std::max(worst, std::abs(l - l1));
      std::printf("%4lld  %.15f  %.15f  %.1e\n", static_cast<long long>(k), l, l1, std::abs(l - l1));
    } else {
      std::printf("%4lld  %.15f\n", static_cast<long long>(k), l);
    }
  }
  // The step time: median over the steps after the first, the slowest rank's.
  std::vector<double> later(step_ms.begin() + (step_ms.size() > 1 ? 1 : 0), step_ms.end());
  std::sort(later.begin(), later.end());
  const double median = later[later.size() / 2];
  NDArray mine = NDArray::full({}, median), slowest = NDArray::empty({});
  theano::runtime::run_collective(theano::runtime::Collective::allreduce_max, 0, 0, mine, slowest, "step time");
  if (!root) return 0;
  std::printf("\ntime per step: %.2f ms (median of steps 1..%lld, slowest of %lld ranks)\n", slowest.item<double>(),
              static_cast<long long>(o.steps - 1), static_cast<long long>(ranks));
  if (!reference) return 0;
  std::printf("max |loss difference| against one process on the whole batch: %.3e (tolerance %.0e)\n", worst,
              kTolerance);
  if (worst > kTolerance) {
    std::printf("FAILED: the data-parallel loss curve differs from the one-process curve\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

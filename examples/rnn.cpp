// An Elman RNN trained with backpropagation through time: at every step the
// network reads one number and says whether the running sum so far is
// positive. The recurrence is a `scan` (the loop is compiled into the
// function, forward and backward), the gradient comes from `grad` through
// the scan, the update clips the gradient norm with a lazy `ifelse`, and the
// parameters are shared variables updated by the compiled training step.
//
//   rnn [--steps N] [--seq N] [--batch N] [--hidden N] [--every N]
#include <ostream>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

namespace T = theano::tensor;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "rnn";

struct Options {
  std::int64_t steps = 400;  ///< training steps (one fresh batch each)
  std::int64_t seq = 20;     ///< time steps per sequence
  std::int64_t batch = 64;   ///< sequences per batch
  std::int64_t hidden = 32;  ///< hidden units
  std::int64_t every = 50;   ///< print the loss every N steps
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--steps N] [--seq N] [--batch N] [--hidden N] [--every N] [--help]\n"
     << "\n"
     << "Trains an Elman RNN (tanh, scan + BPTT) to tell at each time step whether the running\n"
     << "sum of its inputs is positive.\n"
     << "\n"
     << "  --steps N   training steps, one generated batch each (default 400)\n"
     << "  --seq N     time steps per sequence (default 20)\n"
     << "  --batch N   sequences per batch (default 64)\n"
     << "  --hidden N  hidden units (default 32)\n"
     << "  --every N   print the loss every N steps (default 50)\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--steps", "--seq", "--batch", "--hidden", "--every"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--steps") o.steps = parse_count(arg, value, 1, 10'000'000);
    else if (arg == "--seq") o.seq = parse_count(arg, value, 1, 100'000);
    else if (arg == "--batch") o.batch = parse_count(arg, value, 1, 100'000);
    else if (arg == "--hidden") o.hidden = parse_count(arg, value, 1, 10'000);
    else if (arg == "--every") o.every = parse_count(arg, value, 1, 10'000'000);
    else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  if (o.seq * o.batch > 10'000'000) throw UsageError{"--seq x --batch is more than 10000000 values"};
  return true;
}

/// A batch: inputs (seq, batch, 1) uniform in [-1, 1), targets (seq, batch, 1)
/// = 1 where the running sum is positive.
struct Batch {
  NDArray x, y;
};

Batch draw(std::mt19937_64& rng, const Options& o) {
  std::uniform_real_distribution<double> u(-1, 1);
  Batch b{NDArray::empty({o.seq, o.batch, 1}), NDArray::empty({o.seq, o.batch, 1})};
  std::vector<double> sum(static_cast<std::size_t>(o.batch), 0.0);
  for (std::int64_t t = 0; t < o.seq; ++t)
    for (std::int64_t i = 0; i < o.batch; ++i) {
      const double v = u(rng);
      sum[static_cast<std::size_t>(i)] += v;
      b.x.data_as<double>()[t * o.batch + i] = v;
      b.y.data_as<double>()[t * o.batch + i] = sum[static_cast<std::size_t>(i)] > 0 ? 1 : 0;
    }
  return b;
}

NDArray init(std::mt19937_64& rng, std::int64_t rows, std::int64_t cols, double scale) {
  std::normal_distribution<double> n(0, scale);
  NDArray a = NDArray::empty({rows, cols});
  for (std::int64_t i = 0; i < rows * cols; ++i) a.data_as<double>()[i] = n(rng);
  return a;
}

int run(const Options& o) {
  std::mt19937_64 rng(20);
  const std::int64_t H = o.hidden;
  Var Wx = theano::shared(init(rng, 1, H, 1.0), "Wx");
  Var Wh = theano::shared(init(rng, H, H, 0.9 / std::sqrt(static_cast<double>(H))), "Wh");
  Var bh = theano::shared(NDArray::zeros({H}), "bh");
  Var Wy = theano::shared(init(rng, H, 1, 1.0 / std::sqrt(static_cast<double>(H))), "Wy");
  Var by = theano::shared(NDArray::zeros({1}), "by");
  const std::vector<Var> params{Wx, Wh, bh, Wy, by};

  Var x = T::dtensor3("x"), y = T::dtensor3("y");
  Var h0 = T::alloc(T::constant(NDArray::scalar(0.0)), {T::shape_i(x, 1), T::constant(NDArray::scalar<std::int64_t>(H))});
  // h_t = tanh(x_t Wx + h_{t-1} Wh + bh): the step reads Wx, Wh, bh from the enclosing graph.
  theano::ScanResult r = theano::scan(
      [&](Var x_t, Var h_tm1) { return T::tanh(T::dot(x_t, Wx) + T::dot(h_tm1, Wh) + bh); },
      theano::ScanArgs().sequences(x).outputs_info(h0).name("elman"));
  const Var h = r.outputs[0];                                    // (seq, batch, hidden)
  const Var p = T::sigmoid(T::tensordot(h, Wy, 1) + by);  // (seq, batch, 1)
  const Var loss = T::mean(-y * T::log(p) - (1.0 - y) * T::log(1.0 - p));
  const Var accuracy = T::mean(T::eq(T::gt(p, 0.5), T::gt(y, 0.5)));

  // BPTT through the scan; the update clips the gradient norm to 5 (the
  // scale is an ifelse: only the branch taken is computed).
  const std::vector<Var> g = theano::grad(loss, params);
  Var norm2 = T::constant(NDArray::scalar(0.0));
  for (const Var& gi : g) norm2 = norm2 + T::sum(T::sqr(gi));
  const Var norm = T::sqrt(norm2);
  const Var scale = theano::ifelse(T::gt(norm, 5.0), 5.0 / norm, T::constant(NDArray::scalar(1.0)));
  const double lr = 0.5;
  theano::Updates updates;
  for (std::size_t k = 0; k < params.size(); ++k) updates[params[k]] = params[k] - lr * scale * g[k];

  const auto t0 = Clock::now();
  Function train = theano::function({x, y}, {loss}, {.updates = updates});
  Function evaluate = theano::function({x, y}, {loss, accuracy});
  std::printf("compiled the training step and the evaluation in %.1f ms\n", ms_since(t0));

  const Batch held_out = draw(rng, o);
  const auto first = evaluate({held_out.x, held_out.y});
  std::printf("before training: held-out loss %.4f, accuracy %5.1f%%\n", first[0].item<double>(),
              100 * first[1].item<double>());
  const auto t1 = Clock::now();
  double last = 0;
  for (std::int64_t s = 1; s <= o.steps; ++s) {
    const Batch b = draw(rng, o);
    last = train({b.x, b.y})[0].item<double>();
    if (s % o.every == 0 || s == 1) std::printf("step %6lld  loss %.4f\n", static_cast<long long>(s), last);
  }
  std::printf("trained %lld steps, %.3f ms per step; final loss %.4f\n", static_cast<long long>(o.steps),
              ms_since(t1) / static_cast<double>(o.steps), last);
  const auto after = evaluate({held_out.x, held_out.y});
  std::printf("after training: held-out loss %.4f, accuracy %5.1f%%\n", after[0].item<double>(),
              100 * after[1].item<double>());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

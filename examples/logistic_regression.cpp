// The README's demo: the Theano tutorial's "A Real Example: Logistic
// Regression", end to end through the public API. It builds the graph,
// compiles `train` and `predict` (printing what each compile cost and whether
// the on-disk compile cache served it, so a second run shows the cache at
// work), trains with gradient descent on generated two-class data and reports
// the accuracy on the training set and on a held-out set.
//
//   logistic_regression [--steps N] [--feats N] [--samples N] [--every N]
#include <unistd.h>

#include <ostream>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <theano/theano.hpp>

#include "example_cli.h"
#include "example_device.h"

namespace {

namespace T = theano::tensor;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "logistic_regression";

// ------------------------------------------------------------ command line

struct Options {
  std::int64_t steps = 10000;
  std::int64_t feats = 784;
  std::int64_t samples = 400;
  std::int64_t every = 1000;  ///< loss line every N steps
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--steps N] [--feats N] [--samples N] [--every N] [--help]\n"
     << "\n"
     << "Trains the Theano tutorial's logistic regression on generated two-class data\n"
     << "(two Gaussian clouds, one per class) and reports compile times, the loss and the\n"
     << "accuracy. Run it twice: the second run's compiles are served by the compile cache.\n"
     << "\n"
     << "  --steps N    gradient-descent steps (default 10000)\n"
     << "  --feats N    features per sample (default 784)\n"
     << "  --samples N  training samples; a held-out set of the same size is also drawn (default 400)\n"
     << "  --every N    print the loss every N steps (default 1000)\n"
     << "  --help       this text\n"
     << "\n"
     << "THEANO_FLAGS (e.g. compiledir=<dir>, mode=fast_compile, device=cuda) is honoured; with\n"
     << "device=cuda (or emulated) the training step runs on the GPU and the demo says so.\n";
}

/// Accepts `--flag N` and `--flag=N`. Returns false when --help was asked.
bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--steps", "--feats", "--samples", "--every"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--steps") o.steps = parse_count(arg, value, 1, 100'000'000);
    else if (arg == "--feats") o.feats = parse_count(arg, value, 1, 1'000'000);
    else if (arg == "--samples") o.samples = parse_count(arg, value, 2, 10'000'000);
    else if (arg == "--every") o.every = parse_count(arg, value, 1, 100'000'000);
    else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  if (o.samples * o.feats > 50'000'000)
    throw UsageError{"--samples x --feats is " + std::to_string(o.samples * o.feats) +
                     " values; at most 50000000 are allowed (two sets of that many doubles are generated)"};
  return true;
}

// ------------------------------------------------------------ data

/// Two classes, one Gaussian cloud each: y is a fair coin and
/// x ~ N((2y - 1) * mu, I), with |mu| = 2.5 along a hidden random direction, so
/// the best classifier is linear (x . mu > 0, 99.4% accurate) and a learned one
/// comes close on data it has not seen. Deterministic (fixed-seed
/// mt19937_64): every run trains on the same data.
struct Dataset {
  NDArray x;  ///< (samples, feats) float64
  NDArray y;  ///< (samples,) float64 in {0, 1}
};

std::vector<double> hidden_direction(std::mt19937_64& rng, std::int64_t feats, double norm) {
  std::normal_distribution<double> normal;
  std::vector<double> mu(static_cast<std::size_t>(feats));
  double sq = 0;
  for (double& v : mu) {
    v = normal(rng);
    sq += v * v;
  }
  for (double& v : mu) v *= norm / std::sqrt(sq);
  return mu;
}

Dataset draw(std::mt19937_64& rng, const std::vector<double>& mu, std::int64_t samples) {
  const auto feats = static_cast<std::int64_t>(mu.size());
  std::normal_distribution<double> normal;
  std::bernoulli_distribution coin;
  Dataset d{NDArray::empty({samples, feats}), NDArray::empty({samples})};
  double* x = d.x.data_as<double>();
  double* y = d.y.data_as<double>();
  for (std::int64_t i = 0; i < samples; ++i) {
    y[i] = coin(rng) ? 1.0 : 0.0;
    const double side = 2 * y[i] - 1;
    for (std::int64_t j = 0; j < feats; ++j) x[i * feats + j] = normal(rng) + side * mu[j];
  }
  return d;
}

double mean(const NDArray& v) {
  double s = 0;
  for (std::int64_t i = 0; i < v.size(); ++i) s += v.data_as<double>()[i];
  return s / static_cast<double>(v.size());
}

// ------------------------------------------------------------ compiling

/// "cache hit", "cache miss", "cache off", or "no compile cache" for a linker
/// without one (e.g. THEANO_FLAGS linker=py).
std::string cache_words(const theano::ProfileStats& p) {
  return p.build.cache.empty() ? "no compile cache" : "cache " + p.build.cache;
}

struct Compiled {
  Function f;
  double wall_ms = 0;  ///< wall time of function(): rewrite, codegen, clang or cache look-up, load
  std::string cache;   ///< ThunkStats::cache: "hit", "miss", "off" or ""
};

/// Compiles one function and prints one line: wall time, cache outcome and
/// the breakdown, e.g. `compile train:      1.3 ms (cache hit; rewrite ...)`.
Compiled compile(const char* name, const std::vector<theano::In>& ins, const std::vector<theano::Out>& outs,
                 theano::FunctionOptions options = {}) {
  options.name = name;
  const auto t0 = Clock::now();
  Compiled c{theano::function(ins, outs, options)};
  c.wall_ms = ms_since(t0);
  const theano::ProfileStats p = c.f.profile();
  c.cache = p.build.cache;
  std::printf("compile %-8s %8.1f ms (%s; rewrite %.1f, codegen %.1f, clang %.1f, load %.1f ms)\n",
              (std::string(name) + ":").c_str(), c.wall_ms, cache_words(p).c_str(), p.rewrite_ms,
              p.build.codegen_ms, p.build.compile_ms, p.build.load_ms);
  return c;
}

/// The summary line the README (and the CTest) look for: "(cache hit)" when
/// every function came from the compiledir.
void print_compile_summary(const std::vector<Compiled>& fs) {
  double total = 0;
  bool all_hit = true, any_miss = false;
  for (const Compiled& c : fs) {
    total += c.wall_ms;
    all_hit = all_hit && c.cache == "hit";
    any_miss = any_miss || c.cache == "miss";
  }
  if (all_hit)
    std::printf("compile: %.1f ms (cache hit): loaded from the compiledir, clang did not run\n", total);
  else if (any_miss)
    std::printf("compile: %.1f ms (cache miss): compiled and stored in the compiledir; "
                "run again to load it from there\n", total);
  else  // THEANO_FLAGS compiledir=off, or a linker without a cache (linker=py)
    std::printf("compile: %.1f ms (%s)\n", total,
                fs.front().cache.empty() ? "no compile cache" : ("cache " + fs.front().cache).c_str());
}

// ------------------------------------------------------------ progress

/// `[##########..........]  50%` for `done` of `total`.
std::string bar(std::int64_t done, std::int64_t total, int width = 30) {
  const int filled = static_cast<int>(done * width / total);
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] " +
         std::to_string(done * 100 / total) + "%";
}

/// Prints the progress bar and the loss. On a terminal the bar is redrawn in
/// place ('\r') about a hundred times; the loss lines every `every` steps
/// scroll above it. Elsewhere (a pipe, a log file) only the loss lines appear,
/// each with the bar, so the output stays line-oriented.
class Progress {
 public:
  Progress(std::int64_t total, std::int64_t every)
      : total_(total),
        every_(every),
        tty_(::isatty(::fileno(stdout)) != 0),
        redraw_(std::max<std::int64_t>(1, total / 100)) {}

  void update(std::int64_t step, double cost) {  // step counts from 1
    const bool loss_line = step % every_ == 0 || step == 1 || step == total_;
    if (loss_line) {
      if (tty_) std::printf("\r\033[K");
      std::printf("%s  step %*lld/%lld  cost %.6f\n", bar(step, total_).c_str(), width(), static_cast<long long>(step),
                  static_cast<long long>(total_), cost);
    }
    if (tty_ && (loss_line || step % redraw_ == 0) && step != total_)
      std::printf("\r\033[K%s  step %*lld/%lld", bar(step, total_).c_str(), width(), static_cast<long long>(step),
                  static_cast<long long>(total_));
    std::fflush(stdout);
  }

 private:
  int width() const { return static_cast<int>(std::to_string(total_).size()); }
  std::int64_t total_, every_;
  bool tty_;
  std::int64_t redraw_;
};

// ------------------------------------------------------------ evaluation

struct Accuracy {
  std::int64_t correct = 0, total = 0;
  double percent() const { return 100.0 * static_cast<double>(correct) / static_cast<double>(total); }
};

Accuracy accuracy(const Function& predict, const Dataset& d) {
  const NDArray pred = predict({d.x})[0].astype(theano::DType::Float64);
  Accuracy a{0, d.y.size()};
  for (std::int64_t i = 0; i < a.total; ++i) a.correct += pred.data_as<double>()[i] == d.y.data_as<double>()[i];
  return a;
}

/// The first `n` entries of a 0/1 vector as "1 0 1 1 ...".
std::string head(const NDArray& v, std::int64_t n = 24) {
  const NDArray d = v.astype(theano::DType::Float64);
  std::string s;
  for (std::int64_t i = 0; i < std::min(n, d.size()); ++i) s += d.data_as<double>()[i] != 0 ? "1 " : "0 ";
  return s + (d.size() > n ? "..." : "");
}

// ------------------------------------------------------------ the tutorial

int run(const Options& o) {
  std::printf("logistic regression (the Theano tutorial): %lld samples, %lld features, %lld steps\n",
              static_cast<long long>(o.samples), static_cast<long long>(o.feats), static_cast<long long>(o.steps));
  std::printf("%s\n", example::device_line().c_str());

  // Generated data: two Gaussian clouds around +mu and -mu.
  std::mt19937_64 rng(1234);
  const std::vector<double> mu = hidden_direction(rng, o.feats, 2.5);
  const Dataset train_set = draw(rng, mu, o.samples);
  const Dataset held_out = draw(rng, mu, o.samples);
  std::printf("data: two Gaussian clouds 5 apart along a hidden direction; %.0f%% of the samples are class 1\n",
              100 * mean(train_set.y));
  std::printf("      plus a held-out set of %lld samples drawn the same way\n\n", static_cast<long long>(o.samples));

  // Declare Theano symbolic variables.
  Var x = T::dmatrix("x"), y = T::dvector("y");
  // Initialise the weight vector w randomly (as the tutorial does) and the bias b to 0.
  std::normal_distribution<double> normal;
  NDArray w0 = NDArray::empty({o.feats});
  for (std::int64_t j = 0; j < o.feats; ++j) w0.data_as<double>()[j] = normal(rng);
  Var w = theano::shared(w0, "w");
  Var b = theano::shared(NDArray::scalar(0.0), "b");

  // Construct the expression graph. The tutorial writes p_1 as
  // 1 / (1 + exp(-dot(x, w) - b)) and 1 - p_1 in the cross-entropy; the
  // optimizer's sigmoid rewrites make that form stable too (the program
  // logistic_regression_tutorial runs it as written). Here both are written
  // in their stable form, sigmoid(z) and sigmoid(-z), as one would by hand.
  Var z = T::dot(x, w) + b;
  Var p_1 = T::sigmoid(z);                                 // probability that target = 1
  Var p_0 = T::sigmoid(-z);                                // 1 - p_1, without cancellation
  Var prediction = p_1 > 0.5;                              // the prediction thresholded
  Var xent = -y * T::log(p_1) - (1 - y) * T::log(p_0);     // cross-entropy loss function
  Var cost = T::mean(xent) + 0.01 * T::sum(T::sqr(w));    // the cost to minimize
  cost->set_name("cost");
  const std::vector<Var> g = theano::grad(cost, std::vector<Var>{w, b});  // gradient of the cost w.r.t. w and b

  // Compile.
  const Compiled train = compile("train", {x, y}, {cost}, {.updates = {{w, w - 0.1 * g[0]}, {b, b - 0.1 * g[1]}}});
  const Compiled predict = compile("predict", {x}, {prediction});
  print_compile_summary({train, predict});
  std::printf("train: %zu nodes after rewriting (%zu on the GPU); predict: %zu nodes (%zu on the GPU)\n\n",
              train.f.fgraph().toposort().size(), example::gpu_nodes(train.f), predict.f.fgraph().toposort().size(),
              example::gpu_nodes(predict.f));

  // Train.
  std::printf("training\n");
  Progress progress(o.steps, o.every);
  const auto t_train = Clock::now();
  double last_cost = 0;
  for (std::int64_t step = 1; step <= o.steps; ++step) {
    last_cost = train.f({train_set.x, train_set.y})[0].item<double>();
    progress.update(step, last_cost);
  }
  const double train_s = ms_since(t_train) / 1000;
  std::printf("trained in %.2f s (%.1f us per step); final cost %.6f, b = %.4f\n\n", train_s,
              train_s * 1e6 / static_cast<double>(o.steps), last_cost, theano::get_value(b).item<double>());

  // Evaluate.
  const Accuracy on_train = accuracy(predict.f, train_set), on_held_out = accuracy(predict.f, held_out);
  std::printf("target values for D:  %s\n", head(train_set.y).c_str());
  std::printf("prediction on D:      %s\n", head(predict.f({train_set.x})[0]).c_str());
  std::printf("accuracy on the training data: %5.1f%% (%lld/%lld)\n", on_train.percent(),
              static_cast<long long>(on_train.correct), static_cast<long long>(on_train.total));
  std::printf("accuracy on held-out data:     %5.1f%% (%lld/%lld)\n", on_held_out.percent(),
              static_cast<long long>(on_held_out.correct), static_cast<long long>(on_held_out.total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

// The W3 model of docs/workloads.md as a small training program: a
// 784-512-10 multi-layer perceptron (tanh hidden layer, softmax output,
// categorical cross-entropy, SGD with learning rate 0.1) trained for a few
// epochs on generated data, one Gaussian cluster per class. It shows the
// loss curve, then what the profiler saw in the training function node by
// node, and writes the optimized training graph as Graphviz.
//
//   mlp [--epochs N] [--batch N] [--hidden N] [--samples N] [--dot FILE]
#include <ostream>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <theano/theano.hpp>

#include "example_cli.h"
#include "example_device.h"
#include "example_train.h"

namespace {

namespace T = theano::tensor;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "mlp";
constexpr std::int64_t kInputs = 784, kClasses = 10;  // W3's layer sizes around the hidden layer
constexpr double kLearningRate = 0.1;

// ------------------------------------------------------------ command line

struct Options {
  std::int64_t epochs = 10;
  std::int64_t batch = 256;
  std::int64_t hidden = 512;
  std::int64_t samples = 4096;  ///< training samples; a held-out set of a quarter of that is drawn too
  std::string dot = "mlp.dot";
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--epochs N] [--batch N] [--hidden N] [--samples N] [--dot FILE] [--help]\n"
     << "\n"
     << "Trains workloads.md's W3 model (784-H-10 MLP: tanh, softmax, cross-entropy, SGD 0.1)\n"
     << "on generated data (one Gaussian cluster per class), prints the loss per epoch, the\n"
     << "training function's per-node profile, and writes its optimized graph as Graphviz.\n"
     << "\n"
     << "  --epochs N   passes over the training set (default 10)\n"
     << "  --batch N    minibatch size (default 256)\n"
     << "  --hidden N   hidden units (default 512)\n"
     << "  --samples N  training samples, at least one batch (default 4096)\n"
     << "  --dot FILE   where to write the graph (default mlp.dot; .svg/.png/.pdf render with dot)\n"
     << "  --help       this text\n"
     << "\n"
     << "The training function is linked with THEANO_FLAGS linker (default: opwise, which times\n"
     << "every node); other THEANO_FLAGS (compiledir=<dir>, mode=..., device=cuda) are honoured;\n"
     << "with device=cuda (or emulated) training runs on the GPU and the demo says so.\n";
}

/// Accepts `--flag VALUE` and `--flag=VALUE`. Returns false when --help was asked.
bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--epochs", "--batch", "--hidden", "--samples", "--dot"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--epochs") o.epochs = parse_count(arg, value, 1, 100'000);
    else if (arg == "--batch") o.batch = parse_count(arg, value, 1, 65'536);
    else if (arg == "--hidden") o.hidden = parse_count(arg, value, 1, 16'384);
    else if (arg == "--samples") o.samples = parse_count(arg, value, 1, 65'536);
    else if (arg == "--dot") {
      if (value.empty()) throw UsageError{"--dot needs a file name"};
      o.dot = value;
    } else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  if (o.batch > o.samples)
    throw UsageError{"--batch " + std::to_string(o.batch) + " is larger than --samples " + std::to_string(o.samples)};
  return true;
}

// ------------------------------------------------------------ data

/// One Gaussian cluster per class: the centre of class k is drawn once from
/// N(0, 0.15^2 I) in 784 dimensions, a sample is its centre plus N(0, I)
/// noise. The clusters overlap enough that learning takes a few epochs.
/// Deterministic (fixed-seed mt19937_64).
struct Dataset {
  NDArray x;  ///< (n, 784) float64
  NDArray t;  ///< (n,) int64 class labels
};

std::vector<double> cluster_centres(std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 0.15);
  std::vector<double> c(static_cast<std::size_t>(kClasses * kInputs));
  for (double& v : c) v = normal(rng);
  return c;
}

Dataset draw(std::mt19937_64& rng, const std::vector<double>& centres, std::int64_t n) {
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<std::int64_t> label(0, kClasses - 1);
  Dataset d{NDArray::empty({n, kInputs}), NDArray::empty({n}, theano::DType::Int64)};
  double* x = d.x.data_as<double>();
  auto* t = d.t.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    t[i] = label(rng);
    for (std::int64_t j = 0; j < kInputs; ++j)
      x[i * kInputs + j] = centres[static_cast<std::size_t>(t[i] * kInputs + j)] + normal(rng);
  }
  return d;
}

/// W3's initialisation: W ~ U(-a, a) with a = sqrt(6 / (fan_in + fan_out)).
NDArray glorot(std::mt19937_64& rng, std::int64_t fan_in, std::int64_t fan_out) {
  const double a = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  std::uniform_real_distribution<double> uniform(-a, a);
  NDArray w = NDArray::empty({fan_in, fan_out});
  for (std::int64_t i = 0; i < w.size(); ++i) w.data_as<double>()[i] = uniform(rng);
  return w;
}

// ------------------------------------------------------------ the model

struct Model {
  Function train;    ///< (X, t) -> loss before the update; updates W1, b1, W2, b2
  Function predict;  ///< X -> argmax of the logits
};

/// Compiles and prints one line: wall time and whether the compile cache served it.
Function compile(const char* name, const std::vector<theano::In>& ins, const std::vector<theano::Out>& outs,
                 theano::FunctionOptions options = {}) {
  options.name = name;
  const auto t0 = Clock::now();
  Function f = theano::function(ins, outs, options);
  const double wall = ms_since(t0);
  const theano::ProfileStats p = f.profile();
  std::printf("compile %-8s %8.1f ms (%s, linker %s; %zu nodes, %zu on the GPU)\n", (std::string(name) + ":").c_str(),
              wall, p.build.cache.empty() ? "no compile cache" : ("cache " + p.build.cache).c_str(), p.linker.c_str(),
              f.fgraph().toposort().size(), example::gpu_nodes(f));
  return f;
}

/// W3: h = tanh(X W1 + b1); logits = h W2 + b2;
/// loss = mean(-log softmax(logits)[t]); P <- P - 0.1 dloss/dP.
Model build(std::mt19937_64& rng, std::int64_t hidden) {
  Var X = T::dmatrix("X"), t = T::vector("t", theano::DType::Int64);
  Var W1 = theano::shared(glorot(rng, kInputs, hidden), "W1");
  Var b1 = theano::shared(NDArray::zeros({hidden}), "b1");
  Var W2 = theano::shared(glorot(rng, hidden, kClasses), "W2");
  Var b2 = theano::shared(NDArray::zeros({kClasses}), "b2");
  Var h = T::tanh(T::dot(X, W1) + b1);
  Var logits = T::dot(h, W2) + b2;
  Var loss = T::mean(T::nnet::crossentropy_categorical_1hot(T::nnet::softmax(logits), t));
  loss->set_name("loss");

  const std::vector<Var> params{W1, b1, W2, b2};
  const std::vector<Var> grads = theano::grad(loss, params);
  theano::FunctionOptions train_options{.profile = true};
  for (std::size_t i = 0; i < params.size(); ++i)
    train_options.updates[params[i]] = params[i] - kLearningRate * grads[i];

  Model m;
  {
    const example::OpwiseLinker opwise;  // per-node times in the profile
    m.train = compile("train", {X, t}, {loss}, train_options);
  }
  m.predict = compile("predict", {X}, {T::argmax(logits, 1)});
  return m;
}

// ------------------------------------------------------------ training

double accuracy(const Function& predict, const Dataset& d) { return example::accuracy(predict, d.x, d.t); }

/// One pass over the training set in minibatches (a trailing partial batch is
/// left out); returns the mean of the batch losses.
double run_epoch(const Function& train, const Dataset& d, std::int64_t batch) {
  const std::int64_t batches = d.t.size() / batch;
  double sum = 0;
  for (std::int64_t i = 0; i < batches; ++i) {
    const NDArray x = d.x.slice(0, i * batch, (i + 1) * batch), t = d.t.slice(0, i * batch, (i + 1) * batch);
    sum += train({x, t})[0].item<double>();
  }
  return sum / static_cast<double>(batches);
}

/// A bar whose length is `value / full` of `width`.
std::string bar(double value, double full, int width = 40) {
  if (!std::isfinite(value) || !std::isfinite(full)) return "?";
  const int n = full > 0 ? std::clamp(static_cast<int>(std::lround(value / full * width)), 0, width) : 0;
  return std::string(n, '#');
}

/// Fails before training, not after, when the graph file cannot be written.
void check_writable(const std::string& path) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (!dir.empty() && !std::filesystem::is_directory(dir))
    throw std::runtime_error("cannot write the graph to '" + path + "': directory '" + dir.string() +
                             "' does not exist");
}

int run(const Options& o) {
  check_writable(o.dot);
  std::printf("mlp (W3): %lld-%lld-%lld, batch %lld, %lld epochs over %lld samples\n",
              static_cast<long long>(kInputs), static_cast<long long>(o.hidden), static_cast<long long>(kClasses),
              static_cast<long long>(o.batch), static_cast<long long>(o.epochs), static_cast<long long>(o.samples));
  std::printf("%s\n", example::device_line().c_str());
  std::mt19937_64 rng(2024);
  const std::vector<double> centres = cluster_centres(rng);
  const Dataset train_set = draw(rng, centres, o.samples);
  const Dataset held_out = draw(rng, centres, std::max<std::int64_t>(o.samples / 4, 1));
  std::printf("data: %d Gaussian clusters, one per class; %lld held-out samples\n\n", static_cast<int>(kClasses),
              static_cast<long long>(held_out.t.size()));

  const Model m = build(rng, o.hidden);
  std::printf("\nepoch  loss      held-out accuracy\n");
  double first = 0;
  const auto t0 = Clock::now();
  for (std::int64_t e = 1; e <= o.epochs; ++e) {
    const double loss = run_epoch(m.train, train_set, o.batch);
    if (e == 1) first = loss;
    std::printf("%5lld  %.6f  %5.1f%%  |%s\n", static_cast<long long>(e), loss, accuracy(m.predict, held_out),
                bar(loss, first).c_str());
    std::fflush(stdout);
  }
  std::printf("trained in %.2f s\n\n", ms_since(t0) / 1000);

  std::cout << m.train.profile().summary() << "\n";

  theano::write_graph(o.dot, m.train);
  std::printf("wrote the optimized training graph (%zu nodes) to %s", m.train.fgraph().toposort().size(),
              o.dot.c_str());
  const bool text = o.dot.ends_with(".dot") || o.dot.ends_with(".gv");
  if (text && theano::graphviz_available())
    std::printf("; render it with: dot -Tsvg %s -o %s\n", o.dot.c_str(),
                std::filesystem::path(o.dot).replace_extension(".svg").c_str());
  else if (text)
    std::printf("; render it with Graphviz's dot (apt-get install graphviz)\n");
  else
    std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

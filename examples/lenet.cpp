// Theano's convolutional-network tutorial (LeNet: conv -> max-pool -> tanh,
// twice, a tanh hidden layer, softmax regression, SGD) trained on real
// handwritten digits: the 1797 8x8 images scikit-learn ships, committed as
// examples/data/digits.txt (its origin and licence: examples/data/README.md).
// The tutorial's 28x28 network is sized down for 8x8 images: 3x3 kernels with
// 'half' borders keep 8x8, each 2x2 pooling halves it (8 -> 4 -> 2).
// A deterministic fifth of the images is held out; the program prints a
// progress bar and the loss per epoch, the held-out accuracy, the compile
// breakdown of each function and the training function's per-node profile.
//
//   lenet [--epochs N] [--batch N] [--kernels N,M] [--hidden N] [--data FILE]
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <theano/theano.hpp>

#include "example_cli.h"
#include "example_device.h"
#include "example_train.h"

#ifndef THEANO_EXAMPLES_DATA_DIR
#define THEANO_EXAMPLES_DATA_DIR "examples/data"
#endif

namespace {

namespace T = theano::tensor;
using theano::Function, theano::NDArray, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "lenet";
constexpr std::int64_t kSide = 8, kClasses = 10;
constexpr double kLearningRate = 0.1;

// ------------------------------------------------------------ command line

struct Options {
  std::int64_t epochs = 30;
  std::int64_t batch = 32;
  std::int64_t kernels1 = 12, kernels2 = 24;  ///< Theano's nkerns, for 8x8 inputs
  std::int64_t hidden = 100;
  std::string data = std::string(THEANO_EXAMPLES_DATA_DIR) + "/digits.txt";
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--epochs N] [--batch N] [--kernels N,M] [--hidden N] [--data FILE] [--help]\n"
     << "\n"
     << "Trains Theano's LeNet tutorial network (conv 3x3 'half' -> max-pool 2x2 -> tanh, twice;\n"
     << "a tanh hidden layer; softmax; SGD 0.1) on the 8x8 handwritten digits of\n"
     << "examples/data/digits.txt, and prints the loss per epoch, the held-out accuracy, the\n"
     << "compile breakdown and the training function's per-node profile.\n"
     << "\n"
     << "  --epochs N     passes over the training images (default 30)\n"
     << "  --batch N      minibatch size (default 32)\n"
     << "  --kernels N,M  feature maps of the two convolutional layers (default 12,24)\n"
     << "  --hidden N     hidden units (default 100)\n"
     << "  --data FILE    the digits file (default " << THEANO_EXAMPLES_DATA_DIR << "/digits.txt)\n"
     << "  --help         this text\n"
     << "\n"
     << "THEANO_FLAGS are honoured (compiledir=<dir>, device=cuda or emulated, linker=...).\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--epochs", "--batch", "--kernels", "--hidden", "--data"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--epochs") o.epochs = parse_count(arg, value, 1, 100'000);
    else if (arg == "--batch") o.batch = parse_count(arg, value, 1, 1'024);
    else if (arg == "--hidden") o.hidden = parse_count(arg, value, 1, 16'384);
    else if (arg == "--kernels") {
      const std::size_t comma = value.find(',');
      if (comma == std::string_view::npos) throw UsageError{"--kernels expects N,M, got '" + std::string(value) + "'"};
      o.kernels1 = parse_count(arg, value.substr(0, comma), 1, 1'024);
      o.kernels2 = parse_count(arg, value.substr(comma + 1), 1, 1'024);
    } else if (arg == "--data") {
      if (value.empty()) throw UsageError{"--data needs a file name"};
      o.data = value;
    } else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  return true;
}

// ------------------------------------------------------------ data

struct Dataset {
  NDArray x;  ///< (n, 1, 8, 8) float64 in [0, 1]
  NDArray t;  ///< (n,) int64 labels
};

/// Reads examples/data/digits.txt (format: examples/data/README.md).
Dataset read_digits(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open the digits file '" + path + "' (see --data)");
  constexpr std::string_view kAlphabet = "0123456789abcdefg";
  std::vector<double> pixels;
  std::vector<std::int64_t> labels;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const auto bad = [&](const char* why) {
      return std::runtime_error(path + ":" + std::to_string(number) + ": " + why);
    };
    if (line.size() != 2 + kSide * kSide || line[0] < '0' || line[0] > '9' || line[1] != ' ')
      throw bad("expected a label 0-9, a space and 64 pixels");
    labels.push_back(line[0] - '0');
    for (std::size_t k = 2; k < line.size(); ++k) {
      const std::size_t v = kAlphabet.find(line[k]);
      if (v == std::string_view::npos) throw bad("a pixel outside 0123456789abcdefg");
      pixels.push_back(static_cast<double>(v) / 16.0);
    }
  }
  const auto n = static_cast<std::int64_t>(labels.size());
  if (n == 0) throw std::runtime_error("no images in '" + path + "'");
  Dataset d{NDArray::empty({n, 1, kSide, kSide}), NDArray::empty({n}, theano::DType::Int64)};
  std::copy(pixels.begin(), pixels.end(), d.x.data_as<double>());
  std::copy(labels.begin(), labels.end(), d.t.data_as<std::int64_t>());
  return d;
}

/// Rows `order[lo, hi)` of `d`, copied.
Dataset take(const Dataset& d, const std::vector<std::int64_t>& order, std::size_t lo, std::size_t hi) {
  const auto n = static_cast<std::int64_t>(hi - lo);
  constexpr std::int64_t kPixels = kSide * kSide;
  Dataset r{NDArray::empty({n, 1, kSide, kSide}), NDArray::empty({n}, theano::DType::Int64)};
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t src = order[lo + static_cast<std::size_t>(i)];
    std::copy_n(d.x.data_as<double>() + src * kPixels, kPixels, r.x.data_as<double>() + i * kPixels);
    r.t.data_as<std::int64_t>()[i] = d.t.data_as<std::int64_t>()[src];
  }
  return r;
}

// ------------------------------------------------------------ the model

/// The tutorial's initialisation: U(-a, a), a = sqrt(6 / (fan_in + fan_out)),
/// where pooling 2x2 divides a conv layer's fan-out by 4.
NDArray uniform_init(std::mt19937_64& rng, std::vector<std::int64_t> shape, double fan_in, double fan_out) {
  const double a = std::sqrt(6.0 / (fan_in + fan_out));
  std::uniform_real_distribution<double> u(-a, a);
  NDArray w = NDArray::empty(std::move(shape));
  for (std::int64_t i = 0; i < w.size(); ++i) w.data_as<double>()[i] = u(rng);
  return w;
}

/// conv (3x3, 'half') -> max-pool 2x2 -> tanh(. + b): the tutorial's LeNetConvPoolLayer.
Var conv_pool_layer(std::mt19937_64& rng, const Var& input, std::int64_t in_maps, std::int64_t out_maps,
                    std::vector<Var>& params, const char* name) {
  Var W = theano::shared(uniform_init(rng, {out_maps, in_maps, 3, 3}, static_cast<double>(in_maps * 9),
                                      static_cast<double>(out_maps * 9) / 4.0),
                         std::string("W_") + name);
  Var b = theano::shared(NDArray::zeros({out_maps}), std::string("b_") + name);
  params.insert(params.end(), {W, b});
  Var conv = T::nnet::conv2d(input, W, {.border_mode = T::nnet::BorderMode::half()});
  Var pooled = T::signal::pool_2d(conv, {2, 2}, {.ignore_border = true});
  return T::tanh(pooled + T::dimshuffle(b, {T::kNewAxis, 0, T::kNewAxis, T::kNewAxis}));
}

struct Model {
  Function train;    ///< (X, t) -> loss before the update; updates every parameter
  Function predict;  ///< X -> the most likely class
};

/// Compiles one function and prints its breakdown.
Function compile(const char* name, const std::vector<theano::In>& ins, const std::vector<theano::Out>& outs,
                 theano::FunctionOptions options = {}) {
  options.name = name;
  const auto t0 = Clock::now();
  Function f = theano::function(ins, outs, options);
  const double wall = ms_since(t0);
  const theano::ProfileStats p = f.profile();
  std::printf("compile %-8s %8.1f ms (%s; rewrite %.1f, codegen %.1f, clang %.1f, load %.1f ms; %zu nodes, %zu on "
              "the GPU)\n",
              (std::string(name) + ":").c_str(), wall,
              p.build.cache.empty() ? "no compile cache" : ("cache " + p.build.cache).c_str(), p.rewrite_ms,
              p.build.codegen_ms, p.build.compile_ms, p.build.load_ms, f.fgraph().toposort().size(),
              example::gpu_nodes(f));
  return f;
}

Model build(std::mt19937_64& rng, const Options& o) {
  Var X = T::tensor4("X", theano::DType::Float64), t = T::vector("t", theano::DType::Int64);
  std::vector<Var> params;
  Var h1 = conv_pool_layer(rng, X, 1, o.kernels1, params, "conv1");            // (B, k1, 4, 4)
  Var h2 = conv_pool_layer(rng, h1, o.kernels1, o.kernels2, params, "conv2");  // (B, k2, 2, 2)
  const std::int64_t flat = o.kernels2 * 2 * 2;
  Var W3 = theano::shared(uniform_init(rng, {flat, o.hidden}, static_cast<double>(flat), static_cast<double>(o.hidden)),
                          "W_hidden");
  Var b3 = theano::shared(NDArray::zeros({o.hidden}), "b_hidden");
  Var W4 = theano::shared(NDArray::zeros({o.hidden, kClasses}), "W_softmax");  // as the tutorial's LogisticRegression
  Var b4 = theano::shared(NDArray::zeros({kClasses}), "b_softmax");
  params.insert(params.end(), {W3, b3, W4, b4});
  Var h3 = T::tanh(T::dot(T::flatten(h2, 2), W3) + b3);
  Var logits = T::dot(h3, W4) + b4;
  Var loss = T::mean(T::nnet::crossentropy_categorical_1hot(T::nnet::softmax(logits), t));
  loss->set_name("loss");

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

/// `[#####.....]` for `done` of `total`.
std::string bar(std::int64_t done, std::int64_t total, int width = 30) {
  const auto filled = static_cast<int>(done * width / std::max<std::int64_t>(total, 1));
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.') + "]";
}

int run(const Options& o) {
  const Dataset all = read_digits(o.data);
  // A fixed shuffle; the last fifth is held out.
  std::vector<std::int64_t> order(static_cast<std::size_t>(all.t.size()));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(1998);
  std::shuffle(order.begin(), order.end(), rng);
  const std::size_t n_train = order.size() - order.size() / 5;
  const Dataset train_set = take(all, order, 0, n_train), held_out = take(all, order, n_train, order.size());
  if (o.batch > train_set.t.size())
    throw UsageError{"--batch " + std::to_string(o.batch) + " is larger than the " +
                     std::to_string(train_set.t.size()) + " training images"};

  std::printf("lenet: Theano's LeNet tutorial on %lld 8x8 digits (%lld training, %lld held out)\n",
              static_cast<long long>(all.t.size()), static_cast<long long>(train_set.t.size()),
              static_cast<long long>(held_out.t.size()));
  std::printf("model: conv3x3(%lld) pool2 tanh, conv3x3(%lld) pool2 tanh, tanh(%lld), softmax(10); batch %lld, "
              "SGD %.2f, %lld epochs\n",
              static_cast<long long>(o.kernels1), static_cast<long long>(o.kernels2), static_cast<long long>(o.hidden),
              static_cast<long long>(o.batch), kLearningRate, static_cast<long long>(o.epochs));
  std::printf("%s\n\n", example::device_line().c_str());

  const Model m = build(rng, o);
  std::printf("\nepoch  progress                        loss      held-out accuracy\n");
  const std::int64_t batches = train_set.t.size() / o.batch;
  const auto t0 = Clock::now();
  double acc = 0;
  for (std::int64_t e = 1; e <= o.epochs; ++e) {
    double sum = 0;
    for (std::int64_t i = 0; i < batches; ++i) {
      const NDArray x = train_set.x.slice(0, i * o.batch, (i + 1) * o.batch);
      const NDArray t = train_set.t.slice(0, i * o.batch, (i + 1) * o.batch);
      sum += m.train({x, t})[0].item<double>();
    }
    acc = accuracy(m.predict, held_out);
    std::printf("%5lld  %s  %.6f  %5.1f%%\n", static_cast<long long>(e), bar(e, o.epochs).c_str(),
                sum / static_cast<double>(batches), acc);
    std::fflush(stdout);
  }
  std::printf("trained in %.2f s; held-out accuracy: %.1f%%\n\n", ms_since(t0) / 1000, acc);
  std::cout << m.train.profile().summary() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

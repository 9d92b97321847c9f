// A linear classifier on bag-of-words features held in a sparse matrix: the
// documents are rows of a CSR matrix of word counts (generated: two topics
// whose documents favour different words), the model is Theano's
// `sigmoid(structured_dot(X, w) + b)` trained with grad and updates on shared
// variables. The gradient of w is X^T g — the same kernel on X's components
// read as CSC, no transposed copy.
//
//   sparse_bow [--docs N] [--vocab N] [--words N] [--steps N] [--every N]
#include <algorithm>
#include <ostream>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <theano/sparse/ops.h>
#include <theano/theano.hpp>

#include "example_cli.h"

namespace {

namespace T = theano::tensor;
namespace S = theano::sparse;
using theano::Function, theano::NDArray, theano::SparseMatrix, theano::Var;
using example::Clock, example::ms_since, example::parse_count, example::UsageError;

constexpr const char* kProgram = "sparse_bow";

struct Options {
  std::int64_t docs = 4000;    ///< training documents (as many held out)
  std::int64_t vocab = 50000;  ///< words
  std::int64_t words = 40;     ///< words per document
  std::int64_t steps = 300;
  std::int64_t every = 50;
};

void print_usage(std::ostream& os) {
  os << "usage: " << kProgram << " [--docs N] [--vocab N] [--words N] [--steps N] [--every N] [--help]\n"
     << "\n"
     << "Trains a logistic regression on generated bag-of-words documents stored as a sparse\n"
     << "CSR matrix (word counts), with structured_dot, grad and shared-variable updates.\n"
     << "\n"
     << "  --docs N   training documents; as many are drawn for held-out evaluation (default 4000)\n"
     << "  --vocab N  vocabulary size (default 50000)\n"
     << "  --words N  words per document (default 40)\n"
     << "  --steps N  full-batch gradient steps (default 300)\n"
     << "  --every N  print the loss every N steps (default 50)\n";
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg, value;
    example::next_flag(argc, argv, i, {"--docs", "--vocab", "--words", "--steps", "--every"}, arg, value);
    if (arg == "--help" || arg == "-h") return false;
    if (arg == "--docs") o.docs = parse_count(arg, value, 2, 1'000'000);
    else if (arg == "--vocab") o.vocab = parse_count(arg, value, 10, 10'000'000);
    else if (arg == "--words") o.words = parse_count(arg, value, 1, 10'000);
    else if (arg == "--steps") o.steps = parse_count(arg, value, 1, 1'000'000);
    else if (arg == "--every") o.every = parse_count(arg, value, 1, 1'000'000);
    else throw UsageError{"unknown argument '" + std::string(argv[i]) + "'"};
  }
  if (o.docs * o.words > 50'000'000) throw UsageError{"--docs x --words is more than 50000000 words"};
  return true;
}

/// Documents of two topics: a document of label y draws each word from a
/// Zipf-like distribution over the vocabulary, and with probability 1/4 from
/// its topic's own tenth of the vocabulary instead. Rows list each distinct
/// word once with its count (canonical CSR).
struct Corpus {
  SparseMatrix x;  ///< docs x vocab counts
  NDArray y;       ///< docs x 1 labels in {0, 1}
};

Corpus draw(std::mt19937_64& rng, const Options& o) {
  std::bernoulli_distribution coin, topical(0.25);
  std::uniform_real_distribution<double> unit;
  const std::int64_t band = o.vocab / 10;
  std::uniform_int_distribution<std::int64_t> in_band(0, band - 1);
  NDArray y = NDArray::empty({o.docs, 1});
  std::vector<double> data;
  std::vector<std::int64_t> indices, indptr{0};
  std::vector<std::int64_t> row;
  for (std::int64_t d = 0; d < o.docs; ++d) {
    const bool label = coin(rng);
    y.data_as<double>()[d] = label ? 1 : 0;
    row.clear();
    for (std::int64_t k = 0; k < o.words; ++k) {
      std::int64_t w;
      if (topical(rng)) w = (label ? 2 : 5) * band + in_band(rng);
      else w = std::min<std::int64_t>(o.vocab - 1, static_cast<std::int64_t>(std::pow(static_cast<double>(o.vocab), unit(rng))) - 1);
      row.push_back(w);
    }
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k] == row[k - 1]) {
        data.back() += 1;
        continue;
      }
      indices.push_back(row[k]);
      data.push_back(1);
    }
    indptr.push_back(static_cast<std::int64_t>(indices.size()));
  }
  auto vec = [](const auto& v) {
    return NDArray::from_vector(v, {static_cast<std::int64_t>(v.size())});
  };
  return {SparseMatrix(theano::SparseFormat::CSR, vec(data), vec(indices), vec(indptr), {o.docs, o.vocab}), y};
}

std::vector<NDArray> args(const Corpus& c) {
  std::vector<NDArray> a = S::arguments(c.x);
  a.push_back(c.y);
  return a;
}

double accuracy(const Function& predict, const Corpus& c) {
  const NDArray p = predict(S::arguments(c.x))[0];
  std::int64_t right = 0;
  for (std::int64_t i = 0; i < p.size(); ++i)
    right += (p.data_as<double>()[i] > 0.5) == (c.y.data_as<double>()[i] > 0.5);
  return 100.0 * static_cast<double>(right) / static_cast<double>(p.size());
}

int run(const Options& o) {
  std::mt19937_64 rng(19);
  const Corpus train = draw(rng, o), held_out = draw(rng, o);
  std::printf("features: CSR %lld x %lld, %lld stored values (%.3f%% of the entries)\n",
              static_cast<long long>(o.docs), static_cast<long long>(o.vocab),
              static_cast<long long>(train.x.nnz()),
              100.0 * static_cast<double>(train.x.nnz()) / static_cast<double>(o.docs * o.vocab));

  S::SparseInput x = S::csr_matrix("x");
  Var y = T::dmatrix("y");
  Var w = theano::shared(NDArray::zeros({o.vocab, 1}), "w");
  Var b = theano::shared(NDArray::scalar(0.0), "b");
  const Var p = T::sigmoid(S::structured_dot(x, w) + b);
  const Var cost = T::mean(-y * T::log(p) - (1.0 - y) * T::log(1.0 - p)) + 1e-4 * T::sum(T::sqr(w));
  const std::vector<Var> g = theano::grad(cost, {w, b});
  const double lr = 1.0;

  const auto t0 = Clock::now();
  std::vector<theano::In> ins = x.ins();
  ins.emplace_back(y);
  Function train_step = theano::function(ins, {cost}, {.updates = {{w, w - lr * g[0]}, {b, b - lr * g[1]}}});
  Function predict = theano::function(x.ins(), {p});
  std::printf("compiled train and predict in %.1f ms\n", ms_since(t0));

  const std::vector<NDArray> a = args(train);
  const auto t1 = Clock::now();
  double last = 0;
  for (std::int64_t s = 1; s <= o.steps; ++s) {
    last = train_step(a)[0].item<double>();
    if (s % o.every == 0 || s == 1) std::printf("step %6lld  loss %.6f\n", static_cast<long long>(s), last);
  }
  const double per_step = ms_since(t1) / static_cast<double>(o.steps);
  std::printf("trained %lld steps, %.3f ms per step; final loss %.6f\n", static_cast<long long>(o.steps), per_step,
              last);
  std::printf("accuracy on the training data: %5.1f%%\n", accuracy(predict, train));
  std::printf("accuracy on held-out data:     %5.1f%%\n", accuracy(predict, held_out));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return example::run_main<Options>(kProgram, argc, argv, parse_args, print_usage, run);
}

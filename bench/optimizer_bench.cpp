// Optimizer scale benchmark (issue 6): generated graphs of 10^3, 10^4 and
// 10^5 nodes optimized in fast_run; the time per node must stay near
// constant (Theano's users waited minutes on big graphs).
//
// The graphs mix what real models produce: elementwise chains and trees with
// shared subexpressions (merge), constants (folding), x*1 and x+0 (useless
// ops), neg(neg(x)), divisions that cancel (canonicalize), reductions of
// scaled terms, matrix products with a bias (gemm), shape queries and
// reshapes. Generation is seeded and deterministic.
//
// Usage: theano_optimizer_bench [--max N] [--seed S] [--mode fast_run] [--stats]
// (--stats: each rewrite's applications, tries and time)
#include <theano/extending.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace theano;
namespace T = theano::tensor;
using Clock = std::chrono::steady_clock;

namespace {

/// A graph of about `n` Apply nodes over a few vector and matrix inputs.
std::pair<std::vector<Var>, std::vector<Var>> make_graph(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Var x = T::dvector("x"), y = T::dvector("y"), a = T::dmatrix("a"), b = T::dmatrix("b");
  std::vector<Var> vecs{x, y}, mats{a, b};
  auto pick = [&](std::vector<Var>& pool) -> Var {
    // Mostly recent values (long chains), sometimes old ones (wide reuse).
    const std::size_t k = pool.size();
    const std::size_t back = rng() % 4 == 0 ? rng() % k : rng() % std::min<std::size_t>(k, 8);
    return pool[k - 1 - back];
  };
  auto one = [] { return T::constant(NDArray::scalar<double>(1.0)); };
  auto zero = [] { return T::constant(NDArray::scalar<double>(0.0)); };
  std::vector<Var> outs;
  int made = 0;
  while (made < n) {
    const int kind = static_cast<int>(rng() % 12);
    Var u = pick(vecs), v = pick(vecs);
    Var r;
    switch (kind) {
      case 0: r = u + v; made += 1; break;
      case 1: r = u * v; made += 1; break;
      case 2: r = T::exp(u) * 0.5; made += 3; break;
      case 3: r = T::tanh(u) - v; made += 2; break;
      case 4: r = -(-u) + v * one(); made += 4; break;             // neg_neg, mul by 1
      case 5: r = (u * v) / u + zero(); made += 3; break;           // cancels to v
      case 6: r = T::exp(T::constant(NDArray::scalar<double>(0.5))) * u; made += 2; break;  // folding
      case 7: r = (u + v) * 2.0 + (u + v) * 3.0; made += 4; break;  // merge
      case 8: {                                                     // a scaled reduction, broadcast back
        r = u + T::sum(2.0 * v);
        made += 4;
        break;
      }
      case 9: {  // matrix product plus bias: gemm
        Var m = pick(mats), w = pick(mats);
        Var p = T::dot(m, w) * 0.1 + m;
        mats.push_back(T::tanh(p));
        made += 4;
        continue;
      }
      case 10: r = T::reshape(T::reshape(u, {-1, 1}), {-1}) * v; made += 3; break;  // reshape chain
      default: r = u + T::cast(T::shape_i(T::log(v), 0), DType::Float64); made += 4; break;  // shape of log
    }
    vecs.push_back(r);
    if (rng() % 50 == 0) outs.push_back(r);
  }
  outs.push_back(vecs.back());
  outs.push_back(mats.back());
  return {{x, y, a, b}, outs};
}

}  // namespace

int main(int argc, char** argv) {
  int max_n = 100'000;
  std::uint64_t seed = 1;
  std::string mode = "fast_run";
  bool show_stats = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max") == 0 && i + 1 < argc) max_n = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--mode") == 0 && i + 1 < argc) mode = argv[++i];
    else if (std::strcmp(argv[i], "--stats") == 0) show_stats = true;
    else {
      std::fprintf(stderr, "usage: %s [--max N] [--seed S] [--mode fast_run] [--stats]\n", argv[0]);
      return 2;
    }
  }
  std::printf("Optimizer scale (%s): generated graphs, rewrite::optimize wall time\n", mode.c_str());
  std::printf("%10s %10s %12s %14s %14s\n", "nodes in", "nodes out", "optimize ms", "us per node", "merge+clone ms");
  double first_per_node = 0;
  for (int n = 1000; n <= max_n; n *= 10) {
    auto [ins, outs] = make_graph(n, seed);
    const auto t0 = Clock::now();
    FunctionGraph fg(ins, outs, {}, /*clone=*/true);
    const double clone_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const std::size_t before = fg.num_apply_nodes();
    const auto t1 = Clock::now();
    const rewrite::RewriteStats stats = rewrite::optimize(fg, rewrite::mode_query(mode));
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
    const double per_node = ms * 1e3 / static_cast<double>(before);
    if (first_per_node == 0) first_per_node = per_node;
    std::printf("%10zu %10zu %12.1f %14.2f %14.1f   (x%.2f of the 10^3 cost per node)\n", before,
                fg.num_apply_nodes(), ms, per_node, clone_ms, per_node / first_per_node);
    if (show_stats) std::printf("%s\n", stats.summary().c_str());
    std::fflush(stdout);
  }
  return 0;
}

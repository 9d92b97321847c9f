// The random-graph differential test: a seeded generator builds graphs over
// the op set (elementwise ops of every arity and kind, casts, DimShuffle,
// reductions, argmax, slicing and integer indexing, advanced indexing,
// reshape, join, dot / BLAS, softmax, alloc), compiles each with the cpp
// linker (no perform fallback: generated code only) and compares it with the
// PerformLinker on several inputs, contiguous and strided; every tenth graph
// is also compiled through function() in fast_run (rewrites, fusion, the
// memory plan) and compared. A failing graph is
// shrunk (steps removed while it still fails) and the smallest one printed.
//
// 2,000 graphs by default; THEANO_TEST_RANDOM_GRAPHS=N runs N (and
// THEANO_TEST_RANDOM_SEED=S changes the seed).
#include <doctest/doctest.h>

#include <cmath>

#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/printing.h>
#include <theano/theano.hpp>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/lowering_test_util.h"

using namespace theano;
using namespace theano::tensor;

namespace {

/// One step of a random program: an op kind, operand picks, a parameter.
struct Step {
  int kind;
  std::uint32_t a, b;
  std::uint32_t param;
};

/// A generated program over the inputs: m (n x n), v (n), s (scalar).
struct Program {
  std::int64_t n;
  std::vector<Step> steps;
  std::uint32_t out_pick;
};

constexpr int kKinds = 22;
const char* const kUnary[] = {"exp", "tanh", "sigmoid", "softplus", "neg", "sqr", "abs", "sin", "cos", "floor",
                              "sign", "arctan", "log1p", "expm1", "sqrt", "log", "erf", "ceil"};
const char* const kBinary[] = {"add", "sub", "mul", "true_div", "maximum", "minimum", "arctan2", "pow"};
const char* const kCompare[] = {"lt", "ge", "eq", "neq"};

/// Builds the graph of `p`; steps that do not type-check for their operands
/// are skipped (so any subsequence of steps is still a valid program).
std::vector<Var> build(const Program& p, const std::vector<Var>& inputs) {
  std::vector<Var> pool = inputs;
  const std::int64_t n = p.n;
  auto pick = [&](std::uint32_t r) { return pool[r % pool.size()]; };
  for (const Step& s : p.steps) {
    const Var a = pick(s.a), b = pick(s.b);
    const int nd = a.ndim();
    const bool a_float = is_float(tensor_type(a)->dtype());
    Var out;
    try {
      switch (s.kind) {
        case 0: case 1: case 2:  // unary elementwise (floats only: log/sqrt of ints would change dtype)
          if (a_float) out = elemwise(kUnary[s.param % std::size(kUnary)], {a});
          break;
        case 3: case 4: case 5:
          if (a_float && is_float(tensor_type(b)->dtype()))
            out = elemwise(kBinary[s.param % std::size(kBinary)], {a, b});
          break;
        case 6:  // comparison, then back to float through switch
          out = switch_(elemwise(kCompare[s.param % std::size(kCompare)], {a, b}), a, b);
          break;
        case 7:
          if (nd == 2) out = a.T();
          break;
        case 8:  // reductions
          if (nd >= 1) {
            const int axis = static_cast<int>(s.param % static_cast<std::uint32_t>(nd));
            switch (s.param % 3) {
              case 0: out = a.sum(Axes{axis}); break;
              case 1: out = a.max(Axes{axis}); break;
              default: out = a.mean(Axes{axis}); break;
            }
          }
          break;
        case 9:
          if (nd >= 1) out = s.param % 2 ? a.sum() : a.max(Axes{0}, true);
          break;
        case 10:  // slicing: reversed, or every other element then padded back by join
          if (nd >= 1) out = a[slice(none, none, -1)];
          break;
        case 11:
          if (nd >= 1) out = a[static_cast<std::int64_t>(s.param % static_cast<std::uint32_t>(n))];
          break;
        case 12:
          if (nd == 1 && pool.size() > 0) {
            Var j = join(0, {a, b.ndim() == 1 ? b : a});
            out = j[slice(none, none, 2)];
          }
          break;
        case 13:
          if (nd == 2) out = a.flatten().reshape({n, n});
          break;
        case 14:
          if (nd >= 1 && a_float && b.ndim() >= 1 && is_float(tensor_type(b)->dtype()) && (nd + b.ndim()) >= 2)
            out = dot(a, b);
          break;
        case 15:
          if (nd == 2 && a_float) out = nnet::softmax(a);
          break;
        case 16:
          if (a_float) out = a.astype(DType::Float32).astype(DType::Float64);
          break;
        case 17:
          if (nd >= 1) out = argmax(a, static_cast<int>(s.param % static_cast<std::uint32_t>(nd))).astype(DType::Float64);
          break;
        case 18:  // advanced indexing with a constant integer vector (negative indices too)
          if (nd >= 1) {
            std::vector<std::int64_t> idx;
            for (std::int64_t k = 0; k < n; ++k) idx.push_back((static_cast<std::int64_t>(s.param) + 3 * k) % n - (k % 2) * n);
            out = a[constant(NDArray::from_vector(idx, {n}))];
          }
          break;
        case 19:
          if (nd == 1) out = a.dimshuffle({kNewAxis, 0}) + pick(s.b + 1);
          break;
        case 20:
          if (nd == 0 && a_float) out = alloc(a, std::vector<TensorLike>{n});
          break;
        default:  // integer arithmetic through a cast
          if (a_float) out = ((a * 3.0).astype(DType::Int64) % 7 - 2).astype(DType::Float64);
          break;
      }
    } catch (const Error&) {
      out = Var();
    }
    if (out && tensor_type(out) && out.ndim() <= 2) pool.push_back(out);
  }
  std::vector<Var> outs{pool.back()};
  if (pool.size() > inputs.size() + 2) outs.push_back(pool[inputs.size() + p.out_pick % (pool.size() - inputs.size())]);
  return outs;
}

/// allclose at the positions where `want` is finite.
bool close_where_finite(const NDArray& got, const NDArray& want) {
  const NDArray g = got.astype(DType::Float64).contiguous(), w = want.astype(DType::Float64).contiguous();
  for (std::int64_t i = 0; i < w.size(); ++i) {
    const double a = g.data_as<double>()[i], b = w.data_as<double>()[i];
    if (std::isfinite(b) && !(std::abs(a - b) <= 1e-11 + 1e-9 * std::abs(b))) return false;
  }
  return true;
}

/// Compiles and compares; "" when the cpp linker agrees with perform, else
/// a description of the disagreement. With `optimized`, the graph is also
/// compiled through function() in fast_run (rewrites, fusion) and compared.
std::string check(const Program& p, std::mt19937_64& rng, bool optimized = false) {
  Var m = dmatrix("m"), v = dvector("v"), s = dscalar("s");
  const std::vector<Var> ins{m, v, s};
  const std::vector<Var> outs = build(p, ins);
  auto fg = std::make_shared<FunctionGraph>(ins, outs);
  std::unique_ptr<Thunk> cpp;
  try {
    codegen::CompileOptions o;
    o.opt = codegen::OptLevel::O0;
    cpp = codegen::CLinker(o).allow_perform_fallback(false).make_thunk(fg);
  } catch (const std::exception& e) {
    return std::string("compile: ") + e.what();
  }
  auto ref = make_perform_linker()->make_thunk(fg);
  Function fast;
  if (optimized) {
    try {
      fast = function({ins.begin(), ins.end()}, {outs.begin(), outs.end()},
                      {.mode = "fast_run", .on_unused_input = OnUnusedInput::Ignore});
    } catch (const std::exception& e) {
      return std::string("function(fast_run): ") + e.what();
    }
  }
  for (int round = 0; round < 2; ++round) {
    std::vector<NDArray> vals{test::random_array(rng, {p.n, p.n}, DType::Float64, -2, 2),
                              test::random_array(rng, {p.n}, DType::Float64, -2, 2),
                              test::random_array(rng, {}, DType::Float64, -2, 2)};
    if (round == 1)
      for (auto& x : vals) x = test::strided_copy(x);
    std::vector<NDArray> want(outs.size()), got(outs.size());
    std::string ref_error, cpp_error;
    try {
      ref->run(vals, want);
    } catch (const std::exception& e) {
      ref_error = e.what();
    }
    try {
      cpp->run(vals, got);
      if (optimized) {
        const std::vector<NDArray> f = fast(vals);
        got.insert(got.end(), f.begin(), f.end());
        const std::vector<NDArray> reference = want;
        want.insert(want.end(), reference.begin(), reference.end());
      }
    } catch (const std::exception& e) {
      cpp_error = e.what();
    }
    if (!ref_error.empty() || !cpp_error.empty()) {
      if (ref_error.empty() != cpp_error.empty())
        return "perform says '" + ref_error + "' but generated code says '" + cpp_error + "'";
      continue;  // both refused the values (e.g. an index out of range): agreement
    }
    for (std::size_t o = 0; o < got.size(); ++o) {
      std::ostringstream os;
      if (o >= outs.size()) os << "[fast_run function] ";
      if (got[o].dtype() != want[o].dtype() || got[o].shape() != want[o].shape()) {
        os << "output " << o << ": dtype/shape differ: want " << want[o] << " got " << got[o];
        return os.str();
      }
      // fast_run simplifies algebra as Theano does, assuming finite values
      // (x/x -> 1, x - x -> 0): where the unoptimized reference is NaN or
      // inf, the optimized function is not held to it.
      const bool ok = o >= outs.size() ? close_where_finite(got[o], want[o]) : allclose(got[o], want[o], 1e-9, 1e-11, true);
      if (!ok) {
        os << "output " << o << " (round " << round << "): want\n" << want[o] << "\ngot\n" << got[o];
        return os.str();
      }
    }
  }
  return {};
}

Program random_program(std::mt19937_64& rng) {
  Program p;
  p.n = 2 + static_cast<std::int64_t>(rng() % 4);
  const int steps = 1 + static_cast<int>(rng() % 8);
  for (int k = 0; k < steps; ++k)
    p.steps.push_back({static_cast<int>(rng() % kKinds), static_cast<std::uint32_t>(rng()),
                       static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())});
  p.out_pick = static_cast<std::uint32_t>(rng());
  return p;
}

/// Removes steps while the program still fails; returns the smallest.
Program shrink(Program p, std::uint64_t seed, bool optimized) {
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
      Program q = p;
      q.steps.erase(q.steps.begin() + static_cast<std::ptrdiff_t>(k));
      std::mt19937_64 rng(seed);
      if (!check(q, rng, optimized).empty()) {
        p = std::move(q);
        progress = true;
        break;
      }
    }
  }
  return p;
}

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtol(v, nullptr, 10) : fallback;
}

}  // namespace

TEST_SUITE("codegen random graphs") {
  TEST_CASE("random graphs over the op set: generated code agrees with perform") {
    const long n_graphs = env_or("THEANO_TEST_RANDOM_GRAPHS", 2000);
    const auto seed = static_cast<std::uint64_t>(env_or("THEANO_TEST_RANDOM_SEED", 20261122));
    std::mt19937_64 gen(seed);
    int failures = 0;
    long g = 0;
    for (; g < n_graphs && failures < 3; ++g) {
      const Program p = random_program(gen);
      const std::uint64_t value_seed = seed * 1000003 + static_cast<std::uint64_t>(g);
      std::mt19937_64 rng(value_seed);
      const bool optimized = g % 10 == 0;
      const std::string why = check(p, rng, optimized);
      if (why.empty()) continue;
      ++failures;
      const Program small = shrink(p, value_seed, optimized);
      std::mt19937_64 rng2(value_seed);
      Var m = dmatrix("m"), v = dvector("v"), s = dscalar("s");
      const std::string graph = debugprint(build(small, {m, v, s}));
      FAIL_CHECK("graph " << g << " (seed " << seed << ", n = " << p.n << ") fails: " << check(small, rng2, optimized)
                          << "\nsmallest failing graph (" << small.steps.size() << " of " << p.steps.size()
                          << " steps):\n"
                          << graph);
    }
    MESSAGE(g << " random graphs compared (seed " << seed << ")");
  }
}

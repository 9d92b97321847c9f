// The adversarial random-graph generator and differential check (see
// random_graph_gen.h). Shared by codegen_tests and bench/fuzz; no doctest.
#include "codegen/random_graph_gen.h"

#include <theano/codegen/c_linker.h>
#include <theano/compile/function.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/gradient.h>
#include <theano/graph/toposort.h>
#include <theano/printing.h>
#include <theano/runtime/error.h>
#include <theano/tensor/basic_ops.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <theano/theano.hpp>

#include "codegen/random_graph_build.h"

namespace theano::fuzz {

using namespace theano::tensor;
using namespace theano::fuzz::detail;

namespace {

NDArray random_values(std::mt19937_64& rng, const InputSpec& in) {
  const auto n = element_count(in.shape, 1);
  NDArray a = NDArray::empty(in.shape, DType::Float64);
  double* p = a.data_as<double>();
  std::uniform_real_distribution<double> u(-2, 2);
  // A quarter of the float inputs hold special values too.
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             -0.0,
                             1e308,
                             -1e308,
                             5e-324,
                             1e-310,
                             1e38};
  const bool with_specials = is_float(in.dtype) && rng() % 4 == 0;
  for (std::int64_t k = 0; k < *n; ++k) {
    const std::uint64_t r = rng();
    double x;
    switch (in.dtype) {
      case DType::Float64:
      case DType::Float32:
        if (with_specials && r % 8 == 1)
          x = specials[(r / 8) % std::size(specials)];
        else
          x = r % 16 == 0 ? static_cast<double>(static_cast<std::int64_t>(r % 7) - 3) : u(rng);
        break;
      case DType::Bool:
        x = static_cast<double>(r % 2);
        break;
      case DType::UInt8:
        x = r % 16 == 0 ? 255 : static_cast<double>(r % 8);
        break;
      default:
        x = static_cast<double>(static_cast<std::int64_t>(r % 11) - 5);
    }
    p[k] = x;
  }
  NDArray v = a.astype(in.dtype);
  // Integer extremes, exactly (a double cannot hold INT64_MAX).
  if (is_signed_integer(in.dtype))
    for (std::int64_t k = 0; k < *n; ++k) {
      const std::uint64_t r = rng();
      if (r % 12 != 0) continue;
      char* e = static_cast<char*>(v.data()) + k * static_cast<std::int64_t>(dtype_size(in.dtype));
      const bool lo = r % 24 == 0;
      switch (in.dtype) {
        case DType::Int8:
          *reinterpret_cast<std::int8_t*>(e) = lo ? INT8_MIN : INT8_MAX;
          break;
        case DType::Int32:
          *reinterpret_cast<std::int32_t*>(e) = lo ? INT32_MIN : INT32_MAX;
          break;
        default:
          *reinterpret_cast<std::int64_t*>(e) = lo ? kMin : kMax;
          break;
      }
    }
  return v;
}

/// `a` in layout `round`: 0 contiguous, 1 every stride doubled and the last
/// dimension reversed, 2 every dimension reversed (negative strides), 3 the
/// first row repeated by a 0 stride in dimension 0 (other values: a
/// broadcast view). Empty arrays (maybe with a 2^62 dimension) wrap no
/// memory at all.
constexpr int kLayouts = 4;
NDArray in_layout(const NDArray& a, int round) {
  if (a.ndim() == 0 || (round == 0 && a.size() > 0)) return a;
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  if (a.size() == 0) {
    std::vector<std::int64_t> st(static_cast<std::size_t>(a.ndim()), round == 2   ? -item
                                                                     : round == 3 ? 0
                                                                                  : item * (round + 1));
    return NDArray::from_strided(nullptr, nullptr, a.dtype(), a.shape(), st);
  }
  if (round == 3) {
    NDArray c = a.copy();
    std::vector<std::int64_t> st = c.strides();
    st[0] = 0;
    return NDArray::from_strided(c.owner(), c.data(), a.dtype(), a.shape(), st);
  }
  std::vector<std::int64_t> big = a.shape();
  for (auto& s : big) s = round == 1 ? 2 * s + 1 : s;
  NDArray buf = NDArray::zeros(big, a.dtype());
  std::vector<std::int64_t> strides = buf.strides();
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < strides.size(); ++d) {
    if (round == 1) strides[d] *= 2;
    const bool flip = round == 2 || d + 1 == strides.size();
    if (flip) {
      offset += (a.shape()[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  }
  NDArray v =
      NDArray::from_strided(buf.owner(), static_cast<char*>(buf.data()) + offset, a.dtype(), a.shape(), strides);
  v.assign(a);
  return v;
}

// Comparison ----------------------------------------------------------------

/// The error's kind: its most derived class among the library's.
std::string error_kind(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const AssertionError&) {
    return "AssertionError";
  } catch (const ShapeError&) {
    return "ShapeError";
  } catch (const ValueError&) {
    return "ValueError";
  } catch (const IndexError&) {
    return "IndexError";
  } catch (const TypeError&) {
    return "TypeError";
  } catch (const InternalError&) {
    return "InternalError";
  } catch (const Error&) {
    return "Error";
  } catch (const std::bad_alloc&) {
    return "bad_alloc";
  } catch (const std::exception&) {
    return "std::exception";
  } catch (...) {
    return "unknown";
  }
}

std::string what_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "?";
  }
}

/// Runs `f`; nullptr, or the exception it threw.
template <class F>
std::exception_ptr attempt(F&& f) {
  try {
    f();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

/// How closely floats must agree: computed the same way (float64 only),
/// rounded differently (dot, softmax, mean, gradients), or with float32 on
/// the way (float32's precision, whatever the output dtype).
enum class Tolerance { Exact, Fuzzy, Float32 };

/// Whether `out` is computed through a float sum or product (Sum, Prod, Mean:
/// a CAReduce over add or mul of floats; Dot): perform and generated code add
/// in different orders, so partial sums of values near the top of the double
/// range (the generator's +-1e308) can overflow in one order and not in the
/// other (seed 2 graph 40: 1e308 and -1e308 repeated by a 0 stride, summed
/// to -2.65 by perform and to NaN by the generated loop order).
bool sums_floats(const std::vector<Var>& inputs, const Var& out) {
  for (const Apply* node : io_toposort(inputs, {out})) {
    if (dynamic_cast<const tensor::Dot*>(node->op().get())) return true;
    const auto* r = dynamic_cast<const tensor::CAReduce*>(node->op().get());
    if (r && (r->scalar_op() == "add" || r->scalar_op() == "mul") &&
        is_float(tensor::tensor_type(node->output(0))->dtype()))
      return true;
  }
  return false;
}

/// Whether a float array holds a value that is not finite, or (`huge`) one of
/// magnitude >= 1e300.
bool has_extreme(const NDArray& v, bool huge) {
  if (!v.defined() || !is_float(v.dtype()) || v.size() == 0) return false;
  const NDArray d = v.astype(DType::Float64).contiguous();
  for (std::int64_t i = 0; i < d.size(); ++i) {
    const double x = d.data_as<double>()[i];
    if (!std::isfinite(x) || (huge && std::abs(x) >= 1e300)) return true;
  }
  return false;
}

/// Whether a float input holds a value that is not finite or of magnitude
/// >= 1e300: sums and products of such values (and BLAS's dot, which may skip
/// a 0 * inf) depend on the order of the operations.
bool has_huge_values(const std::vector<NDArray>& vals) {
  for (const NDArray& v : vals)
    if (has_extreme(v, true)) return true;
  return false;
}

/// Whether perform, run on the graph of `b` with every float intermediate as
/// an output, meets a NaN or inf on the way.
bool has_nonfinite_intermediates(const Built& b, const std::vector<NDArray>& vals) {
  std::vector<Var> inner;
  for (const Apply* node : io_toposort(b.inputs, b.outputs))
    for (const Var& out : node->outputs())
      if (tensor_type(out) && is_float(tensor_type(out)->dtype())) inner.push_back(out);
  if (inner.empty()) return false;
  std::vector<NDArray> got(inner.size());
  try {
    make_perform_linker()->make_thunk(std::make_shared<FunctionGraph>(b.inputs, inner))->run(vals, got);
  } catch (const std::exception&) {
    return true;  // some step raised: nothing is known about the values
  }
  for (const NDArray& v : got)
    if (has_extreme(v, false)) return true;
  return false;
}

/// "" when `got` matches `want`: same dtype and shape; integers and bools
/// exactly; floats within `tol`, scaled by the largest finite magnitude. With
/// `finite_only`, positions where `want` is not finite are not compared
/// (fast_run's algebra assumes finite values). With `may_overflow` (a sum of
/// values near the double range, see sums_floats), a non-finite value where
/// the other side is finite is accepted.
std::string compare(const NDArray& got, const NDArray& want, Tolerance tol, bool finite_only,
                    bool may_overflow = false) {
  const bool fuzzy = tol != Tolerance::Exact;
  std::ostringstream os;
  if (!got.defined()) return "no output";
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    os << "dtype/shape differ: want " << dtype_name(want.dtype()) << shape_to_string(want.shape()) << " got "
       << dtype_name(got.dtype()) << shape_to_string(got.shape());
    return os.str();
  }
  if (want.size() == 0) return {};
  if (!is_float(want.dtype())) {
    if (array_equal(got, want)) return {};
    os << "values differ: want\n" << want << "\ngot\n" << got;
    return os.str();
  }
  const NDArray g = got.astype(DType::Float64).contiguous(), w = want.astype(DType::Float64).contiguous();
  const double* gp = g.data_as<double>();
  const double* wp = w.data_as<double>();
  double scale = 0;
  for (std::int64_t i = 0; i < w.size(); ++i)
    if (std::isfinite(wp[i])) scale = std::max(scale, std::abs(wp[i]));
  const bool f32 = want.dtype() == DType::Float32 || tol == Tolerance::Float32;
  const double rtol = f32 ? 2e-3 : fuzzy ? 1e-6 : 1e-9;
  const double atol = (f32 ? 2e-4 : fuzzy ? 1e-8 : 1e-11) * std::max(1.0, scale);
  for (std::int64_t i = 0; i < w.size(); ++i) {
    const double x = gp[i], y = wp[i];
    if (std::isnan(y)) {
      if (finite_only || std::isnan(x) || may_overflow) continue;
    } else if (std::isinf(y)) {
      if (finite_only || x == y || may_overflow) continue;
    } else if (std::abs(x - y) <= atol + rtol * std::abs(y)) {
      continue;
    } else if (fuzzy && (std::isinf(x) || std::isnan(x)) && scale > 1e30) {
      continue;  // overflow at the edge of the range: rounding decides
    } else if (may_overflow && !std::isfinite(x)) {
      continue;  // the order of summation decides
    }
    os << "values differ at " << i << " (" << y << " vs " << x << "): want\n" << want << "\ngot\n" << got;
    return os.str();
  }
  return {};
}

}  // namespace

std::uint64_t value_seed(std::uint64_t seed, std::uint64_t index) { return splitmix(seed * 1000003 + index + 17); }

Program random_program(std::uint64_t seed, std::uint64_t index) {
  std::mt19937_64 rng(splitmix(splitmix(seed) ^ (index * 0x2545F4914F6CDD1DULL)));
  Program p;
  // Mostly tiny; an eighth of the programs get sizes past the vector width
  // and the parallel loops' part size (inputs of at most 2 dimensions then).
  const std::int64_t big_sizes[] = {17, 33, 64, 100, 130};
  const bool big = rng() % 8 == 0;
  const std::int64_t n = big ? big_sizes[rng() % std::size(big_sizes)] : 2 + static_cast<std::int64_t>(rng() % 4);
  const int n_inputs = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n_inputs; ++i) {
    InputSpec in;
    // The first input is float (so unary float ops and gradients have something).
    in.dtype = i == 0 ? (rng() % 4 ? DType::Float64 : DType::Float32) : kDTypes[rng() % std::size(kDTypes)];
    const int nd = static_cast<int>(rng() % (big ? 3 : 4));
    const std::int64_t dims[] = {0, 1, n, n, n, n - 1, 1, n + 1, n, 2, 3, n, n, 1, n, n - 1};
    for (int d = 0; d < nd; ++d) in.shape.push_back(dims[rng() % std::size(dims)]);
    if (nd >= 2 && rng() % 6 == 0) {  // an empty array with a huge other dimension
      const std::size_t z = rng() % static_cast<std::size_t>(nd);
      in.shape[z] = 0;
      const std::size_t h = (z + 1) % static_cast<std::size_t>(nd);
      // As large as the dtype allows (the byte strides of the other
      // dimensions must fit in int64): ops that compute in a wider dtype
      // (float64 / int64) must still accept it.
      std::int64_t others = static_cast<std::int64_t>(dtype_size(in.dtype));
      for (std::size_t d = 0; d < in.shape.size(); ++d)
        if (d != z && d != h && in.shape[d] > 0) others *= in.shape[d];
      in.shape[h] = kHuge[rng() % std::size(kHuge)] / others;
    }
    for (int d = 0; d < nd; ++d)
      in.declared.push_back(in.shape[static_cast<std::size_t>(d)] == 1 ? rng() % 3 != 0 : rng() % 5 == 0);
    p.inputs.push_back(std::move(in));
  }
  const int n_sizes = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n_sizes; ++i)
    p.sizes.push_back(rng() % 3 == 0 ? kSizeValues[rng() % std::size(kSizeValues)]
                                     : 1 + static_cast<std::int64_t>(rng() % 4));
  const int steps = 1 + static_cast<int>(rng() % 10);
  for (int k = 0; k < steps; ++k)
    p.steps.push_back({static_cast<int>(rng() % kKinds), static_cast<std::uint32_t>(rng()),
                       static_cast<std::uint32_t>(rng()), static_cast<std::uint32_t>(rng())});
  p.out_pick = static_cast<std::uint32_t>(rng());
  p.fast_run = rng() % 6 == 0;
  p.mutable_mask = static_cast<std::uint32_t>(rng() % 2 ? rng() : 0);
  p.grad = rng() % 5 == 0;
  return p;
}

std::string check(const Program& p, std::uint64_t values_seed, CheckStats* stats) {
  Built b;
  if (stats) {
    ++stats->graphs;
    stats->steps += static_cast<long>(p.steps.size());
  }
  try {
    b = build(p, stats);
  } catch (const std::exception& e) {
    return std::string("building the graph: ") + e.what();
  }
  auto fg = std::make_shared<FunctionGraph>(b.inputs, b.outputs);
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
  if (p.fast_run) {
    std::vector<In> ins;
    for (std::size_t i = 0; i < b.inputs.size(); ++i) {
      In in(b.inputs[i]);
      in.mutable_ = i < 32 && (p.mutable_mask >> i) & 1;
      ins.push_back(in);
    }
    try {
      fast = function(ins, {b.outputs.begin(), b.outputs.end()},
                      {.mode = "fast_run", .on_unused_input = OnUnusedInput::Ignore});
    } catch (const std::exception& e) {
      return std::string("function(fast_run): ") + e.what();
    }
  }
  if (stats) {
    stats->fast_run += p.fast_run;
    stats->grads += b.n_grads > 0;
  }
  std::mt19937_64 rng(values_seed);
  std::vector<NDArray> base;
  for (const InputSpec& in : p.inputs) {
    if (!element_count(in.shape, 1) || *element_count(in.shape, 1) == 0)
      base.push_back(
          NDArray::from_strided(nullptr, nullptr, in.dtype, in.shape, std::vector<std::int64_t>(in.shape.size(), 0)));
    else
      base.push_back(random_values(rng, in));
  }
  for (std::int64_t k : p.sizes) base.push_back(NDArray::scalar<std::int64_t>(k));
  for (int round = 0; round < kLayouts; ++round) {
    std::vector<NDArray> vals;
    for (const NDArray& x : base) vals.push_back(in_layout(x, round));
    const bool huge = has_huge_values(vals);
    const std::size_t n_out = b.outputs.size();
    std::vector<NDArray> want(n_out), got(n_out);
    const std::exception_ptr ref_err = attempt([&] { ref->run(vals, want); });
    const std::exception_ptr cpp_err = attempt([&] { cpp->run(vals, got); });
    std::ostringstream os;
    os << "(layout " << round << ") ";
    for (const auto* e : {&ref_err, &cpp_err})
      if (*e && error_kind(*e) == "InternalError")
        return os.str() + (e == &ref_err ? "perform" : "generated code") + " raised an InternalError: " + what_of(*e);
    if (ref_err || cpp_err) {
      const std::string rk = ref_err ? error_kind(ref_err) : "no error",
                        ck = cpp_err ? error_kind(cpp_err) : "no error";
      if (rk != ck)
        return os.str() + "perform: " + rk + (ref_err ? " '" + what_of(ref_err) + "'" : "") +
               "; generated code: " + ck + (cpp_err ? " '" + what_of(cpp_err) + "'" : "");
      if (stats) ++stats->errors[rk];
    } else {
      if (stats) {
        ++stats->rounds_compared;
        for (const NDArray& w : want) stats->empty_outputs += w.size() == 0;
      }
      for (std::size_t o = 0; o < n_out; ++o) {
        const Tolerance tol = b.any_float32 ? Tolerance::Float32 : b.fuzzy[o] ? Tolerance::Fuzzy : Tolerance::Exact;
        const bool may_overflow = huge && sums_floats(b.inputs, b.outputs[o]);
        const std::string why = compare(got[o], want[o], tol, false, may_overflow);
        if (!why.empty()) return os.str() + "output " + std::to_string(o) + ": " + why;
      }
    }
    if (!p.fast_run) continue;
    // function(): mutable inputs get their own copies (in layout 3 a copy
    // whose first dimension has a 0 stride: in-place code must not write
    // through elements that overlap); the others must come back unchanged.
    std::vector<NDArray> args, kept;
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const bool mut = i < 32 && (p.mutable_mask >> i) & 1;
      args.push_back(mut && vals[i].size() > 0 ? (round == 3 ? in_layout(vals[i].copy(), 3) : vals[i].copy())
                                               : vals[i]);
      kept.push_back(vals[i].size() > 0 ? vals[i].copy() : vals[i]);
    }
    std::vector<NDArray> f;
    const std::exception_ptr fast_err = attempt([&] { f = fast(args); });
    if (fast_err && error_kind(fast_err) == "InternalError")
      return os.str() + "function(fast_run) raised an InternalError: " + what_of(fast_err);
    for (std::size_t i = 0; i < vals.size(); ++i) {
      const bool mut = i < 32 && (p.mutable_mask >> i) & 1;
      const bool same =
          is_float(vals[i].dtype()) ? allclose(vals[i], kept[i], 0, 0, true) : array_equal(vals[i], kept[i]);
      if (!mut && vals[i].size() > 0 && !same)
        return os.str() + "function(fast_run) overwrote input " + std::to_string(i) + ", which is not mutable";
    }
    if (ref_err) continue;  // rewrites may drop a check whose result is unused; the values are not held
    if (fast_err)
      return os.str() + "function(fast_run) raised " + error_kind(fast_err) + " '" + what_of(fast_err) + "'";
    // fast_run's algebra assumes finite values (x / x -> 1): an integer or
    // bool output computed from a NaN or inf on the way (argmax of x / x at
    // x = 0, seed 1 graph 9761) is not compared.
    const bool nonfinite_inside = has_nonfinite_intermediates(b, vals);
    for (std::size_t o = 0; o < n_out; ++o) {
      if (nonfinite_inside && !is_float(want[o].dtype())) continue;
      const std::string why = compare(f[o], want[o], b.any_float32 ? Tolerance::Float32 : Tolerance::Fuzzy, true,
                                      huge && sums_floats(b.inputs, b.outputs[o]));
      if (!why.empty())
        return os.str() + "[fast_run function] output " + std::to_string(o) + ": " + why + "\nthe optimized graph:\n" +
               debugprint(fast);
    }
  }
  return {};
}

Program shrink(const Program& p, std::uint64_t values_seed) {
  return shrink(p, [&](const Program& q) { return !check(q, values_seed).empty(); });
}

void CheckStats::add(const CheckStats& o) {
  graphs += o.graphs;
  steps += o.steps;
  steps_built += o.steps_built;
  for (const auto& [k, n] : o.built) built[k] += n;
  rounds_compared += o.rounds_compared;
  empty_outputs += o.empty_outputs;
  for (const auto& [k, n] : o.errors) errors[k] += n;
  fast_run += o.fast_run;
  grads += o.grads;
}

std::string CheckStats::text() const {
  std::ostringstream os;
  os << graphs << " graphs, " << steps_built << " of " << steps << " steps built; " << fast_run
     << " also through function(fast_run), " << grads << " with a gradient; layouts: " << rounds_compared
     << " compared by value (" << empty_outputs << " empty outputs), errors agreed:";
  if (errors.empty()) os << " none";
  for (const auto& [k, n] : errors) os << " " << k << " " << n;
  os << "\nsteps built by kind (bad: a deliberate error):";
  for (const auto& [k, n] : built) os << " " << k << " " << n;
  return os.str();
}

std::string CheckStats::serialize() const {
  std::ostringstream os;
  os << graphs << ' ' << steps << ' ' << steps_built << ' ' << rounds_compared << ' ' << empty_outputs << ' '
     << fast_run << ' ' << grads << ' ' << built.size();
  for (const auto& [k, n] : built) os << ' ' << k << ' ' << n;
  os << ' ' << errors.size();
  for (const auto& [k, n] : errors) os << ' ' << k << ' ' << n;
  return os.str();
}

CheckStats CheckStats::deserialize(const std::string& line) {
  CheckStats s;
  std::istringstream is(line);
  std::size_t n = 0;
  is >> s.graphs >> s.steps >> s.steps_built >> s.rounds_compared >> s.empty_outputs >> s.fast_run >> s.grads >> n;
  for (std::size_t i = 0; i < n && is; ++i) {
    std::string k;
    long v = 0;
    is >> k >> v;
    s.built[k] += v;
  }
  is >> n;
  for (std::size_t i = 0; i < n && is; ++i) {
    std::string k;
    long v = 0;
    is >> k >> v;
    s.errors[k] += v;
  }
  return s;
}

std::string describe(const Program& p) {
  std::ostringstream os;
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const InputSpec& in = p.inputs[i];
    os << "x" << i << ": " << dtype_name(in.dtype) << shape_to_string(in.shape) << " declared (";
    for (std::size_t d = 0; d < in.declared.size(); ++d)
      os << (d ? ", " : "") << (in.declared[d] ? std::to_string(in.shape[d]) : "?");
    os << ")" << (p.fast_run && (p.mutable_mask >> i) & 1 ? " mutable" : "") << "\n";
  }
  for (std::size_t i = 0; i < p.sizes.size(); ++i) os << "k" << i << " = " << p.sizes[i] << "\n";
  os << "fast_run: " << (p.fast_run ? "yes" : "no") << ", grad: " << (p.grad ? "yes" : "no") << "\n";
  try {
    os << debugprint(build(p).outputs);
  } catch (const std::exception& e) {
    os << "(building failed: " << e.what() << ")\n";
  }
  os << "program: " << serialize(p) << "\n";
  return os.str();
}

std::string serialize(const Program& p) {
  std::ostringstream os;
  os << "v1 " << p.inputs.size();
  for (const InputSpec& in : p.inputs) {
    os << ' ' << static_cast<int>(in.dtype) << ' ' << in.shape.size();
    for (std::size_t d = 0; d < in.shape.size(); ++d) os << ' ' << in.shape[d] << ' ' << in.declared[d];
  }
  os << ' ' << p.sizes.size();
  for (std::int64_t k : p.sizes) os << ' ' << k;
  os << ' ' << p.steps.size();
  for (const Step& s : p.steps) os << ' ' << s.kind << ' ' << s.a << ' ' << s.b << ' ' << s.param;
  os << ' ' << p.out_pick << ' ' << p.fast_run << ' ' << p.mutable_mask << ' ' << p.grad;
  return os.str();
}

Program deserialize(const std::string& text) {
  std::istringstream is(text);
  std::string version;
  is >> version;
  THEANO_USER_CHECK(version == "v1", ValueError) << "not a serialized fuzz program: '" << text << "'";
  Program p;
  std::size_t n = 0;
  is >> n;
  for (std::size_t i = 0; i < n; ++i) {
    InputSpec in;
    int dt = 0;
    std::size_t nd = 0;
    is >> dt >> nd;
    in.dtype = static_cast<DType>(dt);
    for (std::size_t d = 0; d < nd; ++d) {
      std::int64_t s = 0;
      bool decl = false;
      is >> s >> decl;
      in.shape.push_back(s);
      in.declared.push_back(decl);
    }
    p.inputs.push_back(std::move(in));
  }
  is >> n;
  p.sizes.resize(n);
  for (auto& k : p.sizes) is >> k;
  is >> n;
  p.steps.resize(n);
  for (Step& s : p.steps) is >> s.kind >> s.a >> s.b >> s.param;
  is >> p.out_pick >> p.fast_run >> p.mutable_mask >> p.grad;
  THEANO_USER_CHECK(!is.fail(), ValueError) << "truncated fuzz program: '" << text << "'";
  return p;
}

}  // namespace theano::fuzz

/// \file
/// Random numbers: the Philox4x32-10 counter-based generator, the
/// `RandomFunction` op that draws from it, and `RandomStream` (Theano's
/// `RandomStreams`, PyTensor's `RandomStream`) that makes random variables
/// whose state advances on every call of a compiled function.
///
/// Why counter-based: a draw is a pure function of (key, counter), so element
/// i of a sample can be computed by any thread on any device without a
/// sequential state; the CPU reference here and the GPU back end give the
/// same numbers for the same seed (uniform/integers/binomial bit for bit; normal
/// up to the last-ulp behaviour of log/sin/cos).
///
/// The stream, fixed here so other back ends can reproduce it:
/// * state: a uint64 vector `{seed, counter}` held by a shared variable;
///   one call of a random op reads it and outputs `{seed, counter + 1}`.
/// * call key: `K = philox4x32({lo(counter), hi(counter), 0, 0},
///   {lo(seed), hi(seed)})`, words 0 and 1. Every call has its own key, so the
///   whole 128-bit Philox counter space is free within a call.
/// * dense layout (uniform, normal): 32-bit word w of the call is word `w % 4`
///   of `philox4x32({lo(w / 4), hi(w / 4), 0, 0}, K)`. Element i of a float32
///   uniform uses word i, of a float64 uniform words 2i, 2i+1; normal pair j
///   (elements 2j, 2j+1, Box-Muller) uses the two uniforms 2j, 2j+1.
/// * substream layout (binomial, integers and every later distribution:
///   methods that use a varying number of words): element i's draws come from
///   `philox4x32({j, lo(i), hi(i), 1}, K)` for j = 0, 1, ...; each block gives
///   two 64-bit values `(w0 << 32) | w1`, `(w2 << 32) | w3`.
/// * uniform [0, 1): float32 `(w >> 8) * 2^-24`; float64 `(x >> 11) * 2^-53`
///   with x the 64-bit value `(w0 << 32) | w1`.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

// ============================================================== Philox

using PhiloxCounter = std::array<std::uint32_t, 4>;
using PhiloxKey = std::array<std::uint32_t, 2>;

/// Philox4x32 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as
/// 1, 2, 3", SC 2011) with `rounds` rounds (10 is the standard Philox4x32-10).
/// Matches Random123's known-answer vectors.
PhiloxCounter philox4x32(PhiloxCounter counter, PhiloxKey key, int rounds = 10) noexcept;

/// The per-call key of the stream `{seed, counter}` (see \file).
PhiloxKey philox_call_key(std::uint64_t seed, std::uint64_t counter) noexcept;

// ============================================================== RandomFunction

/// The distributions a RandomFunction draws. The first four have their own
/// kernels in random_kernels.h; every later one is drawn element by element
/// from its own substream by `theano_rv_<name>` of
/// theano/runtime/kernels/random_distributions.h, whose
/// `theano_rv_<name>_check` is its parameter rule (categorical: one row of
/// weights per element, `theano_rv_categorical_f64` / `_f32`; docs/random.md).
enum class Distribution {
  Uniform,
  Normal,
  Binomial,
  Integers,
  Exponential,
  Laplace,
  Logistic,
  Lognormal,
  Cauchy,
  Gamma,
  Beta,
  Chisquare,
  StandardT,
  Vonmises,
  TruncatedNormal,
  Poisson,
  Geometric,
  NegativeBinomial,
  Hypergeometric,
  /// p's last axis holds the categories (a core axis): its own kernel
  /// (theano_rv_categorical_f64 / _f32), not a generic one.
  Categorical,
  /// log of a standard gamma(alpha) draw (scipy.stats.loggamma(c=alpha)):
  /// generic; dirichlet's draws (in logs, so tiny alphas do not give 0 / 0).
  Loggamma,
  /// counts of n draws over p's last axis: a sample core axis (sample_core).
  Multinomial,
  /// a random order of the indices of x's last axis (Fisher-Yates): a sample
  /// core axis; x's values are not read.
  Permutation,
};
std::string_view distribution_name(Distribution d);

/// What a distribution's parameter or sample holds.
enum class RandomKind {
  Real,     ///< parameter: any real tensor; sample: a floating-point dtype
  Integer,  ///< parameter: an integer tensor; sample: an integer dtype
  Count,    ///< sample only: whole numbers, in int64 or a floating-point dtype
};

/// One distribution's declaration, the one place its shape is stated: its
/// name (printed `RandomFunction{<name>}`, and `theano_rv_<name>` the kernel
/// for every distribution after Integers), its parameters' NumPy names and
/// kinds, and its sample's kind. Parameter values are checked by the kernel
/// file's rule (see Distribution).
struct DistributionSpec {
  std::string_view name;
  int nparams;
  std::array<std::string_view, 4> params;
  std::array<RandomKind, 4> kinds;
  RandomKind sample;
  /// Drawn by theano_rv_<name>(s, p) (every distribution after Integers but categorical).
  bool generic;
  /// Per parameter, its trailing core axes (categorical's p: 1, the
  /// categories); the leading axes broadcast against the size.
  std::array<int, 4> core{};
  /// The sample has a trailing axis of its own, as long as the last axis of
  /// the parameter with a core axis (multinomial's counts per category,
  /// permutation's indices): one row is drawn per element of the batch shape.
  bool sample_core = false;
};
const DistributionSpec& distribution_spec(Distribution d);
/// A Distribution as an op prop: its name (theano/graph/op_props.h).
inline PropValue theano_prop_value(Distribution d) { return std::string(distribution_name(d)); }

/// Theano's RandomFunction: inputs `(state, size, params...)`, outputs
/// `(new_state, sample)`; the sample is the default output.
///
/// * state: uint64 vector `{seed, counter}` (length 2 at run time);
/// * size: int64 vector of statically known length (the sample's rank); with
///   `size_from_params` it is an empty vector and the sample has the
///   broadcast shape of the parameters;
/// * params (distribution_spec(dist).nparams of them), broadcast against the
///   sample shape (NumPy rules): uniform (low, high) real; normal (avg, std)
///   real; binomial (n, p) with integer n; integers (low, high), integers,
///   high exclusive; the others as RandomStream's methods below.
///
/// No gradient flows through a draw: `grad` raises (Theano's grad_undefined),
/// and the connection pattern says the state reaches both outputs, size and
/// parameters only the sample.
/// `inplace` (set by the inplace_random rewrite): the advanced state is
/// written over the input state (`destroy_map {0: [0]}`), as Theano's
/// random_make_inplace does for a stream whose state the function updates.
class RandomFunction final : public Op {
 public:
  RandomFunction(Distribution dist, DType dtype, bool size_from_params = false, bool inplace = false);
  THEANO_OP_DECLARE("RandomFunction")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  bool foldable() const override;
  std::vector<InplaceVariant> inplace_variants(const Apply& node) const override;
  /// `RandomFunction{uniform}` as Theano prints it.
  std::string name() const override;
  int nparams() const { return distribution_spec(distribution_).nparams; }
  ViewMap destroy_map() const override;

  std::optional<int> default_output() const override { return 1; }
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((Distribution, distribution), (DType, dtype), (bool, size_from_params), (bool, inplace))
};

/// A sample size: none (the parameters' broadcast shape), a static shape, or a
/// symbolic int64 vector whose length is known statically.
class RandomSize {
 public:
  RandomSize() = default;  ///< none: the shape comes from the parameters
  RandomSize(std::vector<std::int64_t> shape) : shape_(std::move(shape)) {}        // NOLINT: implicit by design
  RandomSize(std::initializer_list<std::int64_t> shape) : shape_(std::vector<std::int64_t>(shape)) {}  // NOLINT
  RandomSize(const Var& shape) : var_(shape) {}                                    // NOLINT
  bool is_none() const { return !shape_ && !var_; }
  /// The shape when it was given as numbers (nullopt: none or symbolic).
  const std::optional<std::vector<std::int64_t>>& static_shape() const { return shape_; }
  /// The size input of a RandomFunction node (an int64 vector; empty when none).
  Var as_variable() const;

 private:
  std::optional<std::vector<std::int64_t>> shape_;
  Var var_;
};

/// Builds the node of `RandomFunction(dist, dtype, size.is_none())` and returns
/// (new_state, sample).
std::pair<Var, Var> random_function(Distribution dist, const Var& state, const RandomSize& size, const TensorLike& p0,
                                    const TensorLike& p1, DType dtype);
/// The same with any number of parameters (distribution_spec(dist).nparams).
std::pair<Var, Var> random_function(Distribution dist, const Var& state, const RandomSize& size,
                                    const std::vector<TensorLike>& params, DType dtype);

// ============================================================== one variable's generator

/// The shared variable holding random variable `rv`'s generator state, its
/// `{seed, counter}` (Theano's `rv.rng`): `get_value(rng(rv))` saves the
/// state, `set_value(rng(rv), saved)` restores it (the same draws follow),
/// `set_value(rng(rv), rng_state(seed))` seeds this variable alone. ValueError
/// when `rv` is not the sample of a RandomFunction whose state is shared (a
/// RandomStream's variables are).
Var rng(const Var& rv);
/// A generator state seeded `seed`, before its first draw: `{seed, 0}`.
NDArray rng_state(std::uint64_t seed);

// ============================================================== RandomStream

/// Theano's RandomStreams: a factory of random variables. Each call makes a
/// new shared state variable (uint64 `{seed_i, 0}` with seed_i derived from
/// the stream's seed and the call's position) whose default update is the
/// op's new state, so every compiled function using the variable draws fresh
/// numbers on each call, and a stream built with the same seed repeats them.
///
/// `updates()` lists (state, new_state) for functions compiled with
/// `no_default_updates`.
class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed = 12345);

  /// Uniform on [low, high). dtype: default the upcast of floatX, low and high.
  Var uniform(const RandomSize& size = {}, const TensorLike& low = 0.0, const TensorLike& high = 1.0,
              std::optional<DType> dtype = {});
  /// Normal with mean `avg` and standard deviation `std` (Box-Muller).
  Var normal(const RandomSize& size = {}, const TensorLike& avg = 0.0, const TensorLike& std = 1.0,
             std::optional<DType> dtype = {});
  /// Number of successes in `n` trials of probability `p` (inversion for
  /// n*min(p,1-p) < 10, Hörmann's BTRS rejection otherwise). Any real dtype
  /// (int64 by default; Theano users often ask for floatX masks).
  Var binomial(const RandomSize& size = {}, const TensorLike& n = 1, const TensorLike& p = 0.5,
               DType dtype = DType::Int64);
  /// Integers uniform on [low, high) (NumPy Generator.integers; Lemire's
  /// unbiased method). dtype must be an integer type holding the range.
  Var integers(const RandomSize& size, const TensorLike& low, const TensorLike& high, DType dtype = DType::Int64);

  // NumPy Generator's distributions, its parameter names and meanings; each
  // parameter broadcasts against `size` (or gives the shape when size is
  // none). Real samples: dtype defaults to the upcast of floatX and the
  // parameters; counts: int64 (or a floating-point dtype). A parameter that
  // breaks its rule is a ValueError naming it, the sample element and the
  // value ("RandomFunction{gamma}: shape[3] = -1 must be >= 0"). Algorithms
  // and sources: docs/random.md.

  /// Exponential with mean `scale` (inversion).
  Var exponential(const RandomSize& size = {}, const TensorLike& scale = 1.0, std::optional<DType> dtype = {});
  /// Laplace (double exponential) at `loc` with scale `scale` (inversion).
  Var laplace(const RandomSize& size = {}, const TensorLike& loc = 0.0, const TensorLike& scale = 1.0,
              std::optional<DType> dtype = {});
  /// Logistic at `loc` with scale `scale` (inversion).
  Var logistic(const RandomSize& size = {}, const TensorLike& loc = 0.0, const TensorLike& scale = 1.0,
               std::optional<DType> dtype = {});
  /// exp(normal(mean, sigma)).
  Var lognormal(const RandomSize& size = {}, const TensorLike& mean = 0.0, const TensorLike& sigma = 1.0,
                std::optional<DType> dtype = {});
  /// Cauchy at `loc` with scale `scale` (inversion).
  Var cauchy(const RandomSize& size = {}, const TensorLike& loc = 0.0, const TensorLike& scale = 1.0,
             std::optional<DType> dtype = {});
  /// Gamma with shape k and scale theta (mean k theta; Marsaglia & Tsang).
  Var gamma(const RandomSize& size, const TensorLike& shape, const TensorLike& scale = 1.0,
            std::optional<DType> dtype = {});
  /// Beta(a, b) on [0, 1] (through two gammas).
  Var beta(const RandomSize& size, const TensorLike& a, const TensorLike& b, std::optional<DType> dtype = {});
  /// Chi-square with `df` degrees of freedom (2 gamma(df / 2)).
  Var chisquare(const RandomSize& size, const TensorLike& df, std::optional<DType> dtype = {});
  /// Student's t with `df` degrees of freedom.
  Var standard_t(const RandomSize& size, const TensorLike& df, std::optional<DType> dtype = {});
  /// Von Mises on [-pi, pi) with mode `mu` and concentration `kappa` (Best & Fisher).
  Var vonmises(const RandomSize& size, const TensorLike& mu, const TensorLike& kappa, std::optional<DType> dtype = {});
  /// normal(loc, scale) conditioned on [lower, upper] (bounds may be infinite;
  /// Robert's rejection samplers).
  Var truncated_normal(const RandomSize& size, const TensorLike& loc, const TensorLike& scale, const TensorLike& lower,
                       const TensorLike& upper, std::optional<DType> dtype = {});
  /// Poisson with mean `lam` (inversion below 10, Hormann's PTRS above).
  Var poisson(const RandomSize& size = {}, const TensorLike& lam = 1.0, DType dtype = DType::Int64);
  /// Trials up to and including the first success of probability `p` (1, 2, ...).
  Var geometric(const RandomSize& size, const TensorLike& p, DType dtype = DType::Int64);
  /// Failures before the `n`-th success of probability `p` (n real > 0; gamma-Poisson mixture).
  Var negative_binomial(const RandomSize& size, const TensorLike& n, const TensorLike& p, DType dtype = DType::Int64);
  /// Good items among `nsample` drawn without replacement from `ngood` good
  /// and `nbad` bad ones (integer parameters).
  Var hypergeometric(const RandomSize& size, const TensorLike& ngood, const TensorLike& nbad, const TensorLike& nsample,
                     DType dtype = DType::Int64);
  /// The index of a category, drawn with the weights `p` along p's last axis
  /// (float32 or float64; normalised by their sum, so they need not sum to 1;
  /// p's leading axes broadcast against `size`).
  Var categorical(const RandomSize& size, const TensorLike& p, DType dtype = DType::Int64);

  // Multivariate samples (random_stream_multivariate.cpp; docs/random.md):
  // the sample has trailing core axes after the `size` (batch) axes.

  /// log of a standard gamma(alpha) draw (alpha > 0), exact in logs for tiny alpha.
  Var loggamma(const RandomSize& size, const TensorLike& alpha, std::optional<DType> dtype = {});
  /// Dirichlet(alpha) along alpha's last axis (the categories; alpha > 0): shape
  /// size + (k,), alpha's leading axes broadcast against size. Normalised
  /// log-gamma draws (a softmax of loggamma(alpha)).
  Var dirichlet(const RandomSize& size, const TensorLike& alpha, std::optional<DType> dtype = {});
  /// Counts of `n` draws (integer >= 0) over the categories of p's last axis
  /// (float32 / float64 weights normalised by their sum): shape size + (k,),
  /// each row summing to n. Sequential conditional binomials.
  Var multinomial(const RandomSize& size, const TensorLike& n, const TensorLike& p, DType dtype = DType::Int64);
  /// NumPy Generator.choice: `a` an integer scalar (the range 0..a-1) or a
  /// vector (its elements); `size` elements (static shape, or a symbolic size);
  /// with replacement (integers, or categorical with p) or without (distinct
  /// picks: a prefix of a Fisher-Yates permutation, or Gumbel-top-k with p).
  Var choice(const RandomSize& size, const TensorLike& a, bool replace = true,
             const std::optional<TensorLike>& p = std::nullopt);
  /// NumPy Generator.permutation: an integer scalar n gives a random order of
  /// 0..n-1 (int64); a tensor gives a copy permuted along axis 0
  /// (Fisher-Yates with Lemire's unbiased integers).
  Var permutation(const TensorLike& x);
  /// numpy's shuffle as a graph: a copy of x permuted along axis 0 (graphs
  /// are functional; nothing is shuffled in place). The same as permutation(x)
  /// for x of rank >= 1.
  Var shuffle(const TensorLike& x);
  /// Multivariate normal: mean + F z with F F^T = cov and z standard normal;
  /// mean (..., k) and cov (..., k, k) batch-broadcast together and against
  /// size; shape size + (k,) (or their broadcast batch shape + (k,)). method
  /// (NumPy's): "cholesky" (F = cholesky(cov), lower; cov positive definite),
  /// "eigh" (F = Q sqrt(max(w, 0)) from eigh(cov)) or "svd" (F = V sqrt(s)
  /// from svd(cov)); the last two take a semi-definite cov.
  Var multivariate_normal(const RandomSize& size, const TensorLike& mean, const TensorLike& cov,
                          std::string_view method = "cholesky", std::optional<DType> dtype = {});

  /// Re-seeds: every state made so far becomes `{seed_i(seed), 0}`, so the
  /// stream restarts as if freshly built with `seed`.
  void seed(std::uint64_t seed);
  std::uint64_t current_seed() const { return seed_; }
  /// (state shared variable, new state) for each random variable made.
  const std::vector<std::pair<Var, Var>>& updates() const { return updates_; }

  /// The state seed of the i-th random variable of a stream seeded `seed`.
  static std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t i) noexcept;

 private:
  Var make(Distribution dist, const RandomSize& size, const std::vector<TensorLike>& params, DType dtype);
  Var make_real(Distribution dist, const RandomSize& size, const std::vector<TensorLike>& params,
                std::optional<DType> dtype);
  std::uint64_t seed_;
  std::vector<std::pair<Var, Var>> updates_;
};

}  // namespace theano::tensor

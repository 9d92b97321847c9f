/// \file
/// RandomStream (see theano/tensor/random.h): one shared state per random
/// variable, seeded from the stream's seed and the variable's position, whose
/// default update is the op's advanced state (Theano's RandomStreams); and
/// rng(rv), the handle on one variable's state.
#include "theano/compile/shared.h"
#include "theano/config.h"
#include "theano/runtime/error.h"
#include "theano/tensor/random.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

Var RandomSize::as_variable() const {
  if (var_) return as_tensor_variable(var_);
  const std::vector<std::int64_t> s = shape_ ? *shape_ : std::vector<std::int64_t>{};
  return constant(NDArray::from_vector(s, {static_cast<std::int64_t>(s.size())}));
}

std::pair<Var, Var> random_function(Distribution dist, const Var& state, const RandomSize& size,
                                    const std::vector<TensorLike>& params, DType dtype) {
  const OpPtr op(new RandomFunction(dist, dtype, size.is_none()));
  std::vector<Var> inputs{state, size.as_variable()};
  for (const TensorLike& p : params) inputs.push_back(p.var());
  const ApplyPtr node = op->make_node(std::move(inputs));
  return {node->output(0), node->output(1)};
}

std::pair<Var, Var> random_function(Distribution dist, const Var& state, const RandomSize& size, const TensorLike& p0,
                                    const TensorLike& p1, DType dtype) {
  return random_function(dist, state, size, std::vector<TensorLike>{p0, p1}, dtype);
}

Var rng(const Var& rv) {
  const Apply* node = rv ? rv.owner() : nullptr;
  const bool drawn = node && dynamic_cast<const RandomFunction*>(node->op().get()) && node->output(1).get() == rv.get();
  THEANO_USER_CHECK(drawn, ValueError) << "rng(" << (rv ? rv.str() : std::string("a null Var"))
                                       << "): not a random variable (the sample of a RandomFunction, as a "
                                          "RandomStream makes); a variable computed from one has no generator of its own";
  THEANO_USER_CHECK(is_shared(node->input(0)), ValueError)
      << "rng(" << rv.str() << "): its generator state " << node->input(0).str()
      << " is not a shared variable, so it has no value to seed, save or restore";
  return node->input(0);
}

NDArray rng_state(std::uint64_t seed) { return NDArray::from_vector(std::vector<std::uint64_t>{seed, 0}, {2}); }

RandomStream::RandomStream(std::uint64_t seed) : seed_(seed) {}

std::uint64_t RandomStream::derive_seed(std::uint64_t seed, std::uint64_t i) noexcept {
  const PhiloxCounter r = philox4x32({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), 0x5EED, 0},
                                     {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  return (static_cast<std::uint64_t>(r[0]) << 32) | r[1];
}

Var RandomStream::make(Distribution dist, const RandomSize& size, const std::vector<TensorLike>& params,
                       DType dtype) {
  const std::uint64_t i = updates_.size();
  const Var state = shared(rng_state(derive_seed(seed_, i)));
  auto [new_state, sample] = random_function(dist, state, size, params, dtype);
  set_default_update(state, new_state);
  updates_.emplace_back(state, new_state);
  return sample;
}

// A real sample's dtype: the one asked for, else the upcast of floatX and the
// parameters' dtypes.
Var RandomStream::make_real(Distribution dist, const RandomSize& size, const std::vector<TensorLike>& params,
                            std::optional<DType> dtype) {
  DType d = config().floatX;
  for (const TensorLike& p : params) d = promote_types(d, tensor_type(p.var())->dtype());
  return make(dist, size, params, dtype.value_or(d));
}

Var RandomStream::uniform(const RandomSize& size, const TensorLike& low, const TensorLike& high,
                          std::optional<DType> dtype) {
  return make_real(Distribution::Uniform, size, {low, high}, dtype);
}

Var RandomStream::normal(const RandomSize& size, const TensorLike& avg, const TensorLike& std,
                         std::optional<DType> dtype) {
  return make_real(Distribution::Normal, size, {avg, std}, dtype);
}

Var RandomStream::binomial(const RandomSize& size, const TensorLike& n, const TensorLike& p, DType dtype) {
  return make(Distribution::Binomial, size, {n, p}, dtype);
}

Var RandomStream::integers(const RandomSize& size, const TensorLike& low, const TensorLike& high, DType dtype) {
  return make(Distribution::Integers, size, {low, high}, dtype);
}

Var RandomStream::exponential(const RandomSize& size, const TensorLike& scale, std::optional<DType> dtype) {
  return make_real(Distribution::Exponential, size, {scale}, dtype);
}
Var RandomStream::laplace(const RandomSize& size, const TensorLike& loc, const TensorLike& scale,
                          std::optional<DType> dtype) {
  return make_real(Distribution::Laplace, size, {loc, scale}, dtype);
}
Var RandomStream::logistic(const RandomSize& size, const TensorLike& loc, const TensorLike& scale,
                           std::optional<DType> dtype) {
  return make_real(Distribution::Logistic, size, {loc, scale}, dtype);
}
Var RandomStream::lognormal(const RandomSize& size, const TensorLike& mean, const TensorLike& sigma,
                            std::optional<DType> dtype) {
  return make_real(Distribution::Lognormal, size, {mean, sigma}, dtype);
}
Var RandomStream::cauchy(const RandomSize& size, const TensorLike& loc, const TensorLike& scale,
                         std::optional<DType> dtype) {
  return make_real(Distribution::Cauchy, size, {loc, scale}, dtype);
}
Var RandomStream::gamma(const RandomSize& size, const TensorLike& shape, const TensorLike& scale,
                        std::optional<DType> dtype) {
  return make_real(Distribution::Gamma, size, {shape, scale}, dtype);
}
Var RandomStream::beta(const RandomSize& size, const TensorLike& a, const TensorLike& b, std::optional<DType> dtype) {
  return make_real(Distribution::Beta, size, {a, b}, dtype);
}
Var RandomStream::chisquare(const RandomSize& size, const TensorLike& df, std::optional<DType> dtype) {
  return make_real(Distribution::Chisquare, size, {df}, dtype);
}
Var RandomStream::standard_t(const RandomSize& size, const TensorLike& df, std::optional<DType> dtype) {
  return make_real(Distribution::StandardT, size, {df}, dtype);
}
Var RandomStream::vonmises(const RandomSize& size, const TensorLike& mu, const TensorLike& kappa,
                           std::optional<DType> dtype) {
  return make_real(Distribution::Vonmises, size, {mu, kappa}, dtype);
}
Var RandomStream::truncated_normal(const RandomSize& size, const TensorLike& loc, const TensorLike& scale,
                                   const TensorLike& lower, const TensorLike& upper, std::optional<DType> dtype) {
  return make_real(Distribution::TruncatedNormal, size, {loc, scale, lower, upper}, dtype);
}
Var RandomStream::poisson(const RandomSize& size, const TensorLike& lam, DType dtype) {
  return make(Distribution::Poisson, size, {lam}, dtype);
}
Var RandomStream::geometric(const RandomSize& size, const TensorLike& p, DType dtype) {
  return make(Distribution::Geometric, size, {p}, dtype);
}
Var RandomStream::negative_binomial(const RandomSize& size, const TensorLike& n, const TensorLike& p, DType dtype) {
  return make(Distribution::NegativeBinomial, size, {n, p}, dtype);
}
Var RandomStream::hypergeometric(const RandomSize& size, const TensorLike& ngood, const TensorLike& nbad,
                                 const TensorLike& nsample, DType dtype) {
  return make(Distribution::Hypergeometric, size, {ngood, nbad, nsample}, dtype);
}

Var RandomStream::categorical(const RandomSize& size, const TensorLike& p, DType dtype) {
  return make(Distribution::Categorical, size, {p}, dtype);
}

void RandomStream::seed(std::uint64_t seed) {
  seed_ = seed;
  for (std::size_t i = 0; i < updates_.size(); ++i)
    set_value(updates_[i].first, rng_state(derive_seed(seed, i)));
}

}  // namespace theano::tensor

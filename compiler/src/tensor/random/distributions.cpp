/// \file
/// The declaration of every distribution RandomFunction draws (one row each:
/// name, parameters, sample kind; see DistributionSpec in
/// theano/tensor/random.h), and for the distributions after Integers the
/// host's entry to their kernels and rules in
/// theano/runtime/kernels/random_distributions.h and random_discrete.h, the
/// text generated code embeds: perform's checks and draws are the generated
/// code's.
#include "random_kernels.h"

#include "theano/runtime/error.h"
#include "theano/runtime/kernels/random_discrete.h"

namespace theano::tensor {

namespace {

using K = RandomKind;
using DrawFn = double (*)(TheanoSubStream*, const double*);
using CheckFn = int (*)(const double*, const char**);

struct Row {
  DistributionSpec spec;
  DrawFn draw;
  CheckFn check;
};

#define THEANO_RV_ROW(name, n, params, kinds, sample) \
  {{#name, n, params, kinds, sample, true}, &theano_rv_##name, &theano_rv_##name##_check}
#define P(...) \
  { __VA_ARGS__ }

// In Distribution's order (checked below).
const Row kRows[] = {
    {{"uniform", 2, {"low", "high"}, {K::Real, K::Real}, K::Real, false}, nullptr, nullptr},
    {{"normal", 2, {"avg", "std"}, {K::Real, K::Real}, K::Real, false}, nullptr, nullptr},
    {{"binomial", 2, {"n", "p"}, {K::Integer, K::Real}, K::Count, false}, nullptr, nullptr},
    {{"integers", 2, {"low", "high"}, {K::Integer, K::Integer}, K::Integer, false}, nullptr, nullptr},
    THEANO_RV_ROW(exponential, 1, P("scale"), P(K::Real), K::Real),
    THEANO_RV_ROW(laplace, 2, P("loc", "scale"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(logistic, 2, P("loc", "scale"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(lognormal, 2, P("mean", "sigma"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(cauchy, 2, P("loc", "scale"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(gamma, 2, P("shape", "scale"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(beta, 2, P("a", "b"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(chisquare, 1, P("df"), P(K::Real), K::Real),
    THEANO_RV_ROW(standard_t, 1, P("df"), P(K::Real), K::Real),
    THEANO_RV_ROW(vonmises, 2, P("mu", "kappa"), P(K::Real, K::Real), K::Real),
    THEANO_RV_ROW(truncated_normal, 4, P("loc", "scale", "lower", "upper"), P(K::Real, K::Real, K::Real, K::Real),
                  K::Real),
    THEANO_RV_ROW(poisson, 1, P("lam"), P(K::Real), K::Count),
    THEANO_RV_ROW(geometric, 1, P("p"), P(K::Real), K::Count),
    THEANO_RV_ROW(negative_binomial, 2, P("n", "p"), P(K::Real, K::Real), K::Count),
    THEANO_RV_ROW(hypergeometric, 3, P("ngood", "nbad", "nsample"), P(K::Integer, K::Integer, K::Integer), K::Count),
    {{"categorical", 1, {"p"}, {K::Real}, K::Count, false, {1}}, nullptr, nullptr},
    THEANO_RV_ROW(loggamma, 1, P("alpha"), P(K::Real), K::Real),
    {{"multinomial", 2, {"n", "p"}, {K::Integer, K::Real}, K::Count, false, {0, 1}, true}, nullptr, nullptr},
    {{"permutation", 1, {"x"}, {K::Real}, K::Integer, false, {1}, true}, nullptr, nullptr},
};

#undef P
#undef THEANO_RV_ROW

constexpr std::size_t kCount = static_cast<std::size_t>(Distribution::Permutation) + 1;
static_assert(sizeof(kRows) / sizeof(kRows[0]) == kCount, "one row per Distribution, in its order");

const Row& row(Distribution d) {
  const auto i = static_cast<std::size_t>(d);
  THEANO_INTERNAL_CHECK(i < kCount) << "Distribution " << i << " has no row";
  return kRows[i];
}

}  // namespace

const DistributionSpec& distribution_spec(Distribution d) { return row(d).spec; }

std::string_view distribution_name(Distribution d) {
  const auto i = static_cast<std::size_t>(d);
  return i < kCount ? kRows[i].spec.name : std::string_view("?");
}

namespace random_detail {

void check_generic(Distribution d, std::int64_t n, const std::vector<const double*>& params, const std::string& op) {
  const Row& r = row(d);
  const std::size_t np = params.size();
  double p[4] = {0, 0, 0, 0};
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < np; ++k) p[k] = params[k][i];
    const char* rule = nullptr;
    if (const int bad = r.check(p, &rule)) {
      char msg[512];
      const std::string prefix = op + ": ";
      theano_rv_message(msg, sizeof msg, prefix.c_str(), std::string(r.spec.params[static_cast<std::size_t>(bad - 1)]).c_str(),
                        i, p[bad - 1], rule);
      throw ValueError(msg);
    }
  }
}

std::vector<double> sample_generic(Distribution d, PhiloxKey key, std::int64_t n,
                                   const std::vector<const double*>& params) {
  const Row& r = row(d);
  std::vector<double> out(static_cast<std::size_t>(n));
  double p[4] = {0, 0, 0, 0};
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < params.size(); ++k) p[k] = params[k][i];
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = r.draw(&s, p);
  }
  return out;
}

std::vector<double> sample_categorical(PhiloxKey key, std::int64_t n, std::int64_t k, const double* p,
                                       const std::string& op) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t bad_j = 0;
    double bad_v = 0;
    const char* rule = nullptr;
    const char* row = reinterpret_cast<const char*>(p + i * k);
    if (theano_rv_categorical_check_f64(row, k, sizeof(double), &bad_j, &bad_v, &rule)) {
      char msg[512];
      const std::string prefix = op + ": ";
      theano_rv_message_at(msg, sizeof msg, prefix.c_str(), "p", i, bad_j, bad_v, rule);
      throw ValueError(msg);
    }
  }
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] =
        theano_rv_categorical_f64(&s, reinterpret_cast<const char*>(p + i * k), k, sizeof(double));
  }
  return out;
}

std::vector<double> sample_multinomial(PhiloxKey key, std::int64_t rows, std::int64_t k, const double* n,
                                       const double* p, const std::string& op) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const char* rule = nullptr;
    if (theano_rv_multinomial_check(n + i, &rule)) {
      char msg[512];
      const std::string prefix = op + ": ";
      theano_rv_message(msg, sizeof msg, prefix.c_str(), "n", i, n[i], rule);
      throw ValueError(msg);
    }
    std::int64_t bad_j = 0;
    double bad_v = 0;
    if (theano_rv_categorical_check_f64(reinterpret_cast<const char*>(p + i * k), k, sizeof(double), &bad_j, &bad_v,
                                        &rule)) {
      char msg[512];
      const std::string prefix = op + ": ";
      theano_rv_message_at(msg, sizeof msg, prefix.c_str(), "p", i, bad_j, bad_v, rule);
      throw ValueError(msg);
    }
  }
  std::vector<double> out(static_cast<std::size_t>(rows * k));
  for (std::int64_t i = 0; i < rows; ++i) {
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    const char* row = reinterpret_cast<const char*>(p + i * k);
    TheanoRvMultinomial m;
    theano_rv_multinomial_init_f64(&m, n[i], row, k, sizeof(double));
    for (std::int64_t j = 0; j < k; ++j)
      out[static_cast<std::size_t>(i * k + j)] = theano_rv_multinomial_next_f64(&m, &s, row, j, sizeof(double));
  }
  return out;
}

std::vector<std::int64_t> sample_permutation(PhiloxKey key, std::int64_t rows, std::int64_t k) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(rows * k));
  for (std::int64_t i = 0; i < rows; ++i) {
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    theano_rv_permutation(&s, reinterpret_cast<char*>(out.data() + i * k), k, sizeof(std::int64_t));
  }
  return out;
}

}  // namespace random_detail

}  // namespace theano::tensor

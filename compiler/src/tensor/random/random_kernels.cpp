/// \file
/// The sampling loops behind RandomFunction::perform: one call of the shared
/// kernels (theano/runtime/kernels/random_kernels.h, the text generated code embeds)
/// per element, in C order.
#include "random_kernels.h"

#include "theano/runtime/kernels/random_kernels.h"

namespace theano::tensor::random_detail {

std::vector<double> sample_uniform(PhiloxKey key, std::int64_t n, bool single, const double* low, const double* high) {
  TheanoDenseWords words;
  theano_dense_init(&words, key.data());
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = theano_uniform_one(&words, i, low[i], high[i], single);
  return out;
}

std::vector<double> sample_normal(PhiloxKey key, std::int64_t n, bool single, const double* avg, const double* std) {
  TheanoDenseWords words;
  theano_dense_init(&words, key.data());
  std::vector<double> out(static_cast<std::size_t>(n));
  double radius = 0, theta = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if ((i & 1) == 0) theano_normal_pair(&words, i, single, &radius, &theta);
    out[static_cast<std::size_t>(i)] = theano_normal_one(avg[i], std[i], radius, theta, (i & 1) != 0);
  }
  return out;
}

std::vector<std::int64_t> sample_binomial(PhiloxKey key, std::int64_t n, const std::int64_t* trials, const double* p) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = theano_binomial_one(&s, trials[i], p[i]);
  }
  return out;
}

std::vector<std::int64_t> sample_integers(PhiloxKey key, std::int64_t n, const std::int64_t* low,
                                          const std::int64_t* high) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    TheanoSubStream s;
    theano_sub_init(&s, key.data(), static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = theano_integers_one(&s, low[i], high[i]);
  }
  return out;
}

double stirling_tail(double k) { return theano_stirling_tail(k); }

}  // namespace theano::tensor::random_detail

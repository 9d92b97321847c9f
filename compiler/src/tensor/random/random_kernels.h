// Reference sampling kernels of RandomFunction (see theano/tensor/random.h for
// the stream layout they implement); not installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/tensor/random.h"

namespace theano::tensor::random_detail {

/// `n` draws in C order; the parameter arrays hold one value per element
/// (already broadcast). `single` selects the float32 path (24-bit uniforms).
std::vector<double> sample_uniform(PhiloxKey key, std::int64_t n, bool single, const double* low, const double* high);
std::vector<double> sample_normal(PhiloxKey key, std::int64_t n, bool single, const double* avg, const double* std);
std::vector<std::int64_t> sample_binomial(PhiloxKey key, std::int64_t n, const std::int64_t* trials, const double* p);
std::vector<std::int64_t> sample_integers(PhiloxKey key, std::int64_t n, const std::int64_t* low,
                                         const std::int64_t* high);

/// The distributions after Integers (distributions.cpp): `check_generic`
/// throws perform's ValueError for the first element whose parameters break
/// the distribution's rule ("<op>: shape[3] = -1 must be >= 0");
/// `sample_generic` draws element i by theano_rv_<name> from its substream.
/// `params[k]` holds parameter k's value per element (already broadcast).
void check_generic(Distribution d, std::int64_t n, const std::vector<const double*>& params, const std::string& op);
std::vector<double> sample_generic(Distribution d, PhiloxKey key, std::int64_t n,
                                   const std::vector<const double*>& params);

/// Categorical draws: row i of `p` (n rows of k float64 weights, C order) is
/// element i's; the row rule first (perform's ValueError naming row and
/// category), then theano_rv_categorical_f64 from each element's substream.
std::vector<double> sample_categorical(PhiloxKey key, std::int64_t n, std::int64_t k, const double* p,
                                       const std::string& op);

/// Multinomial rows: row i draws n[i] over the k float64 weights of row i of
/// `p` (the rules first: n's, then the categorical row rule, perform's
/// ValueError naming the row), k counts per row in C order.
std::vector<double> sample_multinomial(PhiloxKey key, std::int64_t rows, std::int64_t k, const double* n,
                                       const double* p, const std::string& op);
/// Permutation rows: row i a random order of 0..k-1 (theano_rv_permutation).
std::vector<std::int64_t> sample_permutation(PhiloxKey key, std::int64_t rows, std::int64_t k);

/// Hörmann's Stirling tail correction fc(k) = log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2].
double stirling_tail(double k);

}  // namespace theano::tensor::random_detail

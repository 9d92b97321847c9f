/// \file
/// Philox4x32 (Salmon et al., SC 2011): the C++ face of the shared kernel in
/// theano/runtime/kernels/random_kernels.h (the text generated code embeds).
/// Checked against Random123's kat_vectors (tests/compiler/tensor/test_random.cpp).
#include "theano/tensor/random.h"
#include "theano/runtime/kernels/random_kernels.h"

namespace theano::tensor {

PhiloxCounter philox4x32(PhiloxCounter ctr, PhiloxKey key, int rounds) noexcept {
  theano_philox4x32_r(ctr.data(), key[0], key[1], rounds);
  return ctr;
}

PhiloxKey philox_call_key(std::uint64_t seed, std::uint64_t counter) noexcept {
  PhiloxKey key;
  theano_philox_call_key(seed, counter, key.data());
  return key;
}

}  // namespace theano::tensor

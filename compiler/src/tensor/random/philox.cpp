/// \file
/// Philox4x32 (Salmon et al., SC 2011), written from the paper's description:
/// each round multiplies two of the four words by the constants M0, M1 (taking
/// the high and low halves of the 64-bit products), permutes and mixes in the
/// key; the key is bumped by the Weyl constants W0, W1 between rounds.
/// Checked against Random123's kat_vectors (tests/compiler/tensor/test_random.cpp).
#include "theano/tensor/random.h"

namespace theano::tensor {

namespace {

constexpr std::uint32_t kM0 = 0xD2511F53u;  // multipliers
constexpr std::uint32_t kM1 = 0xCD9E8D57u;
constexpr std::uint32_t kW0 = 0x9E3779B9u;  // golden ratio
constexpr std::uint32_t kW1 = 0xBB67AE85u;  // sqrt(3) - 1

inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

}  // namespace

PhiloxCounter philox4x32(PhiloxCounter ctr, PhiloxKey key, int rounds) noexcept {
  for (int r = 0; r < rounds; ++r) {
    if (r > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kM0, ctr[0], hi0, lo0);
    mulhilo(kM1, ctr[2], hi1, lo1);
    ctr = {hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0};
  }
  return ctr;
}

PhiloxKey philox_call_key(std::uint64_t seed, std::uint64_t counter) noexcept {
  const PhiloxCounter k = philox4x32({static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32), 0, 0},
                                     {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  return {k[0], k[1]};
}

}  // namespace theano::tensor

// CRC-32 (IEEE 802.3: zlib's value, bit for bit) of the entries the cache
// checks. Every warm start checks the cached library it loads (100-130 KB for
// W3, W9, W10), and zlib 1.2.13's crc32 reads about 4 GB/s on this project's
// machines: 25-35 us, 5 % of a warm W10 start (perf). With PCLMULQDQ, the
// bytes are folded 64 at a time by carry-less multiplication (Gopal et al.,
// "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ
// Instruction", Intel, 2009), and zlib finishes the last 16 folded bytes and
// the tail. The folding constants are x^e mod P(x), computed here from the
// polynomial. tests/cache/test_crc32.cpp compares with zlib.
#include "crc32.h"

#include "theano/cache/compile_cache.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#define THEANO_CRC32_FOLD 1
#else
#define THEANO_CRC32_FOLD 0
#endif

namespace theano::cache::detail {
namespace {

std::uint32_t zlib_crc32(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  uLong c = crc;
  while (n > 0) {  // in pieces that fit zlib's uInt length
    const uInt k = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    c = ::crc32(c, p, k);
    p += k;
    n -= k;
  }
  return static_cast<std::uint32_t>(c);
}

#if THEANO_CRC32_FOLD

// How the folding reads the bytes: a 16-byte block, loaded little-endian into
// a 128-bit register, holds the polynomial A(x) of its 128 message bits with
// register bit k the coefficient of x^(127-k) (CRC-32 reads each byte's least
// significant bit first). Moving a block D bits toward the message's end,
// A x^D mod P, takes two carry-less products of its 64-bit halves: for a
// half p(x) held bit-reversed, clmul(rev64(p), rev64(K)) has bit m the
// coefficient of x^(126-m) of p K, so K = x^(64 + D - 1) mod P for the high
// half and x^(D - 1) mod P for the low half put the sum in the same
// orientation as a block, ready to XOR into the block D bits later.

// x^e mod P(x) for CRC-32's P = 0x104C11DB7 (bit i: the coefficient of x^i).
constexpr std::uint32_t xpow_mod(int e) {
  std::uint64_t r = 1;
  for (int i = 0; i < e; ++i) {
    r <<= 1;
    if (r & (1ull << 32)) r ^= 0x104C11DB7ull;
  }
  return static_cast<std::uint32_t>(r);
}

constexpr std::uint32_t bit_reverse32(std::uint32_t v) {
  std::uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}

// rev64 of a polynomial of degree < 32.
constexpr long long rev64(std::uint32_t k) { return static_cast<long long>(std::uint64_t{bit_reverse32(k)} << 32); }

// The constants for folding by 512 bits (the four-block loop) and by 128.
constexpr long long kFold512Hi = rev64(xpow_mod(64 + 512 - 1)), kFold512Lo = rev64(xpow_mod(512 - 1));
constexpr long long kFold128Hi = rev64(xpow_mod(64 + 128 - 1)), kFold128Lo = rev64(xpow_mod(128 - 1));

__attribute__((target("pclmul,sse2"))) inline __m128i fold(__m128i x, __m128i k) {
  // The low half (x's high-degree coefficients) times k's low half, the high
  // half times k's high half.
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

// The CRC-32 register after `n` bytes (n a multiple of 64, at least 64) from
// zlib's value `crc`; the same as zlib_crc32(crc, p, n).
__attribute__((target("pclmul,sse2"))) std::uint32_t folded_crc32(std::uint32_t crc, const unsigned char* p,
                                                                    std::size_t n) {
  auto load = [](const unsigned char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); };
  // zlib's register starts as ~crc, which is the same as XORing it into the
  // first 32 message bits and starting from 0.
  __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(static_cast<int>(~crc)));
  __m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
  const __m128i k512 = _mm_set_epi64x(kFold512Lo, kFold512Hi);
  for (std::size_t i = 64; i < n; i += 64) {
    x0 = _mm_xor_si128(fold(x0, k512), load(p + i));
    x1 = _mm_xor_si128(fold(x1, k512), load(p + i + 16));
    x2 = _mm_xor_si128(fold(x2, k512), load(p + i + 32));
    x3 = _mm_xor_si128(fold(x3, k512), load(p + i + 48));
  }
  const __m128i k128 = _mm_set_epi64x(kFold128Lo, kFold128Hi);
  x1 = _mm_xor_si128(fold(x0, k128), x1);
  x2 = _mm_xor_si128(fold(x1, k128), x2);
  x3 = _mm_xor_si128(fold(x2, k128), x3);
  // The message is now congruent to these 16 bytes as the last ones: their
  // CRC from a zero register is the message's. zlib's crc32(~0, ...) starts
  // from a zero register and returns its complement, which is zlib's value
  // of the whole message.
  unsigned char last[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(last), x3);
  return zlib_crc32(0xFFFFFFFFu, last, 16);
}

bool has_pclmul() {
  static const bool yes = __builtin_cpu_supports("pclmul");
  return yes;
}

#endif

}  // namespace

bool crc32_folds() {
#if THEANO_CRC32_FOLD
  return has_pclmul();
#else
  return false;
#endif
}

std::uint32_t crc32_update(std::uint32_t crc, const unsigned char* p, std::size_t n, bool allow_fold) {
#if THEANO_CRC32_FOLD
  // Below a few blocks the set-up is not worth it.
  if (allow_fold && n >= 256 && has_pclmul()) {
    const std::size_t bulk = n / 64 * 64;
    crc = folded_crc32(crc, p, bulk);
    p += bulk;
    n -= bulk;
  }
#else
  (void)allow_fold;
#endif
  return zlib_crc32(crc, p, n);
}

}  // namespace theano::cache::detail

namespace theano::cache {

std::uint32_t crc32(std::string_view bytes) {
  return detail::crc32_update(0, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
}

}  // namespace theano::cache

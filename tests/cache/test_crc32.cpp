// The cache's CRC-32 (cache/src/crc32.cpp): the carry-less folding gives
// zlib's value for every length around its block sizes, at every alignment,
// from any starting value, and on bytes with long runs of 0x00 and 0xff.
#include <doctest/doctest.h>
#include <theano/cache/compile_cache.h>

#include <zlib.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../../cache/src/crc32.h"

using theano::cache::detail::crc32_update;

namespace {

std::uint32_t zlib_reference(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  return static_cast<std::uint32_t>(::crc32(crc, p, static_cast<uInt>(n)));
}

}  // namespace

TEST_CASE("crc32: the folded CRC-32 is zlib's at every length, alignment and starting value") {
  if (!theano::cache::detail::crc32_folds()) MESSAGE("this CPU has no PCLMULQDQ: both sides are zlib's here");
  std::mt19937_64 rng(20261130);
  std::vector<unsigned char> buf(70000 + 64);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 700; ++n) lengths.push_back(n);
  for (std::size_t n : {1023u, 1024u, 1025u, 4095u, 4096u, 65535u, 65536u, 65537u, 70000u}) lengths.push_back(n);
  int compared = 0;
  for (std::size_t n : lengths)
    for (std::size_t offset : {0u, 1u, 7u, 13u}) {
      const unsigned char* p = buf.data() + offset;
      for (std::uint32_t start : {0u, 0xFFFFFFFFu, 0x12345678u}) {
        CAPTURE(n);
        CAPTURE(offset);
        CAPTURE(start);
        const std::uint32_t want = zlib_reference(start, p, n);
        REQUIRE(crc32_update(start, p, n) == want);
        REQUIRE(crc32_update(start, p, n, /*allow_fold=*/false) == want);
        ++compared;
      }
    }
  CHECK(compared == static_cast<int>(lengths.size()) * 12);
}

TEST_CASE("crc32: runs of zeros and ones, chained updates, and the entry checksum") {
  for (unsigned char fill : {0x00, 0xFF}) {
    const std::string s(100000, static_cast<char>(fill));
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    CHECK(crc32_update(0, p, s.size()) == zlib_reference(0, p, s.size()));
    // In two pieces, the first not a multiple of the block size.
    const std::uint32_t half = crc32_update(0, p, 33333);
    CHECK(crc32_update(half, p + 33333, s.size() - 33333) == zlib_reference(0, p, s.size()));
  }
  // The published check value of CRC-32 (IEEE): "123456789" -> 0xCBF43926.
  CHECK(theano::cache::crc32("123456789") == 0xCBF43926u);
  std::string big(300000, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 2654435761u >> 13);
  CHECK(theano::cache::crc32(big) ==
        zlib_reference(0, reinterpret_cast<const unsigned char*>(big.data()), big.size()));
}

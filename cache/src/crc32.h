// CRC-32 (zlib's) with carry-less multiplication where the CPU has it
// (crc32.cpp says how). Not installed; the tests include it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace theano::cache::detail {

/// zlib's crc32(crc, p, n), any length. `allow_fold` false: zlib alone (the
/// tests compare the two).
std::uint32_t crc32_update(std::uint32_t crc, const unsigned char* p, std::size_t n, bool allow_fold = true);

/// Whether crc32_update folds on this CPU (x86-64 with PCLMULQDQ).
bool crc32_folds();

}  // namespace theano::cache::detail

/// \file
/// stored_zip: the bytes of a zip archive of uncompressed ("stored") members,
/// written by hand. Why not libzip: the tests need archives libzip refuses to
/// write (two members of one name, as Python's zipfile writes them when asked)
/// and members whose declared size is what the test says.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace theano::test {

inline std::uint32_t crc32_of(const std::string& data) {
  std::uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// A zip holding `members` (name, bytes) in order, stored, no data descriptors.
inline std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  auto le = [](std::string& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  };
  std::string body, directory;
  for (const auto& [name, data] : members) {
    const std::uint32_t crc = crc32_of(data);
    const std::uint64_t offset = body.size();
    auto common = [&](std::string& out) {  // from "version needed" to "extra length"
      le(out, 20, 2);                      // version needed
      le(out, 0, 2);                       // flags
      le(out, 0, 2);                       // method: stored
      le(out, 0, 2);                       // time
      le(out, 0x21, 2);                    // date: 1980-01-01
      le(out, crc, 4);
      le(out, data.size(), 4);  // compressed
      le(out, data.size(), 4);  // uncompressed
      le(out, name.size(), 2);
      le(out, 0, 2);  // extra
    };
    le(body, 0x04034b50, 4);
    common(body);
    body += name;
    body += data;
    le(directory, 0x02014b50, 4);
    le(directory, 20, 2);  // version made by
    common(directory);
    le(directory, 0, 2);  // comment
    le(directory, 0, 2);  // disk
    le(directory, 0, 2);  // internal attributes
    le(directory, 0, 4);  // external attributes
    le(directory, offset, 4);
    directory += name;
  }
  std::string out = body + directory;
  le(out, 0x06054b50, 4);
  le(out, 0, 2);
  le(out, 0, 2);
  le(out, members.size(), 2);
  le(out, members.size(), 2);
  le(out, directory.size(), 4);
  le(out, body.size(), 4);
  le(out, 0, 2);
  return out;
}

}  // namespace theano::test

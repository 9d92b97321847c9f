// .npy reader and writer (numpy/lib/format.py). The reader is written for hostile
// input: every length is checked before use, the header dict is parsed by a small
// tokenizer that accepts only the three keys numpy writes, and the element count is
// computed with overflow checks before anything is allocated.
#include "theano/runtime/npy.h"
#include "theano/runtime/kernels/shape_rules.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>

namespace theano {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

std::string quoted(std::string_view s, std::size_t max = 40) {
  std::string out = "'";
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 32 && u < 127) out += c;
    else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out + (s.size() > max ? "...'" : "'");
}

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

// Parser for the Python dict literal numpy writes, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
class DictParser {
 public:
  explicit DictParser(std::string_view s) : s_(s) {}

  Header parse() {
    Header h;
    bool have_descr = false, have_fortran = false, have_shape = false;
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        have_fortran = true;
      } else if (key == "shape") {
        h.shape = tuple();
        have_shape = true;
      } else {
        fail("unexpected key " + quoted(key) + " (expected 'descr', 'fortran_order' or 'shape')");
      }
      skip_ws();
      if (peek() == ',') ++i_;
      else if (peek() != '}') fail("expected ',' or '}' after the value of " + quoted(key));
    }
    if (!have_descr || !have_fortran || !have_shape)
      fail(std::string("missing key ") + (!have_descr ? "'descr'" : !have_fortran ? "'fortran_order'" : "'shape'"));
    skip_ws();
    if (i_ != s_.size()) fail("unexpected text after the dict: " + quoted(s_.substr(i_)));
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    THEANO_USER_CHECK(false, IOError) << "malformed .npy header: " << what << " in " << quoted(s_, 120);
    throw IOError("unreachable");
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) fail(std::string("expected '") + c + "' at offset " + std::to_string(i_));
    ++i_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted string at offset " + std::to_string(i_));
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string_view::npos) fail("unterminated string at offset " + std::to_string(i_));
    std::string r(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return r;
  }
  bool boolean() {
    skip_ws();
    if (s_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (s_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail("expected True or False for 'fortran_order' at offset " + std::to_string(i_));
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> out;
    for (;;) {
      skip_ws();
      if (peek() == ')') {
        ++i_;
        return out;
      }
      if (peek() < '0' || peek() > '9') fail("expected a non-negative integer in 'shape' at offset " + std::to_string(i_));
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const int digit = peek() - '0';
        if (v > (std::numeric_limits<int64_t>::max() - digit) / 10) fail("dimension too large in 'shape'");
        v = v * 10 + digit;
        ++i_;
      }
      if (peek() == 'L') ++i_;  // Python 2 long suffix
      out.push_back(v);
      if (out.size() > 64) fail("too many dimensions in 'shape' (more than 64)");
      skip_ws();
      if (peek() == ',') ++i_;
      else if (peek() != ')') fail("expected ',' or ')' in 'shape' at offset " + std::to_string(i_));
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

struct Descr {
  DType dtype;
  bool big_endian;
};

Descr parse_descr(const std::string& d) {
  auto unsupported = [&]() {
    THEANO_USER_CHECK(false, IOError)
        << "unsupported .npy dtype descr " << quoted(d)
        << "; expected one of bool, int8..int64, uint8..uint64, float16/32/64, complex64/128 "
           "(e.g. '<f8', '|b1', '>i4', '<c16')";
  };
  if (d.size() < 2) unsupported();
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') unsupported();
  const std::string_view code = std::string_view(d).substr(1);
  static const struct {
    std::string_view code;
    DType dtype;
  } table[] = {{"b1", DType::Bool},      {"?", DType::Bool},         {"i1", DType::Int8},
               {"i2", DType::Int16},     {"i4", DType::Int32},       {"i8", DType::Int64},
               {"u1", DType::UInt8},     {"u2", DType::UInt16},      {"u4", DType::UInt32},
               {"u8", DType::UInt64},    {"f2", DType::Float16},     {"f4", DType::Float32},
               {"f8", DType::Float64},   {"c8", DType::Complex64},   {"c16", DType::Complex128}};
  for (const auto& e : table)
    if (e.code == code) return {e.dtype, order == '>' && dtype_size(e.dtype) > 1};
  unsupported();
  return {DType::Float64, false};
}

void byteswap(std::byte* p, int64_t n_elements, DType dtype) {
  // Complex values are two floats: swap each component.
  const std::size_t width = is_complex(dtype) ? dtype_size(dtype) / 2 : dtype_size(dtype);
  const int64_t count = n_elements * static_cast<int64_t>(dtype_size(dtype) / width);
  for (int64_t i = 0; i < count; ++i) std::reverse(p + i * static_cast<int64_t>(width), p + (i + 1) * static_cast<int64_t>(width));
}

uint32_t read_le(const std::byte* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint32_t>(p[i]);
  return v;
}

}  // namespace

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::Int8: return "|i1";
    case DType::UInt8: return "|u1";
    default: break;
  }
  const char kind = dtype_kind(dtype);
  return std::string("<") + kind + std::to_string(dtype_size(dtype));
}

NDArray load_npy_bytes(std::span<const std::byte> bytes) {
  THEANO_USER_CHECK(bytes.size() >= kMagicLen + 2, IOError)
      << "not a .npy file: expected at least " << kMagicLen + 2 << " bytes (magic + version), got "
      << bytes.size();
  const std::string_view magic(reinterpret_cast<const char*>(bytes.data()), kMagicLen);
  THEANO_USER_CHECK(magic == std::string_view(kMagic, kMagicLen), IOError)
      << "not a .npy file: expected magic '\\x93NUMPY', got " << quoted(magic);
  const int major = static_cast<int>(bytes[6]), minor = static_cast<int>(bytes[7]);
  THEANO_USER_CHECK(major >= 1 && major <= 3 && minor == 0, IOError)
      << "unsupported .npy format version " << major << "." << minor << " (expected 1.0, 2.0 or 3.0)";
  const int len_bytes = major == 1 ? 2 : 4;
  THEANO_USER_CHECK(bytes.size() >= 8 + static_cast<std::size_t>(len_bytes), IOError)
      << "truncated .npy file: expected a " << len_bytes << "-byte header length after the version, got "
      << bytes.size() - 8 << " bytes";
  const uint64_t header_len = read_le(bytes.data() + 8, len_bytes);
  const std::size_t header_start = 8 + static_cast<std::size_t>(len_bytes);
  THEANO_USER_CHECK(header_len <= bytes.size() - header_start, IOError)
      << "truncated .npy header: expected " << header_len << " header bytes, got "
      << bytes.size() - header_start;
  std::string_view header(reinterpret_cast<const char*>(bytes.data() + header_start), header_len);
  // Trailing padding (spaces) and the terminating newline are not part of the dict.
  while (!header.empty() && (header.back() == ' ' || header.back() == '\n' || header.back() == '\0'))
    header.remove_suffix(1);
  const Header h = DictParser(header).parse();
  const Descr descr = parse_descr(h.descr);
  THEANO_USER_CHECK(h.shape.size() <= THEANO_MAX_NDIM, TypeError)
      << ".npy: the array has " << h.shape.size() << " dimensions; arrays have at most " << THEANO_MAX_NDIM;

  const auto item = static_cast<int64_t>(dtype_size(descr.dtype));
  const uint64_t available = bytes.size() - header_start - header_len;
  const bool zero_size = std::find(h.shape.begin(), h.shape.end(), 0) != h.shape.end();
  uint64_t count = zero_size ? 0 : 1;
  for (int64_t s : h.shape) {
    if (zero_size) break;
    // Check against the bytes present before multiplying further (no overflow).
    THEANO_USER_CHECK(count <= available / static_cast<uint64_t>(s), IOError)
        << "truncated .npy data: shape " << shape_to_string(h.shape) << " of " << dtype_name(descr.dtype)
        << " needs more than the " << available << " data bytes present";
    count *= static_cast<uint64_t>(s);
  }
  const uint64_t need = count * static_cast<uint64_t>(item);
  THEANO_USER_CHECK(need <= available, IOError)
      << "truncated .npy data: shape " << shape_to_string(h.shape) << " of " << dtype_name(descr.dtype)
      << " needs " << need << " bytes, got " << available;
  NDArray out = NDArray::empty(h.shape, descr.dtype);
  if (count > 0) {
    std::memcpy(out.data(), bytes.data() + header_start + header_len, static_cast<std::size_t>(need));
    if (descr.big_endian) byteswap(static_cast<std::byte*>(out.data()), static_cast<int64_t>(count), descr.dtype);
    if (descr.dtype == DType::Bool) {
      // Normalise to 0/1 so every bool element is a valid C++ bool.
      auto* p = static_cast<uint8_t*>(out.data());
      for (uint64_t i = 0; i < count; ++i) p[i] = p[i] != 0;
    }
  }
  const std::vector<int64_t>& shape = h.shape;
  if (h.fortran && shape.size() > 1) {
    // Elements are in Fortran order: view the buffer with Fortran strides.
    std::vector<int64_t> rev(shape.rbegin(), shape.rend());
    out = out.reshape(rev).transpose();
  }
  return out;
}

std::vector<std::byte> save_npy_bytes(const NDArray& a) {
  THEANO_USER_CHECK(a.defined(), ValueError) << "save_npy: null NDArray handle";
  const bool fortran = a.ndim() > 1 && a.is_f_contiguous() && !a.is_c_contiguous();
  std::string dict = "{'descr': '" + npy_descr(a.dtype()) + "', 'fortran_order': " +
                     (fortran ? "True" : "False") + ", 'shape': " + shape_to_string(a.shape()) + ", }";
  // Pad with spaces so magic + version + length + header (incl. '\n') is a multiple of 64.
  std::size_t prefix = kMagicLen + 2 + 2;
  std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  const bool v2 = total - prefix > 65535;
  if (v2) {
    prefix = kMagicLen + 2 + 4;
    total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  }
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  const NDArray data = fortran ? a : a.contiguous();
  std::vector<std::byte> out;
  out.reserve(total + static_cast<std::size_t>(a.nbytes()));
  for (std::size_t i = 0; i < kMagicLen; ++i) out.push_back(static_cast<std::byte>(kMagic[i]));
  out.push_back(std::byte{static_cast<unsigned char>(v2 ? 2 : 1)});
  out.push_back(std::byte{0});
  const uint32_t hl = static_cast<uint32_t>(dict.size());
  for (int i = 0; i < (v2 ? 4 : 2); ++i) out.push_back(static_cast<std::byte>((hl >> (8 * i)) & 0xff));
  for (char c : dict) out.push_back(static_cast<std::byte>(c));
  const auto* p = static_cast<const std::byte*>(data.data());
  out.insert(out.end(), p, p + data.nbytes());
  return out;
}

NDArray load_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  THEANO_USER_CHECK(in.good(), IOError) << "cannot open .npy file '" << path << "' for reading";
  std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  THEANO_USER_CHECK(!in.bad(), IOError) << "error reading .npy file '" << path << "'";
  try {
    return load_npy_bytes(std::as_bytes(std::span<const char>(buf)));
  } catch (const IOError& e) {
    throw IOError(std::string(e.what()) + " (file '" + path + "')");
  }
}

void save_npy(const std::string& path, const NDArray& a) {
  const std::vector<std::byte> bytes = save_npy_bytes(a);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  THEANO_USER_CHECK(out.good(), IOError) << "cannot open '" << path << "' for writing";
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  THEANO_USER_CHECK(out.good(), IOError) << "error writing .npy file '" << path << "'";
}

}  // namespace theano

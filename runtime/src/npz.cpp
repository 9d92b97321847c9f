// load_npz / save_npz (sparse_matrix.h): SciPy's scipy.sparse.save_npz files.
// Why a reader of our own: sparse test data and user matrices come from SciPy,
// whose .npz is a zip (libzip here) of .npy members; the members are numeric
// arrays (npy.h) except format.npy, a 0-d string ('|S3' from SciPy, '<U3'
// from numpy.savez of a str), which npy.h refuses and is parsed below.
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "theano/runtime/error.h"
#include "theano/runtime/memory_error.h"
#include "theano/runtime/npy.h"
#include "theano/runtime/sparse_matrix.h"

namespace theano {

namespace {

using Bytes = std::vector<std::byte>;

/// The member names of a csr/csc file, in the order SciPy writes them.
constexpr const char* kIndices = "indices.npy";
constexpr const char* kIndptr = "indptr.npy";
constexpr const char* kFormat = "format.npy";
constexpr const char* kShape = "shape.npy";
constexpr const char* kData = "data.npy";

/// libzip's text for an error code from zip_open.
std::string zip_code_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string s = zip_error_strerror(&e);
  zip_error_fini(&e);
  return s;
}

// ---- the format member: a 0-d '|S<n>' or '<U<n>' .npy ----

uint64_t read_le(const std::byte* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(p[i]);
  return v;
}

uint64_t read_be(const std::byte* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint64_t>(p[i]);
  return v;
}

/// The quoted string or parenthesized tuple that follows 'key': in a .npy
/// header dict (without its quotes or parentheses); nullopt when absent or
/// malformed.
std::optional<std::string_view> dict_value(std::string_view dict, std::string_view key) {
  for (const char q : {'\'', '"'}) {
    const std::string quoted_key = std::string(1, q) + std::string(key) + q;
    std::size_t p = dict.find(quoted_key);
    if (p == std::string_view::npos) continue;
    p = dict.find_first_not_of(" :", p + quoted_key.size());
    if (p == std::string_view::npos) return std::nullopt;
    const char open = dict[p], close = open == '(' ? ')' : open;
    if (open != '(' && open != '\'' && open != '"') return std::nullopt;
    const std::size_t end = dict.find(close, p + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return dict.substr(p + 1, end - p - 1);
  }
  return std::nullopt;
}

/// The header dict of a .npy member and the offset of its payload.
std::pair<std::string_view, std::size_t> npy_header(std::span<const std::byte> b, const std::string& where) {
  constexpr std::string_view kMagic("\x93NUMPY", 6);
  THEANO_USER_CHECK(b.size() >= 10 && std::memcmp(b.data(), kMagic.data(), kMagic.size()) == 0, IOError)
      << where << ": not a .npy member (bad magic or too short)";
  const int major = static_cast<int>(b[6]);
  THEANO_USER_CHECK(major >= 1 && major <= 3 && b[7] == std::byte{0}, IOError)
      << where << ": unsupported .npy version " << major << "." << static_cast<int>(b[7]);
  const int len_bytes = major == 1 ? 2 : 4;
  THEANO_USER_CHECK(b.size() >= 8u + len_bytes, IOError) << where << ": truncated .npy header";
  const uint64_t len = read_le(b.data() + 8, len_bytes);
  const std::size_t start = 8 + static_cast<std::size_t>(len_bytes);
  THEANO_USER_CHECK(len <= b.size() - start, IOError) << where << ": truncated .npy header";
  return {std::string_view(reinterpret_cast<const char*>(b.data() + start), len), start + len};
}

/// The text of a 0-d numpy string array: descr '|S<n>' (bytes, what SciPy
/// writes) or '<U<n>' / '>U<n>' (UTF-32, numpy's str), trailing NULs dropped.
/// Only ASCII is accepted: format names are.
std::string npy_string_scalar(std::span<const std::byte> b, const std::string& where) {
  const auto [dict, payload] = npy_header(b, where);
  const std::string_view descr = dict_value(dict, "descr").value_or("");
  const std::optional<std::string_view> shape = dict_value(dict, "shape");
  THEANO_USER_CHECK(shape && shape->find_first_not_of(' ') == std::string_view::npos, IOError)
      << where << ": expected a 0-d string array, got shape " << (shape ? "(" + std::string(*shape) + ")" : "none");
  const bool ok_descr = descr.size() >= 3 && std::string_view("<>|=").find(descr[0]) != std::string_view::npos &&
                        (descr[1] == 'S' || descr[1] == 'U') && descr.size() <= 6 &&
                        std::all_of(descr.begin() + 2, descr.end(), [](char c) { return c >= '0' && c <= '9'; });
  THEANO_USER_CHECK(ok_descr, IOError) << where << ": expected a string dtype ('|S3' or '<U3'), got '" << descr << "'";
  const std::size_t n = std::stoul(std::string(descr.substr(2)));
  const std::size_t unit = descr[1] == 'U' ? 4 : 1;
  THEANO_USER_CHECK(b.size() - payload >= n * unit, IOError)
      << where << ": truncated: '" << descr << "' needs " << n * unit << " bytes, got " << b.size() - payload;
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* p = b.data() + payload + i * unit;
    const uint64_t c = unit == 1 ? static_cast<uint64_t>(*p) : descr[0] == '>' ? read_be(p, 4) : read_le(p, 4);
    if (c == 0) break;
    THEANO_USER_CHECK(c < 128, IOError) << where << ": the string is not ASCII";
    out += static_cast<char>(c);
  }
  return out;
}

/// A 0-d '|S<n>' .npy holding `s`, header padded to 64 bytes as numpy does.
Bytes npy_bytes_scalar(const std::string& s) {
  std::string header = "{'descr': '|S" + std::to_string(s.size()) + "', 'fortran_order': False, 'shape': (), }";
  const std::size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  const std::string prefix = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size() & 0xff) +
                             static_cast<char>(header.size() >> 8);
  const std::string all = prefix + header + s;
  Bytes out(all.size());
  std::memcpy(out.data(), all.data(), all.size());
  return out;
}

// ---- reading ----

struct ZipDiscard {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipDiscard>;

class NpzReader {
 public:
  NpzReader(std::string path, uint64_t max_bytes) : path_(std::move(path)), max_bytes_(max_bytes) {
    int code = 0;
    zip_.reset(zip_open(path_.c_str(), ZIP_RDONLY, &code));
    if (!zip_) fail("cannot open it as a zip archive: " + zip_code_text(code));
    check_directory();
  }

  [[noreturn]] void fail(const std::string& what) const { throw IOError("load_npz('" + path_ + "'): " + what); }

  /// The bytes of member `name` (CRC checked by libzip), refused before
  /// anything is read when its declared size exceeds what `max_elements`
  /// elements of any dtype need (`why` says where that count comes from).
  Bytes member(const char* name, uint64_t max_elements, const std::string& why) const {
    const zip_int64_t index = zip_name_locate(zip_.get(), name, 0);
    if (index < 0) fail(std::string("missing member '") + name + "' (not a scipy.sparse csr/csc .npz file)");
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip_.get(), static_cast<zip_uint64_t>(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
      fail(std::string("cannot stat member '") + name + "': " + zip_strerror(zip_.get()));
    uint64_t limit = 0;
    if (__builtin_mul_overflow(max_elements, kMaxItemBytes, &limit) ||
        __builtin_add_overflow(limit, kMaxNpyHeaderBytes, &limit))
      limit = std::numeric_limits<uint64_t>::max();
    if (st.size > limit)
      fail(std::string("member '") + name + "' declares " + std::to_string(st.size) +
           " bytes uncompressed, more than " + std::to_string(max_elements) + " elements (" + why +
           ") can take; not reading it");
    zip_file_t* f = zip_fopen_index(zip_.get(), static_cast<zip_uint64_t>(index), 0);
    if (!f) fail(std::string("cannot open member '") + name + "': " + zip_strerror(zip_.get()));
    Bytes out;
    std::string error;
    try {
      error = read_all(f, st.size, out);
    } catch (const std::bad_alloc&) {
      zip_fclose(f);
      throw MemoryError("load_npz('" + path_ + "'): cannot allocate " + std::to_string(st.size) +
                        " bytes for member '" + name + "'");
    }
    if (zip_fclose(f) != 0 && error.empty()) error = "closing it failed";
    if (!error.empty()) fail(std::string("cannot read member '") + name + "': " + error);
    return out;
  }

  /// Member `name` as an array (npy.h), its errors naming the file and member.
  NDArray array(const char* name, uint64_t max_elements, const std::string& why) const {
    const Bytes b = member(name, max_elements, why);
    try {
      return load_npy_bytes(b);
    } catch (const MemoryError& e) {
      throw MemoryError("load_npz('" + path_ + "'): member '" + name + "': " + e.what());
    } catch (const Error& e) {
      fail(std::string("member '") + name + "': " + e.what());
    }
  }

  std::string format() const {
    return npy_string_scalar(member(kFormat, 16, "a format name"),
                             "load_npz('" + path_ + "'): member 'format.npy'");
  }

  std::array<int64_t, 2> shape() const {
    const NDArray s = array(kShape, 2, "a 2-d shape");
    if (s.ndim() != 1 || s.size() != 2 || !is_integer(s.dtype()))
      fail("member 'shape.npy' must be 2 integers, got a " + std::to_string(s.ndim()) + "-d " +
           std::string(dtype_name(s.dtype())) + " array of " + std::to_string(s.size()));
    const NDArray v = s.astype(DType::Int64);
    return {v.data_as<int64_t>()[0], v.data_as<int64_t>()[1]};
  }

 private:
  /// Bytes of one element of the widest dtype a member may hold (complex128).
  static constexpr uint64_t kMaxItemBytes = 16;
  /// Room for a .npy member's magic, version and header dict.
  static constexpr uint64_t kMaxNpyHeaderBytes = 1 << 16;

  /// Refuses duplicate member names (readers disagree on which one counts:
  /// libzip finds the first, Python's zipfile the last, so one file would be
  /// two matrices) and members declaring more than max_bytes in all.
  void check_directory() const {
    const zip_int64_t n = zip_get_num_entries(zip_.get(), 0);
    if (n < 0) fail("cannot list its members: " + std::string(zip_strerror(zip_.get())));
    std::set<std::string> names;
    uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; ++i) {
      zip_stat_t st;
      zip_stat_init(&st);
      if (zip_stat_index(zip_.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
        fail("cannot stat member " + std::to_string(i) + ": " + zip_strerror(zip_.get()));
      if (!names.insert(st.name).second)
        fail(std::string("member '") + st.name +
             "' appears more than once (readers disagree on which copy counts); refusing the file");
      if ((st.valid & ZIP_STAT_SIZE) && __builtin_add_overflow(total, st.size, &total))
        total = std::numeric_limits<uint64_t>::max();
    }
    if (total > max_bytes_)
      fail("its members declare " + std::to_string(total) + " bytes uncompressed, more than max_bytes = " +
           std::to_string(max_bytes_) + " (pass a larger max_bytes to load_npz to read it)");
  }

  /// Reads `f` to its end into `out`; the error text, "" on success.
  static std::string read_all(zip_file_t* f, zip_uint64_t expected, Bytes& out) {
    constexpr std::size_t kChunk = 1 << 16;
    out.reserve(static_cast<std::size_t>(std::min<zip_uint64_t>(expected, 1u << 20)));
    for (;;) {
      const std::size_t have = out.size();
      out.resize(have + kChunk);
      const zip_int64_t n = zip_fread(f, out.data() + have, kChunk);
      if (n < 0) return zip_file_strerror(f);
      out.resize(have + static_cast<std::size_t>(n));
      if (n == 0) break;
      if (out.size() > expected) return "more data than the archive's directory says";
    }
    if (out.size() != expected)
      return "expected " + std::to_string(expected) + " bytes, got " + std::to_string(out.size());
    return {};
  }

  std::string path_;
  uint64_t max_bytes_;
  ZipPtr zip_;
};

SparseFormat checked_format(const NpzReader& r, const std::string& f) {
  if (f == "csr") return SparseFormat::CSR;
  if (f == "csc") return SparseFormat::CSC;
  if (f == "coo" || f == "bsr" || f == "dia" || f == "lil" || f == "dok")
    r.fail("found a '" + f + "' matrix; only csr and csc are supported (convert with .tocsr() in SciPy)");
  r.fail("unknown sparse format '" + f + "' in member 'format.npy' (expected 'csr' or 'csc')");
}

// ---- writing ----

/// Whether every entry of the int64 vector `a` fits in int32.
bool fits_int32(const NDArray& a) {
  const int64_t* p = a.data_as<int64_t>();
  return std::all_of(p, p + a.size(), [](int64_t v) {
    return v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max();
  });
}

/// A fresh name next to `path` for the archive before it is renamed.
std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.parent_path() /
         ("." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

class NpzWriter {
 public:
  NpzWriter(std::string path, std::filesystem::path temp) : path_(std::move(path)), temp_(std::move(temp)) {
    int code = 0;
    zip_.reset(zip_open(temp_.c_str(), ZIP_CREATE | ZIP_EXCL, &code));
    if (!zip_) fail("cannot create " + temp_.string() + ": " + zip_code_text(code));
  }
  ~NpzWriter() {
    std::error_code ec;
    if (!done_) std::filesystem::remove(temp_, ec);
  }
  NpzWriter(const NpzWriter&) = delete;
  NpzWriter& operator=(const NpzWriter&) = delete;

  /// Adds member `name`, deflate-compressed; `bytes` must live until commit().
  void add(const char* name, const Bytes& bytes) {
    zip_source_t* src = zip_source_buffer(zip_.get(), bytes.data(), bytes.size(), 0);
    if (!src) fail(std::string("cannot add '") + name + "': " + zip_strerror(zip_.get()));
    const zip_int64_t index = zip_file_add(zip_.get(), name, src, 0);
    if (index < 0) {
      zip_source_free(src);
      fail(std::string("cannot add '") + name + "': " + zip_strerror(zip_.get()));
    }
    if (zip_set_file_compression(zip_.get(), static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 0) != 0)
      fail(std::string("cannot compress '") + name + "': " + zip_strerror(zip_.get()));
  }

  /// Writes the archive to the temporary file and renames it to the path.
  void commit() {
    if (zip_close(zip_.get()) != 0) fail("cannot write " + temp_.string() + ": " + zip_strerror(zip_.get()));
    (void)zip_.release();  // zip_close freed it
    std::error_code ec;
    std::filesystem::rename(temp_, path_, ec);
    if (ec) fail("cannot rename " + temp_.string() + " to it: " + ec.message());
    done_ = true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw IOError("save_npz('" + path_ + "'): " + what); }

  std::string path_;
  std::filesystem::path temp_;
  ZipPtr zip_;
  bool done_ = false;
};

}  // namespace

SparseMatrix load_npz(const std::string& path, uint64_t max_bytes) {
  // Members are read smallest first, each refused from its declared size
  // before it is decompressed: shape bounds indptr, indptr bounds data and
  // indices (a few KB of deflate must not become gigabytes of zeros).
  const NpzReader r(path, max_bytes);
  const SparseFormat format = checked_format(r, r.format());
  const std::array<int64_t, 2> shape = r.shape();
  const int64_t major = format == SparseFormat::CSR ? shape[0] : shape[1];
  const uint64_t pointers = major < 0 ? 0 : static_cast<uint64_t>(major) + 1;
  NDArray indptr = r.array(kIndptr, pointers, "the " + std::string(format == SparseFormat::CSR ? "rows" : "columns") +
                                                 " of shape.npy, plus one");
  uint64_t nnz = 0;
  if (is_integer(indptr.dtype())) {
    const NDArray p = indptr.astype(DType::Int64);
    for (int64_t i = 0; i < p.size(); ++i) nnz = std::max<uint64_t>(nnz, std::max<int64_t>(p.data_as<int64_t>()[i], 0));
  }
  const std::string why = "indptr.npy stores " + std::to_string(nnz) + " entries";
  NDArray data = r.array(kData, nnz, why);
  NDArray indices = r.array(kIndices, nnz, why);
  return SparseMatrix(format, std::move(data), std::move(indices), std::move(indptr), shape);
}

void save_npz(const std::string& path, const SparseMatrix& m) {
  THEANO_USER_CHECK(m.defined(), ValueError) << "save_npz('" << path << "'): the matrix is undefined";
  const bool narrow = fits_int32(m.indices()) && fits_int32(m.indptr());
  const DType index_dtype = narrow ? DType::Int32 : DType::Int64;
  const Bytes indices = save_npy_bytes(m.indices().astype(index_dtype));
  const Bytes indptr = save_npy_bytes(m.indptr().astype(index_dtype));
  const Bytes format = npy_bytes_scalar(to_string(m.format()));
  const Bytes shape = save_npy_bytes(m.shape_array());
  const Bytes data = save_npy_bytes(m.data());
  NpzWriter w(path, temp_path_for(path));
  w.add(kIndices, indices);
  w.add(kIndptr, indptr);
  w.add(kFormat, format);
  w.add(kShape, shape);
  w.add(kData, data);
  w.commit();
}

}  // namespace theano

// .npy: loading files numpy wrote (every dtype, C and Fortran order, big endian,
// versions 1/2/3, 0-d, empty), byte-identical writing, round trips, error messages for
// malformed files, and a fuzz test (truncations + random byte flips, fixed seed) that
// must only ever succeed or throw theano::Error -- run it under ASan.
// Fixtures: tests/data/npy/make_fixtures.py (values follow fixture_values below).
#include <doctest/doctest.h>

#include <algorithm>
#include <complex>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>

#include "theano/runtime/npy.h"
#include "theano/runtime/scalar_cast.h"

using namespace theano;

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/npy/" + name; }

std::vector<std::byte> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  std::memcpy(out.data(), c.data(), c.size());
  return out;
}

// The formulas of make_fixtures.py, C order, element i.
NDArray fixture_values(DType dt, std::vector<int64_t> shape) {
  NDArray a = NDArray::empty(shape, dt);
  const int64_t n = a.size();
  visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = a.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (dt == DType::Bool) p[i] = scalar_cast<T>(i % 2 == 1);
      else if (is_signed_integer(dt)) p[i] = scalar_cast<T>(3 * i - 5);
      else if (is_unsigned(dt)) p[i] = scalar_cast<T>(40 * i);
      else if (is_float(dt)) p[i] = scalar_cast<T>(0.5 * static_cast<double>(3 * i - 5));
      else p[i] = scalar_cast<T>(std::complex<double>(0.5 * static_cast<double>(i), static_cast<double>(-i)));
    }
  });
  return a;
}

std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (int i = 0; i < kNumDTypes; ++i) v.push_back(static_cast<DType>(i));
  return v;
}

}  // namespace

TEST_CASE("load numpy-written files: every dtype, C order, Fortran order, big endian") {
  for (DType dt : all_dtypes()) {
    const std::string name(dtype_name(dt));
    CAPTURE(name);
    NDArray c = load_npy(fixture(name + "_c.npy"));
    CHECK(c.dtype() == dt);
    CHECK(c.shape() == std::vector<int64_t>{2, 3});
    CHECK(c.is_c_contiguous());
    CHECK(array_equal(c, fixture_values(dt, {2, 3})));

    NDArray f = load_npy(fixture(name + "_f.npy"));
    CHECK(f.shape() == std::vector<int64_t>{3, 4});
    CHECK(f.is_f_contiguous());
    CHECK_FALSE(f.is_c_contiguous());
    CHECK(array_equal(f, fixture_values(dt, {3, 4})));

    if (dtype_size(dt) > 1) {
      NDArray be = load_npy(fixture(name + "_be.npy"));
      CHECK(be.dtype() == dt);
      CHECK(array_equal(be, fixture_values(dt, {2, 3})));
    }
  }
  CHECK(array_equal(load_npy(fixture("float64_3d_f.npy")), fixture_values(DType::Float64, {2, 3, 4})));
  CHECK(array_equal(load_npy(fixture("float64_be_f.npy")), fixture_values(DType::Float64, {3, 4})));
}

TEST_CASE("load versions 2.0 and 3.0, 0-d, empty and special values") {
  CHECK(array_equal(load_npy(fixture("v2_int32.npy")), fixture_values(DType::Int32, {4, 5})));
  CHECK(array_equal(load_npy(fixture("v3_float32.npy")), fixture_values(DType::Float32, {5})));
  NDArray s = load_npy(fixture("scalar_f8.npy"));
  CHECK(s.ndim() == 0);
  CHECK(s.item<double>() == 2.5);
  NDArray e = load_npy(fixture("empty_0x3_f4.npy"));
  CHECK(e.shape() == std::vector<int64_t>{0, 3});
  CHECK(e.dtype() == DType::Float32);
  NDArray sp = load_npy(fixture("special_f8.npy"));
  const double* p = sp.data_as<double>();
  CHECK(std::isnan(p[0]));
  CHECK(p[1] == std::numeric_limits<double>::infinity());
  CHECK(p[2] == -std::numeric_limits<double>::infinity());
  CHECK(std::signbit(p[3]));
  CHECK(p[4] == 1e-300);
  CHECK(p[5] == 1e300);
}

TEST_CASE("save writes exactly what numpy writes") {
  for (DType dt : all_dtypes()) {
    const std::string name(dtype_name(dt));
    CAPTURE(name);
    CHECK(save_npy_bytes(fixture_values(dt, {2, 3})) == read_bytes(fixture(name + "_c.npy")));
    // A Fortran-contiguous array is written with fortran_order True, like numpy.
    NDArray ff = NDArray::empty({4, 3}, dt).transpose();                      // (3, 4), Fortran strides
    ff.assign(fixture_values(dt, {3, 4}));
    REQUIRE(ff.is_f_contiguous());
    CHECK(save_npy_bytes(ff) == read_bytes(fixture(name + "_f.npy")));
  }
  CHECK(save_npy_bytes(NDArray::scalar(2.5)) == read_bytes(fixture("scalar_f8.npy")));
  CHECK(save_npy_bytes(NDArray::zeros({0, 3}, DType::Float32)) == read_bytes(fixture("empty_0x3_f4.npy")));
}

TEST_CASE("round trip every dtype in C order, Fortran order and strided views") {
  for (DType dt : all_dtypes()) {
    CAPTURE(dtype_name(dt));
    NDArray c = fixture_values(dt, {3, 5});
    NDArray back = load_npy_bytes(save_npy_bytes(c));
    CHECK(back.dtype() == dt);
    CHECK(back.is_c_contiguous());
    CHECK(array_equal(back, c));

    NDArray f = c.transpose().copy().transpose();  // (3, 5) Fortran-contiguous
    REQUIRE(f.is_f_contiguous());
    NDArray fb = load_npy_bytes(save_npy_bytes(f));
    CHECK(fb.is_f_contiguous());
    CHECK(array_equal(fb, c));

    NDArray v = c.slice(1, std::nullopt, std::nullopt, -2);  // non-contiguous: written in C order
    NDArray vb = load_npy_bytes(save_npy_bytes(v));
    CHECK(vb.is_c_contiguous());
    CHECK(array_equal(vb, v));
  }
  // Through a file.
  const std::string path = (std::filesystem::temp_directory_path() / "theano_runtime_tests_roundtrip.npy").string();
  NDArray x = NDArray::arange(0, 24, 1, DType::Int16).reshape({2, 3, 4});
  save_npy(path, x);
  CHECK(array_equal(load_npy(path), x));
  std::remove(path.c_str());
  // Header is padded to a multiple of 64 bytes and ends in '\n'.
  const std::vector<std::byte> b = save_npy_bytes(x);
  const std::size_t hl = static_cast<std::size_t>(b[8]) | (static_cast<std::size_t>(b[9]) << 8);
  CHECK((10 + hl) % 64 == 0);
  CHECK(b[10 + hl - 1] == std::byte{'\n'});
  CHECK(npy_descr(DType::Complex128) == "<c16");
  CHECK(npy_descr(DType::Bool) == "|b1");
}

TEST_CASE("malformed files raise IOError saying what was expected") {
  CHECK_THROWS_WITH_AS(load_npy(fixture("bad_magic.npy")),
                       doctest::Contains("not a .npy file: expected magic '\\x93NUMPY', got '\\x93NUMPZ'"), IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("truncated_header.npy")),
                       doctest::Contains("truncated .npy header: expected 118 header bytes, got 30"), IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("short_data.npy")),
                       doctest::Contains("truncated .npy data: shape (2, 3) of float64 needs 48 bytes, got 40"),
                       IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("bad_dict.npy")),
                       doctest::Contains("malformed .npy header: expected '(' at offset"), IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("object.npy")),
                       doctest::Contains("unsupported .npy dtype descr '|O'; expected one of bool"), IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("unicode.npy")), doctest::Contains("unsupported .npy dtype descr '<U3'"),
                       IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("does_not_exist.npy")), doctest::Contains("cannot open .npy file"), IOError);
  CHECK_THROWS_WITH_AS(load_npy(fixture("short_data.npy")), doctest::Contains("short_data.npy"), IOError);

  auto header_file = [](const std::string& dict) {
    std::string h = dict + "\n";
    std::string s = std::string("\x93NUMPY\x01\x00", 8);
    s += static_cast<char>(h.size() & 0xff);
    s += static_cast<char>(h.size() >> 8);
    s += h;
    s += std::string(64, '\0');
    std::vector<std::byte> b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
  };
  CHECK_THROWS_WITH_AS(load_npy_bytes(header_file("{'descr': '<f8', 'fortran_order': False}")),
                       doctest::Contains("missing key 'shape'"), IOError);
  CHECK_THROWS_WITH_AS(load_npy_bytes(header_file("{'descr': '<f8', 'fortran_order': Maybe, 'shape': ()}")),
                       doctest::Contains("expected True or False"), IOError);
  CHECK_THROWS_WITH_AS(load_npy_bytes(header_file("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}")),
                       doctest::Contains("expected a non-negative integer in 'shape'"), IOError);
  CHECK_THROWS_WITH_AS(load_npy_bytes(header_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), 'x': 1}")),
                       doctest::Contains("unexpected key 'x'"), IOError);
  CHECK_THROWS_WITH_AS(
      load_npy_bytes(header_file("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999)}")),
      doctest::Contains("truncated .npy data"), IOError);
  CHECK_THROWS_WITH_AS(load_npy_bytes(header_file("{'descr': '<M8[ns]', 'fortran_order': False, 'shape': ()}")),
                       doctest::Contains("unsupported .npy dtype descr '<M8[ns]'"), IOError);
  // Python-style dict with double quotes and no trailing comma is accepted.
  NDArray ok = load_npy_bytes(header_file("{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}"));
  CHECK(ok.shape() == std::vector<int64_t>{2, 3});
  CHECK(ok.at<int16_t>({1, 2}) == 0);
  std::vector<std::byte> tiny(3, std::byte{0x93});
  CHECK_THROWS_WITH_AS(load_npy_bytes(tiny), "not a .npy file: expected at least 8 bytes (magic + version), got 3",
                       IOError);
}

TEST_CASE("fuzz: truncated and corrupted files never crash") {
  std::mt19937 rng(20240607);
  int loaded = 0, rejected = 0;
  auto attempt = [&](const std::vector<std::byte>& b) {
    try {
      NDArray a = load_npy_bytes(b);
      (void)content_hash(a);  // touch every element
      (void)a.str();
      ++loaded;
    } catch (const theano::Error&) {
      ++rejected;
    }
  };
  for (const char* name : {"float64_c.npy", "bool_f.npy", "complex64_be.npy", "float16_f.npy", "v2_int32.npy",
                           "scalar_f8.npy", "empty_0x3_f4.npy", "uint64_be.npy"}) {
    const std::vector<std::byte> good = read_bytes(fixture(name));
    REQUIRE(!good.empty());
    for (std::size_t len = 0; len <= good.size(); ++len)
      attempt(std::vector<std::byte>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)));
    for (int k = 0; k < 500; ++k) {
      std::vector<std::byte> b = good;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        // Bias towards the header, where parsing happens.
        const std::size_t limit = (rng() % 4 == 0) ? b.size() : std::min<std::size_t>(b.size(), 128);
        b[rng() % limit] = static_cast<std::byte>(rng() & 0xff);
      }
      attempt(b);
    }
  }
  CHECK(loaded > 0);
  CHECK(rejected > 1000);
}

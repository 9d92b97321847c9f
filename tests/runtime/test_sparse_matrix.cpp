// SparseMatrix (sparse_matrix.h): each CSM invariant refused with a message
// naming it, dense conversions, transpose without copy, format change, and
// .npz files SciPy wrote (tests/data/sparse/make_fixtures.py) read back and
// compared with their dense .npy; save_npz round trips; malformed files refused.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "huge_alloc.h"
#include "runtime/stored_zip.h"
#include "temp_dir.h"
#include "theano/runtime/error.h"
#include "theano/runtime/memory_error.h"
#include "theano/runtime/npy.h"
#include "theano/runtime/sparse_matrix.h"

using namespace theano;

namespace {

constexpr SparseFormat CSR = SparseFormat::CSR;
constexpr SparseFormat CSC = SparseFormat::CSC;

NDArray i64s(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return NDArray::from_vector(v, {n});
}
NDArray f64s(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return NDArray::from_vector(v, {n});
}
std::vector<int64_t> values(const NDArray& a) {
  const NDArray c = a.astype(DType::Int64);
  return {c.data_as<int64_t>(), c.data_as<int64_t>() + c.size()};
}

/// The message of the E that `f` throws; fails the test if it throws nothing
/// or something else.
template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("unexpected exception: " << std::string(e.what()));
  }
  FAIL("no exception");
  return {};
}

/// The 4x5 matrix of the fixtures: row 0 unsorted, row 1 empty, row 2 stores
/// column 4 twice.
SparseMatrix fixture_matrix() {
  return SparseMatrix(CSR, f64s({1.5, -2.0, 3.0, 0.25, 1.0, 7.0}), i64s({3, 1, 4, 0, 4, 2}), i64s({0, 2, 2, 5, 6}),
                      {4, 5});
}
NDArray fixture_dense() {
  return NDArray::from_vector<double>({0, -2, 0, 1.5, 0, 0, 0, 0, 0, 0, 0.25, 0, 0, 0, 4, 0, 0, 7, 0, 0}, {4, 5});
}

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/sparse/" + name; }

std::vector<char> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_file(const std::filesystem::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void check_same(const SparseMatrix& a, const SparseMatrix& b) {
  CHECK(a.format() == b.format());
  CHECK(a.shape() == b.shape());
  CHECK(a.dtype() == b.dtype());
  CHECK(values(a.indices()) == values(b.indices()));
  CHECK(values(a.indptr()) == values(b.indptr()));
  CHECK(allclose(a.data(), b.data(), 0, 0, true));
}

/// The bytes of a .npy member (npy.h).
std::string npy(const NDArray& a) {
  const std::vector<std::byte> b = save_npy_bytes(a);
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}
/// A 0-d '|S<n>' .npy holding `s`, as SciPy writes format.npy.
std::string npy_text(const std::string& s) {
  std::string header = "{'descr': '|S" + std::to_string(s.size()) + "', 'fortran_order': False, 'shape': (), }";
  header.append((10 + header.size() + 1 + 63) / 64 * 64 - 10 - header.size() - 1, ' ');
  header += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header + s;
}
/// The members of a 2x2 csr .npz storing 1.0 at (0, 0), `data` as its data member.
std::vector<std::pair<std::string, std::string>> csr_members(const NDArray& data) {
  return {{"indices.npy", npy(i64s({0}))},
          {"indptr.npy", npy(i64s({0, 1, 1}))},
          {"format.npy", npy_text("csr")},
          {"shape.npy", npy(i64s({2, 2}))},
          {"data.npy", npy(data)}};
}
void write_text(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_SUITE("SparseMatrix") {
  TEST_CASE("construction refuses each broken invariant and names it") {
    auto csr = [](std::vector<double> data, std::vector<int64_t> indices, std::vector<int64_t> indptr,
                  std::array<int64_t, 2> shape) {
      return message_of<ValueError>([&] { SparseMatrix(CSR, f64s(data), i64s(indices), i64s(indptr), shape); });
    };
    CHECK(csr({1, 2}, {0, 1}, {0, 2}, {2, 2}).find("indptr must have one entry more") != std::string::npos);
    CHECK(csr({}, {}, {}, {0, 2}).find("indptr must have one entry more") != std::string::npos);
    CHECK(csr({1, 2}, {0, 1}, {1, 1, 2}, {2, 2}).find("indptr must start at 0, it starts at 1") != std::string::npos);
    CHECK(csr({1, 2}, {0, 1}, {0, 2, 1, 2}, {3, 3}).find("indptr must not decrease, it does at entry 2") !=
          std::string::npos);
    CHECK(csr({1, 2}, {0, 1}, {0, 1, 1}, {2, 2}).find("indptr's last entry must be the number of stored values") !=
          std::string::npos);
    CHECK(csr({1, 2}, {0}, {0, 1, 2}, {2, 2}).find("indices must have as many entries as data, it has 1") !=
          std::string::npos);
    CHECK(csr({1, 2}, {0, 5}, {0, 1, 2}, {2, 2}).find("a stored index lies outside the matrix: 5") !=
          std::string::npos);
    CHECK(csr({1}, {-1}, {0, 1, 1}, {2, 2}).find("outside the matrix: -1") != std::string::npos);
    CHECK(csr({}, {}, {0}, {-1, 2}).find("negative dimensions") != std::string::npos);
    const std::string ctx = csr({1}, {3}, {0, 1}, {1, 3});
    CHECK(ctx.find("csr") != std::string::npos);
    CHECK(ctx.find("(1, 3)") != std::string::npos);
  }

  TEST_CASE("construction refuses components of the wrong kind") {
    const NDArray ptr = i64s({0, 1}), idx = i64s({0});
    CHECK_THROWS_AS(SparseMatrix(CSR, NDArray::ones({1, 1}), idx, ptr, {1, 1}), ValueError);
    CHECK_THROWS_AS(SparseMatrix(CSR, f64s({1}), f64s({0}), ptr, {1, 1}), ValueError);
    CHECK_THROWS_AS(SparseMatrix(CSR, NDArray::ones({1}, DType::Complex128), idx, ptr, {1, 1}), ValueError);
    CHECK_THROWS_AS(SparseMatrix(CSR, f64s({1}), idx, NDArray(), {1, 1}), ValueError);
  }

  TEST_CASE("int32 components widen to int64") {
    const SparseMatrix m(CSC, NDArray::from_vector<float>({1, 2}, {2}), NDArray::from_vector<int32_t>({2, 0}, {2}),
                         NDArray::from_vector<int32_t>({0, 1, 2}, {3}), {3, 2});
    CHECK(m.indices().dtype() == DType::Int64);
    CHECK(m.indptr().dtype() == DType::Int64);
    CHECK(m.dtype() == DType::Float32);
    CHECK(values(m.indices()) == std::vector<int64_t>{2, 0});
    CHECK(m.nnz() == 2);
    CHECK(m.str() == "SparseMatrix(csc, float32, shape=(3, 2), nnz=2)");
  }

  TEST_CASE("from_dense and to_dense round trip") {
    for (const DType dt : {DType::Float64, DType::Float32})
      for (const SparseFormat f : {CSR, CSC}) {
        const std::string dtype = std::string(dtype_name(dt)), format = to_string(f);
        CAPTURE(dtype);
        CAPTURE(format);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const NDArray dense = NDArray::from_vector<double>({0, 2, 0, 3, 0, nan}, {2, 3}).astype(dt);
        const SparseMatrix m = SparseMatrix::from_dense(dense, f);
        CHECK(m.format() == f);
        CHECK(m.dtype() == dt);
        CHECK(m.nnz() == 3);  // NaN is stored
        CHECK(m.has_canonical_indices());
        if (f == CSR) {
          CHECK(values(m.indices()) == std::vector<int64_t>{1, 0, 2});
          CHECK(values(m.indptr()) == std::vector<int64_t>{0, 1, 3});
        } else {
          CHECK(values(m.indices()) == std::vector<int64_t>{1, 0, 1});
          CHECK(values(m.indptr()) == std::vector<int64_t>{0, 1, 2, 3});
        }
        const NDArray back = m.to_dense();
        CHECK(back.dtype() == dt);
        CHECK(back.shape() == dense.shape());
        CHECK(allclose(back, dense, 0, 0, true));
      }
    CHECK_THROWS_AS(SparseMatrix::from_dense(f64s({1, 2}), CSR), ValueError);
  }

  TEST_CASE("float16 values convert and add up") {
    const NDArray dense = NDArray::from_vector<double>({0, 1.5, -2, 0, 0, 0.25}, {2, 3}).astype(DType::Float16);
    const SparseMatrix m = SparseMatrix::from_dense(dense, CSR);
    CHECK(m.dtype() == DType::Float16);
    CHECK(array_equal(m.to_dense(), dense));
    CHECK(array_equal(m.as_format(CSC).to_dense(), dense));
    const SparseMatrix rep(CSR, f64s({1, 2}).astype(DType::Float16), i64s({0, 0}), i64s({0, 2}), {1, 1});
    CHECK(static_cast<float>(rep.to_dense().data_as<half>()[0]) == 3.0f);
    CHECK(static_cast<float>(rep.as_format(CSR).data().data_as<half>()[0]) == 3.0f);
  }

  TEST_CASE("repeated entries add up in to_dense") {
    const SparseMatrix m = fixture_matrix();
    CHECK(array_equal(m.to_dense(), fixture_dense()));
    const SparseMatrix rep(CSC, f64s({1, 2, 3}), i64s({0, 0, 0}), i64s({0, 3}), {1, 1});
    CHECK(rep.to_dense().data_as<double>()[0] == 6.0);
  }

  TEST_CASE("transposed shares the buffers and is the dense transpose") {
    const SparseMatrix m = fixture_matrix();
    const SparseMatrix t = m.transposed();
    CHECK(t.format() == CSC);
    CHECK(t.shape() == std::array<int64_t, 2>{5, 4});
    CHECK(t.data().shares_buffer(m.data()));
    CHECK(t.indices().shares_buffer(m.indices()));
    CHECK(t.indptr().shares_buffer(m.indptr()));
    CHECK(array_equal(t.to_dense(), fixture_dense().transpose()));
    CHECK(t.transposed().format() == CSR);
  }

  TEST_CASE("as_format between csr and csc keeps the values") {
    const SparseMatrix m = fixture_matrix();
    const SparseMatrix c = m.as_format(CSC);
    CHECK(c.format() == CSC);
    CHECK(c.has_canonical_indices());
    CHECK(c.nnz() == 5);  // the repeat summed
    CHECK(array_equal(c.to_dense(), fixture_dense()));
    const SparseMatrix r = c.as_format(CSR);
    CHECK(r.format() == CSR);
    CHECK(r.has_canonical_indices());
    CHECK(array_equal(r.to_dense(), fixture_dense()));
    const SparseMatrix same = m.as_format(CSR);  // same format, unsorted: a canonical copy
    CHECK(same.has_canonical_indices());
    CHECK(array_equal(same.to_dense(), fixture_dense()));
    const SparseMatrix canonical = SparseMatrix::from_dense(fixture_dense(), CSR);
    CHECK(canonical.as_format(CSR).data().shares_buffer(canonical.data()));
  }

  TEST_CASE("has_canonical_indices") {
    CHECK_FALSE(fixture_matrix().has_canonical_indices());  // unsorted and repeated
    CHECK_FALSE(SparseMatrix(CSR, f64s({1, 2}), i64s({1, 1}), i64s({0, 2}), {1, 3}).has_canonical_indices());
    CHECK(SparseMatrix(CSR, f64s({1, 2}), i64s({0, 2}), i64s({0, 2}), {1, 3}).has_canonical_indices());
    CHECK(SparseMatrix(CSR, f64s({}), i64s({}), i64s({0}), {0, 3}).has_canonical_indices());
  }

  TEST_CASE("load_npz reads the files SciPy wrote") {
    struct Case {
      const char* name;
      SparseFormat format;
      DType dtype;
      std::array<int64_t, 2> shape;
      int64_t nnz;
    };
    for (const Case& c :
         {Case{"csr_f64", CSR, DType::Float64, {4, 5}, 6}, Case{"csc_f64", CSC, DType::Float64, {4, 5}, 6},
          Case{"csr_f32_stored", CSR, DType::Float32, {4, 5}, 5},  // astype summed the repeat
          Case{"empty_0x3", CSR, DType::Float64, {0, 3}, 0}, Case{"csr_i64", CSR, DType::Float64, {4, 5}, 6}}) {
      const std::string name = c.name;
      CAPTURE(name);
      const SparseMatrix m = load_npz(fixture(std::string(c.name) + ".npz"));
      CHECK(m.format() == c.format);
      CHECK(m.dtype() == c.dtype);
      CHECK(m.shape() == c.shape);
      CHECK(m.nnz() == c.nnz);
      const NDArray expected = load_npy(fixture(std::string(c.name) + ".npy"));
      const NDArray dense = m.to_dense();
      CHECK(dense.dtype() == expected.dtype());
      CHECK(array_equal(dense, expected));
    }
    const SparseMatrix m = load_npz(fixture("csr_f64.npz"));
    CHECK(values(m.indices()) == std::vector<int64_t>{3, 1, 4, 0, 4, 2});  // kept as stored
    CHECK(array_equal(m.to_dense(), fixture_dense()));
  }

  TEST_CASE("save_npz then load_npz gives the same components") {
    test::TempDir dir("theano-npz");
    const std::vector<SparseMatrix> ms = {
        fixture_matrix(), fixture_matrix().transposed(), load_npz(fixture("csr_f32_stored.npz")),
        load_npz(fixture("empty_0x3.npz")),
        // An index beyond int32: the components are written as int64.
        SparseMatrix(CSR, f64s({5}), i64s({4000000000}), i64s({0, 1}), {1, 5000000000})};
    for (std::size_t i = 0; i < ms.size(); ++i) {
      CAPTURE(ms[i].str());
      const std::string path = (dir.path / ("m" + std::to_string(i) + ".npz")).string();
      save_npz(path, ms[i]);
      check_same(load_npz(path), ms[i]);
    }
    // Overwriting replaces the file; no temporary file stays behind.
    const std::string path = (dir.path / "m0.npz").string();
    save_npz(path, ms[1]);
    check_same(load_npz(path), ms[1]);
    CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) ==
          static_cast<std::ptrdiff_t>(ms.size()));
  }

  TEST_CASE("save_npz refusals leave no file") {
    test::TempDir dir("theano-npz");
    const auto missing_dir = dir.path / "no-such-dir" / "m.npz";
    CHECK(message_of<IOError>([&] { save_npz(missing_dir.string(), fixture_matrix()); }).find("save_npz") !=
          std::string::npos);
    CHECK_THROWS_AS(save_npz((dir.path / "u.npz").string(), SparseMatrix()), ValueError);
    CHECK(std::filesystem::is_empty(dir.path));
  }

  TEST_CASE("load_npz refuses unreadable and malformed files") {
    test::TempDir dir("theano-npz");
    const std::string missing = (dir.path / "missing.npz").string();
    CHECK(message_of<IOError>([&] { load_npz(missing); }).find(missing) != std::string::npos);
    const auto text = dir.path / "text.npz";
    write_file(text, {'n', 'o', 't', ' ', 'a', ' ', 'z', 'i', 'p'});
    CHECK(message_of<IOError>([&] { load_npz(text.string()); }).find("zip") != std::string::npos);
    const std::string coo = message_of<IOError>([&] { load_npz(fixture("coo_f64.npz")); });
    CHECK(coo.find("'coo'") != std::string::npos);
    CHECK(coo.find("only csr and csc are supported") != std::string::npos);
    CHECK(message_of<IOError>([&] { load_npz(fixture("unknown_format.npz")); }).find("unknown sparse format 'xyz'") !=
          std::string::npos);
    CHECK(message_of<IOError>([&] { load_npz(fixture("bad_shape.npz")); }).find("shape.npy") != std::string::npos);
    CHECK(message_of<IOError>([&] { load_npz(fixture("no_indptr.npz")); }).find("missing member 'indptr.npy'") !=
          std::string::npos);
    CHECK(message_of<ValueError>([&] { load_npz(fixture("bad_indptr.npz")); }).find("indptr must not decrease") !=
          std::string::npos);
  }

  TEST_CASE("load_npz of truncated or corrupted files only throws theano errors") {
    test::TempDir dir("theano-npz");
    const std::vector<char> good = read_file(fixture("csr_f32_stored.npz"));
    const auto path = dir.path / "broken.npz";
    std::mt19937 rng(2024);
    int failures = 0;
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<char> bytes = good;
      if (trial < 100) {
        bytes.resize(good.size() * static_cast<std::size_t>(trial) / 100);
      } else {
        for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xff);
      }
      write_file(path, bytes);
      try {
        load_npz(path.string());
      } catch (const Error&) {
        ++failures;
      } catch (const std::exception& e) {
        FAIL("not a theano::Error: " << e.what());
      }
    }
    CHECK(failures >= 100);  // every truncation fails
  }

  TEST_CASE("load_npz: the hand-written archive of these tests reads") {
    test::TempDir dir("theano-npz");
    const auto path = dir.path / "ok.npz";
    write_text(path, test::stored_zip(csr_members(f64s({1.0}))));
    const SparseMatrix m = load_npz(path.string());
    CHECK(m.shape() == std::array<int64_t, 2>{2, 2});
    CHECK(m.to_dense().at<double>({0, 0}) == 1.0);
  }

  TEST_CASE("load_npz refuses a file with two members of one name (readers disagree on which one counts)") {
    test::TempDir dir("theano-npz");
    const auto path = dir.path / "twice.npz";
    auto members = csr_members(f64s({1.0}));
    members.emplace_back("data.npy", npy(f64s({5.0})));  // SciPy reads this one, libzip finds the first
    write_text(path, test::stored_zip(members));
    const std::string msg = message_of<IOError>([&] { load_npz(path.string()); });
    CHECK(msg.find("member 'data.npy' appears more than once") != std::string::npos);
    CHECK(msg.find(path.string()) != std::string::npos);
  }

  TEST_CASE("load_npz refuses a member larger than the shape and nnz allow, before decompressing it") {
    test::TempDir dir("theano-npz");
    const auto path = dir.path / "big_data.npz";
    // nnz is 1, the data member holds 2^20 float64 zeros (8 MiB).
    write_text(path, test::stored_zip(csr_members(NDArray::zeros({int64_t{1} << 20}))));
    const std::string msg = message_of<IOError>([&] { load_npz(path.string()); });
    CHECK(msg.find("member 'data.npy' declares 8388736 bytes uncompressed, more than 1 elements "
                   "(indptr.npy stores 1 entries) can take") != std::string::npos);
    // indptr longer than the rows of shape.npy allow.
    auto members = csr_members(f64s({1.0}));
    members[1].second = npy(NDArray::zeros({int64_t{1} << 16}, DType::Int64));
    write_text(path, test::stored_zip(members));
    CHECK(message_of<IOError>([&] { load_npz(path.string()); }).find("member 'indptr.npy' declares") !=
          std::string::npos);
  }

  TEST_CASE("load_npz: max_bytes bounds what the members may declare in all") {
    test::TempDir dir("theano-npz");
    const auto path = dir.path / "wide.npz";
    std::vector<double> data(100000, 0.5);
    std::vector<int64_t> indices(100000);
    std::iota(indices.begin(), indices.end(), 0);
    save_npz(path.string(), SparseMatrix(CSR, f64s(data), i64s(indices), i64s({0, 100000}), {1, 100000}));
    const std::string msg = message_of<IOError>([&] { load_npz(path.string(), 1 << 20); });
    CHECK(msg.find("more than max_bytes = 1048576 (pass a larger max_bytes to load_npz to read it)") !=
          std::string::npos);
    CHECK(load_npz(path.string()).nnz() == 100000);  // the default cap (4 GiB) reads it
    CHECK(load_npz(path.string(), 2 << 20).nnz() == 100000);
  }

  TEST_CASE("to_dense and as_format out of memory: a MemoryError naming the operation, shape and bytes" *
            doctest::skip(test::kSkipHugeAllocations)) {
    // Sizes whose arithmetic is valid but that no machine allocates (8 TiB, 24 TiB).
    const SparseMatrix huge(CSR, f64s({}), i64s({}), i64s(std::vector<int64_t>(2, 0)), {1, int64_t{1} << 40});
    const std::string dense = message_of<MemoryError>([&] { huge.to_dense(); });
    CHECK(dense.find("SparseMatrix::to_dense: out of memory: cannot allocate 8796093022208 bytes for a float64 array "
                     "of shape (1, 1099511627776)") != std::string::npos);
    const std::string convert = message_of<MemoryError>([&] { huge.as_format(CSC); });
    CHECK(convert.find("SparseMatrix::as_format: out of memory: cannot allocate the 8796093022216 bytes or more that "
                       "converting a float64 csr matrix of shape (1, 1099511627776) with 0 stored entries to csc "
                       "needs") != std::string::npos);
  }
}

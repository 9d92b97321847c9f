// The host's kernel table (codegen/src/run/host_kernels.cpp): where the CPU
// runs x86-64-v4, its sort entries are the AVX-512 build of sort.h
// (host_kernels_v4.h), and those order every line as the generic build does
// (this file's own compile of sort.h, the text perform runs), bit for bit:
// NaNs with payloads, signed zeros, subnormals, infinities, ties, every
// dtype, lines on both sides of the radix path's limit, strided lines. Its
// typed sparse entries are the AVX-512 build of sparse_kernels.h there, and
// those give perform's bits too (products, sampled dots, merges). Its
// gemm entries run small products in row blocks (kernels/blas_split.h): the blocks
// obey OpenBLAS's small-matrix limit and the results are the product's.
#include <doctest/doctest.h>

#include <theano/runtime/kernels/host_kernels.h>
#include <theano/runtime/kernels/sort.h>
#include <theano/runtime/kernels/sparse_kernels.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <theano/runtime/kernels/blas_split.h>
#include <theano/tensor/blas.h>

#include "../../codegen/src/run/host_kernels.h"
#include "../../codegen/src/run/host_kernels_v4.h"

using theano::codegen::detail::host_kernels;
using theano::codegen::detail::host_runs_x86_64_v4;
using theano::codegen::detail::kSortKernelsV4;
using theano::codegen::detail::kSparseKernelsV4;

namespace {

using Line = void (*)(const char*, std::int64_t, char*, std::int64_t, std::int64_t);

/// n values of T with the hard cases mixed in (floats: NaN payloads, -0.0,
/// subnormals, infinities; every type: repeats), from `seed`.
template <class T>
std::vector<T> values(std::int64_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    const std::uint64_t r = rng();
    if constexpr (std::is_floating_point_v<T>) {
      switch (r % 16) {
        case 0: x = std::numeric_limits<T>::quiet_NaN(); break;
        case 1: {  // a NaN with a payload and a sign
          std::uint64_t bits = ~std::uint64_t{0} >> (64 - 8 * sizeof(T));
          bits ^= (r >> 8) & 0xff;
          std::memcpy(&x, &bits, sizeof(T));
          break;
        }
        case 2: x = static_cast<T>(-0.0); break;
        case 3: x = 0; break;
        case 4: x = std::numeric_limits<T>::denorm_min() * static_cast<T>((r >> 8) % 7); break;
        case 5: x = (r & 256) ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity(); break;
        case 6: x = static_cast<T>(1.5); break;  // ties
        default: x = static_cast<T>(std::ldexp(static_cast<double>(r % 2000003) - 1e6, static_cast<int>(r >> 58) - 24));
      }
    } else {
      x = (r % 5 == 0) ? T(7) : static_cast<T>(r >> 3);
    }
  }
  return v;
}

/// Runs both kernels (x strided by 2 elements, out by 3) and compares the bits.
template <class T, class O>
void same_bits(Line got, Line want, std::int64_t n, unsigned seed) {
  const std::vector<T> v = values<T>(n, seed);
  std::vector<T> x(static_cast<std::size_t>(2 * n + 1));
  for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(2 * i)] = v[static_cast<std::size_t>(i)];
  std::vector<O> a(static_cast<std::size_t>(3 * n + 1)), b(a.size());
  got(reinterpret_cast<const char*>(x.data()), 2 * sizeof(T), reinterpret_cast<char*>(a.data()), 3 * sizeof(O), n);
  want(reinterpret_cast<const char*>(x.data()), 2 * sizeof(T), reinterpret_cast<char*>(b.data()), 3 * sizeof(O), n);
  CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(O)) == 0);
}

// C (m x n, column-major when c_cols) <- 2 A . B + 0.5 C through the host's
// gemm entry of T, A read transposed when a_t; the largest error against a
// double loop over the same values, relative to the largest |C|.
template <typename T>
double gemm_entry_error(std::int64_t m, std::int64_t n, std::int64_t k, bool a_t, bool c_cols) {
  const std::int64_t it = sizeof(T);
  const auto z = [](std::int64_t x) { return static_cast<std::size_t>(x); };
  std::mt19937_64 rng(static_cast<std::uint64_t>(m * 131 + n * 7 + k));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> a(z(m * k)), b(z(k * n)), c(z(m * n));
  for (auto* v : {&a, &b, &c})
    for (T& x : *v) x = static_cast<T>(u(rng));
  const std::int64_t as0 = a_t ? 1 : k, as1 = a_t ? m : 1, cs0 = c_cols ? 1 : n, cs1 = c_cols ? m : 1;
  std::vector<double> want(z(m * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p)
        acc += static_cast<double>(a[z(i * as0 + p * as1)]) * b[z(p * n + j)];
      want[z(i * n + j)] = 2.0 * acc + 0.5 * c[z(i * cs0 + j * cs1)];
    }
  const auto entry = it == 4 ? host_kernels()->blas_gemm_f32 : host_kernels()->blas_gemm_f64;
  entry(m, n, k, 2.0, reinterpret_cast<const char*>(a.data()), it * as0, it * as1,
        reinterpret_cast<const char*>(b.data()), it * n, it, 0.5, reinterpret_cast<char*>(c.data()), it * cs0,
        it * cs1);
  double worst = 0, scale = 1;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const double w = want[z(i * n + j)];
      worst = std::max(worst, std::abs(static_cast<double>(c[z(i * cs0 + j * cs1)]) - w));
      scale = std::max(scale, std::abs(w));
    }
  return worst / scale;
}

/// A value with a full mantissa (so products round, and a fused
/// multiply-add would show) between 2^-12 and 2^12 in magnitude.
template <class T>
T mixed(std::mt19937_64& rng) {
  const double m = static_cast<double>(rng() >> 11) * 0x1p-53 * 2 - 1;
  return static_cast<T>(std::ldexp(m, static_cast<int>(rng() % 25) - 12));
}

/// A random `major` x `minor` compressed matrix with about `per` stored
/// values a row (sorted indices, a repeat now and then) and mixed values,
/// so that any change of the rounding shows.
template <class T>
struct Compressed {
  std::vector<T> data;
  std::vector<std::int64_t> indices, indptr{0};
  Compressed(std::int64_t major, std::int64_t minor, std::int64_t per, unsigned seed) {
    std::mt19937_64 rng(seed);
    for (std::int64_t r = 0; r < major; ++r) {
      std::vector<std::int64_t> cols;
      for (std::int64_t k = 0; k < per + static_cast<std::int64_t>(rng() % 3) - 1; ++k)
        cols.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(minor)));
      std::sort(cols.begin(), cols.end());
      for (std::int64_t c : cols) {
        indices.push_back(c);
        data.push_back(mixed<T>(rng));
      }
      indptr.push_back(static_cast<std::int64_t>(indices.size()));
    }
  }
};

/// A dense rows x cols operand (row stride rs >= cols, unit columns) of mixed magnitudes.
template <class T>
std::vector<T> dense(std::int64_t rows, std::int64_t rs, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> d(static_cast<std::size_t>(rows * rs));
  for (T& x : d) x = mixed<T>(rng);
  return d;
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

/// One value type's CSR and CSC products, sampled dot, merge and row-vector op.
template <class P, class C, class D, class M, class R>
struct SparseSet {
  P csr;
  C csc;
  D sampled;
  M merge;
  R row_vector;
};
template <class P, class C, class D, class M, class R>
SparseSet(P, C, D, M, R) -> SparseSet<P, C, D, M, R>;
#define THEANO_TEST_TABLE_SET(t, S)                                                                      \
  SparseSet{(t).csr_product_##S, (t).csc_product_##S, (t).sampled_dot_##S, (t).sparse_merge_##S,          \
            (t).sparse_row_vector_##S}
#define THEANO_TEST_OWN_SET(S)                                                                           \
  SparseSet{&theano_csr_product_##S, &theano_csc_product_##S, &theano_sampled_dot_##S, &theano_sparse_merge_##S, \
            &theano_sparse_row_vector_##S}

/// The table's typed sparse kernels of T (`got`: products from zero and
/// accumulating, CSC, sampled dot, merge, row vector) against this file's
/// own compile of the same text (`want`), bit for bit, on ncols-wide operands.
template <class T, class Set>
void sparse_same_bits(const Set& got, const Set& want, std::int64_t ncols, unsigned seed) {
  const std::int64_t major = 37, minor = 53, rs = ncols + 3;
  const Compressed<T> s(major, minor, 6, seed), u(major, minor, 4, seed + 1);
  const std::vector<T> d = dense<T>(minor, rs, seed + 2), x = dense<T>(major, rs, seed + 3);
  auto product = [&](auto kernel, int zero, T alpha) {
    std::vector<T> out = dense<T>(major, ncols, seed + 4);
    kernel(alpha, zero, s.data.data(), s.indices.data(), s.indptr.data(), d.data(), rs, 1, ncols, out.data(), ncols,
           0, major);
    return out;
  };
  auto csc = [&](auto kernel) {  // s read as the CSC form of a minor x major matrix, times x
    std::vector<T> out = dense<T>(minor, ncols, seed + 5);
    kernel(T(0.75), 0, s.data.data(), s.indices.data(), s.indptr.data(), major, x.data(), rs, 1, minor, out.data(),
           ncols, 0, ncols);
    return out;
  };
  auto sampled = [&](auto kernel) {
    std::vector<T> vals(s.data.size());
    kernel(s.indices.data(), s.indptr.data(), 1, x.data(), rs, 1, d.data(), rs, 1, ncols, vals.data(), 0, major);
    return vals;
  };
  auto merge = [&](auto kernel, int mul) {
    std::vector<std::int64_t> ptr(static_cast<std::size_t>(major + 1));
    kernel(mul, s.data.data(), s.indices.data(), s.indptr.data(), u.data.data(), u.indices.data(), u.indptr.data(),
           nullptr, nullptr, ptr.data(), 0, major);
    theano_sparse_offsets(ptr.data(), major);
    std::vector<T> vals(static_cast<std::size_t>(ptr[static_cast<std::size_t>(major)]));
    std::vector<std::int64_t> idx(vals.size());
    kernel(mul, s.data.data(), s.indices.data(), s.indptr.data(), u.data.data(), u.indices.data(), u.indptr.data(),
           vals.data(), idx.data(), ptr.data(), 0, major);
    return vals;
  };
  auto row_vector = [&](auto kernel, int mul) {
    std::vector<T> vals(s.data.size());
    kernel(mul, s.data.data(), s.indices.data(), s.indptr.data(), 1, d.data(), 1, vals.data(), 0, major);
    return vals;
  };
  CHECK(same(product(got.csr, 1, T(1)), product(want.csr, 1, T(1))));
  CHECK(same(product(got.csr, 0, T(-1.5)), product(want.csr, 0, T(-1.5))));
  CHECK(same(csc(got.csc), csc(want.csc)));
  CHECK(same(sampled(got.sampled), sampled(want.sampled)));
  for (int mul : {0, 1}) {
    CHECK(same(merge(got.merge, mul), merge(want.merge, mul)));
    CHECK(same(row_vector(got.row_vector, mul), row_vector(want.row_vector, mul)));
  }
}

}  // namespace

TEST_SUITE("host kernels") {
  TEST_CASE("the typed sparse entries are the x86-64-v4 build where the CPU runs it, with perform's bits") {
    const TheanoHostKernels& t = *host_kernels();
    if (kSparseKernelsV4 != nullptr && host_runs_x86_64_v4()) {
      CHECK((t.csr_product_f64 == kSparseKernelsV4->csr_product_f64));
      CHECK((t.sparse_merge_f32 == kSparseKernelsV4->sparse_merge_f32));
      CHECK((t.sparse_row_vector_i32 == kSparseKernelsV4->sparse_row_vector_i32));
    } else {
      MESSAGE("this CPU (or build) has no x86-64-v4 sparse kernels: the generic ones are compared with themselves");
    }
    for (std::int64_t ncols : {1, 7, 64, 67}) {
      CAPTURE(ncols);
      const auto seed = static_cast<unsigned>(ncols);
      sparse_same_bits<double>(THEANO_TEST_TABLE_SET(t, f64), THEANO_TEST_OWN_SET(f64), ncols, seed);
      sparse_same_bits<float>(THEANO_TEST_TABLE_SET(t, f32), THEANO_TEST_OWN_SET(f32), ncols, seed + 100);
    }
  }

  TEST_CASE("the sort entries are the x86-64-v4 build where the CPU runs it, and it orders lines as the generic one") {
    const TheanoHostKernels& t = *host_kernels();
    if (kSortKernelsV4 != nullptr && host_runs_x86_64_v4()) {
      CHECK((t.sort_f64 == kSortKernelsV4->sort_f64));
      CHECK((t.argsort_f32 == kSortKernelsV4->argsort_f32));
      CHECK((t.sort_u8 == kSortKernelsV4->sort_u8));
    } else {
      MESSAGE("this CPU (or build) has no x86-64-v4 sort: the generic kernels are compared with themselves");
    }
    for (std::int64_t n : {0, 1, 2, 17, 2000, THEANO_SORT_RADIX_MAX, THEANO_SORT_RADIX_MAX + 1}) {
      CAPTURE(n);
      const auto seed = static_cast<unsigned>(n);
      same_bits<double, double>(t.sort_f64, &theano_sort_f64, n, seed);
      same_bits<double, std::int64_t>(t.argsort_f64, &theano_argsort_f64, n, seed);
      same_bits<float, float>(t.sort_f32, &theano_sort_f32, n, seed);
      same_bits<float, std::int64_t>(t.argsort_f32, &theano_argsort_f32, n, seed);
      same_bits<std::int64_t, std::int64_t>(t.sort_i64, &theano_sort_i64, n, seed);
      same_bits<std::int32_t, std::int64_t>(t.argsort_i32, &theano_argsort_i32, n, seed);
      same_bits<std::int16_t, std::int16_t>(t.sort_i16, &theano_sort_i16, n, seed);
      same_bits<std::int8_t, std::int64_t>(t.argsort_i8, &theano_argsort_i8, n, seed);
      same_bits<std::uint64_t, std::int64_t>(t.argsort_u64, &theano_argsort_u64, n, seed);
      same_bits<std::uint32_t, std::uint32_t>(t.sort_u32, &theano_sort_u32, n, seed);
      same_bits<std::uint16_t, std::int64_t>(t.argsort_u16, &theano_argsort_u16, n, seed);
      same_bits<std::uint8_t, std::uint8_t>(t.sort_u8, &theano_sort_u8, n, seed);
    }
  }

  TEST_CASE("the gemm entries: row blocks within OpenBLAS's small-matrix limit, the product's values, any layout") {
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{32, 256, 256}, {33, 256, 256}, {256, 10, 512}, {257, 512, 10},
                          {8, 8, 8}, {2000, 2000, 1}}) {
      for (std::int64_t item : {4, 8}) {
        const std::int64_t rows = theano_blas_split_rows(m, n, k, item);
        CAPTURE(m);
        CAPTURE(n);
        CAPTURE(k);
        if (rows == 0) continue;
        CHECK(rows < m);
        CHECK(static_cast<double>(rows) * static_cast<double>(n) * static_cast<double>(k) <= 1e6);
      }
    }
    if (theano_blas_split_rows(33, 256, 256, 4) == 0)
      MESSAGE("this BLAS core has no small-matrix kernels: products run whole");
    // 33x256 by 256x256 (blocks of 9, 8, 8, 8 rows where the core has them), A read transposed, C
    // column-major, beta 0.5: against a double loop over the same values.
    const std::int64_t m = 33, n = 256, k = 256;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<float> at(static_cast<std::size_t>(k * m)), b(static_cast<std::size_t>(k * n)),
        c(static_cast<std::size_t>(n * m));
    for (auto* v : {&at, &b, &c})
      for (float& x : *v) x = static_cast<float>(u(rng));
    std::vector<double> want(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (std::int64_t p = 0; p < k; ++p)
          acc += static_cast<double>(at[static_cast<std::size_t>(p * m + i)]) * b[static_cast<std::size_t>(p * n + j)];
        want[static_cast<std::size_t>(i * n + j)] = 2.0 * acc + 0.5 * c[static_cast<std::size_t>(j * m + i)];
      }
    host_kernels()->blas_gemm_f32(m, n, k, 2.0, reinterpret_cast<const char*>(at.data()), 4, 4 * m,
                                  reinterpret_cast<const char*>(b.data()), 4 * n, 4, 0.5,
                                  reinterpret_cast<char*>(c.data()), 4, 4 * m);
    double worst = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j)
        worst = std::max(worst, std::abs(c[static_cast<std::size_t>(j * m + i)] -
                                         want[static_cast<std::size_t>(i * n + j)]));
    CHECK(worst < 1e-3);
  }

  TEST_CASE("the gemm entries: 262144 to 3*10^7 multiply-adds in parts across the loop threads, BLAS's count kept") {
    const int before = theano::tensor::blas_threads();
    theano::tensor::set_blas_threads(2);
    // By rows (301 >= 77, 400 >= 120) or by columns (33 < 256, 64 < 500); odd sizes, A transposed, C
    // column-major; a part in row blocks (float32's 33x128x256) or whole (64x250x10).
    CHECK(gemm_entry_error<double>(33, 256, 256, false, false) < 1e-13);
    CHECK(gemm_entry_error<float>(33, 256, 256, false, false) < 1e-5);
    CHECK(gemm_entry_error<float>(64, 500, 10, false, false) < 1e-5);
    CHECK(gemm_entry_error<double>(301, 77, 97, true, true) < 1e-13);
    CHECK(gemm_entry_error<float>(400, 120, 64, true, false) < 1e-5);
    CHECK(gemm_entry_error<float>(64, 500, 800, false, true) < 1e-5);
    CHECK(theano::tensor::blas_threads() == 2);
    theano::tensor::set_blas_threads(before);
  }
}

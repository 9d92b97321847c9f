// NDArray basics: factories, element access and its errors, item(), astype, copy,
// assign/fill, array_equal / allclose / content_hash.
#include <doctest/doctest.h>

#include <complex>
#include <cmath>
#include <cstdint>
#include <limits>

#include "theano/runtime/ndarray.h"
#include "theano/runtime/repeated_element.h"

using namespace theano;

TEST_CASE("null handle") {
  NDArray a;
  CHECK_FALSE(a.defined());
  CHECK(a.str() == "NDArray()");
  CHECK_THROWS_AS(a.copy(), ValueError);
  CHECK_THROWS_AS((void)a.at<double>({0}), ValueError);
}

TEST_CASE("factories: shape, strides, dtype, alignment") {
  NDArray z = NDArray::zeros({2, 3});
  CHECK(z.defined());
  CHECK(z.dtype() == DType::Float64);
  CHECK(z.ndim() == 2);
  CHECK(z.shape() == std::vector<int64_t>{2, 3});
  CHECK(z.strides() == std::vector<int64_t>{24, 8});
  CHECK(z.size() == 6);
  CHECK(z.nbytes() == 48);
  CHECK(z.itemsize() == 8);
  CHECK(z.offset() == 0);
  CHECK(reinterpret_cast<uintptr_t>(z.data()) % 64 == 0);
  CHECK(z.is_c_contiguous());
  CHECK_FALSE(z.is_f_contiguous());
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) CHECK(z.at<double>({i, j}) == 0.0);

  NDArray o = NDArray::ones({4}, DType::Int16);
  CHECK(o.strides() == std::vector<int64_t>{2});
  CHECK(o.at<int16_t>({3}) == 1);
  NDArray f = NDArray::full({2, 2}, 2.5, DType::Float32);
  CHECK(f.at<float>({1, 1}) == 2.5f);
  CHECK(NDArray::full({3}, -1.7, DType::Int32).at<int32_t>({0}) == -1);  // truncation
  NDArray b = NDArray::full({2}, 3.0, DType::Bool);
  CHECK(b.at<bool>({0}));

  NDArray r = NDArray::arange(0, 1, 0.25);
  CHECK(r.shape() == std::vector<int64_t>{4});
  CHECK(r.at<double>({3}) == 0.75);
  CHECK(NDArray::arange(5, 0, -2, DType::Int64).shape() == std::vector<int64_t>{3});
  CHECK(NDArray::arange(5, 0, -2, DType::Int64).at<int64_t>({2}) == 1);
  CHECK(NDArray::arange(3, 1).size() == 0);
  CHECK_THROWS_WITH_AS(NDArray::arange(0, 1, 0), doctest::Contains("step must be finite and non-zero"),
                       ValueError);

  NDArray s = NDArray::scalar<int8_t>(-7);
  CHECK(s.ndim() == 0);
  CHECK(s.size() == 1);
  CHECK(s.dtype() == DType::Int8);
  CHECK(s.at<int8_t>({}) == -7);
  CHECK(s.is_c_contiguous());
  CHECK(s.is_f_contiguous());

  NDArray e = NDArray::empty({0, 5}, DType::Complex64);
  CHECK(e.size() == 0);
  CHECK(e.nbytes() == 0);
  CHECK(reinterpret_cast<uintptr_t>(e.data()) % 64 == 0);

  CHECK_THROWS_WITH_AS(NDArray::zeros({2, -1}), doctest::Contains("array of shape (2, -1): negative dimensions are not allowed, got -1"),
                       ValueError);
  CHECK_THROWS_AS(NDArray::empty({int64_t(1) << 40, int64_t(1) << 40}), ValueError);
}

TEST_CASE("from_vector / from_list") {
  NDArray a = NDArray::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(a.dtype() == DType::Int32);
  CHECK(a.at<int32_t>({1, 0}) == 4);
  CHECK(a.at<int32_t>({-1, -1}) == 6);
  NDArray l = NDArray::from_list({1.5, 2.5});
  CHECK(l.shape() == std::vector<int64_t>{2});
  CHECK(l.data_as<double>()[1] == 2.5);
  NDArray bl = NDArray::from_vector(std::vector<bool>{true, false, true}, {3});
  CHECK(bl.dtype() == DType::Bool);
  CHECK(bl.at<bool>({2}));
  CHECK_FALSE(bl.at<bool>({1}));
  CHECK_THROWS_WITH_AS(NDArray::from_vector<double>({1, 2, 3}, {2, 2}),
                       "cannot make an array of shape (2, 2) (4 elements) from 3 values", ShapeError);
}

TEST_CASE("element access errors name axis, index and size") {
  NDArray a = NDArray::zeros({2, 3});
  CHECK_THROWS_WITH_AS((void)a.at<double>({0, 3}), "index 3 is out of bounds for axis 1 with size 3", IndexError);
  CHECK_THROWS_WITH_AS((void)a.at<double>({-3, 0}), "index -3 is out of bounds for axis 0 with size 2", IndexError);
  CHECK_THROWS_WITH_AS((void)a.at<double>({0}), "expected 2 indices for an array of shape (2, 3), got 1",
                       IndexError);
  CHECK_THROWS_WITH_AS((void)a.at<float>({0, 0}),
                       "element type mismatch: the array has dtype float64 but was accessed as float32", TypeError);
  CHECK_THROWS_AS((void)a.data_as<int64_t>(), TypeError);
  a.at<double>({1, 2}) = 7;
  CHECK(a.data_as<double>()[5] == 7);
}

TEST_CASE("item converts the single element") {
  CHECK(NDArray::scalar(3.75).item<int>() == 3);
  CHECK(NDArray::scalar<int64_t>(-2).item<double>() == -2.0);
  CHECK(NDArray::from_list({2.5f}).item<double>() == 2.5);
  CHECK(NDArray::scalar(std::complex<double>(1, 2)).item<std::complex<double>>() == std::complex<double>(1, 2));
  CHECK(NDArray::scalar(half(0.5)).item<float>() == 0.5f);
  CHECK_THROWS_WITH_AS(NDArray::zeros({2}).item<double>(),
                       "item() needs an array of size 1, got shape (2,) (size 2)", ValueError);
}

TEST_CASE("copy and astype") {
  NDArray a = NDArray::from_vector<double>({-1.5, 0.0, 2.7, 300.0}, {2, 2});
  NDArray c = a.copy();
  CHECK_FALSE(c.shares_buffer(a));
  CHECK(array_equal(a, c));
  c.at<double>({0, 0}) = 9;
  CHECK(a.at<double>({0, 0}) == -1.5);

  NDArray i8 = a.astype(DType::Int8);
  CHECK(i8.dtype() == DType::Int8);
  CHECK(array_equal(i8, NDArray::from_vector<int8_t>({-1, 0, 2, 44}, {2, 2})));  // numpy: 300 -> 44
  NDArray bo = a.astype(DType::Bool);
  CHECK(array_equal(bo, NDArray::from_vector(std::vector<bool>{true, false, true, true}, {2, 2})));
  NDArray h = a.astype(DType::Float16);
  CHECK(h.at<half>({1, 0}).bits == half(2.7).bits);
  NDArray cx = a.astype(DType::Complex64);
  CHECK(cx.at<std::complex<float>>({0, 0}) == std::complex<float>(-1.5f, 0));
  // Transposed (non-contiguous) source copies in logical order.
  NDArray t = a.transpose().copy();
  CHECK(t.is_c_contiguous());
  CHECK(t.data_as<double>()[1] == 2.7);
  CHECK(a.transpose().contiguous().data_as<double>()[1] == 2.7);
  CHECK(a.contiguous().shares_buffer(a));
}

TEST_CASE("assign and fill write through views") {
  NDArray a = NDArray::zeros({3, 4});
  a.slice(1, 1, 3).assign(NDArray::from_list({5.0, 6.0}));  // broadcast over rows
  CHECK(a.at<double>({2, 1}) == 5.0);
  CHECK(a.at<double>({0, 2}) == 6.0);
  CHECK(a.at<double>({0, 3}) == 0.0);
  a.index(0, 0).fill(1);
  CHECK(a.at<double>({0, 3}) == 1.0);
  CHECK(a.at<double>({1, 3}) == 0.0);
  // Overlapping source: a[::-1] = a behaves like numpy (reads a snapshot).
  NDArray v = NDArray::arange(0, 4);
  v.slice(0, std::nullopt, std::nullopt, -1).assign(v);
  CHECK(array_equal(v, NDArray::from_list({3.0, 2.0, 1.0, 0.0})));
  CHECK_THROWS_AS(a.assign(NDArray::zeros({2})), ShapeError);
  NDArray bc = NDArray::zeros({3}).broadcast_to({2, 3});
  CHECK_THROWS_WITH_AS(bc.assign(NDArray::zeros({2, 3})), doctest::Contains("cannot write into a broadcast view"),
                       ValueError);
}

TEST_CASE("array_equal compares values across dtypes") {
  NDArray a = NDArray::from_list<int64_t>({1, 2, 3});
  CHECK(array_equal(a, NDArray::from_list({1.0, 2.0, 3.0})));
  CHECK_FALSE(array_equal(a, NDArray::from_list({1.0, 2.0, 3.5})));
  CHECK_FALSE(array_equal(a, a.reshape({3, 1})));
  CHECK(array_equal(NDArray::from_list<uint64_t>({18446744073709551615ull}),
                    NDArray::from_list<uint64_t>({18446744073709551615ull})));
  CHECK_FALSE(array_equal(NDArray::from_list<uint64_t>({18446744073709551615ull}), NDArray::from_list<int64_t>({-1})));
  CHECK_FALSE(array_equal(NDArray::from_list({std::nan("")}), NDArray::from_list({std::nan("")})));
  CHECK(array_equal(NDArray(), NDArray()));
  CHECK(array_equal(NDArray::zeros({0, 2}), NDArray::zeros({0, 2}, DType::Int8)));
}

TEST_CASE("allclose broadcasts and handles nan / inf") {
  NDArray a = NDArray::from_list({1.0, 2.0, 3.0});
  CHECK(allclose(a, NDArray::from_list({1.0 + 1e-9, 2.0, 3.0 - 1e-9})));
  CHECK_FALSE(allclose(a, NDArray::from_list({1.001, 2.0, 3.0})));
  CHECK(allclose(a, NDArray::from_list({1.001, 2.0, 3.0}), 1e-2));
  CHECK(allclose(NDArray::full({2, 3}, 2.0), NDArray::scalar(2.0)));
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  CHECK(allclose(NDArray::from_list({inf, -inf}), NDArray::from_list({inf, -inf})));
  CHECK_FALSE(allclose(NDArray::from_list({inf}), NDArray::from_list({-inf})));
  CHECK_FALSE(allclose(NDArray::from_list({nan}), NDArray::from_list({nan})));
  CHECK(allclose(NDArray::from_list({nan}), NDArray::from_list({nan}), 1e-5, 1e-8, true));
  CHECK(allclose(NDArray::from_list({std::complex<double>(1, 1)}), NDArray::from_list({std::complex<double>(1, 1 + 1e-9)})));
  CHECK_THROWS_WITH_AS(allclose(NDArray::zeros({2}), NDArray::zeros({3})),
                       "shapes (2,) and (3,) cannot be broadcast together (dimension 0: 2 vs 3)", ShapeError);
}

TEST_CASE("content_hash depends on values, dtype and shape, not layout") {
  NDArray a = NDArray::arange(0, 6).reshape({2, 3});
  NDArray at = a.transpose();
  NDArray at_copy = at.copy();
  CHECK(content_hash(at) == content_hash(at_copy));
  CHECK(content_hash(a) == content_hash(a.copy()));
  CHECK(content_hash(a) != content_hash(at));                    // different shape
  CHECK(content_hash(a) != content_hash(a.reshape({3, 2})));      // same bytes, different shape
  CHECK(content_hash(a) != content_hash(a.astype(DType::Int64)));  // different dtype
  NDArray b = a.copy();
  b.at<double>({1, 2}) = 5.5;
  CHECK(content_hash(a) != content_hash(b));
  // A Fortran-ordered array with equal values hashes like the C-ordered one.
  NDArray f = NDArray::zeros({3, 2}).transpose();
  f.assign(a);
  CHECK_FALSE(f.is_c_contiguous());
  CHECK(content_hash(f) == content_hash(a));
}

TEST_CASE("repeats_one_element: byte for byte, more than one element, C-contiguous only") {
  CHECK(repeats_one_element(NDArray::zeros({2, 3})));
  CHECK(repeats_one_element(NDArray::full({5}, 2.5, DType::Float32)));
  CHECK_FALSE(repeats_one_element(NDArray::zeros({1})));  // one element: nothing repeated
  CHECK_FALSE(repeats_one_element(NDArray::zeros({0, 4})));
  CHECK_FALSE(repeats_one_element(NDArray::scalar(0.0)));
  NDArray signs = NDArray::zeros({4});
  signs.data_as<double>()[3] = -0.0;  // equal values, other bytes
  CHECK_FALSE(repeats_one_element(signs));
  NDArray last = NDArray::full({3, 3}, 7.0);
  last.data_as<double>()[8] = 7.000000000000001;
  CHECK_FALSE(repeats_one_element(last));
  CHECK_FALSE(repeats_one_element(NDArray::zeros({3, 2}).transpose()));  // not C-contiguous: written out
  CHECK_FALSE(repeats_one_element(NDArray()));
}

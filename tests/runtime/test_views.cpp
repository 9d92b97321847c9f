// NDArray views: they share the buffer and see writes; slicing follows Python (negative
// steps included), transpose/reshape/broadcast_to/expand_dims/squeeze produce the
// strides numpy produces, and bad arguments give errors naming what was expected.
#include <doctest/doctest.h>

#include "theano/runtime/ndarray.h"
#include "theano/runtime/overlap.h"
#include "theano/runtime/kernels/reshape_view.h"

using namespace theano;
using Shape = std::vector<int64_t>;

namespace {
NDArray iota(Shape shape) { return NDArray::arange(0, static_cast<double>(NDArray::zeros(shape).size())).reshape(shape); }
}  // namespace

TEST_CASE("slice shares the buffer and sees writes") {
  NDArray a = iota({4, 5});
  NDArray s = a.slice(1, 1, 4);
  CHECK(s.shape() == Shape{4, 3});
  CHECK(s.strides() == Shape{40, 8});
  CHECK(s.offset() == 8);
  CHECK(s.shares_buffer(a));
  CHECK_FALSE(s.is_c_contiguous());
  s.at<double>({0, 0}) = -1;
  CHECK(a.at<double>({0, 1}) == -1);
  a.at<double>({3, 3}) = 99;
  CHECK(s.at<double>({3, 2}) == 99);
}

TEST_CASE("slice follows Python semantics, negative steps included") {
  NDArray v = NDArray::arange(0, 10, 1, DType::Int32);
  auto vals = [](const NDArray& x) {
    std::vector<int32_t> out;
    for (int64_t i = 0; i < x.shape()[0]; ++i) out.push_back(x.at<int32_t>({i}));
    return out;
  };
  using V = std::vector<int32_t>;
  CHECK(vals(v.slice(0, 2, 8, 3)) == V{2, 5});
  CHECK(vals(v.slice(0, std::nullopt, std::nullopt, -1)) == V{9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  CHECK(vals(v.slice(0, 8, 2, -2)) == V{8, 6, 4});
  CHECK(vals(v.slice(0, -3, std::nullopt)) == V{7, 8, 9});
  CHECK(vals(v.slice(0, std::nullopt, -8, -3)) == V{9, 6, 3});
  CHECK(vals(v.slice(0, 100, -100, -4)) == V{9, 5, 1});
  CHECK(vals(v.slice(0, 5, 5)).empty());
  CHECK(vals(v.slice(0, 7, 3)).empty());
  CHECK(vals(v.slice(0, -100, 2)) == V{0, 1});
  NDArray r = v.slice(0, std::nullopt, std::nullopt, -1);
  CHECK(r.strides() == Shape{-4});
  // Reversed twice gives the original order back.
  CHECK(array_equal(r.slice(0, std::nullopt, std::nullopt, -1), v));
  r.at<int32_t>({0}) = 42;
  CHECK(v.at<int32_t>({9}) == 42);
  CHECK(r.copy().is_c_contiguous());
  CHECK(r.copy().at<int32_t>({0}) == 42);
  CHECK_THROWS_WITH_AS(v.slice(0, 0, 5, 0), "slice step cannot be zero", ValueError);
  CHECK_THROWS_WITH_AS(v.slice(1, 0, 5), "slice: axis 1 is out of bounds for array of dimension 1", IndexError);
  // 2-d, axis -1.
  NDArray m = iota({3, 4});
  NDArray mr = m.slice(-1, std::nullopt, std::nullopt, -2);
  CHECK(mr.shape() == Shape{3, 2});
  CHECK(mr.at<double>({1, 0}) == 7);
  CHECK(mr.at<double>({1, 1}) == 5);
}

TEST_CASE("index drops the axis") {
  NDArray a = iota({2, 3, 4});
  NDArray r = a.index(1, -1);
  CHECK(r.shape() == Shape{2, 4});
  CHECK(r.strides() == Shape{96, 8});
  CHECK(r.at<double>({1, 2}) == 22);
  r.at<double>({0, 0}) = -5;
  CHECK(a.at<double>({0, 2, 0}) == -5);
  CHECK(a.index(0, 1).index(0, 2).index(0, 3).at<double>({}) == 23);
  CHECK_THROWS_WITH_AS(a.index(2, 4), "index 4 is out of bounds for axis 2 with size 4", IndexError);
  CHECK_THROWS_WITH_AS(a.index(3, 0), "index: axis 3 is out of bounds for array of dimension 3", IndexError);
}

TEST_CASE("transpose") {
  NDArray a = iota({2, 3, 4});
  NDArray t = a.transpose();
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(t.strides() == Shape{8, 32, 96});
  CHECK(t.is_f_contiguous());
  CHECK(t.at<double>({3, 2, 1}) == a.at<double>({1, 2, 3}));
  CHECK(t.shares_buffer(a));
  NDArray tt = t.transpose();
  CHECK(tt.shape() == a.shape());
  CHECK(tt.strides() == a.strides());
  CHECK(tt.data() == a.data());
  NDArray p = a.transpose({1, 0, 2});
  CHECK(p.shape() == Shape{3, 2, 4});
  CHECK(p.at<double>({2, 1, 3}) == 23);
  CHECK(a.transpose({-1, 0, 1}).shape() == Shape{4, 2, 3});
  CHECK_THROWS_WITH_AS(a.transpose({0, 1}), "transpose: axes (0, 1) don't match array of dimension 3", ValueError);
  CHECK_THROWS_WITH_AS(a.transpose({0, 1, 1}),
                       "transpose: axes (0, 1, 1) is not a permutation of 0..2 (axis 1 repeated)", ValueError);
  CHECK_THROWS_WITH_AS(a.transpose({0, 1, 3}),
                       "transpose: axes (0, 1, 3) is not a permutation of 0..2 (axis 3 is out of bounds)", ValueError);
  NDArray s = NDArray::scalar(1.0);
  CHECK(s.transpose().ndim() == 0);
}

TEST_CASE("reshape: view when strides allow, error or copy otherwise") {
  NDArray a = iota({2, 3, 4});
  NDArray r = a.reshape({6, -1});
  CHECK(r.shape() == Shape{6, 4});
  CHECK(r.shares_buffer(a));
  CHECK(r.at<double>({5, 3}) == 23);
  CHECK(a.reshape({24}).strides() == Shape{8});
  CHECK_THROWS_AS(a.reshape({}), ShapeError);  // size 24 cannot become 0-d
  // Non-contiguous but mergeable: a[:, :, ::2] reshaped (2, 3, 2) -> (6, 2) is a view.
  NDArray s = a.slice(2, std::nullopt, std::nullopt, 2);
  NDArray sv = s.reshape({6, 2});
  CHECK(sv.strides() == Shape{32, 16});
  CHECK(sv.shares_buffer(a));
  CHECK(sv.at<double>({4, 1}) == 18);
  // Transposed: (4, 3, 2) -> (4, 6) merges axes with strides 32 and 96: impossible as a view.
  NDArray t = a.transpose();
  CHECK_THROWS_WITH_AS(t.reshape({4, 6}),
                       "cannot reshape a non-contiguous array of shape (4, 3, 2) (strides (8, 32, 96)) into shape "
                       "(4, 6) without copying; use reshaped() to allow a copy",
                       ShapeError);
  NDArray tc = t.reshaped({4, 6});
  CHECK_FALSE(tc.shares_buffer(a));
  CHECK(tc.at<double>({1, 1}) == t.at<double>({1, 0, 1}));
  // reshaped() keeps views when it can.
  CHECK(t.reshaped({4, 3, 2, 1}).shares_buffer(a));
  CHECK(t.reshape({4, 1, 3, 2}).strides()[2] == 32);
  // Splitting a transposed axis is a view.
  NDArray t2 = iota({6, 4}).transpose();  // (4, 6) strides (8, 32)
  CHECK(t2.reshape({4, 2, 3}).strides() == Shape{8, 96, 32});
  CHECK_THROWS_WITH_AS(a.reshape({5, -1}), "cannot reshape array of size 24 (shape (2, 3, 4)) into shape (5, -1)",
                       ShapeError);
  CHECK_THROWS_WITH_AS(a.reshape({7, 3}), "cannot reshape array of size 24 (shape (2, 3, 4)) into shape (7, 3)",
                       ShapeError);
  CHECK_THROWS_WITH_AS(a.reshape({-1, -1}), "reshape: can only specify one unknown dimension (-1), got (-1, -1)",
                       ShapeError);
  NDArray e = NDArray::zeros({0, 3});
  CHECK(e.reshape({3, 0}).shape() == Shape{3, 0});
}

TEST_CASE("reshape_view.h: NumPy's no-copy rule, its stride products checked, sizes never overrun") {
  // The rule NDArray::reshape and generated code's Reshape both run.
  int64_t ns[4] = {0, 0, 0, 0};
  {  // rows of 4 contiguous in a 3 x 4 block: one run of 12
    const int64_t od[] = {3, 4}, os[] = {32, 8}, nd[] = {12};
    REQUIRE(theano_nocopy_reshape_rule(2, od, os, 1, nd, ns, 8) == 1);
    CHECK(ns[0] == 8);
  }
  {  // padded rows (stride 64) do not merge
    const int64_t od[] = {3, 4}, os[] = {64, 8}, nd[] = {12};
    CHECK(theano_nocopy_reshape_rule(2, od, os, 1, nd, ns, 8) == 0);
  }
  {  // a strided axis splits; a new trailing size-1 axis takes the last stride
    const int64_t od[] = {12}, os[] = {16}, nd[] = {3, 4, 1};
    REQUIRE(theano_nocopy_reshape_rule(1, od, os, 3, nd, ns, 8) == 1);
    CHECK(ns[0] == 64);
    CHECK(ns[1] == 16);
    CHECK(ns[2] == 16);
  }
  {  // 3 * 2^62 wraps to -2^62 in int64: without the checked product the
     // outer stride below would look contiguous with the inner axis
    const int64_t od[] = {2, 3}, os[] = {-(int64_t{1} << 62), int64_t{1} << 62}, nd[] = {6};
    CHECK(theano_nocopy_reshape_rule(2, od, os, 1, nd, ns, 8) == 0);
  }
  {  // sizes that disagree (a caller's bug) end the walk instead of reading past the dimensions
    const int64_t od[] = {6}, os[] = {8}, nd[] = {4};
    CHECK(theano_nocopy_reshape_rule(1, od, os, 1, nd, ns, 8) == 0);
    const int64_t od2[] = {4}, nd2[] = {2, 3};
    CHECK(theano_nocopy_reshape_rule(1, od2, os, 2, nd2, ns, 8) == 0);
  }
  {  // the host entry drops size-1 axes first, and refuses more than THEANO_MAX_NDIM
    const int64_t shape[] = {3, 1, 4}, strides[] = {32, 999, 8}, nd[] = {12};
    REQUIRE(theano_nocopy_reshape(3, shape, strides, 1, nd, ns, 8) == 1);
    CHECK(ns[0] == 8);
    int64_t big_shape[THEANO_MAX_NDIM + 1], big_strides[THEANO_MAX_NDIM + 1];
    for (int d = 0; d <= THEANO_MAX_NDIM; ++d) big_shape[d] = 1, big_strides[d] = 8;
    CHECK(theano_nocopy_reshape(THEANO_MAX_NDIM + 1, big_shape, big_strides, 1, nd, ns, 8) == 0);
  }
}

TEST_CASE("broadcast_to gives zero strides") {
  NDArray v = NDArray::from_list({1.0, 2.0, 3.0});
  NDArray b = v.broadcast_to({4, 3});
  CHECK(b.shape() == Shape{4, 3});
  CHECK(b.strides() == Shape{0, 8});
  CHECK(b.at<double>({3, 2}) == 3.0);
  CHECK(b.shares_buffer(v));
  NDArray col = v.reshape({3, 1}).broadcast_to({2, 3, 5});
  CHECK(col.strides() == Shape{0, 8, 0});
  CHECK(col.at<double>({1, 2, 4}) == 3.0);
  CHECK(NDArray::scalar(7).broadcast_to({2, 2}).strides() == Shape{0, 0});
  CHECK_THROWS_WITH_AS(v.broadcast_to({3, 4}),
                       "broadcast_to: the array of shape (3,), target shape (3, 4): cannot be broadcast to the target shape at its "
                       "dimension 0", ShapeError);
  CHECK_THROWS_WITH_AS(NDArray::zeros({2, 3}).broadcast_to({3}),
                       "broadcast_to: the array of shape (2, 3), target shape (3,): cannot be broadcast to the target shape at its "
                       "dimension 2",
                       ShapeError);
  CHECK(broadcast_shapes({5, 1, 3}, {4, 1}) == Shape{5, 4, 3});
  CHECK(array_equal(b.copy(), NDArray::from_vector<double>({1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, {4, 3})));
}

TEST_CASE("expand_dims and squeeze") {
  NDArray a = iota({2, 3});
  CHECK(a.expand_dims(0).shape() == Shape{1, 2, 3});
  CHECK(a.expand_dims(-1).shape() == Shape{2, 3, 1});
  CHECK(a.expand_dims(1).shape() == Shape{2, 1, 3});
  CHECK(a.expand_dims(1).is_c_contiguous());
  CHECK(a.expand_dims(1).squeeze(1).strides() == a.strides());
  CHECK_THROWS_WITH_AS(a.squeeze(0),
                       "squeeze: cannot select an axis to squeeze out which has size not equal to one (axis 0 has "
                       "size 2)",
                       ValueError);
}

TEST_CASE("expand_dims of a valid empty array with a huge dimension: no stride overflow") {
  // An int8 (2^62, 0) array with every stride doubled is valid (it holds no
  // element); the C-order stride of a new axis before dimension 0 would be
  // 2 * 2^62, past int64 (signed overflow, found by UBSan in the fuzz slice).
  const std::int64_t big = std::int64_t{1} << 62;
  const NDArray e = NDArray::from_strided(nullptr, nullptr, DType::Int8, {big, 0}, {2, 2});
  const NDArray x = e.expand_dims(0);
  CHECK(x.shape() == Shape{1, big, 0});
  CHECK(x.strides()[0] == 2);  // any stride serves a size-1 axis; never a wrapped product
  CHECK(x.squeeze(0).shape() == e.shape());
}

TEST_CASE("index and slice of an empty array with no data keep its null pointer") {
  // Empty arrays may hold no data at all; offsetting a null pointer is
  // undefined behaviour (UBSan found it in the fuzz: index 5 of a (2^62, 0)
  // array). A view that is empty keeps the base pointer.
  const std::int64_t big = std::int64_t{1} << 62;
  const NDArray e = NDArray::from_strided(nullptr, nullptr, DType::Int8, {big, 0}, {1, 1});
  CHECK(e.index(0, 5).data() == nullptr);
  CHECK(e.index(0, -1).shape() == Shape{0});
  CHECK(e.slice(0, 7, 9, 1).data() == nullptr);
  CHECK(e.slice(0, -3, std::nullopt, -1).shape() == Shape{big - 2, 0});
}

TEST_CASE("shares_buffer") {
  NDArray a = iota({4});
  NDArray b = iota({4});
  CHECK_FALSE(a.shares_buffer(b));
  CHECK(a.slice(0, 0, 2).shares_buffer(a.slice(0, 2, 4)));  // same buffer
  // Memory overlap also counts for arrays wrapping the same memory with another owner.
  NDArray w = NDArray::from_strided(nullptr, static_cast<double*>(a.data()) + 1, DType::Float64, {2}, {8});
  CHECK(w.shares_buffer(a));
  NDArray w2 = NDArray::from_strided(nullptr, static_cast<double*>(b.data()), DType::Float64, {2}, {8});
  CHECK_FALSE(w.shares_buffer(w2));
  CHECK(w.at<double>({1}) == 2.0);
}

TEST_CASE("elements_may_overlap: broadcast and folded views overlap, slices and transposes do not") {
  NDArray a = iota({4, 5});
  // Distinct elements: contiguous, sliced with steps (negative too), transposed, size <= 1.
  CHECK_FALSE(elements_may_overlap(a));
  CHECK_FALSE(elements_may_overlap(a.transpose()));
  CHECK_FALSE(elements_may_overlap(a.slice(1, 4, std::nullopt, -2)));
  CHECK_FALSE(elements_may_overlap(a.slice(0, 1, 3).transpose()));
  CHECK_FALSE(elements_may_overlap(NDArray::scalar(5.0).broadcast_to({1, 1})));
  CHECK_FALSE(elements_may_overlap(NDArray::zeros({0, 3}).broadcast_to({2, 0, 3})));
  CHECK_FALSE(elements_may_overlap(a.expand_dims(1)));
  CHECK_FALSE(elements_may_overlap(NDArray()));
  // A broadcast view: one element four times; a row repeated.
  CHECK(elements_may_overlap(NDArray::from_list<double>({5}).broadcast_to({4})));
  CHECK(elements_may_overlap(NDArray::from_list<double>({1, 2}).broadcast_to({3, 2})));
  // Strides over one float64 buffer: rows 16 bytes apart with 4 columns fold; 32 bytes apart do not.
  NDArray buf = NDArray::zeros({64});
  auto strided = [&](std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset = 0) {
    return NDArray::from_strided(buf.owner(), static_cast<std::byte*>(buf.data()) + offset, DType::Float64,
                                 std::move(shape), std::move(strides));
  };
  CHECK(elements_may_overlap(strided({3, 4}, {16, 8})));
  CHECK_FALSE(elements_may_overlap(strided({3, 4}, {32, 8})));
  CHECK(elements_may_overlap(strided({4, 5}, {8, 8})));
  // Elements closer than their size overlap partly; a negative stride folds as well.
  CHECK(elements_may_overlap(strided({3}, {4})));
  CHECK(elements_may_overlap(strided({4, 5}, {-8, 8}, 256)));
  // Interleaved but distinct: a Fortran-order (2, 3) view, and its columns reversed.
  CHECK_FALSE(elements_may_overlap(strided({2, 3}, {8, 16})));
  CHECK_FALSE(elements_may_overlap(strided({2, 3}, {8, -16}, 256)));
}

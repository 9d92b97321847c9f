// NDArray::str() against numpy's repr. Every expected string below was printed by
// numpy 2.4 (repr(...) with default print options) for the same values, so this file
// pins float / int / bool / complex formatting, padding, line wrapping, 0-d and empty
// arrays, the dtype / shape suffixes, and summarisation of arrays above 1000 elements.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <sstream>

#include "theano/runtime/ndarray.h"

using namespace theano;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();
using c = std::complex<double>;

// numpy: np.arange(n, dtype=float) * 1.1
NDArray times_1_1(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<double>(i) * 1.1);
  return NDArray::from_vector(v, {n});
}
}  // namespace

TEST_CASE("str matches numpy repr") {
  CHECK(NDArray::from_vector<double>({1, 2, 3, 4}, {2, 2}).str() ==
        "array([[1., 2.],\n"
        "       [3., 4.]])");
  CHECK(NDArray::from_list({1.5, 10.25, -3.0}).str() ==
        "array([ 1.5 , 10.25, -3.  ])");
  CHECK(NDArray::from_list({1e-5, 1.0}).str() ==
        "array([1.e-05, 1.e+00])");
  CHECK(NDArray::from_list({1.0 / 3, 2.0 / 3}).str() ==
        "array([0.33333333, 0.66666667])");
  CHECK(NDArray::from_list({0.00012345678}).str() ==
        "array([0.00012346])");
  CHECK(NDArray::from_list({1e10, 1.0}).str() ==
        "array([1.e+10, 1.e+00])");
  CHECK(NDArray::from_list({1e-300, 1e300}).str() ==
        "array([1.e-300, 1.e+300])");
  CHECK(NDArray::from_list({-1.5e-7, 2.25e5, 1e100}).str() ==
        "array([-1.50e-007,  2.25e+005,  1.00e+100])");
  CHECK(NDArray::from_list({kNaN, inf, 1.0}).str() ==
        "array([nan, inf,  1.])");
  CHECK(NDArray::from_list({-inf, kNaN}).str() ==
        "array([-inf,  nan])");
  CHECK(NDArray::from_list({kNaN, 1.5e-9}).str() ==
        "array([    nan, 1.5e-09])");
  CHECK(NDArray::from_list({-0.0, 0.0}).str() ==
        "array([-0.,  0.])");
  CHECK(NDArray::from_list({123456789.0, 0.5}).str() ==
        "array([1.23456789e+08, 5.00000000e-01])");
  CHECK(NDArray::from_list({0.999999999, 5.0}).str() ==
        "array([1., 5.])");
  CHECK(NDArray::scalar(3.5).str() ==
        "array(3.5)");
  CHECK(NDArray::scalar(1e20).str() ==
        "array(1.e+20)");
  CHECK(NDArray::scalar(-0.1).str() ==
        "array(-0.1)");
  CHECK(NDArray::from_list({0.1f, 0.2f}).str() ==
        "array([0.1, 0.2], dtype=float32)");
  CHECK(NDArray::from_list({1.0f / 3, 100.0f}).str() ==
        "array([  0.33333334, 100.        ], dtype=float32)");
  CHECK(NDArray::from_list({half(0.1), half(1000.0)}).str() ==
        "array([1.e-01, 1.e+03], dtype=float16)");
  CHECK(NDArray::from_list({half(0.1), half(3.0), half(-2.5)}).str() ==
        "array([ 0.1,  3. , -2.5], dtype=float16)");
  CHECK(times_1_1(30).str() ==
        "array([ 0. ,  1.1,  2.2,  3.3,  4.4,  5.5,  6.6,  7.7,  8.8,  9.9, 11. ,\n"
        "       12.1, 13.2, 14.3, 15.4, 16.5, 17.6, 18.7, 19.8, 20.9, 22. , 23.1,\n"
        "       24.2, 25.3, 26.4, 27.5, 28.6, 29.7, 30.8, 31.9])");
  CHECK(NDArray::from_vector<int8_t>({5, -5, 100, 0}, {2, 2}).str() ==
        "array([[  5,  -5],\n"
        "       [100,   0]], dtype=int8)");
  CHECK(NDArray::from_list<int64_t>({1, -20, 300}).str() ==
        "array([  1, -20, 300])");
  CHECK(NDArray::from_list<uint64_t>({9223372036854775808ull}).str() ==
        "array([9223372036854775808], dtype=uint64)");
  CHECK(NDArray::from_list<uint8_t>({255, 0}).str() ==
        "array([255,   0], dtype=uint8)");
  CHECK(NDArray::from_vector(std::vector<bool>{true, false}, {2}).str() ==
        "array([ True, False])");
  CHECK(NDArray::from_vector(std::vector<bool>{false, false}, {2}).str() ==
        "array([False, False])");
  CHECK(NDArray::scalar(true).str() ==
        "array(True)");
  CHECK(NDArray::scalar<int32_t>(-4).str() ==
        "array(-4, dtype=int32)");
  CHECK(NDArray::from_list({c(1, 2), c(-3.5, -0.25)}).str() ==
        "array([ 1. +2.j  , -3.5-0.25j])");
  CHECK(NDArray::from_list({c(1e-8, 1), c(kNaN, -inf)}).str() ==
        "array([1.e-08 +1.j,    nan-infj])");
  CHECK(NDArray::from_list({std::complex<float>(0, 1)}).str() ==
        "array([0.+1.j], dtype=complex64)");
  CHECK(NDArray::zeros({0}, DType::Float32).str() ==
        "array([], dtype=float32)");
  CHECK(NDArray::zeros({0}).str() ==
        "array([], dtype=float64)");
  CHECK(NDArray::zeros({2, 0}).str() ==
        "array([], shape=(2, 0), dtype=float64)");
  CHECK(NDArray::zeros({2, 3, 2}, DType::Int16).str() ==
        "array([[[0, 0],\n"
        "        [0, 0],\n"
        "        [0, 0]],\n"
        "\n"
        "       [[0, 0],\n"
        "        [0, 0],\n"
        "        [0, 0]]], dtype=int16)");
  CHECK(NDArray::arange(0, 2000).str() ==
        "array([0.000e+00, 1.000e+00, 2.000e+00, ..., 1.997e+03, 1.998e+03,\n"
        "       1.999e+03], shape=(2000,))");
  CHECK(NDArray::arange(0, 3000, 1, DType::Int64).reshape({3, 1000}).str() ==
        "array([[   0,    1,    2, ...,  997,  998,  999],\n"
        "       [1000, 1001, 1002, ..., 1997, 1998, 1999],\n"
        "       [2000, 2001, 2002, ..., 2997, 2998, 2999]], shape=(3, 1000))");
  CHECK(NDArray::arange(0, 1100, 1, DType::Int32).reshape({11, 10, 10}).str() ==
        "array([[[   0,    1,    2, ...,    7,    8,    9],\n"
        "        [  10,   11,   12, ...,   17,   18,   19],\n"
        "        [  20,   21,   22, ...,   27,   28,   29],\n"
        "        ...,\n"
        "        [  70,   71,   72, ...,   77,   78,   79],\n"
        "        [  80,   81,   82, ...,   87,   88,   89],\n"
        "        [  90,   91,   92, ...,   97,   98,   99]],\n"
        "\n"
        "       [[ 100,  101,  102, ...,  107,  108,  109],\n"
        "        [ 110,  111,  112, ...,  117,  118,  119],\n"
        "        [ 120,  121,  122, ...,  127,  128,  129],\n"
        "        ...,\n"
        "        [ 170,  171,  172, ...,  177,  178,  179],\n"
        "        [ 180,  181,  182, ...,  187,  188,  189],\n"
        "        [ 190,  191,  192, ...,  197,  198,  199]],\n"
        "\n"
        "       [[ 200,  201,  202, ...,  207,  208,  209],\n"
        "        [ 210,  211,  212, ...,  217,  218,  219],\n"
        "        [ 220,  221,  222, ...,  227,  228,  229],\n"
        "        ...,\n"
        "        [ 270,  271,  272, ...,  277,  278,  279],\n"
        "        [ 280,  281,  282, ...,  287,  288,  289],\n"
        "        [ 290,  291,  292, ...,  297,  298,  299]],\n"
        "\n"
        "       ...,\n"
        "\n"
        "       [[ 800,  801,  802, ...,  807,  808,  809],\n"
        "        [ 810,  811,  812, ...,  817,  818,  819],\n"
        "        [ 820,  821,  822, ...,  827,  828,  829],\n"
        "        ...,\n"
        "        [ 870,  871,  872, ...,  877,  878,  879],\n"
        "        [ 880,  881,  882, ...,  887,  888,  889],\n"
        "        [ 890,  891,  892, ...,  897,  898,  899]],\n"
        "\n"
        "       [[ 900,  901,  902, ...,  907,  908,  909],\n"
        "        [ 910,  911,  912, ...,  917,  918,  919],\n"
        "        [ 920,  921,  922, ...,  927,  928,  929],\n"
        "        ...,\n"
        "        [ 970,  971,  972, ...,  977,  978,  979],\n"
        "        [ 980,  981,  982, ...,  987,  988,  989],\n"
        "        [ 990,  991,  992, ...,  997,  998,  999]],\n"
        "\n"
        "       [[1000, 1001, 1002, ..., 1007, 1008, 1009],\n"
        "        [1010, 1011, 1012, ..., 1017, 1018, 1019],\n"
        "        [1020, 1021, 1022, ..., 1027, 1028, 1029],\n"
        "        ...,\n"
        "        [1070, 1071, 1072, ..., 1077, 1078, 1079],\n"
        "        [1080, 1081, 1082, ..., 1087, 1088, 1089],\n"
        "        [1090, 1091, 1092, ..., 1097, 1098, 1099]]],\n"
        "      shape=(11, 10, 10), dtype=int32)");
  CHECK(NDArray::arange(0, 40, 1, DType::Int64).reshape({2, 20}).str() ==
        "array([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15,\n"
        "        16, 17, 18, 19],\n"
        "       [20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
        "        36, 37, 38, 39]])");
  CHECK(NDArray::arange(0, 6).reshape({2, 3}).transpose().str() ==
        "array([[0., 3.],\n"
        "       [1., 4.],\n"
        "       [2., 5.]])");
  CHECK(NDArray::arange(0, 1001, 1, DType::Float32).slice(0, std::nullopt, std::nullopt, -1).str() ==
        "array([1000.,  999.,  998., ...,    2.,    1.,    0.],\n"
        "      shape=(1001,), dtype=float32)");
}

TEST_CASE("operator<< prints the repr") {
  std::ostringstream os;
  os << NDArray::from_list<int16_t>({1, 2});
  CHECK(os.str() == "array([1, 2], dtype=int16)");
}

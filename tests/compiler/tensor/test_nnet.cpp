// nnet ops against NumPy fixtures (tests/data/nnet/gen_nnet.py): softmax and
// log_softmax along several axes (including inputs that overflow a naive exp,
// float32 and non-contiguous inputs), the cross-entropies, their gradients,
// infer_shape and errors.
#include <cmath>
#include <limits>

#include <doctest/doctest.h>

#include "test_util.h"
#include "theano/tensor/nnet.h"
#include "theano/theano.hpp"

using namespace theano;
using namespace theano::tensor;
namespace nn = theano::tensor::nnet;

namespace {

std::string fixture(const std::string& name) { return std::string(THEANO_TEST_DATA_DIR) + "/nnet/" + name; }
NDArray load(const std::string& name) { return load_npy(fixture(name + ".npy")); }

void check_close(const NDArray& got, const NDArray& expected, double rtol = 1e-12) {
  REQUIRE(dtype_name(got.dtype()) == dtype_name(expected.dtype()));
  REQUIRE(got.shape() == expected.shape());
  CHECK_MESSAGE(allclose(got, expected, rtol, 1e-12), got.str() << "\nvs\n" << expected.str());
}

NDArray point(std::vector<int64_t> shape, double offset = 0.0) {
  NDArray a = NDArray::empty(shape);
  const int64_t n = a.size();
  for (int64_t i = 0; i < n; ++i) a.data_as<double>()[i] = offset + std::sin(1.7 * static_cast<double>(i) + 0.3);
  return a;
}

}  // namespace

TEST_CASE("softmax and log_softmax match NumPy, stably") {
  const NDArray x = load("x"), t = load("t");
  const Var xm = dmatrix("x"), t3 = dtensor3("t");
  for (int ax : {-1, 0}) {
    check_close(nn::softmax(xm, ax).eval({{xm, x}}), load("softmax_x_" + std::to_string(ax)));
    check_close(nn::log_softmax(xm, ax).eval({{xm, x}}), load("log_softmax_x_" + std::to_string(ax)));
  }
  // 1000 * x: exp would overflow without the max subtraction.
  NDArray big = x.copy();
  for (int64_t i = 0; i < big.size(); ++i) big.data_as<double>()[i] *= 1000;
  check_close(nn::softmax(xm).eval({{xm, big}}), load("softmax_big_-1"));
  check_close(nn::log_softmax(xm).eval({{xm, big}}), load("log_softmax_big_-1"), 1e-9);
  check_close(nn::softmax(t3, 1).eval({{t3, t}}), load("softmax_t_1"));
  check_close(nn::log_softmax(t3, 1).eval({{t3, t}}), load("log_softmax_t_1"));
  // float32 stays float32.
  const Var f = fmatrix("f");
  check_close(nn::softmax(f).eval({{f, load("x32")}}), load("softmax_x32"), 1e-6);
  // A transposed (non-contiguous) input along axis 0 equals the contiguous one along -1.
  const NDArray xt = x.transpose().copy().transpose();
  check_close(nn::softmax(xm, -1).eval({{xm, xt}}), load("softmax_x_-1"));
  const NDArray tr = x.transpose();
  check_close(nn::softmax(xm, 0).eval({{xm, tr}}).transpose().copy(), load("softmax_x_-1"));
  // Each lane sums to one.
  CHECK(allclose(sum(nn::softmax(t3, 2), 2).eval({{t3, t}}), NDArray::ones({2, 3})));
}

TEST_CASE("cross-entropies match NumPy") {
  const NDArray coding = load("coding"), labels = load("labels");
  const Var c = dmatrix("c"), l = ivector("l"), o = dmatrix("o");
  check_close(nn::categorical_crossentropy(c, l).eval({{c, coding}, {l, labels}}), load("ce_labels"));
  CHECK(nn::categorical_crossentropy(c, l).owner()->op()->type_name() == "CrossentropyCategorical1Hot");
  check_close(nn::categorical_crossentropy(c, o).eval({{c, coding}, {o, load("onehot")}}), load("ce_onehot"));
  check_close(nn::categorical_crossentropy(c, o).eval({{c, coding}, {o, load("probs")}}), load("ce_probs"));
  // int64 labels and a transposed coding_dist.
  const Var l64 = lvector("l64");
  check_close(nn::crossentropy_categorical_1hot(c, l64)
                  .eval({{c, coding.transpose().copy().transpose()}, {l64, labels.astype(DType::Int64)}}),
              load("ce_labels"));
  const Var out = dmatrix("out"), tgt = dmatrix("tgt");
  check_close(nn::binary_crossentropy(out, tgt).eval({{out, load("bce_output")}, {tgt, load("bce_target")}}),
              load("bce"));
  // sigmoid / softplus are the elementwise rows, reachable through nnet.
  const Var v = dvector("v");
  CHECK(allclose(nn::sigmoid(v).eval({{v, NDArray::zeros({2})}}), NDArray::full({2}, 0.5)));
  CHECK(allclose(nn::softplus(v).eval({{v, NDArray::zeros({1})}}), NDArray::full({1}, std::log(2.0))));
}

TEST_CASE("verify_grad: softmax, log_softmax and the cross-entropies") {
  for (int ax : {-1, 0}) {
    testing::verify_grad([ax](const std::vector<Var>& in) { return nn::softmax(in[0], ax); }, {point({3, 4})});
    testing::verify_grad([ax](const std::vector<Var>& in) { return nn::log_softmax(in[0], ax); }, {point({3, 4})});
  }
  testing::verify_grad([](const std::vector<Var>& in) { return nn::softmax(in[0], 1); }, {point({2, 3, 2})});
  const NDArray coding = load("coding"), labels = load("labels");
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return nn::categorical_crossentropy(in[0], constant(labels)); }, {coding});
  testing::verify_grad([](const std::vector<Var>& in) { return nn::categorical_crossentropy(in[0], in[1]); },
                       {coding, load("probs")});
  testing::verify_grad([](const std::vector<Var>& in) { return nn::binary_crossentropy(in[0], in[1]); },
                       {load("bce_output"), load("bce_target")});
  // The usual classifier: softmax then cross-entropy with labels.
  testing::verify_grad(
      [&](const std::vector<Var>& in) { return nn::categorical_crossentropy(nn::softmax(in[0]), constant(labels)); },
      {point({4, 5})});
}

TEST_CASE("infer_shape of the nnet ops") {
  const Var x = dmatrix("x"), t = dtensor3("t"), l = ivector("l"), g = dvector("g");
  testing::check_infer_shape({x}, {nn::softmax(x), nn::log_softmax(x, 0)}, {point({3, 4})});
  testing::check_infer_shape({t}, {nn::softmax(t, 1), nn::log_softmax(t, 2)}, {point({2, 3, 4})});
  const NDArray coding = load("coding"), labels = load("labels");
  testing::check_infer_shape({x, l}, {nn::crossentropy_categorical_1hot(x, l)}, {coding, labels});
  const Var gr = OpPtr(new nn::CrossentropyCategorical1HotGrad())->apply1({g, x, l});
  testing::check_infer_shape({g, x, l}, {gr}, {NDArray::ones({4}), coding, labels});
}

TEST_CASE("softsign is x / (1 + |x|), finite at extreme inputs, with gradient 1 / (1 + |x|)^2") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Var x = dvector("x");
  const NDArray got =
      nn::softsign(x).eval({{x, NDArray::from_vector<double>({0.0, 1.0, -3.0, 1e300, -1e300, inf, -inf, nan}, {8})}});
  const std::vector<double> want{0.0, 0.5, -0.75, 1.0, -1.0, 1.0, -1.0};
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(got.data_as<double>()[i] == want[i]);
  CHECK(std::isnan(got.data_as<double>()[7]));
  // Integers compute in float64 (the Float output rule); float32 stays float32.
  CHECK(dtype_name(nn::softsign(ivector("i")).dtype()) == "float64");
  CHECK(dtype_name(nn::softsign(fvector("f")).dtype()) == "float32");
  const NDArray g = grad(sum(nn::softsign(x)), x).eval({{x, NDArray::from_vector<double>({-2.0, 0.0, 1.0}, {3})}});
  CHECK(g.data_as<double>()[0] == doctest::Approx(1.0 / 9));
  CHECK(g.data_as<double>()[1] == 1.0);
  CHECK(g.data_as<double>()[2] == 0.25);
}

TEST_CASE("nnet errors name the op and the variable") {
  CHECK_THROWS_WITH_AS(nn::softmax(imatrix("i")), doctest::Contains("Softmax: expected a float tensor, got i"),
                       TypeError);
  CHECK_THROWS_WITH_AS(nn::log_softmax(dmatrix("m"), 2), doctest::Contains("log_softmax: axis 2 is out of range"),
                       ValueError);
  CHECK_THROWS_WITH_AS(nn::categorical_crossentropy(dmatrix("c"), dtensor3("y")),
                       doctest::Contains("categorical_crossentropy: true_dist must have the rank of coding_dist"),
                       TypeError);
  CHECK_THROWS_WITH_AS(nn::crossentropy_categorical_1hot(dmatrix("c"), dvector("y")),
                       doctest::Contains("labels must be an integer vector, got y"), TypeError);
  CHECK_THROWS_WITH_AS(nn::crossentropy_categorical_1hot(tensor::tensor(DType::Float64, {3, 5}, "c"),
                                                          tensor::tensor(DType::Int32, {4}, "y")),
                       doctest::Contains("one label per row"), ShapeError);
  const Var c = dmatrix("c"), l = ivector("l");
  CHECK_THROWS_WITH_AS(
      nn::crossentropy_categorical_1hot(c, l).eval({{c, NDArray::ones({2, 3})}, {l, NDArray::from_list<int32_t>({0, 3})}}),
      doctest::Contains("label 3 of row 1 is out of range for 3 classes"), IndexError);
}

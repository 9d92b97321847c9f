// TensorType (filtering, static shapes, interning, makers), Config (floatX) and
// Op identity from props.
#include <doctest/doctest.h>

#include "fake_ops.h"
#include "test_util.h"
#include "theano/config.h"
#include "theano/tensor/type.h"

using namespace theano;
using namespace theano::tensor;

TEST_CASE("TensorType is interned, broadcastable derives from static shape") {
  auto a = TensorType::make(DType::Float32, {Dim(), Dim(1)});
  auto b = TensorType::from_broadcastable(DType::Float32, {false, true});
  CHECK(a.get() == b.get());
  CHECK(a->broadcastable() == std::vector<bool>{false, true});
  CHECK(a->str() == "TensorType(float32, col)");
  CHECK(TensorType::make(DType::Int64, {})->str() == "TensorType(int64, scalar)");
  CHECK(TensorType::make(DType::Int64, {Dim(3)})->str() == "TensorType(int64, (3,))");
  CHECK(*a != *TensorType::make(DType::Float64, {Dim(), Dim(1)}));
  CHECK(a->hash() == b->hash());
  CHECK_THROWS_WITH_AS(TensorType::make(DType::Float64, {Dim(-2)}), doctest::Contains("sizes must be >= 0"),
                       ValueError);
}

TEST_CASE("makers: prefixes, ranks, floatX") {
  CHECK(tensor_type(dmatrix("x"))->dtype() == DType::Float64);
  CHECK(dmatrix("x").name() == "x");
  CHECK(tensor_type(ivector())->dtype() == DType::Int32);
  CHECK(tensor_type(ivector())->ndim() == 1);
  CHECK(tensor_type(irow())->broadcastable() == std::vector<bool>{true, false});
  CHECK(tensor_type(fcol())->broadcastable() == std::vector<bool>{false, true});
  CHECK(tensor_type(btensor3())->dtype() == DType::Int8);
  CHECK(tensor_type(wscalar())->dtype() == DType::Int16);
  CHECK(tensor_type(ltensor4())->ndim() == 4);
  CHECK(tensor_type(cvector())->dtype() == DType::Complex64);
  CHECK(tensor_type(zmatrix())->dtype() == DType::Complex128);
  CHECK(tensor_type(tensor::tensor(DType::UInt8, {Dim(2), Dim()}))->str() == "TensorType(uint8, (2, ?))");
  CHECK(tensor_type(matrix())->dtype() == DType::Float64);  // default floatX
  {
    ConfigGuard g(Config::from_flags("floatX=float32"));
    CHECK(tensor_type(matrix())->dtype() == DType::Float32);
    CHECK(tensor_type(vector("v", DType::Int16))->dtype() == DType::Int16);
  }
  CHECK(tensor_type(matrix())->dtype() == DType::Float64);
  CHECK(tensor_type(Var()) == nullptr);
}

TEST_CASE("THEANO_FLAGS parsing") {
  Config c = Config::from_flags(" floatX = float32 , mode=FAST_RUN,,device=cpu");
  CHECK(c.floatX == DType::Float32);
  CHECK(c.flags.at("mode") == "FAST_RUN");
  CHECK(c.flags.at("device") == "cpu");
  CHECK_THROWS_WITH_AS(Config::from_flags("floatX=float16"), doctest::Contains("floatX must be float64 or float32"),
                       ValueError);
  CHECK_THROWS_WITH_AS(Config::from_flags("garbage"), doctest::Contains("'garbage' is not of the form key=value"),
                       ValueError);
}

TEST_CASE("THEANO_FLAGS: a boolean flag's value must be a boolean word, checked when parsed") {
  for (const char* ok : {"profile=True", "log_compile=0", "keep_sources=yes", "nanguard_nan_is_error=OFF",
                         "NanGuardMode__big_is_error=false", "profile="})
    CHECK_NOTHROW(Config::from_flags(ok));
  CHECK_THROWS_WITH_AS(Config::from_flags("mode=FAST_RUN,nanguard_nan_is_error=maybe"),
                       "THEANO_FLAGS nanguard_nan_is_error='maybe' is not a boolean; use true or false (1/0, yes/no, "
                       "on/off; any case)",
                       ValueError);
  CHECK_THROWS_WITH_AS(Config::from_flags("profile=ture"), doctest::Contains("profile='ture' is not a boolean"),
                       ValueError);
  // A Config made in code is checked where the flag is read.
  Config c = config();
  c.flags["log_compile"] = "sometimes";
  ConfigGuard guard(c);
  CHECK_THROWS_WITH_AS(config_flag("log_compile"), doctest::Contains("log_compile='sometimes' is not a boolean"),
                       ValueError);
}

TEST_CASE("TensorType::filter: strict, safe casts, downcasts, ndim and static shape") {
  auto t = TensorType::make(DType::Float64, {Dim(), Dim(3)});
  NDArray ok = NDArray::zeros({2, 3});
  CHECK(t->filter(ok, true).shares_buffer(ok));  // no copy when it already fits
  CHECK(t->is_valid_value(ok));

  NDArray ints = NDArray::zeros({2, 3}, DType::Int32);
  CHECK_FALSE(t->is_valid_value(ints));
  CHECK_THROWS_WITH_AS(t->filter(ints, true), doctest::Contains("expected dtype float64"), TypeError);
  CHECK(t->filter(ints).dtype() == DType::Float64);  // int32 -> float64 is safe

  auto f32 = TensorType::make(DType::Float32, {Dim(), Dim(3)});
  CHECK_THROWS_WITH_AS(f32->filter(ok), doctest::Contains("pass allow_downcast=true"), TypeError);
  CHECK(f32->filter(ok, false, true).dtype() == DType::Float32);

  CHECK_THROWS_WITH_AS(t->filter(NDArray::zeros({2, 4})),
                       doctest::Contains("got shape (2, 4) (dimension 1 must be 3)"), TypeError);
  CHECK_THROWS_WITH_AS(t->filter(NDArray::zeros({3})), doctest::Contains("expected a 2-d array"), TypeError);
  CHECK_THROWS_AS(t->filter(NDArray()), TypeError);
}

TEST_CASE("TensorType::is_super / convert_variable") {
  auto any = TensorType::make(DType::Float64, {Dim(), Dim()});
  auto fixed = TensorType::make(DType::Float64, {Dim(2), Dim(3)});
  CHECK(any->is_super(*fixed));
  CHECK_FALSE(fixed->is_super(*any));
  Var v = fixed->make_variable("v");
  CHECK(any->convert_variable(v) == v);
  CHECK_FALSE(fixed->convert_variable(any->make_variable()));
}

TEST_CASE("ops: equality, hash and name come from props") {
  using testing::FakeOp;
  OpPtr a(new FakeOp("add")), b(new FakeOp("add")), c(new FakeOp("mul")), d(new FakeOp("add", 2, 2));
  CHECK(*a == *b);
  CHECK(a->hash() == b->hash());
  CHECK(*a != *c);
  CHECK(*a != *d);
  CHECK(to_string(PropValue(std::vector<std::int64_t>{1})) == "(1,)");
  CHECK(to_string(PropValue(std::vector<std::int64_t>{0, 2})) == "(0, 2)");
  CHECK(to_string(PropValue(DType::Int8)) == "int8");
  CHECK(to_string(PropValue(true)) == "True");
  // Optional methods name the op when absent.
  Var x = testing::var("x"), y = testing::var("y");
  ApplyPtr n = a->make_node({x, y});
  NDArray in[2], out[1];
  CHECK_THROWS_WITH_AS(a->perform(*n, in, out), doctest::Contains("op add has no reference implementation"),
                       MethodNotDefined);
  CHECK_THROWS_WITH_AS(a->grad(*n, {x}), doctest::Contains("op add does not implement grad"), MethodNotDefined);
  CHECK_THROWS_WITH_AS(a->infer_shape(*n, {}), doctest::Contains("op add does not implement infer_shape"),
                       MethodNotDefined);
  CHECK(a->connection_pattern(*n) == std::vector<std::vector<bool>>{{true}, {true}});
  CHECK(a->apply1({x, y}).owner()->op() == a);
}

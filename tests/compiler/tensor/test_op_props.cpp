// Props declared once (THEANO_OP_PROPS, theano/graph/op_props.h): the macro's
// entry forms, and for the op classes that use it the exact props each gives
// (names, kinds, values: the printed name and the request-key fragment come
// from them, so they must stay as the hand-written props() were), equality
// and hash equal for equal props, unequal when one prop differs.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "theano/compile/function.h"
#include "theano/control/ifelse.h"
#include "theano/gpu/ops.h"
#include "theano/graph/op_props.h"
#include "theano/sparse/components.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/random.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

using namespace theano;
using namespace theano::tensor;

namespace {

// `name:kind=value` per prop, kind one of b i f s v t (bool, int, float,
// string, ints, dtype): two props that print alike but differ in kind differ here.
std::string props_text(const Op& op) {
  std::string r;
  for (const Prop& p : op.props()) {
    static constexpr const char* kKinds = "bifsvt";
    r += (r.empty() ? "" : ";") + p.name + ":" + kKinds[static_cast<int>(p.value.kind())] + "=" + to_string(p.value);
  }
  return r;
}

// a == b with equal hashes, a != c.
void check_identity(const OpPtr& a, const OpPtr& b, const OpPtr& c) {
  CAPTURE(a->name());
  CAPTURE(c->name());
  CHECK(*a == *b);
  CHECK(a->hash() == b->hash());
  CHECK(a->name() == b->name());
  CHECK(*a != *c);
  CHECK(a->props() != c->props());
}

enum class Color { Red, Blue };
PropValue theano_prop_value(Color c) { return std::string(c == Color::Red ? "red" : "blue"); }

// Every entry form: plain, ADL-converted, vector<int>, omitted-when, optional.
class PropsProbe final : public Op {
 public:
  PropsProbe(int a, Color c, std::vector<int> axes, bool flag, std::optional<DType> dtype, std::string s1,
             std::string s2)
      : a_(a), color_(c), axes_(std::move(axes)), flag_(flag), dtype_(dtype), s1_(std::move(s1)), s2_(std::move(s2)) {}
  std::string_view type_name() const override { return "PropsProbe"; }
  ApplyPtr make_node(std::vector<Var>) const override { return {}; }

  THEANO_OP_PROPS((int, a), (Color, color), (std::vector<int>, axes), (bool, flag, false),
                  (std::optional<DType>, dtype, std::nullopt), (std::string, s1), (std::string, s2))
};

IdxList slice_1_3() {
  IdxEntry e;
  e.is_slice = true;
  e.start = IdxBound::constant(1);
  e.stop = IdxBound::constant(3);
  return {e};
}

}  // namespace

TEST_CASE("THEANO_OP_PROPS: entry forms, accessors and more than four entries") {
  PropsProbe p(3, Color::Blue, {2, 0}, false, std::nullopt, "x", "y");
  CHECK(props_text(p) == "a:i=3;color:s=blue;axes:v=(2, 0);s1:s=x;s2:s=y");
  CHECK(p.name() == "PropsProbe{3,blue,(2, 0),x,y}");
  CHECK(p.a() == 3);
  CHECK(p.color() == Color::Blue);
  CHECK(p.axes() == std::vector<int>{2, 0});
  CHECK(!p.flag());
  CHECK(!p.dtype());
  PropsProbe q(3, Color::Blue, {2, 0}, true, DType::Float32, "x", "y");
  CHECK(props_text(q) == "a:i=3;color:s=blue;axes:v=(2, 0);flag:b=True;dtype:t=float32;s1:s=x;s2:s=y");
  check_identity(OpPtr(new PropsProbe(3, Color::Red, {1}, false, {}, "x", "y")),
                 OpPtr(new PropsProbe(3, Color::Red, {1}, false, {}, "x", "y")),
                 OpPtr(new PropsProbe(3, Color::Red, {1}, false, {}, "x", "z")));
}

TEST_CASE("op props: shape, assert and random ops keep their props") {
  CHECK(props_text(Reshape(2)) == "ndim:i=2");
  CHECK(Reshape(2).name() == "Reshape{2}");
  CHECK(props_text(Reshape(2, true)) == "ndim:i=2;of_index:b=True");
  check_identity(OpPtr(new Reshape(2)), OpPtr(new Reshape(2)), OpPtr(new Reshape(2, true)));
  check_identity(OpPtr(new Reshape(2)), OpPtr(new Reshape(2)), OpPtr(new Reshape(3)));

  CHECK(props_text(SpecifyShape({2, SpecifyShape::kUnspecified})) == "spec:v=(2, -1)");
  check_identity(OpPtr(new SpecifyShape({2})), OpPtr(new SpecifyShape({2})), OpPtr(new SpecifyShape({3})));

  CHECK(props_text(Assert("x > 0")) == "msg:s=x > 0");
  check_identity(OpPtr(new Assert("a")), OpPtr(new Assert("a")), OpPtr(new Assert("b")));

  RandomFunction r(Distribution::Uniform, DType::Float32);
  CHECK(props_text(r) ==
        "distribution:s=uniform;dtype:t=float32;size_from_params:b=False;inplace:b=False");
  CHECK(r.name() == "RandomFunction{uniform}");
  check_identity(OpPtr(new RandomFunction(Distribution::Normal, DType::Float64)),
                 OpPtr(new RandomFunction(Distribution::Normal, DType::Float64)),
                 OpPtr(new RandomFunction(Distribution::Uniform, DType::Float64)));
  check_identity(OpPtr(new RandomFunction(Distribution::Normal, DType::Float64)),
                 OpPtr(new RandomFunction(Distribution::Normal, DType::Float64)),
                 OpPtr(new RandomFunction(Distribution::Normal, DType::Float64, false, true)));
}

TEST_CASE("op props: indexing ops keep their props") {
  CHECK(props_text(Subtensor(slice_1_3())) == "idx_list:s=1:3:");
  CHECK(Subtensor(slice_1_3()).name() == "Subtensor{1:3:}");
  check_identity(OpPtr(new Subtensor(slice_1_3())), OpPtr(new Subtensor(slice_1_3())), OpPtr(new Subtensor({})));

  CHECK(props_text(IncSubtensor(slice_1_3(), false, true)) ==
        "idx_list:s=1:3:;inplace:b=False;set_instead_of_inc:b=True");
  CHECK(IncSubtensor(slice_1_3(), true, true).name() == "IncSubtensor{InplaceSet;1:3:}");
  check_identity(OpPtr(new IncSubtensor(slice_1_3())), OpPtr(new IncSubtensor(slice_1_3())),
                 OpPtr(new IncSubtensor(slice_1_3(), false, true)));
}

TEST_CASE("op props: reductions keep their props") {
  CHECK(props_text(CAReduce("add", {1, 0})) == "scalar_op:s=add;axes:v=(0, 1)");
  CHECK(props_text(CAReduce("add", {0}, DType::Float64)) == "scalar_op:s=add;axes:v=(0,);dtype:t=float64");
  CHECK(props_text(CAReduce("add", {0}, std::nullopt, DType::Float64)) ==
        "scalar_op:s=add;axes:v=(0,);acc_dtype:t=float64");
  CHECK(props_text(CAReduce("add", {0}, std::nullopt, std::nullopt, scalar_op("mul"))) ==
        "scalar_op:s=add;axes:v=(0,);pre:s=mul");
  check_identity(OpPtr(new CAReduce("add", {0})), OpPtr(new CAReduce("add", {0})), OpPtr(new CAReduce("mul", {0})));
  check_identity(OpPtr(new CAReduce("add", {0})), OpPtr(new CAReduce("add", {0})),
                 OpPtr(new CAReduce("add", {0}, std::nullopt, DType::Float64)));
  check_identity(OpPtr(new CAReduce("add", {0})), OpPtr(new CAReduce("add", {0})),
                 OpPtr(new CAReduce("add", {0}, std::nullopt, std::nullopt, scalar_op("mul"))));

  CHECK(props_text(ArgReduce(true, {1})) == "axes:v=(1,)");
  CHECK(ArgReduce(false, {1}).name() == "Argmin{(1,)}");
  check_identity(OpPtr(new ArgReduce(true, {1})), OpPtr(new ArgReduce(true, {1})), OpPtr(new ArgReduce(true, {0})));
  // One class, two kinds with the same props: not equal (Op::equals compares
  // the kind), so the merge stage keeps both nodes of a graph that has both.
  CHECK_FALSE(ArgReduce(true, {0}) == ArgReduce(false, {0}));
  const Var m = matrix("m", DType::Float64);
  Function f = function({m}, {argmax(m, 0), argmin(m, 0)});
  const std::vector<NDArray> r = f({NDArray::from_list<double>({1, 5, 4, 2}, {2, 2})});
  CHECK(array_equal(r.at(0), NDArray::from_list<std::int64_t>({1, 0})));
  CHECK(array_equal(r.at(1), NDArray::from_list<std::int64_t>({0, 1})));
}

TEST_CASE("op props: Elemwise and DimShuffle keep their props") {
  CHECK(props_text(Elemwise(scalar_op("add"))) == "scalar_op:s=add;inplace_pattern:v=()");
  CHECK(props_text(Elemwise(scalar_op("add"), {{0, 1}})) == "scalar_op:s=add;inplace_pattern:v=(0, 1)");
  CHECK(Elemwise(scalar_op("add"), {{0, 1}}).name() == "Elemwise{add,inplace}[(0, 1)]");
  check_identity(OpPtr(new Elemwise(scalar_op("add"))), OpPtr(new Elemwise(scalar_op("add"))),
                 OpPtr(new Elemwise(scalar_op("mul"))));
  check_identity(OpPtr(new Elemwise(scalar_op("add"))), OpPtr(new Elemwise(scalar_op("add"))),
                 OpPtr(new Elemwise(scalar_op("add"), {{0, 0}})));

  CHECK(props_text(DimShuffle(2, {1, 0})) == "input_ndim:i=2;new_order:v=(1, 0)");
  CHECK(DimShuffle(1, {kNewAxis, 0}).name() == "DimShuffle{x,0}");
  check_identity(OpPtr(new DimShuffle(2, {1, 0})), OpPtr(new DimShuffle(2, {1, 0})),
                 OpPtr(new DimShuffle(2, {0, 1})));
}

TEST_CASE("op props: control, GPU transfer and sparse ops keep their props") {
  CHECK(props_text(IfElse(2)) == "n_outs:i=2");
  CHECK(IfElse(2).name() == "IfElse{2}");
  check_identity(OpPtr(new IfElse(1)), OpPtr(new IfElse(1)), OpPtr(new IfElse(2)));

  CHECK(props_text(gpu::GpuFromHost(gpu::kEmulatedContext)) == std::string("context:s=") + gpu::kEmulatedContext);

  CHECK(props_text(sparse::CSM(SparseFormat::CSR)) == "format:s=csr");
  CHECK(sparse::CSM(SparseFormat::CSC).name() == "CSM{csc}");
  check_identity(OpPtr(new sparse::CSM(SparseFormat::CSR)), OpPtr(new sparse::CSM(SparseFormat::CSR)),
                 OpPtr(new sparse::CSM(SparseFormat::CSC)));
  check_identity(OpPtr(new sparse::SparseFromDense(SparseFormat::CSR)),
                 OpPtr(new sparse::SparseFromDense(SparseFormat::CSR)),
                 OpPtr(new sparse::SparseFromDense(SparseFormat::CSC)));
  check_identity(OpPtr(new sparse::SpMM(SparseFormat::CSR)), OpPtr(new sparse::SpMM(SparseFormat::CSR)),
                 OpPtr(new sparse::SpMM(SparseFormat::CSC)));
  // A derived component op keeps its base's `format` first.
  CHECK(props_text(sparse::SparseMerge(SparseFormat::CSC, true)) == "format:s=csc;op:s=mul");
}

// Kernel forms (Op::kernel_form, theano/graph/op_traits.h): an op that names a
// function of the shared kernel text gets codegen's generic C++ lowering and
// CUDA form with no codegen file of its own. Shown with an op this program
// defines (as a user's library would): its class, perform and kernel form
// here, the kernel in runtime/kernels/cumulative.h; it is registered, lowered
// on both targets, moved to the GPU and computed there, bit for bit as its
// perform. Test names that run the GPU contain "cuda".
#include <doctest/doctest.h>
#include <theano/codegen/c_linker.h>
#include <theano/compile/linker.h>
#include <theano/fgraph/function_graph.h>
#include <theano/graph/op_props.h>
#include <theano/graph/op_registry.h>
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/cumulative.h>
#include <theano/tensor/as_tensor.h>
#include <theano/tensor/extra_ops.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <random>
#include <string>
#include <typeindex>
#include <vector>

#include "../../codegen/src/emit/lower/lowering.h"
#include "gpu_test_util.h"
#include "lowering_test_util.h"
#include "test_util.h"

namespace {

using namespace theano;
using namespace theano::tensor;
namespace L = theano::codegen::lower;

/// The running sum along `axis` of a float64 or int32 tensor: a stand-in
/// for an op a program defines outside the library.
class ProgramCumsum final : public Op {
 public:
  explicit ProgramCumsum(int axis) : axis_(axis) {}
  THEANO_OP_DECLARE("ProgramCumsum")
  std::optional<KernelForm> kernel_form(const KernelSignature& sig) const override {
    const DType d = sig.out_dtypes.at(0);
    if (d != DType::Float64 && d != DType::Int32) return std::nullopt;  // what perform takes
    return KernelForm{KernelForm::Kind::Lines, "cumulative.h", "theano_cumsum_" + std::string(kernel_dtype_suffix(d)),
                      axis_};
  }
  THEANO_OP_PROPS((int, axis))
};

ApplyPtr ProgramCumsum::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input";
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(axis_ >= 0 && axis_ < t.ndim(), ValueError) << name() << ": axis out of range";
  return Apply::create(OpPtr(this), {x}, {t.make_variable()});
}

void ProgramCumsum::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  NDArray out = inputs[0].copy();  // C-contiguous: line (o, i) starts at element (o * n + 0) * inner + i
  const std::vector<std::int64_t>& s = out.shape();
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis_; ++d) outer *= s[static_cast<std::size_t>(d)];
  for (std::size_t d = static_cast<std::size_t>(axis_) + 1; d < s.size(); ++d) inner *= s[d];
  const std::int64_t n = s[static_cast<std::size_t>(axis_)];
  const auto item = static_cast<std::int64_t>(out.itemsize());
  char* base = static_cast<char*>(out.data());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      char* line = base + (o * n * inner + i) * item;
      if (out.dtype() == DType::Float64)
        theano_cumsum_f64(line, inner * item, line, inner * item, n);
      else if (out.dtype() == DType::Int32)
        theano_cumsum_i32(line, inner * item, line, inner * item, n);
      else
        throw TypeError(name() + ": float64 or int32 only");
    }
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> ProgramCumsum::infer_shape(const Apply&,
                                                         const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

THEANO_REGISTER_OP(ProgramCumsum, .no_grad = "a test op (tests/codegen/test_kernel_form.cpp)");

Var program_cumsum(const Var& x, int axis) { return OpPtr(new ProgramCumsum(axis))->apply1({x}); }

}  // namespace

TEST_SUITE("kernel form") {
  TEST_CASE("kernel form: an op defined in a program gets both lowerings from the registry") {
    const std::type_index type(typeid(ProgramCumsum));
    CHECK((L::find_lowering(type, L::Target::Cpu) != nullptr));
    CHECK((L::find_lowering(type, L::Target::Cuda) != nullptr));
    bool registered = false;
    for (const OpInfo& op : registered_ops())
      if (*op.type == typeid(ProgramCumsum)) registered = op.has_kernel_form;
    CHECK(registered);
    // The library's CumOp has no lowering file: its rows are the generic ones too.
    CHECK((L::find_lowering(std::type_index(typeid(CumOp)), L::Target::Cpu) == L::find_lowering(type, L::Target::Cpu)));
  }

  TEST_CASE("kernel form: generated code calls the named kernel and matches perform, strided and 0-size") {
    std::mt19937_64 rng(11);
    for (const DType dt : {DType::Float64, DType::Int32}) {
      CAPTURE(dtype_name(dt));
      const Var x = tensor::tensor(dt, StaticShape(3), "x");
      const std::vector<Var> outs{program_cumsum(x, 0), program_cumsum(x, 1), program_cumsum(x, 2)};
      for (const std::vector<std::int64_t>& shape :
           std::vector<std::vector<std::int64_t>>{{2, 3, 4}, {1, 7, 1}, {3, 0, 2}}) {
        test::check_sets({x}, outs, {{test::random_array(rng, shape, dt, -4, 5)}}, {.bitwise = true});
      }
      const std::string src = codegen::CLinker::generate_source(FunctionGraph({x}, {outs[1]}), {}, false);
      CHECK(src.find("theano_cumsum_" + std::string(kernel_dtype_suffix(dt)) + "(x0->data") != std::string::npos);
    }
  }

  TEST_CASE("kernel form: a dtype the op has no kernel form for runs perform") {
    // ProgramCumsum's kernel form takes float64 and int32 only; a float32 node
    // is refused by the lowering (a Dtype reason) and runs its perform.
    const Var x = matrix("x", DType::Float32);
    FunctionGraph fg({x}, {program_cumsum(x, 1)});
    try {
      (void)codegen::CLinker::generate_source(fg, {}, false);
      FAIL("a float32 ProgramCumsum was lowered");
    } catch (const codegen::LoweringError& e) {
      CHECK(e.reason() == codegen::LoweringReason::Dtype);
      CHECK(std::string(e.what()).find("ProgramCumsum") != std::string::npos);
    }
  }

  TEST_CASE("kernel form: every kernel file is embedded, by name") {
    CHECK(L::kernel_text("cumulative.h").find("THEANO_CUMULATIVE(double, double, f64)") != std::string_view::npos);
    CHECK(L::kernel_text("shape_rules.h").find("#include") == std::string_view::npos);  // host-only includes dropped
    CHECK_THROWS_AS((void)L::kernel_text("no_such_kernels.h"), InternalError);
  }

  TEST_CASE("cuda emulated: a program's kernel-form op moves to the GPU and matches perform bit for bit") {
    const Var x = tensor3("x", DType::Float64);
    const std::vector<Var> outs{program_cumsum(x, 0), program_cumsum(x, 2)};
    const NDArray a = gpu_test::random_array({3, 40, 5}, DType::Float64, 3);
    Function gpu = gpu_test::check_on_gpu({x}, outs, {a}, {"ProgramCumsum"}, 0);
    auto fg = std::make_shared<FunctionGraph>(std::vector<Var>{x}, outs);
    std::vector<NDArray> want(2);
    make_perform_linker()->make_thunk(fg)->run(std::vector<NDArray>{a}, want);
    const std::vector<NDArray> got = gpu({a});
    for (std::size_t k = 0; k < 2; ++k) CHECK(array_equal(got[k].to_host(), want[k]));
    gpu_test::check_nvrtc(gpu);
  }
}

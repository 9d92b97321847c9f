// Output-dtype rules, the ScalarOp of a table row, the cast op, and how one
// elementwise application computes (computes_in_int64, apply_*).
#include <functional>
#include <algorithm>
#include <map>
#include <mutex>

#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/tensor/c_template.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

DType upgrade_to_float(DType d) {
  switch (d) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
    case DType::Int16:
    case DType::UInt16:
      return DType::Float32;
    case DType::Int32:
    case DType::UInt32:
    case DType::Int64:
    case DType::UInt64:
      return DType::Float64;
    default:
      return d;
  }
}

namespace {

std::string dtype_list(std::span<const DType> ds) {
  std::string r;
  for (DType d : ds) r += (r.empty() ? "" : ", ") + std::string(dtype_name(d));
  return "(" + r + ")";
}

DType promote_all(std::span<const DType> ds) {
  DType r = ds[0];
  for (std::size_t i = 1; i < ds.size(); ++i) r = promote_types(r, ds[i]);
  return r;
}

}  // namespace

DType scalar_out_dtype(std::string_view op_name, OutRule rule, std::span<const DType> inputs,
                       std::optional<DType> fixed) {
  THEANO_USER_CHECK(!inputs.empty(), TypeError) << op_name << " needs at least one input";
  for (DType d : inputs)
    THEANO_USER_CHECK(!is_complex(d), TypeError)
        << op_name << ": complex dtypes are storage-only in this version (inputs " << dtype_list(inputs) << ")";
  switch (rule) {
    case OutRule::Upcast:
      return promote_all(inputs);
    case OutRule::UpcastFrom1:
      THEANO_USER_CHECK(inputs.size() >= 2, TypeError) << op_name << " needs at least 2 inputs";
      return promote_all(inputs.subspan(1));
    case OutRule::Float:
      return upgrade_to_float(promote_all(inputs));
    case OutRule::Bool:
      return DType::Bool;
    case OutRule::IntOnly: {
      for (DType d : inputs)
        THEANO_USER_CHECK(is_integer(d) || is_bool(d), TypeError)
            << op_name << " is defined for bool and integer dtypes only, got " << dtype_list(inputs)
            << "; cast the float inputs first";
      return promote_all(inputs);
    }
    case OutRule::SecondInput:
      THEANO_USER_CHECK(inputs.size() == 2, TypeError) << op_name << " takes 2 inputs";
      return inputs[1];
    case OutRule::Fixed:
      THEANO_INTERNAL_CHECK(fixed.has_value()) << op_name << ": OutRule::Fixed without a dtype";
      return *fixed;
  }
  THEANO_INTERNAL_CHECK(false) << "unknown OutRule";
}

ApplyPtr ScalarOp::make_node(std::vector<Var> inputs) const {
  std::vector<DType> dts;
  for (const Var& v : inputs) {
    const auto* st = v ? dynamic_cast<const ScalarType*>(v.type().get()) : nullptr;
    THEANO_USER_CHECK(st, TypeError) << "scalar op " << name() << " takes scalar variables (ScalarType), got "
                                     << (v ? v.type()->str() : std::string("a null Var"));
    dts.push_back(st->dtype());
  }
  THEANO_USER_CHECK(nin() < 0 ? !inputs.empty() : static_cast<int>(inputs.size()) == nin(), TypeError)
      << "scalar op " << name() << " takes " << (nin() < 0 ? std::string("at least 1") : std::to_string(nin()))
      << " inputs, got " << inputs.size();
  Var out = ScalarType::make(out_dtype(dts))->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

namespace {

/// A row of the scalar table as a ScalarOp.
class PrimitiveScalarOp final : public ScalarOp {
 public:
  explicit PrimitiveScalarOp(const ScalarOpInfo& info) : info_(info) {}
  std::string_view type_name() const override { return "Scalar"; }
  Props props() const override { return {{"name", info_.name}}; }
  std::string name() const override { return info_.name; }
  int nin() const override { return info_.arity; }
  DType out_dtype(std::span<const DType> inputs) const override {
    if (info_.arity >= 0)
      THEANO_USER_CHECK(static_cast<int>(inputs.size()) == info_.arity, TypeError)
          << info_.name << " takes " << info_.arity << " inputs, got " << inputs.size();
    return scalar_out_dtype(info_.name, info_.rule, inputs);
  }
  double eval(const double* a) const override { return info_.impl(a); }
  std::optional<std::int64_t> eval_int(const std::int64_t* a) const override {
    if (!info_.int_impl) return std::nullopt;
    return info_.int_impl(a);
  }
  std::string c_expr() const override { return info_.c_expr; }
  std::vector<Var> tensor_grad(const std::vector<Var>& inputs, const Var& output, const Var& gz) const override {
    THEANO_USER_CHECK(bool(info_.grad), MethodNotDefined)
        << "the scalar op " << info_.name << " has no gradient; it cannot be differentiated";
    return info_.grad(inputs, output, gz);
  }
  bool commutative() const override { return info_.commutative; }
  bool associative() const override { return info_.associative; }
  bool has_int_form() const override { return info_.int_impl != nullptr; }
  bool has_float_form() const override { return info_.float_form; }
  bool is_invert() const override { return info_.name == "invert"; }

 private:
  const ScalarOpInfo& info_;
};

// Why a scalar op has none of the tensor op's parts (registered below).
constexpr std::string_view kScalarOp =
    "a scalar op: it runs inside an Elemwise, whose perform, infer_shape, grad and lowerings use its eval, "
    "tensor_grad and C expression";
THEANO_REGISTER_OP(PrimitiveScalarOp, .kinds = {"Scalar"}, .no_perform = kScalarOp, .no_infer_shape = kScalarOp,
                   .no_grad = kScalarOp, .no_cpp = kScalarOp, .no_cuda = kScalarOp);

/// Conversion to a fixed dtype (Theano's Cast{dtype}): the identity on the
/// compute value; the conversion itself (NumPy's unsafe casting) is the one
/// every elementwise result gets into its dtype (computes_in_int64).
class CastOp final : public ScalarOp {
 public:
  explicit CastOp(DType d) : dtype_(d) {}
  std::string_view type_name() const override { return "Cast"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  int nin() const override { return 1; }
  DType out_dtype(std::span<const DType> inputs) const override {
    THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "cast takes 1 input, got " << inputs.size();
    return scalar_out_dtype("cast", OutRule::Fixed, inputs, dtype_);
  }
  double eval(const double* a) const override { return a[0]; }
  std::optional<std::int64_t> eval_int(const std::int64_t* a) const override { return a[0]; }
  std::string c_expr() const override { return "({0})"; }
  std::vector<Var> tensor_grad(const std::vector<Var>& inputs, const Var&, const Var& gz) const override {
    const DType in = tensor_type(inputs[0])->dtype();
    if (!is_float(in)) return {Var()};  // no gradient flows into an integer input
    return {cast(gz, in)};
  }

 private:
  DType dtype_;
};
THEANO_REGISTER_OP(CastOp, .kinds = {"Cast"}, .no_perform = kScalarOp, .no_infer_shape = kScalarOp,
                   .no_grad = kScalarOp, .no_cpp = kScalarOp, .no_cuda = kScalarOp);

}  // namespace

bool computes_in_int64(const ScalarOp& op, std::span<const DType> inputs, DType output) {
  auto int_like = [](DType d) { return is_integer(d) || is_bool(d); };
  if (!int_like(output) || !op.has_int_form()) return false;
  return std::all_of(inputs.begin(), inputs.end(), int_like);
}

namespace {

bool is_bool_invert(const ScalarOp& op, DType output) { return output == DType::Bool && op.is_invert(); }

}  // namespace

std::int64_t apply_int64(const ScalarOp& op, std::span<const std::int64_t> args, DType output) {
  if (is_bool_invert(op, output)) return args[0] == 0;  // numpy: ~ of a bool is logical not
  std::optional<std::int64_t> v;
  if (op.nin() < 0 && args.size() > 2) {
    v = args[0];
    for (std::size_t k = 1; k < args.size() && v; ++k) {
      const std::int64_t pair[2] = {*v, args[k]};
      v = op.eval_int(pair);
    }
  } else {
    v = op.eval_int(args.data());
  }
  THEANO_INTERNAL_CHECK(v.has_value()) << "scalar op " << op.name() << " has no integer form";
  return *v;
}

double apply_double(const ScalarOp& op, std::span<const double> args) {
  if (!(op.nin() < 0 && args.size() > 2)) return op.eval(args.data());
  double v = args[0];
  for (std::size_t k = 1; k < args.size(); ++k) {
    const double pair[2] = {v, args[k]};
    v = op.eval(pair);
  }
  return v;
}

bool computes_in_float32(const ScalarOp& op, std::span<const DType> inputs, DType output) {
  if (output != DType::Float32 || !op.has_float_form()) return false;
  return std::all_of(inputs.begin(), inputs.end(), [](DType d) { return d == DType::Float32; });
}

std::string apply_c_expr(const ScalarOp& op, const std::vector<std::string>& args, DType output, bool int64) {
  if (int64 && is_bool_invert(op, output)) return "(" + args[0] + " == 0)";
  const std::string t = op.c_expr();
  if (!(op.nin() < 0 && args.size() > 2)) return expand_c_template(t, args);
  std::string acc = args[0];
  for (std::size_t k = 1; k < args.size(); ++k) acc = expand_c_template(t, {acc, args[k]});
  return acc;
}

ScalarOpPtr scalar_op(std::string_view name) {
  static std::mutex mu;
  static std::map<std::string, ScalarOpPtr, std::less<>> ops;
  std::lock_guard<std::mutex> lock(mu);
  auto it = ops.find(name);
  if (it != ops.end()) return it->second;
  ScalarOpPtr op(new PrimitiveScalarOp(scalar_op_info(name)));
  ops.emplace(std::string(name), op);
  return op;
}

ScalarOpPtr scalar_cast_op(DType dtype) {
  static std::mutex mu;
  static std::map<DType, ScalarOpPtr> ops;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = ops[dtype];
  if (!slot) slot = ScalarOpPtr(new CastOp(dtype));
  return slot;
}

}  // namespace theano::tensor

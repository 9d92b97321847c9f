/// \file
/// The scalar op table and the scalar sub-language used inside Elemwise and
/// Composite (Theano's `theano.scalar`).
///
/// Every elementwise function is one row of `scalar_table.cpp`: its name, arity,
/// output-dtype rule, C expression template (for code generation), a reference
/// implementation in double precision and, where exactness needs it, in int64,
/// and its gradient written with tensor ops. `Elemwise` lifts a ScalarOp to
/// tensors with broadcasting; `Composite` is a graph of ScalarOps over
/// `ScalarType` variables treated as one ScalarOp (what fusion produces).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/runtime/dtype.h"

namespace theano::tensor {

/// How a scalar op's output dtype follows from its input dtypes.
enum class OutRule {
  Upcast,       ///< numpy promotion of all inputs (add, mul, maximum, ...)
  UpcastFrom1,  ///< promotion of inputs 1.. (switch: the condition does not count)
  Float,        ///< promotion, then ints -> float (int8/16, uint8/16, bool -> float32; wider -> float64)
  Bool,         ///< bool (comparisons, isnan, logical results)
  IntOnly,      ///< promotion; floats refused (bitwise ops)
  SecondInput,  ///< the dtype of input 1 (second / fill)
  Fixed,        ///< a dtype given by the op's props (cast)
};

/// Gradient of one scalar op, written with tensor ops: given the node's inputs,
/// its output and the output gradient `gz`, one gradient per input (a null Var
/// means "no gradient flows", e.g. for integer inputs).
using ScalarGradFn = std::vector<Var> (*)(const std::vector<Var>& inputs, const Var& output, const Var& gz);

/// One row of the scalar op table.
struct ScalarOpInfo {
  std::string name;  ///< Theano's name: "add", "true_div", "sigmoid", ...
  int arity;         ///< number of inputs; -1 for n-ary (add, mul: at least 1)
  OutRule rule;
  std::string c_expr;  ///< C expression template with {0}, {1}, ... for the inputs
  /// Whether c_expr has a float32 form: the same template compiled in the
  /// prelude's float domain (namespace theano_s), where every name it calls is a
  /// float function (computes_in_float32; tests/codegen/test_scalar_float_forms.cpp).
  bool float_form = false;
  /// Reference implementation on doubles (floats, and ints when no int_impl).
  double (*impl)(const double* args);
  /// Exact implementation for integer/bool compute dtypes, or nullptr.
  std::int64_t (*int_impl)(const std::int64_t* args) = nullptr;
  ScalarGradFn grad = nullptr;  ///< null: not differentiable (MethodNotDefined if needed)
  bool commutative = false;
  bool associative = false;
};

/// The row named `name` (ValueError listing similar names when unknown).
const ScalarOpInfo& scalar_op_info(std::string_view name);
/// Every row, in table order.
std::span<const ScalarOpInfo> scalar_op_table();

/// Output dtype of `rule` for these inputs; TypeError naming `op_name` when the
/// inputs are not acceptable (e.g. bitwise on floats, complex anywhere).
DType scalar_out_dtype(std::string_view op_name, OutRule rule, std::span<const DType> inputs,
                       std::optional<DType> fixed = {});

/// int -> float promotion used by OutRule::Float.
DType upgrade_to_float(DType d);

/// A scalar operation: a table row, a cast, or a Composite. It is also an Op
/// over ScalarType variables, so Composite graphs can be built with it.
class ScalarOp : public Op {
 public:
  virtual int nin() const = 0;  ///< -1: n-ary
  /// Number of outputs: 1 except for multi-output Composites (what
  /// multi-output fusion builds); the single-output members below (`eval`,
  /// `c_expr`, `out_dtype`, `tensor_grad`) then describe output 0 only, and
  /// Composite's `*_all` members give every output.
  virtual int nout() const { return 1; }
  virtual DType out_dtype(std::span<const DType> inputs) const = 0;
  /// Evaluates one element. `compute` is the dtype whose domain to use: for
  /// integer/bool compute dtypes `iargs` are valid, else `dargs`.
  virtual double eval(const double* dargs) const = 0;
  virtual std::optional<std::int64_t> eval_int(const std::int64_t* iargs) const = 0;
  /// C expression template ({0}, {1}, ...), for code generation.
  virtual std::string c_expr() const = 0;
  /// Tensor-level gradient (see ScalarGradFn).
  virtual std::vector<Var> tensor_grad(const std::vector<Var>& inputs, const Var& output, const Var& gz) const = 0;
  virtual bool commutative() const { return false; }
  virtual bool associative() const { return false; }
  /// Whether `eval_int` computes this op exactly on integers (false: integer
  /// arguments are computed in double, see computes_in_int64).
  virtual bool has_int_form() const { return true; }
  /// Whether its C expression computes in float for float32 values (a scalar
  /// table row's float column; see computes_in_float32).
  virtual bool has_float_form() const { return false; }
  /// Whether this is `invert` (bitwise not; logical not on bools). Cheap: the
  /// per-element evaluation asks it.
  virtual bool is_invert() const { return false; }

  /// Op interface over ScalarType variables (used to build Composite graphs).
  ApplyPtr make_node(std::vector<Var> inputs) const override;
};
using ScalarOpPtr = IntrusivePtr<const ScalarOp>;
/// A scalar op as an op prop (Elemwise's, CAReduce's fused one): its name
/// (theano/graph/op_props.h).
inline PropValue theano_prop_value(const ScalarOpPtr& op) { return op->name(); }

/// How ONE elementwise application of a (non-Composite) scalar op computes.
/// Elemwise::perform, its lowering and every node inside a Composite follow
/// these, so a graph gives the same values fused or not: in int64 when every
/// input and the output is an integer or bool and the op has an exact integer
/// form, else in double; the value is then converted to the output dtype as
/// scalar_cast converts (integers wrap, float -> integer as numpy does).
bool computes_in_int64(const ScalarOp& op, std::span<const DType> inputs, DType output);
/// Whether generated code computes one application in float (single
/// precision): every input and the output are float32 and the op's scalar table
/// row has a float form (ScalarOpInfo::float_form: its C expression in the
/// prelude's namespace theano_s). Elsewhere float32 values
/// compute in double, as perform always does; the two agree within float32
/// rounding (a few ulp per op).
bool computes_in_float32(const ScalarOp& op, std::span<const DType> inputs, DType output);
/// One application in int64 (n-ary ops fold left; invert of a bool is logical not).
std::int64_t apply_int64(const ScalarOp& op, std::span<const std::int64_t> args, DType output);
/// One application in double (n-ary ops fold left).
double apply_double(const ScalarOp& op, std::span<const double> args);
/// The C expression of one application over argument expressions already of
/// the domain's C type (int64_t or double), as apply_int64 / apply_double compute it.
std::string apply_c_expr(const ScalarOp& op, const std::vector<std::string>& args, DType output, bool int64);

/// The ScalarOp of a table row, e.g. `scalar_op("add")`.
ScalarOpPtr scalar_op(std::string_view name);
/// Conversion to `dtype` (the `cast` row with its target as a prop).
ScalarOpPtr scalar_cast_op(DType dtype);

/// A scalar Variable type (values are 0-d NDArrays), used inside Composite.
class ScalarType final : public Type {
 public:
  static IntrusivePtr<const ScalarType> make(DType dtype);
  DType dtype() const { return dtype_; }
  std::string str() const override;
  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  NDArray filter(const NDArray& value, bool strict = false, bool allow_downcast = false) const override;

 private:
  explicit ScalarType(DType d) : dtype_(d) {}
  DType dtype_;
};

/// One value inside a Composite: an integer or bool dtype's as int64 (already
/// converted to its dtype: an int8 value is in [-128, 127]), a float's as
/// double. Which member holds it follows from the value's dtype.
struct ScalarValue {
  std::int64_t i = 0;
  double d = 0;
};

/// A scalar graph (ScalarType inputs -> one or more outputs) acting as one
/// ScalarOp. Evaluation walks the inner graph; its C code is one local per
/// inner node (`c_program`). With several outputs (multi-output fusion: `(x+y)*2, (x+y)*3`
/// in one loop) the members named `*_all` / `out_dtypes` give each output.
///
/// Each inner node computes as the same op would as an Elemwise of its own
/// (computes_in_int64 and the conversion to its dtype), so fusion does not
/// change results: `x + (k + k)` wraps `k + k` in int64 as the unfused graph
/// does, `cast(v, uint8)` wraps to [0, 255] inside the loop, and a float32
/// inner value is rounded to float32 (`cast(cast(x, float32), float64)` of a
/// float64 x loses the bits the unfused graph loses).
class Composite final : public ScalarOp {
 public:
  Composite(std::vector<Var> inputs, Var output);
  Composite(std::vector<Var> inputs, std::vector<Var> outputs);
  std::string_view type_name() const override { return "Composite"; }
  // By hand: the inner graph's text, built by the constructor (`equals` compares the graph).
  Props props() const override;
  std::string name() const override;
  bool equals(const Op& other) const override;
  std::size_t hash() const override;
  /// Its name prints constants rounded: the inner graph identifies it, not props.
  bool keyed_by_props() const override { return false; }
  int nin() const override { return static_cast<int>(inputs_.size()); }
  DType out_dtype(std::span<const DType> inputs) const override;
  double eval(const double* dargs) const override;
  std::optional<std::int64_t> eval_int(const std::int64_t* iargs) const override;
  std::string c_expr() const override;
  std::vector<Var> tensor_grad(const std::vector<Var>& inputs, const Var& output, const Var& gz) const override;
  int nout() const override { return static_cast<int>(outputs_.size()); }
  bool has_int_form() const override { return false; }  // its nodes decide, one by one
  /// Every output's dtype.
  std::vector<DType> out_dtypes() const;
  /// Every output's value from the inputs' (ScalarValue: int64 for integer and
  /// bool dtypes, double for floats).
  void evaluate(const ScalarValue* in, ScalarValue* out) const;
  /// Each output's C expression with the inner expressions nested: a value
  /// used twice is written twice and a chain of n ops nests n deep, so this is
  /// for display and small graphs; code generation uses `c_program`.
  std::vector<std::string> c_exprs() const;
  /// The inner graph as straight-line C code, one local per inner node, so
  /// the code is linear in the number of inner nodes however deep or shared
  /// the graph is. Templates use {0}..{nin-1} for the inputs and {nin + j} for
  /// local j. Every value has its dtype's C type (a float's: double, holding
  /// a float32 value rounded to float32), as a ScalarValue does. `locals[j].expr` (over the inputs and locals before j,
  /// already converted to the node's compute type: int64_t when `int64`,
  /// else double) is node j's value before its conversion to `dtype`, which
  /// the code generator writes; `outputs[k]` is output k's value (an input, a
  /// local or a constant of its dtype). nullopt when an inner op has no C
  /// expression.
  struct CLocal {
    std::string expr;
    bool int64 = false;
    DType dtype = DType::Float64;
    /// computes_in_float32: the expression reads float values (its constants
    /// are float literals) and has a float form.
    bool float32 = false;
  };
  struct CProgram {
    std::vector<CLocal> locals;
    std::vector<std::string> outputs;
  };
  std::optional<CProgram> c_program() const;
  /// Gradient with respect to the inputs given one gradient per output (a
  /// null Var: no gradient flows from that output).
  std::vector<Var> tensor_grad_all(const std::vector<Var>& inputs, const std::vector<Var>& gzs) const;
  const std::vector<Var>& inner_inputs() const { return inputs_; }
  const Var& inner_output() const { return outputs_.front(); }
  const std::vector<Var>& inner_outputs() const { return outputs_; }
  /// The number of inner nodes (the size of its loop body).
  std::size_t inner_size() const { return steps_.size(); }

 private:
  /// One inner node: its op, the slots of its arguments and result, and how
  /// it computes (computes_in_int64).
  struct Step {
    const ScalarOp* op;
    std::vector<int> args;
    int out;
    bool int64;
  };
  std::vector<Var> inputs_;
  std::vector<Var> outputs_;
  std::vector<Apply*> order_;  // inner toposort
  std::string text_;           // canonical text of the inner graph (props)
  // Value slots: inputs, then constants (with their values), then node results.
  std::vector<DType> slot_dtype_;
  std::vector<ScalarValue> slot_init_;
  std::vector<Step> steps_;
  std::vector<int> out_slot_;
};

}  // namespace theano::tensor

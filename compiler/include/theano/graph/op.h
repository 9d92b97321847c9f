/// \file
/// `Op`: the operation of an Apply node. An Op is a small immutable value: its
/// `props()` give equality, hashing, its printed name and its part of a function
/// request's key, so two Ops with equal props are interchangeable (merge relies on it).
/// It states its own facts for the passes (`foldable`, `gpu_form`,
/// `inplace_variants`: theano/graph/op_traits.h).
///
/// The Op's own members: `make_node` (type inference, user-facing type errors),
/// `perform` (reference implementation on NDArray), `infer_shape`, `grad`, `view_map` /
/// `destroy_map`; its C++ and CUDA code live in codegen/'s lowering tables (every file an
/// op touches: docs/adding-an-op.md). Optional methods throw MethodNotDefined when absent.
///
/// Ops are always heap-allocated and shared through OpPtr (`OpPtr(new MyOp(...))`):
/// `make_node` hands `OpPtr(this)` to the Apply it builds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "theano/graph/intrusive.h"
#include "theano/graph/op_traits.h"
#include "theano/graph/small_map.h"
#include "theano/runtime/ndarray.h"

namespace theano {

class Apply;
class Var;
using ApplyPtr = IntrusivePtr<Apply>;

/// One parameter of an Op. The alternatives cover what Theano ops use as
/// `__props__`: flags, integers, floats, names, axis lists, dtypes. (A tagged
/// value by hand rather than std::variant: every user translation unit sees the
/// Op interface, and <variant> would cost each of them.)
class PropValue {
 public:
  enum class Kind : std::uint8_t { Bool, Int, Float, String, Ints, DType };

  PropValue() = default;  // Bool false, as a default std::variant held
  PropValue(bool v) : kind_(Kind::Bool), b_(v) {}
  template <class T>
    requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
  PropValue(T v) : kind_(Kind::Int), i_(static_cast<std::int64_t>(v)) {}
  PropValue(double v) : kind_(Kind::Float), d_(v) {}
  PropValue(std::string v) : kind_(Kind::String), s_(std::move(v)) {}
  PropValue(const char* v) : kind_(Kind::String), s_(v) {}
  PropValue(std::vector<std::int64_t> v) : kind_(Kind::Ints), v_(std::move(v)) {}
  PropValue(DType v) : kind_(Kind::DType), t_(v) {}

  Kind kind() const { return kind_; }
  /// Calls `f` with the held value (bool, int64_t, double, std::string,
  /// std::vector<int64_t> or DType) and returns what it returns.
  template <class F>
  decltype(auto) visit(F&& f) const {
    switch (kind_) {
      case Kind::Bool: return std::forward<F>(f)(b_);
      case Kind::Int: return std::forward<F>(f)(i_);
      case Kind::Float: return std::forward<F>(f)(d_);
      case Kind::String: return std::forward<F>(f)(s_);
      case Kind::Ints: return std::forward<F>(f)(v_);
      case Kind::DType: break;
    }
    return std::forward<F>(f)(t_);
  }

  friend bool operator==(const PropValue& a, const PropValue& b) {
    if (a.kind_ != b.kind_) return false;
    switch (a.kind_) {
      case Kind::Bool: return a.b_ == b.b_;
      case Kind::Int: return a.i_ == b.i_;
      case Kind::Float: return a.d_ == b.d_;
      case Kind::String: return a.s_ == b.s_;
      case Kind::Ints: return a.v_ == b.v_;
      case Kind::DType: break;
    }
    return a.t_ == b.t_;
  }

 private:
  Kind kind_ = Kind::Bool;
  bool b_ = false;
  DType t_ = DType::Bool;
  std::int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  std::vector<std::int64_t> v_;
};
struct Prop {
  std::string name;
  PropValue value;
  friend bool operator==(const Prop&, const Prop&) = default;
};
using Props = std::vector<Prop>;
std::string to_string(const PropValue& v);

/// Output index -> input indices it aliases (view_map) or overwrites (destroy_map).
using ViewMap = SmallMap<int, std::vector<int>>;

class Op : public RefCounted {
 public:
  /// The Op's class name as Theano spells it, e.g. "Elemwise", "DimShuffle".
  virtual std::string_view type_name() const = 0;
  /// The parameters that make two Ops of one class different.
  virtual Props props() const { return {}; }
  /// Printed name: `type_name{p1,p2}` with prop values, or just `type_name`.
  virtual std::string name() const;
  /// Same class, same kind (`type_name()`) and same props.
  virtual bool equals(const Op& other) const;
  virtual std::size_t hash() const;
  /// Whether `type_name()`, `props()` and `inner_graph()` identify this Op
  /// exactly, so that a function request can be keyed by them
  /// (compile/request_text.h). An Op that overrides `equals` because they do
  /// not tell it apart (a wrapped Op) returns false, and functions using it
  /// always compile through the optimizer.
  virtual bool keyed_by_props() const { return true; }
  /// An inner graph that is part of this Op's identity beside `props()`
  /// (Scan's step): its inputs and outputs, which a function request spells
  /// out node by node (compile/request_text.h). Both null when there is none.
  struct InnerGraph {
    const std::vector<Var>* inputs = nullptr;
    const std::vector<Var>* outputs = nullptr;
  };
  virtual InnerGraph inner_graph() const { return {}; }

  /// Builds an Apply for these inputs, checking their types. User errors raise
  /// TypeError naming the Op and the offending input.
  virtual ApplyPtr make_node(std::vector<Var> inputs) const = 0;
  /// `make_node(inputs)->outputs()`.
  std::vector<Var> operator()(std::vector<Var> inputs) const;
  /// The single (or default) output of `make_node(inputs)`.
  Var apply1(std::vector<Var> inputs) const;
  /// Which output `Apply::out()` returns when the node has several.
  virtual std::optional<int> default_output() const { return std::nullopt; }

  /// Whether `perform` is implemented (a test requires every Op to have one or
  /// to say explicitly that it has none).
  virtual bool has_perform() const { return false; }
  /// Reference implementation. `outputs[i]` may hold a previous result that the
  /// Op is free to reuse when its shape and dtype fit.
  virtual void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const;
  /// Symbolic output shapes (one vector of scalar int64 Vars per output) from the
  /// input shapes.
  virtual std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                                    const std::vector<std::vector<Var>>& input_shapes) const;
  /// Reverse-mode gradient: one Var per input given one per output.
  virtual std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const;
  /// `[input][output]`: whether the input influences the output. Default: all.
  virtual std::vector<std::vector<bool>> connection_pattern(const Apply& node) const;

  virtual ViewMap view_map() const { return {}; }
  virtual ViewMap destroy_map() const { return {}; }

  // Facts the passes ask each op instead of keeping lists of op classes
  // (op_traits.h).

  /// Whether constant folding may replace a node whose inputs are all
  /// constants by its `perform`'s result (it also requires a perform and no
  /// destroy_map). False for ops whose value must be computed at run time
  /// (random draws, collectives) or whose output is far larger than its
  /// inputs (Alloc).
  virtual bool foldable() const { return true; }
  /// The GPU form of `node` (a node of this op): which inputs and outputs a
  /// gpu::GpuOp over it keeps on the device, or nullopt when the op has none
  /// for this node (the default, unless the op has a kernel form for it: then
  /// all of them). The GPU transfer rewrite asks
  /// (gpu::gpu_op_inputs); codegen lowers each such GpuOp by its CUDA
  /// lowering (codegen/src/emit/lower/gpu*.cpp).
  virtual std::optional<GpuPlacement> gpu_form(const Apply& node) const;
  /// The inplace forms of `node` (a node of this op without a destroy_map),
  /// each offered by one inplace stage of the pipeline; none by default.
  virtual std::vector<InplaceVariant> inplace_variants(const Apply& node) const;
  /// How generated code computes a node with this signature by calling the
  /// shared kernel text (KernelForm, op_traits.h), or nullopt (the default):
  /// the op then needs a lowering of its own in codegen or runs its perform.
  /// An op with a kernel form (for the node) has a GPU form too: the default
  /// gpu_form keeps every input and output on the device.
  virtual std::optional<KernelForm> kernel_form(const KernelSignature& sig) const;
};
using OpPtr = IntrusivePtr<const Op>;

inline bool operator==(const Op& a, const Op& b) { return &a == &b || a.equals(b); }
inline bool operator!=(const Op& a, const Op& b) { return !(a == b); }

}  // namespace theano

/// The members every op with a reference implementation declares, in one
/// line, so a new op (CPU or GPU) is declared in one short place:
///
///     class Shape final : public Op {
///      public:
///       THEANO_OP_DECLARE("Shape")
///       std::vector<Var> grad(...) const override;  // what it has besides
///     };
///
/// Declares type_name() (returning TYPE_NAME), make_node, has_perform (true),
/// perform and infer_shape; the op defines the last three in its .cpp.
/// THEANO_REGISTER_OP takes TYPE_NAME as the class's kind when its
/// registration names none (theano_declared_kind).
#define THEANO_OP_DECLARE(TYPE_NAME)                                                                              \
  static constexpr std::string_view theano_declared_kind = TYPE_NAME;                                             \
  std::string_view type_name() const override { return theano_declared_kind; }                                    \
  ApplyPtr make_node(std::vector<Var> inputs) const override;                                                     \
  bool has_perform() const override { return true; }                                                              \
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;    \
  std::vector<std::vector<Var>> infer_shape(const Apply& node, const std::vector<std::vector<Var>>& input_shapes) \
      const override;

/// \file
/// The graph's nodes: `Variable` (a value of some Type, maybe computed by an
/// Apply), `Constant` (a Variable with immutable data), `Apply` (an Op applied to
/// input Variables, owning its output Variables) and `Var`, the value handle users
/// hold.
///
/// Ownership (docs/architecture.md, "Handles and ownership"): an Apply holds its inputs strongly and owns its
/// outputs; an output's reference count forwards to its Apply, so holding any
/// output keeps the node (and everything upstream) alive and no cycle exists.
/// `Variable::owner()` is a back-pointer. Outside a FunctionGraph nodes are never
/// mutated, apart from a Variable's name; inside one only FunctionGraph's API
/// changes an Apply's inputs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>  // declares std::hash (specialized below) with its pointer specializations
#include <optional>
#include <string>
#include <vector>

#include "theano/graph/creation_site.h"
#include "theano/graph/intrusive.h"
#include "theano/graph/op.h"
#include "theano/graph/type.h"
#include "theano/runtime/ndarray.h"

namespace theano {

class Apply;
class Constant;
class FunctionGraph;
enum class DType : std::uint8_t;  // runtime/dtype.h
namespace tensor {
struct Axes;
class Index;
/// An empty base of Var, so that argument-dependent lookup on a Var also
/// searches namespace theano::tensor (a class's base classes are among its
/// associated classes): `abs(x)`, `exp(x)`, `dot(a, b)`, `sum(x)` resolve
/// without `using namespace` or `T::`, as Theano's functions do on a
/// TensorVariable. It adds no name to namespace theano, so code there keeps
/// seeing `std::abs` and friends for plain numbers, and a C++ number finds no
/// tensor function unless that namespace is opened. Only the namespace is
/// named here; graph/ still includes nothing of tensor/.
struct FindByArgumentLookup {};
}  // namespace tensor

/// A symbolic value. Created owner-less by `Type::make_variable`; adopted by the
/// Apply that computes it (which sets `owner` and `index`).
class Variable : public GraphNode {
 public:
  Variable(TypePtr type, std::string name = {});
  ~Variable() override;

  const TypePtr& type() const noexcept { return type_; }
  Apply* owner() const noexcept { return owner_; }
  /// Position among `owner()->outputs()`; nullopt when there is no owner.
  std::optional<int> index() const noexcept { return owner_ ? std::optional<int>(index_) : std::nullopt; }
  const std::string& name() const noexcept { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  /// Where the user created it (null unless THEANO_FLAGS traceback_limit > 0;
  /// see creation_site.h). Clones and rewrites' replacements carry it over.
  const CreationSitePtr& creation_site() const noexcept { return site_; }
  void set_creation_site(CreationSitePtr site) { site_ = std::move(site); }

  /// A new owner-less Variable with the same type and name (Constants keep
  /// their data).
  virtual Var clone() const;
  /// Theano's `str(variable)`: the name, else `op.out` / `op.i`, else `<Type>`.
  virtual std::string str() const;

  void retain() const noexcept;
  void release() const noexcept;

 private:
  friend class Apply;
  TypePtr type_;
  Apply* owner_ = nullptr;
  int index_ = 0;
  std::string name_;
  CreationSitePtr site_;
};

/// A Variable whose value is fixed. The data is filtered into the type at
/// construction and never changes, so a Constant may be shared between graphs.
class Constant : public Variable {
 public:
  Constant(TypePtr type, NDArray data, std::string name = {});
  const NDArray& data() const noexcept { return data_; }
  /// Hash of type and value: equal constants have equal signatures (merge uses it).
  std::size_t signature() const noexcept { return signature_; }
  /// Same type and equal values.
  bool equals(const Constant& other) const;
  Var clone() const override;
  /// The name, else `Constant{value}` (long values elided in the middle).
  std::string str() const override;

 private:
  struct CloneTag {};
  /// A clone: the same type, data and signature, neither filtered nor hashed
  /// again (a FunctionGraph clones every constant of its graph).
  Constant(const Constant& of, CloneTag);
  NDArray data_;
  std::size_t signature_;
};

/// The handle users hold: a strong reference to a Variable. Comparison and
/// hashing are by identity, so Vars work as keys of standard containers (use
/// `tensor::eq` for the symbolic comparison). The tensor functions are found
/// by argument-dependent lookup (see tensor::FindByArgumentLookup).
class Var : tensor::FindByArgumentLookup {
 public:
  Var() noexcept = default;
  explicit Var(Variable* v) noexcept : p_(v) {}
  explicit Var(IntrusivePtr<Variable> v) noexcept : p_(std::move(v)) {}

  Variable* get() const noexcept { return p_.get(); }
  Variable* operator->() const noexcept { return p_.get(); }
  Variable& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return bool(p_); }

  const TypePtr& type() const noexcept { return p_->type(); }
  Apply* owner() const noexcept { return p_->owner(); }
  std::optional<int> index() const noexcept { return p_->index(); }
  const std::string& name() const noexcept { return p_->name(); }
  std::uint64_t id() const noexcept { return p_->id(); }
  /// The Constant behind this handle, or nullptr.
  const Constant* as_constant() const noexcept;
  bool is_constant() const noexcept { return as_constant() != nullptr; }
  std::string str() const { return p_ ? p_->str() : std::string("<null Var>"); }

  // Tensor sugar, as on Theano's TensorVariable (defined with the tensor ops in
  // compiler/src/tensor/var_methods.cpp; include theano/theano.hpp to use them).
  // Declared here and defined where TensorType is known (a free definition in
  // the tensor layer rather than virtuals on Type): Type stays the minimal
  // interface the graph needs (filter, equality), graph/ includes nothing of
  // tensor/, and a user still writes `x.dtype()`. They answer for tensors
  // only; another type (sparse, GPU, scalar) is a TypeError naming `x`.
  int ndim() const;                              ///< static rank (TypeError naming the variable if not a tensor)
  DType dtype() const;                           ///< element type (TypeError naming the variable if not a tensor)
  /// Theano's `x.broadcastable`: per dimension, whether the type says size 1.
  std::vector<bool> broadcastable() const;
  Var T() const;                                 ///< transpose
  Var transpose(std::vector<int> axes) const;
  Var dimshuffle(std::vector<int> order) const;  ///< tensor::kNewAxis ('x') adds an axis
  Var sum() const;
  Var sum(const tensor::Axes& axis, bool keepdims = false) const;
  Var prod(const tensor::Axes& axis, bool keepdims = false) const;
  Var max(const tensor::Axes& axis, bool keepdims = false) const;
  Var min(const tensor::Axes& axis, bool keepdims = false) const;
  Var mean() const;
  Var mean(const tensor::Axes& axis, bool keepdims = false) const;
  Var reshape(std::vector<std::int64_t> shape) const;
  Var flatten(int ndim = 1) const;
  Var astype(DType dtype) const;
  Var shape() const;                             ///< symbolic int64 vector
  Var operator[](const tensor::Index& index) const;
  Var operator[](const std::vector<tensor::Index>& indices) const;
  /// `x[{slice(1, 3)}]`, `x[{0, slice(none, none, -1)}]` (a braced list picks this overload).
  Var operator[](std::initializer_list<tensor::Index> indices) const;
  /// Compiles (once, cached on the variable's graph) and evaluates this
  /// variable with `inputs` bound to values.
  NDArray eval(const std::vector<std::pair<Var, NDArray>>& inputs = {}) const;

  friend bool operator==(const Var& a, const Var& b) noexcept { return a.get() == b.get(); }
  // No operator<: `<`, `>`, `<=`, `>=` are symbolic comparisons in the tensor
  // layer. Ordered containers use VarLess.

 private:
  IntrusivePtr<Variable> p_;
};

std::ostream& operator<<(std::ostream& os, const Var& v);

/// Orders Vars by creation id (deterministic across runs), for std::map / std::set.
struct VarLess {
  bool operator()(const Var& a, const Var& b) const noexcept { return a.id() < b.id(); }
};

/// An Op applied to inputs, producing outputs that it owns.
class Apply : public GraphNode {
 public:
  /// Builds the node and adopts `outputs`: each must be owner-less (else
  /// ValueError, as in Theano: a Variable has one owner) and becomes
  /// `owner() == node`, `index() == i`.
  static ApplyPtr create(OpPtr op, std::vector<Var> inputs, std::vector<Var> outputs);
  ~Apply() override;

  const OpPtr& op() const noexcept { return op_; }
  const std::vector<Var>& inputs() const noexcept { return inputs_; }
  const Var& input(int i) const { return inputs_.at(static_cast<std::size_t>(i)); }
  std::vector<Var> outputs() const;
  Var output(int i) const;
  int nin() const noexcept { return static_cast<int>(inputs_.size()); }
  int nout() const noexcept { return static_cast<int>(outputs_.size()); }
  /// The op's default output, or the only output; ValueError when ambiguous.
  Var out() const;
  /// Default output index (nullopt when the node has several outputs and the
  /// op names none).
  std::optional<int> default_output() const;
  /// Owners of the inputs (each once, in input order).
  std::vector<Apply*> get_parents() const;

  /// Same op and inputs, fresh output Variables of the same types and names.
  ApplyPtr clone() const;
  /// A node of the same op over `new_inputs`. With `strict`, each new input must
  /// have the old input's type (or convert to it, else TypeError naming both
  /// types); without, differing types rebuild through `op().make_node`.
  ApplyPtr clone_with_new_inputs(std::vector<Var> new_inputs, bool strict = true) const;

  void retain() const noexcept { node_retain(); }
  void release() const noexcept { node_release(); }
  int use_count() const noexcept { return node_use_count(); }

 private:
  Apply(OpPtr op, std::vector<Var> inputs);
  friend class FunctionGraph;
  /// Rewires input `i`; only FunctionGraph calls it, so Features hear of it.
  void set_input(int i, Var v) { inputs_[static_cast<std::size_t>(i)] = std::move(v); }

  OpPtr op_;
  std::vector<Var> inputs_;
  std::vector<Variable*> outputs_;  // owned
};

std::ostream& operator<<(std::ostream& os, const Apply& node);

/// For error messages: where the user created `node`'s outputs ("" when no
/// output carries a creation site; see creation_site.h), e.g.
/// "'loss' was created at:\n  at build_model() (model.cpp:42)\n".
std::string creation_note(const Apply& node);

}  // namespace theano

template <>
struct std::hash<theano::Var> {
  std::size_t operator()(const theano::Var& v) const noexcept { return std::hash<const void*>()(v.get()); }
};
template <>
struct std::hash<theano::ApplyPtr> {
  std::size_t operator()(const theano::ApplyPtr& a) const noexcept { return std::hash<const void*>()(a.get()); }
};

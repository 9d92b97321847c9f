/// \file
/// Fake Types and Ops for the FunctionGraph tests, so they do not depend on
/// tensor ops (Theano's `MyType` / `MyOp` of `gof/tests/test_fg.py`).
///
/// `MyType(name)` accepts NDArrays of any dtype; two MyTypes are equal iff their
/// names are. `MyOp` has a printed name, an arity (-1: any), an output count,
/// an output Type, and optional view_map / destroy_map, so the same class
/// gives plain ops, view ops and destroying ops. A `RecordingFeature` logs each
/// callback as one line of text.
#pragma once

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "theano/fgraph/feature.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/type.h"
#include "theano/runtime/error.h"

namespace theano::fake {

class MyType : public Type {
 public:
  explicit MyType(std::string name = "MyType") : name_(std::move(name)) {}
  std::string str() const override { return name_; }
  bool equals(const Type& other) const override {
    const auto* t = dynamic_cast<const MyType*>(&other);
    return t && t->name_ == name_;
  }
  std::size_t hash() const override { return std::hash<std::string>()(name_); }
  NDArray filter(const NDArray& value, bool, bool) const override { return value; }

 private:
  std::string name_;
};

inline TypePtr my_type(const std::string& name = "MyType") { return TypePtr(new MyType(name)); }

/// An owner-less variable of `type`.
inline Var var(const std::string& name, const TypePtr& type = my_type()) { return type->make_variable(name); }

inline Var constant(double value, const std::string& name = {}) {
  return my_type()->make_constant(NDArray::full({}, value), name);
}

class MyOp : public Op {
 public:
  MyOp(std::string name, int nin = -1, int nout = 1, ViewMap view = {}, ViewMap destroy = {}, TypePtr out_type = {})
      : name_(std::move(name)),
        nin_(nin),
        nout_(nout),
        view_(std::move(view)),
        destroy_(std::move(destroy)),
        out_type_(std::move(out_type)) {}

  std::string_view type_name() const override { return "MyOp"; }
  std::string name() const override { return name_; }
  Props props() const override {
    return {{"name", name_}, {"nin", std::int64_t{nin_}}, {"nout", std::int64_t{nout_}}};
  }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    THEANO_USER_CHECK(nin_ < 0 || static_cast<int>(inputs.size()) == nin_, TypeError)
        << name_ << " takes " << nin_ << " inputs, got " << inputs.size();
    for (const Var& in : inputs)
      THEANO_USER_CHECK(dynamic_cast<const MyType*>(in.type().get()), TypeError)
          << name_ << ": input " << in.str() << " is not a MyType";
    TypePtr t = out_type_ ? out_type_ : (inputs.empty() ? my_type() : inputs[0].type());
    std::vector<Var> outs;
    for (int k = 0; k < nout_; ++k) outs.push_back(t->make_variable());
    return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
  }
  ViewMap view_map() const override { return view_; }
  ViewMap destroy_map() const override { return destroy_; }

 private:
  std::string name_;
  int nin_, nout_;
  ViewMap view_, destroy_;
  TypePtr out_type_;
};

inline OpPtr my_op(const std::string& name, int nin = -1, int nout = 1, TypePtr out_type = {}) {
  return OpPtr(new MyOp(name, nin, nout, {}, {}, std::move(out_type)));
}
/// Output 0 is a view of input 0.
inline OpPtr view_op(const std::string& name = "View") { return OpPtr(new MyOp(name, 1, 1, {{0, {0}}}, {})); }
/// Output 0 overwrites input 0 (and is computed from all `nin` inputs).
inline OpPtr destroy_op(const std::string& name = "Destroy", int nin = 1) {
  return OpPtr(new MyOp(name, nin, 1, {}, {{0, {0}}}));
}

/// `op(inputs...)`, the single output.
inline Var ap(const OpPtr& op, std::vector<Var> inputs) { return op->apply1(std::move(inputs)); }

inline std::string node_str(const Apply* node) {
  if (!node) return "output";
  std::ostringstream os;
  os << *node;
  return os.str();
}

/// Logs every callback: "attach", "import Op1(x, y) r", "prune ...",
/// "change Op1(x, y) 1 old new r", "detach".
class RecordingFeature : public Feature {
 public:
  std::vector<std::string> log;
  FunctionGraph* attached = nullptr;

  void on_attach(FunctionGraph& fg) override {
    attached = &fg;
    log.push_back("attach");
  }
  void on_detach(FunctionGraph& fg) override {
    attached = nullptr;
    log.push_back("detach");
  }
  void on_import(FunctionGraph& fg, Apply& node, std::string_view reason) override {
    CHECK_EQ(&fg, attached);
    CHECK(fg.contains(&node));
    log.push_back("import " + node_str(&node) + " " + std::string(reason));
  }
  void on_prune(FunctionGraph& fg, Apply& node, std::string_view reason) override {
    CHECK_EQ(&fg, attached);
    CHECK(!fg.contains(&node));
    log.push_back("prune " + node_str(&node) + " " + std::string(reason));
  }
  void on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                       std::string_view reason) override {
    CHECK_EQ(&fg, attached);
    log.push_back("change " + node_str(node) + " " + std::to_string(i) + " " + old_var.str() + " " + new_var.str() +
                  " " + std::string(reason));
  }
  void clear() { log.clear(); }
};

}  // namespace theano::fake

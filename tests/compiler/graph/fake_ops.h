// Small fake Ops for the graph-core tests, so they do not depend on tensor ops
// (PyTensor's tests/graph/utils.py idea). Variables are float64 matrices.
#pragma once

#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano::testing {

inline TypePtr dmat() { return tensor::TensorType::make(DType::Float64, {tensor::Dim(), tensor::Dim()}); }
inline Var var(std::string name) { return dmat()->make_variable(std::move(name)); }

/// An op named `name` taking `nin` matrices and returning `nout` matrices.
/// Optional view/destroy maps make it an aliasing op.
class FakeOp : public Op {
 public:
  explicit FakeOp(std::string name, int nin = 2, int nout = 1, ViewMap view = {}, ViewMap destroy = {})
      : name_(std::move(name)), nin_(nin), nout_(nout), view_(std::move(view)), destroy_(std::move(destroy)) {}
  std::string_view type_name() const override { return "FakeOp"; }
  Props props() const override { return {{"name", name_}, {"nout", std::int64_t{nout_}}}; }
  std::string name() const override { return name_; }
  ApplyPtr make_node(std::vector<Var> inputs) const override {
    THEANO_USER_CHECK(static_cast<int>(inputs.size()) == nin_, TypeError)
        << name_ << " expects " << nin_ << " inputs, got " << inputs.size();
    for (const Var& v : inputs)
      THEANO_USER_CHECK(*v.type() == *dmat(), TypeError) << name_ << " expects float64 matrices, got " << v.type()->str();
    std::vector<Var> outs;
    for (int k = 0; k < nout_; ++k) outs.push_back(dmat()->make_variable());
    return Apply::create(OpPtr(this), std::move(inputs), std::move(outs));
  }
  ViewMap view_map() const override { return view_; }
  ViewMap destroy_map() const override { return destroy_; }

 private:
  std::string name_;
  int nin_, nout_;
  ViewMap view_, destroy_;
};

inline OpPtr op(std::string name, int nin = 2, int nout = 1) { return OpPtr(new FakeOp(std::move(name), nin, nout)); }
inline Var ap(const OpPtr& o, std::vector<Var> ins) { return o->make_node(std::move(ins))->output(0); }

}  // namespace theano::testing

/// \file
/// `Validator`: the Feature that stands for "this graph is validated"
/// (Theano's `toolbox.Validator`).
///
/// Why: in Theano the Validator adds `fgraph.validate()` and
/// `fgraph.consistent()`. Here those are plain FunctionGraph methods (they call
/// every feature's `validate`), so the Validator only marks the graph as
/// validated and offers the same calls; one per graph (AlreadyThere).
#pragma once

#include "theano/fgraph/feature.h"

namespace theano {

class Validator : public Feature {
 public:
  std::string_view name() const override { return "Validator"; }
  void on_attach(FunctionGraph& fg) override;
  void on_detach(FunctionGraph& fg) override { fg_ = nullptr; }
  FeaturePtr clone_for(const Equiv& equiv) const override;

  /// `fg.validate()` on the attached graph.
  void validate_graph() const;
  /// `fg.consistent()` on the attached graph.
  bool consistent() const;

 private:
  FunctionGraph* fg_ = nullptr;
};

}  // namespace theano

/// \file
/// `MutableInputs`: which graph inputs the compiled function may overwrite
/// (Theano's Supervisor, seen from the other side).
///
/// Why a separate, passive feature: function() knows at graph-building time
/// which inputs may be destroyed (the storage of shared variables it updates,
/// inputs given with `In(mutable=True)`), but the DestroyHandler is attached
/// late, by the `add_destroy_handler` stage (position 49.5), because its
/// validation costs a graph sort per replacement and would slow every earlier
/// rewrite. This feature carries the list until then; it has no callbacks.
#pragma once

#include <unordered_set>
#include <vector>

#include "theano/fgraph/feature.h"
#include "theano/graph/equiv.h"

namespace theano {

class MutableInputs final : public Feature {
 public:
  explicit MutableInputs(std::vector<Var> inputs) : inputs_(std::move(inputs)) {}
  std::string_view name() const override { return "MutableInputs"; }
  /// The graph inputs that may be overwritten.
  const std::vector<Var>& inputs() const { return inputs_; }
  FeaturePtr clone_for(const Equiv& equiv) const override {
    std::vector<Var> mapped;
    for (const Var& v : inputs_)
      if (equiv.contains(v)) mapped.push_back(equiv.at(v));
    return std::make_shared<MutableInputs>(std::move(mapped));
  }

 private:
  std::vector<Var> inputs_;
};

}  // namespace theano

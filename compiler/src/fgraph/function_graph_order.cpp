// FunctionGraph's features and schedule: attaching and removing features,
// validation, the union of feature orderings and the cached toposort.
#include <algorithm>

#include "tables.h"
#include "theano/fgraph/function_graph.h"
#include "theano/graph/toposort.h"
#include "theano/runtime/error.h"

namespace theano {

Orderings Feature::orderings(const FunctionGraph&) { return {}; }

bool FunctionGraph::attach_feature(FeaturePtr feature) {
  THEANO_USER_CHECK(feature, ValueError) << "attach_feature: null feature";
  if (std::find(features_.begin(), features_.end(), feature) != features_.end()) return false;
  try {
    feature->on_attach(*this);
  } catch (const AlreadyThere&) {
    return false;
  }
  features_.push_back(std::move(feature));
  topo_.reset();
  return true;
}

bool FunctionGraph::remove_feature(const Feature* feature) {
  auto it = std::find_if(features_.begin(), features_.end(),
                         [feature](const FeaturePtr& f) { return f.get() == feature; });
  if (it == features_.end()) return false;
  FeaturePtr keep = std::move(*it);
  features_.erase(it);
  topo_.reset();
  keep->on_detach(*this);
  return true;
}

bool FunctionGraph::consistent() const {
  try {
    validate();
    return true;
  } catch (const InconsistencyError&) {
    return false;
  }
}

Orderings FunctionGraph::orderings() const {
  Orderings all;
  bool first = true;
  for (const auto& [feature, ords] : collect_callbacks(&Feature::orderings)) {
    if (ords.empty()) continue;
    if (first) {
      all = ords;
      first = false;
      continue;
    }
    for (const auto& [node, before] : ords) {
      std::vector<Apply*>& dst = all[node];
      dst.insert(dst.end(), before.begin(), before.end());
    }
  }
  return all;
}

std::vector<Apply*> FunctionGraph::toposort() const {
  if (!topo_) topo_ = io_toposort(inputs_, outputs_, orderings());
  return *topo_;
}

}  // namespace theano

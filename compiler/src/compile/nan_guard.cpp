/// \file
/// NanGuardMode's node observer (see nan_guard.h).
#include "theano/compile/nan_guard.h"

#include <algorithm>
#include <sstream>

#include "theano/compile/rewrite_provenance.h"
#include "theano/config_flags.h"
#include "theano/fgraph/function_graph.h"
#include "value_checks.h"

namespace theano {
namespace {

class NanGuardObserver final : public NodeObserver {
 public:
  NanGuardObserver(NanGuardOptions o, std::shared_ptr<const FunctionGraph> fg,
                   std::shared_ptr<const RewriteProvenance> prov, std::string what)
      : o_(o), fg_(std::move(fg)), prov_(std::move(prov)), what_(std::move(what)) {}

  void after_node(const NodeRun& run) const override {
    const Apply& node = run.node;
    // Graph inputs, as the first node reading them runs (the outputs of nodes
    // were checked when they were produced).
    for (std::size_t i = 0; i < run.inputs.size(); ++i) {
      const Var& v = node.input(static_cast<int>(i));
      if (v.owner() || v.is_constant()) continue;
      const detail::BadValue bad = scan(run.inputs[i]);
      if (bad.kind != detail::BadValue::None)
        fail(run, bad, "graph input " + v.str() + " (read by input " + std::to_string(i) + ")", run.inputs[i]);
    }
    for (std::size_t k = 0; k < run.outputs.size(); ++k) {
      const detail::BadValue bad = scan(run.outputs[k]);
      if (bad.kind != detail::BadValue::None)
        fail(run, bad, "output " + std::to_string(k) + " (" + node.output(static_cast<int>(k)).str() + ")",
             run.outputs[k]);
    }
  }

 private:
  detail::BadValue scan(const NDArray& a) const {
    return detail::find_bad_value(a, o_.nan_is_error, o_.inf_is_error, o_.big_is_error);
  }

  [[noreturn]] void fail(const NodeRun& run, const detail::BadValue& bad, const std::string& where,
                         const NDArray& value) const {
    const Apply& node = run.node;
    std::ostringstream os;
    os << "NanGuardMode: " << detail::bad_kind_name(bad.kind) << " in " << where << " of node " << run.index
       << " (" << node.op()->name() << ") of " << what_ << "\n  first at " << detail::index_str(value.shape(), bad.flat)
       << ": " << bad.value << " (" << bad.count << " of " << value.size() << " elements)\n  node: " << node;
    if (prov_) os << "\n  " << prov_->describe(node);
    os << "\n  inputs:";
    for (std::size_t i = 0; i < run.inputs.size(); ++i)
      os << "\n    " << i << " (" << node.input(static_cast<int>(i)).str() << "): " << detail::summarize(run.inputs[i]);
    if (const std::string note = creation_note(node); !note.empty()) os << "\n" << note;
    throw NanGuardError(os.str());
  }

  NanGuardOptions o_;
  std::shared_ptr<const FunctionGraph> fg_;  // keeps the nodes named in messages alive
  std::shared_ptr<const RewriteProvenance> prov_;
  std::string what_;
};

}  // namespace

NanGuardOptions NanGuardOptions::from_flags() {
  NanGuardOptions o;
  o.nan_is_error = flag_bool("nanguard_nan_is_error");
  o.inf_is_error = flag_bool("nanguard_inf_is_error");
  o.big_is_error = flag_bool("nanguard_big_is_error");
  return o;
}

std::shared_ptr<const NodeObserver> make_nan_guard_observer(const NanGuardOptions& options,
                                                            std::shared_ptr<const FunctionGraph> fgraph,
                                                            std::shared_ptr<const RewriteProvenance> provenance,
                                                            std::string what) {
  return std::make_shared<NanGuardObserver>(options, std::move(fgraph), std::move(provenance), std::move(what));
}

}  // namespace theano

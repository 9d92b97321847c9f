// ReplaceValidate: replace, validate, revert on failure (see replace_validate.h).
#include "theano/graph/equiv.h"
#include "theano/fgraph/replace_validate.h"

#include <memory>
#include <sstream>

#include "theano/fgraph/function_graph.h"
#include "theano/fgraph/history.h"
#include "theano/fgraph/validator.h"

namespace theano {
namespace {

History& history_of(FunctionGraph& fg) {
  History* h = fg.find_feature<History>();
  THEANO_USER_CHECK(h, ValueError) << "ReplaceValidate needs a History feature on the graph; it was removed";
  return *h;
}

}  // namespace

void ReplaceValidate::on_attach(FunctionGraph& fg) {
  if (ReplaceValidate* other = fg.find_feature<ReplaceValidate>(); other && other != this)
    throw AlreadyThere("FunctionGraph already has a ReplaceValidate");
  fg.attach_feature(std::make_shared<History>());
  fg.attach_feature(std::make_shared<Validator>());
}

FeaturePtr ReplaceValidate::clone_for(const Equiv&) const { return std::make_shared<ReplaceValidate>(); }

std::size_t ReplaceValidate::replace_validate(FunctionGraph& fg, const Var& var, const Var& new_var,
                                              std::string_view reason) {
  return replace_all_validate(fg, {{var, new_var}}, reason);
}

std::size_t ReplaceValidate::replace_all_validate(FunctionGraph& fg, const std::vector<std::pair<Var, Var>>& pairs,
                                                  std::string_view reason) {
  History& history = history_of(fg);
  const std::size_t chk = history.checkpoint();
  try {
    for (const auto& [var, new_var] : pairs) fg.replace(var, new_var, reason);
    fg.validate();
  } catch (...) {
    history.revert(chk);
    throw;
  }
  return chk;
}

std::size_t ReplaceValidate::replace_all_validate_remove(FunctionGraph& fg,
                                                         const std::vector<std::pair<Var, Var>>& pairs,
                                                         const std::vector<Apply*>& remove, std::string_view reason) {
  const std::size_t chk = replace_all_validate(fg, pairs, reason);
  for (Apply* node : remove) {
    if (!fg.contains(node)) continue;
    history_of(fg).revert(chk);
    std::ostringstream os;
    os << "replace_all_validate_remove";
    if (!reason.empty()) os << " (" << reason << ")";
    os << ": node " << *node << " was meant to be removed by the replacement but is still in the graph; "
       << "the replacement was reverted";
    throw ReplacementDidNotRemoveError(os.str());
  }
  return chk;
}

}  // namespace theano

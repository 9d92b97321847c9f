/// \file
/// RewriteProvenance: remembers the `reason` (the rewrite's name) of imports
/// and replacements (see rewrite_provenance.h).
#include "theano/compile/rewrite_provenance.h"

namespace theano {

void RewriteProvenance::on_attach(FunctionGraph&) {
  introduced_.clear();
  log_.clear();
}

void RewriteProvenance::on_import(FunctionGraph&, Apply& node, std::string_view reason) {
  if (!reason.empty()) introduced_[&node] = std::string(reason);
}

void RewriteProvenance::on_prune(FunctionGraph&, Apply& node, std::string_view) { introduced_.erase(&node); }

void RewriteProvenance::on_change_input(FunctionGraph&, Apply*, int, const Var& old_var, const Var& new_var,
                                        std::string_view reason) {
  if (old_var == new_var) return;
  // One replace() changes every client of old_var in a row: log the pair once.
  if (!log_.empty() && log_.back().old_var == old_var && log_.back().new_var == new_var) return;
  log_.push_back(Replacement{old_var, new_var, reason.empty() ? std::string("(unnamed)") : std::string(reason)});
}

std::string RewriteProvenance::rewrite_of(const Apply& node) const {
  auto it = introduced_.find(&node);
  return it == introduced_.end() ? std::string() : it->second;
}

std::string RewriteProvenance::describe(const Apply& node) const {
  const std::string r = rewrite_of(node);
  return r.empty() ? std::string("from the user's graph (no rewrite)") : "introduced by rewrite " + r;
}

}  // namespace theano

// History: the change log and its rollback (see history.h).
#include "theano/graph/equiv.h"
#include "theano/fgraph/history.h"

#include "theano/fgraph/function_graph.h"

namespace theano {

void History::on_attach(FunctionGraph& fg) {
  if (History* other = fg.find_feature<History>(); other && other != this)
    throw AlreadyThere("FunctionGraph already has a History");
  THEANO_USER_CHECK(fg_ == nullptr || fg_ == &fg, ValueError)
      << "a History records one FunctionGraph; it is already attached to another";
  fg_ = &fg;
  log_.clear();
}

void History::on_detach(FunctionGraph& fg) {
  log_.clear();
  fg_ = nullptr;
}

void History::on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                              std::string_view reason) {
  if (reverting_) return;
  log_.push_back(Change{ApplyPtr(node), i, old_var, new_var, std::string(reason)});
}

void History::revert(std::size_t checkpoint) {
  THEANO_USER_CHECK(fg_, ValueError) << "History::revert: the History is not attached to a FunctionGraph";
  THEANO_USER_CHECK(checkpoint <= log_.size(), ValueError)
      << "History::revert: checkpoint " << checkpoint << " is newer than the log (" << log_.size() << " changes)";
  struct Guard {
    bool& flag;
    ~Guard() { flag = false; }
  } guard{reverting_};
  reverting_ = true;
  while (log_.size() > checkpoint) {
    Change c = std::move(log_.back());
    log_.pop_back();
    // check=false: a change may have narrowed the type; undoing it widens it back.
    fg_->change_input(c.node.get(), c.index, c.old_var, "revert " + c.reason, /*import_missing=*/false,
                      /*check=*/false);
  }
}

FeaturePtr History::clone_for(const Equiv&) const { return std::make_shared<History>(); }

}  // namespace theano

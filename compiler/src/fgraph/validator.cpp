// Validator: one per graph; forwards to FunctionGraph::validate (see validator.h).
#include "theano/graph/equiv.h"
#include "theano/fgraph/validator.h"

#include "theano/fgraph/function_graph.h"

namespace theano {

void Validator::on_attach(FunctionGraph& fg) {
  if (Validator* other = fg.find_feature<Validator>(); other && other != this)
    throw AlreadyThere("FunctionGraph already has a Validator");
  fg_ = &fg;
}

FeaturePtr Validator::clone_for(const Equiv&) const { return std::make_shared<Validator>(); }

void Validator::validate_graph() const {
  THEANO_USER_CHECK(fg_, ValueError) << "Validator: not attached to a FunctionGraph";
  fg_->validate();
}

bool Validator::consistent() const {
  THEANO_USER_CHECK(fg_, ValueError) << "Validator: not attached to a FunctionGraph";
  return fg_->consistent();
}

}  // namespace theano

/// \file
/// `ifelse(cond, then, else)`: Theano's lazy branch (theano/ifelse.py). Only
/// the taken branch is computed: the linkers ask `lazy_schedule`
/// (compile/lazy_schedule.h) which nodes only a branch needs and run them
/// under that branch's condition (the reference VM skips them, the cpp
/// linker emits them inside real `if` blocks). `tensor::switch_` stays the
/// eager elementwise select.
///
/// One IfElse node carries several outputs at once: inputs are
/// (cond, then_0 .. then_{n-1}, else_0 .. else_{n-1}); output k is a view of
/// then_k when cond is true (nonzero, NaN included, as numpy's bool()), else
/// of else_k. The condition is a scalar (0-d) tensor of a bool, integer or
/// real dtype.
#pragma once

#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"

namespace theano {

class IfElse final : public Op {
 public:
  explicit IfElse(int n_outs);
  THEANO_OP_DECLARE("IfElse")
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  /// Output k views then_k or else_k, whichever the condition picks.
  ViewMap view_map() const override;

  /// The truth of a condition value, as perform and generated code read it.
  static bool truth(const NDArray& cond);

  THEANO_OP_PROPS((int, n_outs))
};

/// Whether `node` is an IfElse.
const IfElse* as_ifelse(const Apply& node);

/// `ifelse(cond, then_branch, else_branch)` for several outputs at once:
/// then_branch[k] and else_branch[k] must have the same dtype and rank (the
/// result keeps the static sizes they agree on); TypeError naming the output
/// otherwise. `name` names the outputs ("name[k]").
std::vector<Var> ifelse(const Var& cond, const std::vector<Var>& then_branch, const std::vector<Var>& else_branch,
                        const std::string& name = {});
/// The single-output form.
Var ifelse(const Var& cond, const Var& then_branch, const Var& else_branch, const std::string& name = {});

}  // namespace theano

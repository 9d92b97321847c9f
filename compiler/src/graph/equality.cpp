// equal_computations and is_same_graph, iterative (see equality.h).
#include "theano/graph/equality.h"

#include <set>

#include "theano/graph/clone.h"
#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"

namespace theano {
namespace {

using VarPair = std::pair<const Variable*, const Variable*>;
using NodePair = std::pair<const Apply*, const Apply*>;

bool leaves_equal(const Var& dx, const Var& dy) {
  if (dx == dy) return true;
  const Constant* cx = dx.as_constant();
  const Constant* cy = dy.as_constant();
  return cx && cy && cx->equals(*cy);
}

bool same_types(const std::vector<Var>& a, const std::vector<Var>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (*a[i].type() != *b[i].type()) return false;
  return true;
}

}  // namespace

bool equal_computations(const std::vector<Var>& xs, const std::vector<Var>& ys, const std::vector<Var>& in_xs,
                        const std::vector<Var>& in_ys) {
  THEANO_USER_CHECK(xs.size() == ys.size(), ValueError)
      << "equal_computations: xs has " << xs.size() << " variables but ys has " << ys.size();
  if (in_xs.size() != in_ys.size()) return false;
  std::set<VarPair> common;
  for (std::size_t i = 0; i < in_xs.size(); ++i) {
    if (*in_xs[i].type() != *in_ys[i].type()) return false;
    common.emplace(in_xs[i].get(), in_ys[i].get());
  }
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const Var &x = xs[i], &y = ys[i];
    if (bool(x.owner()) != bool(y.owner())) return false;
    if (x.owner() && x.index() != y.index()) return false;
    if (common.count({x.get(), y.get()})) continue;
    if (x == y) continue;  // one variable computes what it computes
    if (*x.type() != *y.type()) return false;
    if (!x.owner() && !leaves_equal(x, y)) return false;
  }

  // Depth-first over pairs of corresponding nodes. Every pair visited must be
  // equal for the whole to be, so the first difference ends the search.
  std::set<NodePair> done;
  std::vector<NodePair> stack;
  for (std::size_t i = 0; i < xs.size(); ++i)
    if (xs[i].owner() && !common.count({xs[i].get(), ys[i].get()})) stack.emplace_back(xs[i].owner(), ys[i].owner());
  while (!stack.empty()) {
    const auto [nx, ny] = stack.back();
    if (done.count({nx, ny})) {
      stack.pop_back();
      continue;
    }
    if (*nx->op() != *ny->op() || nx->nin() != ny->nin() || nx->nout() != ny->nout()) return false;
    const std::vector<Var>& ix = nx->inputs();
    const std::vector<Var>& iy = ny->inputs();
    if (!same_types(ix, iy) || !same_types(nx->outputs(), ny->outputs())) return false;
    bool pending = false;
    for (std::size_t k = 0; k < ix.size(); ++k) {
      const Var &dx = ix[k], &dy = iy[k];
      // The same variable on both sides: equal without looking further (this
      // keeps a comparison of two rewrites of one subgraph local to them).
      if (dx == dy) continue;
      if (common.count({dx.get(), dy.get()})) continue;
      if (!dx.owner() && !dy.owner()) {
        if (!leaves_equal(dx, dy)) return false;
        continue;
      }
      if (!dx.owner() || !dy.owner() || dx.index() != dy.index()) return false;
      if (done.count({dx.owner(), dy.owner()})) continue;
      stack.emplace_back(dx.owner(), dy.owner());
      pending = true;
    }
    if (pending) continue;
    done.emplace(nx, ny);
    for (int k = 0; k < nx->nout(); ++k) common.emplace(nx->output(k).get(), ny->output(k).get());
    stack.pop_back();
  }
  return true;
}

bool is_same_graph(const Var& var1, const Var& var2, const std::vector<std::pair<Var, Var>>& givens) {
  if (givens.empty()) return equal_computations({var1}, {var2});
  // Substitute in both graphs, so a given found in either (or both) is replaced
  // by the same variable, then compare structurally.
  const std::vector<Var> substituted = clone_replace({var1, var2}, givens);
  return equal_computations({substituted[0]}, {substituted[1]});
}

}  // namespace theano

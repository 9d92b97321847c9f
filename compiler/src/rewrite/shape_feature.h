/// \file
/// ShapeFeature (PyTensor's `tensor/rewriting/shape.py`): for every tensor
/// variable of a FunctionGraph, its shape as one int64 0-d Var per dimension,
/// so that shape-only rewrites can compute `shape(log(x))` from x without
/// computing the log.
///
/// Why a Feature: the shapes must follow the graph through every import and
/// replacement, and each node's shape is built once, from its inputs' shapes,
/// through `Op::infer_shape` (O(1) per node, in toposort order, no recursion).
///
/// Invariants:
/// * an entry is a constant when the dimension is statically known (type or
///   constant data), else what `infer_shape` built (cast to int64), else
///   `Shape_i{i}(v)` (a graph input, or an op without infer_shape);
/// * the shape Vars live outside the graph until a rewrite uses them; they only
///   reference variables that are (or were) in the graph, so using them is
///   always correct (a replaced variable computes the same value);
/// * `on_change_input(old -> new)` gives `new` the better of the two shapes
///   per dimension (a known expression over a `Shape_i(new)` fallback).
///   Limitation: shape expressions of other variables that mention
///   `Shape_i(old)` are not rewritten (PyTensor's reverse index); they stay
///   correct, possibly recomputing old's subgraph if a rewrite imports them.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "theano/fgraph/function_graph.h"

namespace theano::rewrite::detail {

class ShapeFeature final : public Feature {
 public:
  std::string_view name() const override { return "ShapeFeature"; }
  void on_attach(FunctionGraph& fg) override;
  void on_detach(FunctionGraph& fg) override;
  void on_import(FunctionGraph& fg, Apply& node, std::string_view reason) override;
  void on_change_input(FunctionGraph& fg, Apply* node, int i, const Var& old_var, const Var& new_var,
                       std::string_view reason) override;

  /// The shape of tensor `v` (one int64 0-d Var per dimension); a fallback
  /// shape (constants / Shape_i) for a variable the feature has not seen;
  /// nullptr for a non-tensor.
  const std::vector<Var>* shape_of(const Var& v);
  /// Whether dimension `d` of `v`'s shape is only the `Shape_i{d}(v)` fallback.
  bool is_fallback(const Var& v, int d);
  /// Whether the integer scalar `s` provably equals dimension `d` of `v`.
  bool is_dim(const Var& s, const Var& v, int d);
  /// Whether integer scalars `a` and `b` provably have the same value.
  bool same_scalar(const Var& a, const Var& b);
  /// `s` with widening integer casts, `Shape(w)[c]` and `Shape_i{c}(w)` read
  /// through the shapes the feature knows.
  Var canonical(const Var& s);

 private:
  struct Entry {
    Var var;  // keeps the key's address unique while the entry lives
    std::vector<Var> shape;
    std::vector<bool> fallback;
  };
  Entry& ensure(const Var& v);
  Entry fallback_entry(const Var& v) const;
  void compute(Apply& node);
  std::unordered_map<const Variable*, Entry> shapes_;
};

/// The ShapeFeature of `fg`, attached (once, O(graph)) when absent.
ShapeFeature& shape_feature(FunctionGraph& fg);

}  // namespace theano::rewrite::detail

/// \file
/// Private helpers of the basic indexing ops (Subtensor, IncSubtensor): turning
/// user indices into an idx_list plus symbolic inputs, applying an idx_list to an
/// NDArray (a view, Python semantics), and the static and symbolic shapes of the
/// result.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/runtime/ndarray.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor::detail {

/// An idx_list with the symbolic scalars it consumes.
struct ParsedIdx {
  IdxList idx;
  std::vector<Var> inputs;
};

/// Integers (constant or symbolic 0-d) and slices -> idx_list. TypeError naming
/// `x` for a non-integer index or bound.
ParsedIdx parse_basic_indices(const Var& x, const std::vector<Index>& indices);

/// Checks that `sym` (the node's symbolic inputs) match the idx_list and that
/// it fits a tensor of rank `ndim`; `op` names the op in errors.
void check_idx_inputs(const IdxList& idx, const Var& x, std::span<const Var> sym, const std::string& op);

/// Static shape of `x[idx]`; IndexError for a constant integer index out of the
/// known range.
StaticShape idx_static_shape(const Var& x, const IdxList& idx, const std::string& op);

/// Symbolic shape of `x[idx]` given x's symbolic shape and the symbolic inputs.
std::vector<Var> idx_infer_shape(const std::vector<Var>& xshape, const IdxList& idx, std::span<const Var> sym);

/// The view `x[idx]` (sym: the values of the symbolic inputs in order).
/// IndexError names the op and `xname` for an integer out of range.
NDArray apply_idx(const NDArray& x, const IdxList& idx, std::span<const NDArray> sym, const std::string& op,
                  const std::string& xname);

/// ShapeError unless `y` broadcasts to `target` under the static rule (only a
/// dimension whose type says 1 broadcasts; `ytype` is y's type).
void check_value_broadcast(const NDArray& y, const TensorType& ytype, const std::vector<std::int64_t>& target,
                           const std::string& op, const std::string& yname);

/// make_node checks of an Inc op's value: rank, dtype (same-kind castable) and
/// known sizes against the indexed part's static shape.
void check_inc_value(const Var& x, const Var& y, const StaticShape& sub_shape, const std::string& op);

/// The type of the variable `v` given as index `i` of x[...]: an integer or
/// bool tensor, else a TypeError naming x, the position and v.
const TensorType* checked_index_type(const Var& x, std::size_t i, const Var& v);

/// Whether `ix` is a full slice (`all`).
bool is_full_slice(const Index& ix);

/// `x[indices]` by NumPy's rules in full (general_index.cpp): the graph of
/// indexing ops behind an IndexExpression.
Var general_index(const Var& x, const std::vector<Index>& indices);

/// The update of an IndexExpression's x: its result set to / incremented by
/// y (broadcast); `fname` names the caller in errors.
Var general_update(const Apply& marker, const Var& y, bool set, const char* fname);

}  // namespace theano::tensor::detail

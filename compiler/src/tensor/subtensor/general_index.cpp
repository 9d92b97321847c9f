/// \file
/// NumPy's indexing rules in full, as a graph of the indexing ops: integer
/// arrays of any rank broadcast together, mixed with slices, `newaxis` and
/// an ellipsis; boolean masks of any rank; scalars that count as advanced
/// indices beside an array. The result is marked by an IndexExpression so
/// set_subtensor / inc_subtensor can rebuild the update (docs/array-ops.md,
/// "Indexing").
///
/// The plan, for the forward value and the update alike:
///   1. the ellipsis becomes full slices; a k-d boolean mask covers k axes;
///   2. t = x[basic part] (slices; the advanced entries' axes kept whole);
///   3. t's advanced axes are moved first and merged into one axis, and the
///      broadcast index arrays become one row-major flat index into it
///      (each array checked against its own axis first: merged, x[0, 5] of
///      a 3 x 3 x would otherwise read row 1); a mask's flat index is the
///      positions of its true elements in its axes (Nonzero);
///   4. one gather (take: AdvancedSubtensor1) or one scatter
///      (AdvancedIncSubtensor1; duplicates accumulate when incrementing);
///   5. the broadcast axes go where NumPy puts them: in place of the first
///      advanced index when the advanced entries are adjacent, else first;
///      `newaxis` adds its size-1 axes.
#include <algorithm>
#include <numeric>

#include "../shape/shape_util.h"
#include "idx_util.h"
#include "theano/graph/op_registry.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/index_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor {

// ---- IndexExpression --------------------------------------------------------------------

THEANO_REGISTER_OP(IndexExpression,
                   .no_cuda = "local_remove_index_expression (canonicalize) replaces it by its first input before the "
                              "GPU transfer; without rewrites its C++ form (a view) runs");

ApplyPtr IndexExpression::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() >= 2, TypeError)
      << "IndexExpression takes the computed result, x and the index variables, got " << inputs.size() << " inputs";
  for (Var& v : inputs) v = as_tensor_variable(v);
  Var o = inputs[0].type()->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {o});
}

void IndexExpression::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  outputs[0] = inputs[0];
}

std::vector<std::vector<Var>> IndexExpression::infer_shape(const Apply&,
                                                           const std::vector<std::vector<Var>>& input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> IndexExpression::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  std::vector<Var> r(static_cast<std::size_t>(node.nin()));
  r[0] = output_grads[0];
  return r;
}

std::vector<std::vector<bool>> IndexExpression::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> r(static_cast<std::size_t>(node.nin()), {false});
  r[0] = {true};
  return r;
}

ViewMap IndexExpression::view_map() const { return {{0, {0}}}; }

namespace detail {
namespace {

// ---- the index list as codes + inputs (IndexExpression's props) ----

enum Code : int { kVariable = 1, kNewAxisCode = 2, kEllipsisCode = 3, kSliceCode = 4 /* + start 1, stop 2, step 4 */ };

Var const_index(std::int64_t v) { return constant(NDArray::scalar<std::int64_t>(v)); }

void encode(const std::vector<Index>& indices, std::vector<int>& codes, std::vector<Var>& vars) {
  auto bound = [&](const Bound& b, int bit, int& code) {
    if (b.is_none()) return;
    code += bit;
    vars.push_back(b.is_constant() ? const_index(b.constant()) : b.symbolic());
  };
  for (const Index& ix : indices) {
    if (ix.is_newaxis()) {
      codes.push_back(kNewAxisCode);
    } else if (ix.is_ellipsis()) {
      codes.push_back(kEllipsisCode);
    } else if (ix.is_slice()) {
      int code = kSliceCode;
      bound(ix.as_slice().start, 1, code);
      bound(ix.as_slice().stop, 2, code);
      bound(ix.as_slice().step, 4, code);
      codes.push_back(code);
    } else {
      codes.push_back(kVariable);
      vars.push_back(ix.is_variable() ? ix.variable() : const_index(ix.scalar_constant()));
    }
  }
}

std::vector<Index> decode(const std::vector<int>& codes, std::span<const Var> vars) {
  std::vector<Index> r;
  std::size_t k = 0;
  auto next = [&]() -> Var {
    THEANO_INTERNAL_CHECK(k < vars.size()) << "IndexExpression: fewer index inputs than its codes name";
    return vars[k++];
  };
  for (const int c : codes) {
    if (c == kNewAxisCode) {
      r.emplace_back(newaxis);
    } else if (c == kEllipsisCode) {
      r.emplace_back(ellipsis);
    } else if (c == kVariable) {
      r.emplace_back(next());
    } else {
      THEANO_INTERNAL_CHECK(c >= kSliceCode && c < kSliceCode + 8) << "IndexExpression: unknown code " << c;
      Slice s;
      if (c & 1) s.start = next();
      if ((c - kSliceCode) & 2) s.stop = next();
      if ((c - kSliceCode) & 4) s.step = next();
      r.emplace_back(s);
    }
  }
  return r;
}

// ---- the plan ----

/// One entry of the index after the ellipsis is expanded.
struct Entry {
  enum class Kind : std::uint8_t { Basic, NewAxis, Advanced };
  Kind kind = Kind::Basic;
  Index basic = all;  ///< Basic: a slice, or an integer when no array is present
  Var index;          ///< Advanced: an integer index (any rank) or a mask's flat positions
  Var mask;           ///< Advanced from a boolean mask: the mask
  int naxes = 1;      ///< the axes of x it covers (a mask: its rank; newaxis: 0)
  int xaxis = 0;      ///< the first of them
};

struct Plan {
  std::vector<Entry> entries;
  bool arrays = false;  ///< an index array (integer or boolean) is present
};

/// x's name for an Assert message, braces made parentheses: a "{}" in it
/// would otherwise be taken for a reported value's place.
std::string xlabel(const Var& x) {
  std::string s = x.name().empty() ? std::string("x") : x.name();
  for (char& c : s) {
    if (c == '{') c = '(';
    if (c == '}') c = ')';
  }
  return s;
}

Plan make_plan(const Var& x, const std::vector<Index>& indices) {
  const TensorType* tx = tensor_type(x);
  const int nd = tx->ndim();
  int consumed = 0, ellipses = 0;
  Plan p;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const Index& ix = indices[i];
    if (ix.is_ellipsis()) {
      ++ellipses;
      continue;
    }
    if (ix.is_newaxis()) continue;
    if (!ix.is_variable()) {
      ++consumed;
      continue;
    }
    const Var& v = ix.variable();
    const TensorType* tv = checked_index_type(x, i, v);
    if (tv->dtype() == DType::Bool) {
      THEANO_USER_CHECK(tv->ndim() >= 1, TypeError)
          << "x[...] on " << x.str() << ": index " << i << " (" << v.str()
          << ") is a 0-d boolean; NumPy's x[True] is not supported (use newaxis)";
      consumed += tv->ndim();
    } else {
      ++consumed;
    }
    if (tv->ndim() >= 1) p.arrays = true;
  }
  THEANO_USER_CHECK(ellipses <= 1, IndexError)
      << "x[...] on " << x.str() << ": an index can only have a single ellipsis, got " << ellipses;
  THEANO_USER_CHECK(consumed <= nd, IndexError)
      << "x[...] on " << x.str() << ": too many indices: " << x.str() << " has " << nd << " dimensions (type "
      << tx->str() << "), the index uses " << consumed;
  int axis = 0;
  for (const Index& ix : indices) {
    Entry e;
    if (ix.is_ellipsis()) {
      for (int k = 0; k < nd - consumed; ++k, ++axis) {
        p.entries.push_back(Entry{});
        p.entries.back().xaxis = axis;
      }
      continue;
    }
    if (ix.is_newaxis()) {
      e.kind = Entry::Kind::NewAxis;
      e.naxes = 0;
    } else if (ix.is_slice()) {
      e.basic = ix;
    } else if (ix.is_scalar_constant()) {
      if (p.arrays) {
        e.kind = Entry::Kind::Advanced;
        e.index = const_index(ix.scalar_constant());
      } else {
        e.basic = ix;
      }
    } else {
      const Var& v = ix.variable();
      const TensorType* tv = tensor_type(v);
      if (tv->dtype() == DType::Bool) {
        // The mask's shape must be the shape of the axes it covers (NumPy's IndexError).
        const int k = tv->ndim();
        Var m = v;
        std::vector<Var> conds;
        for (int d = 0; d < k; ++d) {
          const Dim ms = tv->shape()[static_cast<std::size_t>(d)];
          const Dim xs = tx->shape()[static_cast<std::size_t>(axis + d)];
          THEANO_USER_CHECK(!ms || !xs || *ms == *xs, IndexError)
              << "x[...] on " << x.str() << ": the boolean index " << v.str()
              << " did not match the indexed array along axis " << axis + d << ": the axis has size " << *xs
              << ", the boolean index " << *ms;
          if (!ms || !xs)
            m = assert_op(m, {eq(shape_i(v, d), shape_i(x, axis + d))},
                          "IndexError: x[...] on " + xlabel(x) + ": the boolean index did not match the indexed "
                          "array along axis " + std::to_string(axis + d) + ": the axis has size {}, the boolean "
                          "index {}",
                          {shape_i(x, axis + d), shape_i(v, d)});
        }
        e.kind = Entry::Kind::Advanced;
        e.mask = m;
        e.index = flatnonzero(m);
        e.naxes = k;
      } else if (tv->ndim() == 0 && !p.arrays) {
        e.basic = ix;
      } else {
        e.kind = Entry::Kind::Advanced;
        e.index = v;
      }
    }
    e.xaxis = axis;
    axis += e.naxes;
    p.entries.push_back(std::move(e));
  }
  if (ellipses == 0)
    for (; axis < nd; ++axis) {
      p.entries.push_back(Entry{});
      p.entries.back().xaxis = axis;
    }
  return p;
}

bool is_full(const Entry& e) { return e.kind == Entry::Kind::Basic && is_full_slice(e.basic); }

/// Steps 2-4's graph: t = x[basic], its advanced axes moved first (ta) and
/// merged (merged), the flat index (lin) into the merged axis.
struct Built {
  Var t;                    ///< x[basic part]
  bool t_is_x = false;      ///< the basic part is all full slices
  std::vector<int> perm;    ///< t -> ta (empty: identity)
  Var ta, merged, lin;      ///< lin: int64 of the broadcast shape B
  int nadv_axes = 0;        ///< t's axes the advanced entries cover
  int rank_b = 0;           ///< B's rank
  int nrest = 0;            ///< t's other axes
};

Built build(const Var& x, const Plan& p) {
  Built b;
  std::vector<Index> basic;
  b.t_is_x = true;
  for (const Entry& e : p.entries) {
    if (e.kind == Entry::Kind::NewAxis) continue;
    for (int k = 0; k < e.naxes; ++k) basic.push_back(e.kind == Entry::Kind::Basic ? e.basic : Index(all));
    b.t_is_x = b.t_is_x && (e.kind != Entry::Kind::Basic || is_full(e));
  }
  b.t = b.t_is_x ? x : subtensor(x, basic);
  // t's axes per entry: Basic slices and Advanced entries keep theirs (integers only appear without arrays).
  std::vector<int> adv_axes, rest_axes;
  int ta_axis = 0;
  std::vector<const Entry*> groups;
  for (const Entry& e : p.entries) {
    if (e.kind == Entry::Kind::NewAxis) continue;
    for (int k = 0; k < e.naxes; ++k, ++ta_axis) (e.kind == Entry::Kind::Advanced ? adv_axes : rest_axes).push_back(ta_axis);
    if (e.kind == Entry::Kind::Advanced) groups.push_back(&e);
  }
  b.nadv_axes = static_cast<int>(adv_axes.size());
  b.nrest = static_cast<int>(rest_axes.size());
  std::vector<int> perm = adv_axes;
  perm.insert(perm.end(), rest_axes.begin(), rest_axes.end());
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int>(i);
  b.ta = identity ? b.t : dimshuffle(b.t, perm);
  if (!identity) b.perm = perm;
  // The flat index: lin = lin * D_g + i_g over the groups, each integer array
  // checked against its axis (a single array is left to AdvancedSubtensor1's check).
  const bool single = groups.size() == 1;
  int axis = 0;
  std::vector<Var> merged_shape;
  Var merged_len;
  for (const Entry* g : groups) {
    Var dg = shape_i(b.ta, axis);
    for (int k = 1; k < g->naxes; ++k) dg = mul(dg, shape_i(b.ta, axis + k));
    Var i = g->index;
    if (tensor_type(i)->dtype() != DType::Int64) i = cast(i, DType::Int64);
    if (!g->mask && !single) {
      const Var ok = all_(and_(ge(i, neg(dg)), lt(i, dg)));
      i = switch_(lt(i, const_index(0)), add(i, dg), i);
      i = assert_op(i, {ok},
                    "IndexError: x[...] on " + xlabel(x) + ": an index is out of bounds for axis " +
                        std::to_string(g->xaxis) + " with size {}",
                    {dg});
    }
    b.lin = b.lin ? add(mul(b.lin, dg), i) : i;
    merged_len = merged_len ? mul(merged_len, dg) : dg;
    b.rank_b = std::max(b.rank_b, tensor_type(i)->ndim());
    axis += g->naxes;
  }
  if (b.nadv_axes == 1) {
    b.merged = b.ta;
  } else {
    merged_shape.push_back(merged_len);
    for (int d = b.nadv_axes; d < b.nadv_axes + b.nrest; ++d) merged_shape.push_back(shape_i(b.ta, d));
    b.merged = OpPtr(new Reshape(b.nrest + 1, /*of_index=*/true))->apply1({b.ta, make_vector(merged_shape, DType::Int64)});
  }
  return b;
}

/// Step 5: the result's axes from the gathered value's (B, then the rest):
/// an entry of the DimShuffle order per result axis.
std::vector<int> placement(const Plan& p, int rank_b) {
  std::vector<int> adv_pos;
  for (std::size_t i = 0; i < p.entries.size(); ++i)
    if (p.entries[i].kind == Entry::Kind::Advanced) adv_pos.push_back(static_cast<int>(i));
  bool adjacent = true;
  for (std::size_t k = 1; k < adv_pos.size(); ++k) adjacent = adjacent && adv_pos[k] == adv_pos[k - 1] + 1;
  std::vector<int> order;
  if (!adjacent)
    for (int d = 0; d < rank_b; ++d) order.push_back(d);
  int rest = rank_b;
  bool placed = !adjacent;
  for (const Entry& e : p.entries) {
    if (e.kind == Entry::Kind::NewAxis) {
      order.push_back(kNewAxis);
    } else if (e.kind == Entry::Kind::Basic) {
      if (e.basic.is_slice()) order.push_back(rest++);
    } else if (!placed) {
      for (int d = 0; d < rank_b; ++d) order.push_back(d);
      placed = true;
    }
  }
  return order;
}

bool is_identity(const std::vector<int>& order) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int>(i)) return false;
  return true;
}

}  // namespace

Var general_index(const Var& x, const std::vector<Index>& indices) {
  const Plan p = make_plan(x, indices);
  Var r;
  if (!p.arrays) {
    // Integers, slices and newaxis: a Subtensor, then the new axes.
    std::vector<Index> basic;
    for (const Entry& e : p.entries)
      if (e.kind == Entry::Kind::Basic) basic.push_back(e.basic);
    const Var t = subtensor(x, basic);
    std::vector<int> order;
    int axis = 0;
    for (const Entry& e : p.entries) {
      if (e.kind == Entry::Kind::NewAxis)
        order.push_back(kNewAxis);
      else if (e.basic.is_slice())
        order.push_back(axis++);
    }
    r = is_identity(order) && static_cast<int>(order.size()) == tensor_type(t)->ndim() ? t : dimshuffle(t, order);
  } else {
    const Built b = build(x, p);
    const Var g = take(b.merged, b.lin, 0);
    const std::vector<int> order = placement(p, b.rank_b);
    r = is_identity(order) && static_cast<int>(order.size()) == tensor_type(g)->ndim() ? g : dimshuffle(g, order);
  }
  std::vector<int> codes;
  std::vector<Var> ins{r, x};
  encode(indices, codes, ins);
  return OpPtr(new IndexExpression(std::move(codes)))->apply1(std::move(ins));
}

Var general_update(const Apply& marker, const Var& y_in, bool set, const char* fname) {
  const auto& op = static_cast<const IndexExpression&>(*marker.op());
  const Var& x = marker.input(1);
  const Var& x_sub = marker.output(0);
  const std::vector<Index> indices =
      decode(op.codes(), std::span<const Var>(marker.inputs().data() + 2, marker.inputs().size() - 2));
  const Plan p = make_plan(x, indices);
  const int ynd = tensor_type(y_in)->ndim(), nd = tensor_type(x_sub)->ndim();
  THEANO_USER_CHECK(ynd <= nd, TypeError) << fname << ": the value " << y_in.str() << " has " << ynd
                                          << " dimensions, more than the " << nd << " of " << x_sub.str();
  // y broadcast to the result's shape, then its axes in the order of the
  // update's target (B, then the rest), the newaxis axes last and dropped.
  const Var v = alloc(y_in, shape(x_sub));
  std::vector<int> result;  // per result axis: -2 newaxis, else the position in the target
  int rank_b = 0;
  Built b;
  if (p.arrays) {
    b = build(x, p);
    rank_b = b.rank_b;
    result = placement(p, rank_b);
  } else {
    int axis = 0;
    for (const Entry& e : p.entries) {
      if (e.kind == Entry::Kind::NewAxis)
        result.push_back(kNewAxis);
      else if (e.basic.is_slice())
        result.push_back(axis++);
    }
  }
  std::vector<int> to_target;  // result axes in target order, then the newaxis ones
  const int ntarget = static_cast<int>(std::count_if(result.begin(), result.end(), [](int a) { return a != kNewAxis; }));
  for (int a = 0; a < ntarget; ++a)
    to_target.push_back(static_cast<int>(std::find(result.begin(), result.end(), a) - result.begin()));
  std::vector<Index> drop(static_cast<std::size_t>(ntarget), Index(all));
  for (std::size_t i = 0; i < result.size(); ++i)
    if (result[i] == kNewAxis) {
      to_target.push_back(static_cast<int>(i));
      drop.emplace_back(0);
    }
  Var vt = is_identity(to_target) ? v : dimshuffle(v, to_target);
  if (static_cast<int>(drop.size()) > ntarget) vt = subtensor(vt, drop);
  if (!p.arrays) {
    // Only slices, integers and newaxis: the update of the Subtensor.
    std::vector<Index> basic;
    for (const Entry& e : p.entries)
      if (e.kind == Entry::Kind::Basic) basic.push_back(e.basic);
    return set ? set_subtensor(subtensor(x, basic), vt) : inc_subtensor(subtensor(x, basic), vt);
  }
  // The scatter into the merged axis: B flattened.
  const Var linf = rank_b == 1 ? b.lin : flatten(b.lin, 1);
  if (rank_b != 1) {
    std::vector<Var> s{shape_i(linf, 0)};
    for (int d = rank_b; d < rank_b + b.nrest; ++d) s.push_back(shape_i(vt, d));
    vt = reshape(vt, make_vector(s, DType::Int64), b.nrest + 1);
  }
  const Var merged2 = OpPtr(new AdvancedIncSubtensor1(false, set))->apply1({b.merged, vt, linf});
  const Var ta2 = b.nadv_axes == 1 ? merged2 : reshape(merged2, shape(b.ta), tensor_type(b.ta)->ndim());
  Var t2 = ta2;
  if (!b.perm.empty()) {
    std::vector<int> inv(b.perm.size());
    for (std::size_t i = 0; i < b.perm.size(); ++i) inv[static_cast<std::size_t>(b.perm[i])] = static_cast<int>(i);
    t2 = dimshuffle(ta2, inv);
  }
  if (b.t_is_x) return t2;
  return set_subtensor(b.t, t2);
}

}  // namespace detail
}  // namespace theano::tensor

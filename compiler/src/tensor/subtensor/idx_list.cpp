/// \file
/// idx_list handling shared by Subtensor and IncSubtensor: parsing user indices,
/// Theano's printed form, applying to NDArrays with Python slice semantics, and
/// static / symbolic result shapes (via the folded SymInt slice length).
#include <algorithm>
#include <sstream>

#include "../shape/shape_util.h"
#include "idx_util.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/tensor/as_tensor.h"

namespace theano::tensor {

namespace {

std::string bound_str(const IdxBound& b) {
  switch (b.kind) {
    case IdxBound::Kind::None: return "";
    case IdxBound::Kind::Constant: return std::to_string(b.value);
    case IdxBound::Kind::Symbolic: return std::string(dtype_name(b.dtype));
  }
  return "";
}

}  // namespace

std::string idx_list_str(const IdxList& idx) {
  std::string r;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (i) r += ", ";
    const IdxEntry& e = idx[i];
    if (e.is_slice)
      r += bound_str(e.start) + ":" + bound_str(e.stop) + ":" + bound_str(e.step);
    else
      r += bound_str(e.index);
  }
  return r;
}

int idx_list_n_symbolic(const IdxList& idx) {
  int n = 0;
  for (const IdxEntry& e : idx) {
    if (e.is_slice)
      n += e.start.is_symbolic() + e.stop.is_symbolic() + e.step.is_symbolic();
    else
      n += e.index.is_symbolic();
  }
  return n;
}

namespace detail {

namespace {

/// One bound (or integer index) from the user's form; symbolic ones append to `inputs`.
IdxBound parse_bound(const Var& x, const Bound& b, std::vector<Var>& inputs, const char* what) {
  if (b.is_none()) return IdxBound::none();
  if (b.is_constant()) return IdxBound::constant(b.constant());
  const Var& v = b.symbolic();
  check_int_scalar(v, "x[...] on " + x.str(), what);
  if (auto c = constant_int(v)) return IdxBound::constant(*c);
  inputs.push_back(v);
  return IdxBound::symbolic(tensor_type(v)->dtype());
}

}  // namespace

ParsedIdx parse_basic_indices(const Var& x, const std::vector<Index>& indices) {
  ParsedIdx p;
  for (const Index& ix : indices) {
    IdxEntry e;
    if (ix.is_slice()) {
      e.is_slice = true;
      const Slice& s = ix.as_slice();
      e.start = parse_bound(x, s.start, p.inputs, "a slice start");
      e.stop = parse_bound(x, s.stop, p.inputs, "a slice stop");
      e.step = parse_bound(x, s.step, p.inputs, "a slice step");
      THEANO_USER_CHECK(!(e.step.is_constant() && e.step.value == 0), ValueError)
          << "x[...] on " << x.str() << ": slice step cannot be zero";
    } else if (ix.is_scalar_constant()) {
      e.index = IdxBound::constant(ix.scalar_constant());
    } else {
      e.index = parse_bound(x, Bound(ix.variable()), p.inputs, "an integer index");
    }
    p.idx.push_back(e);
  }
  return p;
}

void check_idx_inputs(const IdxList& idx, const Var& x, std::span<const Var> sym, const std::string& op) {
  const TensorType* t = tensor_type(x);
  THEANO_USER_CHECK(idx.size() <= static_cast<std::size_t>(t->ndim()), IndexError)
      << op << ": too many indices (" << idx.size() << ") for " << x.str() << ", which has " << t->ndim()
      << " dimensions (type " << t->str() << ")";
  THEANO_USER_CHECK(static_cast<int>(sym.size()) == idx_list_n_symbolic(idx), TypeError)
      << op << ": expected " << idx_list_n_symbolic(idx) << " symbolic index inputs, got " << sym.size();
  std::size_t k = 0;
  auto check = [&](const IdxBound& b) {
    if (!b.is_symbolic()) return;
    const Var& v = sym[k++];
    check_int_scalar(v, op, "symbolic index input " + std::to_string(k - 1));
    THEANO_USER_CHECK(tensor_type(v)->dtype() == b.dtype, TypeError)
        << op << ": symbolic index input " << k - 1 << " (" << v.str() << ") has dtype "
        << dtype_name(tensor_type(v)->dtype()) << ", the idx_list expects " << dtype_name(b.dtype);
  };
  for (const IdxEntry& e : idx) {
    if (e.is_slice) {
      check(e.start);
      check(e.stop);
      check(e.step);
    } else {
      check(e.index);
    }
  }
}

StaticShape idx_static_shape(const Var& x, const IdxList& idx, const std::string& op) {
  const StaticShape& xs = tensor_type(x)->shape();
  StaticShape out;
  for (std::size_t d = 0; d < xs.size(); ++d) {
    if (d >= idx.size()) {
      out.push_back(xs[d]);
      continue;
    }
    const IdxEntry& e = idx[d];
    if (!e.is_slice) {
      if (e.index.is_constant() && xs[d]) {
        const std::int64_t i = e.index.value, n = *xs[d];
        THEANO_USER_CHECK(i >= -n && i < n, IndexError)
            << op << ": index " << i << " is out of bounds for axis " << d << " with size " << n << " (" << x.str()
            << " has type " << tensor_type(x)->str() << ")";
      }
      continue;  // the axis is dropped
    }
    const bool full = e.start.is_none() && e.stop.is_none() &&
                      (e.step.is_none() || (e.step.is_constant() && e.step.value == 1));
    if (full) {
      out.push_back(xs[d]);
      continue;
    }
    auto c = [](const IdxBound& b) -> std::optional<SymInt> {
      return b.is_constant() ? std::optional<SymInt>(SymInt(b.value)) : std::nullopt;
    };
    if (!xs[d] || e.start.is_symbolic() || e.stop.is_symbolic() || e.step.is_symbolic()) {
      out.push_back(std::nullopt);
      continue;
    }
    const SymInt len = slice_length(SymInt(*xs[d]), c(e.start), c(e.stop), c(e.step));
    out.push_back(len.constant());
  }
  return out;
}

std::vector<Var> idx_infer_shape(const std::vector<Var>& xshape, const IdxList& idx, std::span<const Var> sym) {
  std::vector<Var> out;
  std::size_t k = 0;
  auto bound = [&](const IdxBound& b) -> std::optional<SymInt> {
    if (b.is_none()) return std::nullopt;
    if (b.is_constant()) return SymInt(b.value);
    return SymInt::of(sym[k++]);
  };
  for (std::size_t d = 0; d < xshape.size(); ++d) {
    if (d >= idx.size()) {
      out.push_back(xshape[d]);
      continue;
    }
    const IdxEntry& e = idx[d];
    if (!e.is_slice) {
      if (e.index.is_symbolic()) ++k;
      continue;
    }
    const auto start = bound(e.start);
    const auto stop = bound(e.stop);
    const auto step = bound(e.step);
    if (!start && !stop && (!step || (step->is_constant() && step->constant() == 1))) {
      out.push_back(xshape[d]);
      continue;
    }
    out.push_back(slice_length(SymInt::of(xshape[d]), start, stop, step).var());
  }
  return out;
}

NDArray apply_idx(const NDArray& x, const IdxList& idx, std::span<const NDArray> sym, const std::string& op,
                  const std::string& xname) {
  NDArray r = x;
  std::size_t k = 0;
  auto value = [&](const IdxBound& b) -> std::optional<std::int64_t> {
    if (b.is_none()) return std::nullopt;
    if (b.is_constant()) return b.value;
    return sym[k++].item<std::int64_t>();
  };
  THEANO_USER_CHECK(idx.size() <= static_cast<std::size_t>(x.ndim()), IndexError)
      << op << ": too many indices (" << idx.size() << ") for " << xname << " of shape " << shape_to_string(x.shape());
  int axis = 0;        // axis of r being indexed
  std::size_t xd = 0;  // axis of x it came from
  for (const IdxEntry& e : idx) {
    if (!e.is_slice) {
      const std::int64_t i = *value(e.index);
      const std::int64_t n = r.shape()[static_cast<std::size_t>(axis)];
      THEANO_USER_CHECK(i >= -n && i < n, IndexError)
          << op << ": index " << i << " is out of bounds for axis " << xd << " with size " << n << " (indexing "
          << xname << " of shape " << shape_to_string(x.shape()) << ")";
      r = r.index(axis, i);
    } else {
      const auto start = value(e.start);
      const auto stop = value(e.stop);
      const auto step = value(e.step);
      THEANO_USER_CHECK(step.value_or(1) != 0, ValueError)
          << op << ": slice step cannot be zero (indexing " << xname << ")";
      r = r.slice(axis, start, stop, step.value_or(1));
      ++axis;
    }
    ++xd;
  }
  return r;
}

void check_value_broadcast(const NDArray& y, const TensorType& ytype, const std::vector<std::int64_t>& target,
                           const std::string& op, const std::string& yname) {
  // Theano's rule, the function generated code calls (shape_rules.h).
  std::vector<unsigned char> declared_one;
  for (const Dim& s : ytype.shape()) declared_one.push_back(s && *s == 1);
  declared_one.resize(static_cast<std::size_t>(std::max(y.ndim(), 1)), 0);
  std::int64_t bad = 0;
  if (const int rule = theano_broadcast_to_rule(y.ndim(), y.shape().data(), declared_one.data(),
                                                static_cast<std::int64_t>(target.size()), target.data(), &bad))
    throw_shape_rule(rule,
                     op + ": the value " + yname + " of shape " + shape_to_string(y.shape()) + " (type " + ytype.str() +
                         "; only dimensions whose type says size 1 broadcast), indexed shape " + shape_to_string(target),
                     bad);
}

void check_inc_value(const Var& x, const Var& y, const StaticShape& sub_shape, const std::string& op) {
  const TensorType* tx = tensor_type(x);
  const TensorType* ty = tensor_type(y);
  THEANO_USER_CHECK(ty->ndim() <= static_cast<int>(sub_shape.size()), TypeError)
      << op << ": the value " << y.str() << " has " << ty->ndim() << " dimensions (type " << ty->str()
      << "), more than the " << sub_shape.size() << " of the indexed part of " << x.str();
  THEANO_USER_CHECK(can_cast(ty->dtype(), tx->dtype(), Casting::SameKind), TypeError)
      << op << ": the value " << y.str() << " has dtype " << dtype_name(ty->dtype()) << ", which cannot be cast to "
      << x.str() << "'s dtype " << dtype_name(tx->dtype()) << " (same-kind casting); cast it explicitly";
  const std::size_t off = sub_shape.size() - static_cast<std::size_t>(ty->ndim());
  for (std::size_t j = 0; j < static_cast<std::size_t>(ty->ndim()); ++j) {
    const Dim& dy = ty->shape()[j];
    const Dim& ds = sub_shape[j + off];
    THEANO_USER_CHECK(!dy || !ds || *dy == *ds || *dy == 1, ShapeError)
        << op << ": the value " << y.str() << " (type " << ty->str() << ") cannot be broadcast to the indexed part "
        << static_shape_str(sub_shape) << " of " << x.str() << ": dimension " << j << " has size " << *dy
        << " where " << *ds << " is expected";
  }
}

}  // namespace detail
}  // namespace theano::tensor

// NDArray views: slicing, indexing, transposition, reshape, broadcasting. None of
// these copies elements (except reshaped(), when it must); all validate their
// arguments with user errors that say what was expected and what was got. And
// whether a view's elements may overlap (in-place code must copy such an array).
#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "theano/runtime/ndarray.h"
#include "theano/runtime/overlap.h"
#include "theano/runtime/kernels/reshape_view.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano {
namespace {

int normalize_axis(int axis, int ndim, const char* what) {
  THEANO_USER_CHECK(axis >= -ndim && axis < ndim, IndexError)
      << what << ": axis " << axis << " is out of bounds for array of dimension " << ndim;
  return axis < 0 ? axis + ndim : axis;
}

std::string perm_to_string(const std::vector<int>& p) {
  std::string s = "(";
  for (std::size_t i = 0; i < p.size(); ++i) s += (i ? ", " : "") + std::to_string(p[i]);
  return s + (p.size() == 1 ? ",)" : ")");
}

// numpy's _attempt_nocopy_reshape (reshape_view.h, the rule generated code
// runs too): strides for `newshape` viewing the same elements in C order, or
// nullopt when no such strides exist.
std::optional<std::vector<int64_t>> nocopy_strides(const std::vector<int64_t>& oshape_in,
                                                   const std::vector<int64_t>& ostrides_in,
                                                   const std::vector<int64_t>& nshape, int64_t itemsize) {
  std::vector<int64_t> oshape, ostrides;
  for (std::size_t i = 0; i < oshape_in.size(); ++i)
    if (oshape_in[i] != 1) {
      oshape.push_back(oshape_in[i]);
      ostrides.push_back(ostrides_in[i]);
    }
  std::vector<int64_t> nstrides(nshape.size(), 0);
  if (!theano_nocopy_reshape_rule(static_cast<int64_t>(oshape.size()), oshape.data(), ostrides.data(),
                                  static_cast<int64_t>(nshape.size()), nshape.data(), nstrides.data(), itemsize))
    return std::nullopt;
  return nstrides;
}

}  // namespace

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    THEANO_USER_CHECK(x == y || x == 1 || y == 1, ShapeError)
        << "shapes " << shape_to_string(a) << " and " << shape_to_string(b)
        << " cannot be broadcast together (dimension " << i << ": " << x << " vs " << y << ")";
    out[i] = x == 1 ? y : x;
  }
  return out;
}

NDArray NDArray::slice(int axis, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) const {
  check_defined("slice");
  axis = normalize_axis(axis, ndim(), "slice");
  const int64_t n = shape_[static_cast<std::size_t>(axis)];
  // The rule generated code runs too (shape_rules.h).
  int64_t b = 0, len = 0;
  const int rule =
      theano_slice_rule(n, start.has_value(), start.value_or(0), stop.has_value(), stop.value_or(0), step, &b, &len);
  THEANO_USER_CHECK(rule != THEANO_RULE_ZERO_STEP, ValueError) << "slice step cannot be zero";
  THEANO_USER_CHECK(rule == THEANO_RULE_OK, ValueError) << "slice step " << step << " is out of range";
  std::vector<int64_t> shape = shape_, strides = strides_;
  const auto ax = static_cast<std::size_t>(axis);
  shape[ax] = len;
  strides[ax] = theano_slice_stride(strides_[ax], step);
  // An empty result keeps the base pointer: an empty array may have no data
  // at all (nullptr), and no offset may be applied to it.
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  std::byte* d = empty ? data_ : data_ + b * strides_[ax];
  return view(d, std::move(shape), std::move(strides));
}

NDArray NDArray::index(int axis, int64_t i) const {
  check_defined("index");
  axis = normalize_axis(axis, ndim(), "index");
  const auto ax = static_cast<std::size_t>(axis);
  const int64_t n = shape_[ax];
  int64_t at = 0;
  THEANO_USER_CHECK(theano_index_rule(n, i, &at) == THEANO_RULE_OK, IndexError)
      << "index " << i << " is out of bounds for axis " << axis << " with size " << n;
  i = at;
  std::vector<int64_t> shape = shape_, strides = strides_;
  shape.erase(shape.begin() + axis);
  strides.erase(strides.begin() + axis);
  // As in slice: an empty result keeps the (maybe null) base pointer.
  const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
  return view(empty ? data_ : data_ + i * strides_[ax], std::move(shape), std::move(strides));
}

NDArray NDArray::transpose() const {
  std::vector<int> perm(static_cast<std::size_t>(ndim()));
  std::iota(perm.rbegin(), perm.rend(), 0);
  return transpose(std::move(perm));
}

NDArray NDArray::transpose(std::vector<int> perm) const {
  check_defined("transpose");
  const int nd = ndim();
  THEANO_USER_CHECK(static_cast<int>(perm.size()) == nd, ValueError)
      << "transpose: axes " << perm_to_string(perm) << " don't match array of dimension " << nd;
  std::vector<bool> seen(static_cast<std::size_t>(nd), false);
  std::vector<int64_t> shape(perm.size()), strides(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const int p = perm[i];
    THEANO_USER_CHECK(p >= -nd && p < nd, ValueError)
        << "transpose: axes " << perm_to_string(perm) << " is not a permutation of 0.." << nd - 1 << " (axis " << p
        << " is out of bounds)";
    const auto a = static_cast<std::size_t>(p < 0 ? p + nd : p);
    THEANO_USER_CHECK(!seen[a], ValueError)
        << "transpose: axes " << perm_to_string(perm) << " is not a permutation of 0.." << nd - 1 << " (axis " << a
        << " repeated)";
    seen[a] = true;
    shape[i] = shape_[a];
    strides[i] = strides_[a];
  }
  return view(data_, std::move(shape), std::move(strides));
}

static std::vector<int64_t> resolve_shape(std::vector<int64_t> shape, int64_t size, const std::vector<int64_t>& from) {
  int infer = -1;
  int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      THEANO_USER_CHECK(infer < 0, ShapeError)
          << "reshape: can only specify one unknown dimension (-1), got " << shape_to_string(shape);
      infer = static_cast<int>(i);
    } else {
      THEANO_USER_CHECK(shape[i] >= 0, ShapeError)
          << "reshape: negative dimension " << shape[i] << " in " << shape_to_string(shape);
      THEANO_USER_CHECK(shape[i] == 0 || known <= std::numeric_limits<int64_t>::max() / shape[i], ShapeError)
          << "reshape: shape " << shape_to_string(shape) << " is too big";
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    THEANO_USER_CHECK(known != 0 && size % known == 0, ShapeError)
        << "cannot reshape array of size " << size << " (shape " << shape_to_string(from) << ") into shape "
        << shape_to_string(shape);
    shape[static_cast<std::size_t>(infer)] = size / known;
    known = size;
  }
  THEANO_USER_CHECK(known == size, ShapeError) << "cannot reshape array of size " << size << " (shape "
                                               << shape_to_string(from) << ") into shape " << shape_to_string(shape);
  return shape;
}

NDArray NDArray::reshape(std::vector<int64_t> shape) const {
  check_defined("reshape");
  shape = resolve_shape(std::move(shape), size(), shape_);
  if (size() == 0 || is_c_contiguous()) return view(data_, shape, c_strides(shape, itemsize()));
  auto strides = nocopy_strides(shape_, strides_, shape, itemsize());
  THEANO_USER_CHECK(strides.has_value(), ShapeError)
      << "cannot reshape a non-contiguous array of shape " << shape_to_string(shape_) << " (strides "
      << shape_to_string(strides_) << ") into shape " << shape_to_string(shape)
      << " without copying; use reshaped() to allow a copy";
  return view(data_, std::move(shape), std::move(*strides));
}

NDArray NDArray::reshaped(std::vector<int64_t> shape) const {
  check_defined("reshaped");
  shape = resolve_shape(std::move(shape), size(), shape_);
  if (size() == 0 || is_c_contiguous() || nocopy_strides(shape_, strides_, shape, itemsize()))
    return reshape(std::move(shape));
  return copy().reshape(std::move(shape));
}

NDArray NDArray::broadcast_to(std::vector<int64_t> shape) const {
  check_defined("broadcast_to");
  const std::size_t nd = shape.size(), od = shape_.size();
  const std::string what =
      "broadcast_to: the array of shape " + shape_to_string(shape_) + ", target shape " + shape_to_string(shape);
  for (int64_t s : shape)
    THEANO_USER_CHECK(s >= 0, ShapeError) << "broadcast_to: negative dimension in shape " << shape_to_string(shape);
  // numpy's rule, the function generated code calls (shape_rules.h).
  int64_t bad = 0;
  if (const int rule = theano_broadcast_to_rule(static_cast<int64_t>(od), shape_.data(), nullptr,
                                                static_cast<int64_t>(nd), shape.data(), &bad))
    throw_shape_rule(rule, what, bad);
  std::vector<int64_t> strides(nd, 0);
  for (std::size_t i = nd - od; i < nd; ++i) {
    const std::size_t j = i - (nd - od);
    if (shape_[j] == shape[i]) strides[i] = strides_[j];
  }
  return view(data_, std::move(shape), std::move(strides));
}

NDArray NDArray::expand_dims(int axis) const {
  check_defined("expand_dims");
  const int nd = ndim() + 1;
  axis = normalize_axis(axis, nd, "expand_dims");
  std::vector<int64_t> shape = shape_, strides = strides_;
  const auto a = static_cast<std::size_t>(axis);
  // The new axis has size 1, so its stride is never used to step; the
  // C-order value is taken when it fits in int64 (a valid empty array with a
  // huge dimension and a doubled stride may not: 2 * 2^62), else any stride.
  int64_t st = static_cast<int64_t>(itemsize());
  if (a < strides_.size() && theano_checked_mul(strides_[a], std::max<int64_t>(shape_[a], 1), &st) != THEANO_RULE_OK)
    st = strides_[a];
  shape.insert(shape.begin() + axis, 1);
  strides.insert(strides.begin() + axis, st);
  return view(data_, std::move(shape), std::move(strides));
}

NDArray NDArray::squeeze(int axis) const {
  check_defined("squeeze");
  axis = normalize_axis(axis, ndim(), "squeeze");
  THEANO_USER_CHECK(shape_[static_cast<std::size_t>(axis)] == 1, ValueError)
      << "squeeze: cannot select an axis to squeeze out which has size not equal to one (axis " << axis << " has size "
      << shape_[static_cast<std::size_t>(axis)] << ")";
  return index(axis, 0);
}

bool elements_may_overlap(const NDArray& a) {
  if (!a.defined() || a.size() <= 1 || a.is_c_contiguous()) return false;
  // Axes of extent > 1 by increasing |stride|: the elements are distinct when
  // each stride steps past everything the smaller axes span (mixed radix).
  std::vector<std::pair<int64_t, int64_t>> axes;  // (|stride|, extent)
  for (std::size_t i = 0; i < a.shape().size(); ++i) {
    const int64_t n = a.shape()[i], st = a.strides()[i];
    if (n <= 1) continue;
    if (st == 0 || st == std::numeric_limits<int64_t>::min()) return true;
    axes.emplace_back(st < 0 ? -st : st, n);
  }
  std::sort(axes.begin(), axes.end());
  int64_t span = static_cast<int64_t>(a.itemsize());  // bytes the smaller axes reach, plus one element
  for (const auto& [stride, extent] : axes) {
    if (stride < span) return true;
    int64_t reach = 0;
    if (theano_checked_mul(stride, extent - 1, &reach) != THEANO_RULE_OK ||
        theano_checked_add(span, reach, &span) != THEANO_RULE_OK)
      return true;  // (no valid view reaches this far; conservative)
  }
  return false;
}

}  // namespace theano

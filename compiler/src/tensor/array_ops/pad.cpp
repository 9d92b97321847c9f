// pad: per axis, the before and after pieces (a constant block, the edge
// broadcast, or a slice of x reversed or not) joined around x
// (docs/array-ops.md). Each piece comes from one reflection or period, so the
// widths are checked against the axis length.
#include <algorithm>
#include <sstream>
#include <string>

#include "array_ops_util.h"
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {
namespace {

enum class PadMode { Constant, Edge, Reflect, Symmetric, Wrap };

PadMode pad_mode(std::string_view mode) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "edge") return PadMode::Edge;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "symmetric") return PadMode::Symmetric;
  if (mode == "wrap") return PadMode::Wrap;
  THEANO_USER_CHECK(false, ValueError)
      << "pad: mode must be 'constant', 'edge', 'reflect', 'symmetric' or 'wrap', got '" << std::string(mode) << "'";
  return PadMode::Constant;
}

/// The `w` elements put before (`before`) or after x along axis a. `gate`
/// (null when the length is static) carries the length check on a bound.
Var piece(const Var& x, int a, std::int64_t w, bool before, PadMode mode, const Var& value, const Var& gate) {
  auto g = [&](std::int64_t c) { return array_ops::gated(c, gate); };
  switch (mode) {
    case PadMode::Constant: {
      std::vector<TensorLike> shape;
      for (int d = 0; d < x.ndim(); ++d) shape.emplace_back(d == a ? TensorLike(w) : TensorLike(shape_i(x, d)));
      return alloc(value, shape);
    }
    case PadMode::Edge: {
      std::vector<TensorLike> shape;
      for (int d = 0; d < x.ndim(); ++d) shape.emplace_back(d == a ? TensorLike(w) : TensorLike(shape_i(x, d)));
      const Var edge =
          gate ? array_ops::along(x, a, Index(g(before ? 0 : -1))) : array_ops::along(x, a, before ? 0 : -1);
      return alloc(expand_dims(edge, a), shape);
    }
    case PadMode::Reflect:  // x[w], ..., x[1] / x[n-2], ..., x[n-1-w]
      return gate ? array_ops::along(x, a, before ? slice(g(w), 0, -1) : slice(-2, g(-2 - w), -1))
                  : array_ops::along(x, a, before ? slice(w, 0, -1) : slice(-2, -2 - w, -1));
    case PadMode::Symmetric:  // x[w-1], ..., x[0] / x[n-1], ..., x[n-w]
      return gate ? array_ops::along(x, a, before ? slice(g(w - 1), none, -1) : slice(-1, g(-1 - w), -1))
                  : array_ops::along(x, a, before ? slice(w - 1, none, -1) : slice(-1, -1 - w, -1));
    case PadMode::Wrap:  // x[n-w:] / x[:w]
      return gate ? array_ops::along(x, a, before ? slice(g(-w), none) : slice(none, g(w)))
                  : array_ops::along(x, a, before ? slice(-w, none) : slice(none, w));
  }
  return x;
}

}  // namespace

Var pad(const TensorLike& xl, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, std::string_view mode,
        const TensorLike& value) {
  const Var& x = xl.var();
  const int nd = x.ndim();
  const PadMode m = pad_mode(mode);
  THEANO_USER_CHECK(widths.size() == 1 || static_cast<int>(widths.size()) == nd, ValueError)
      << "pad: " << widths.size() << " (before, after) widths for " << x.str() << " of rank " << nd << " (give 1 or "
      << nd << ")";
  for (std::size_t i = 0; i < widths.size(); ++i)
    THEANO_USER_CHECK(widths[i].first >= 0 && widths[i].second >= 0, ValueError)
        << "pad: the widths (" << widths[i].first << ", " << widths[i].second << ") of entry " << i << " are negative";
  array_ops::check_scalar(value.var(), "pad", "value");
  const Var fill = cast(value, x.dtype());
  const std::string mode_s(mode);
  Var v = x;
  for (int a = 0; a < nd; ++a) {
    const auto [b, e] = widths.size() == 1 ? widths[0] : widths[static_cast<std::size_t>(a)];
    if (b == 0 && e == 0) continue;
    const std::int64_t w = std::max(b, e);
    const std::int64_t need = m == PadMode::Constant ? 0 : m == PadMode::Edge ? 1 : m == PadMode::Reflect ? w + 1 : w;
    std::ostringstream what;
    what << "pad: mode '" << mode_s << "' with widths (" << b << ", " << e << ") on axis " << a << " of "
         << array_ops::label(x) << " needs a length of at least " << need;
    Var gate;  // the run-time check rides on the pieces' bounds (see array_ops::gated)
    if (const Dim n = array_ops::static_dim(v, a)) {
      THEANO_USER_CHECK(*n >= need, ValueError) << what.str() << ", got " << *n;
    } else if (need > 0) {
      const Var n_sym = shape_i(v, a);
      gate = array_ops::gate(ge(n_sym, need), what.str() + ", got {}", {n_sym});
    }
    std::vector<Var> parts;
    if (b > 0) parts.push_back(piece(v, a, b, true, m, fill, gate));
    parts.push_back(v);
    if (e > 0) parts.push_back(piece(v, a, e, false, m, fill, gate));
    v = concatenate(parts, a);
  }
  return v;
}

Var pad(const TensorLike& x, std::int64_t width, std::string_view mode, const TensorLike& value) {
  return pad(x, {{width, width}}, mode, value);
}

}  // namespace theano::tensor

// norm (NumPy's numpy.linalg.norm) as graphs of reductions: the vector norms
// along one axis, the matrix norms over two, those of the singular values
// (ords 2, -2, 'nuc') over svdvals (docs/linalg.md) with the two axes moved
// last. NormOrd's parsing and printing.
#include <cmath>
#include <cstring>
#include <string>

#include "diag_graph.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

NormOrd::NormOrd(const char* name) {
  THEANO_USER_CHECK(name != nullptr && (std::strcmp(name, "fro") == 0 || std::strcmp(name, "nuc") == 0), ValueError)
      << "norm: unknown ord '" << (name ? name : "(null)") << "'; expected 'fro', 'nuc', a number, inf or -inf";
  kind_ = std::strcmp(name, "fro") == 0 ? Kind::Fro : Kind::Nuc;
}

std::string NormOrd::str() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Fro: return "'fro'";
    case Kind::Nuc: return "'nuc'";
    case Kind::Number: break;
  }
  if (std::isinf(p_)) return p_ > 0 ? "inf" : "-inf";
  std::string s = std::to_string(p_);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

namespace {

using detail::resolve_axis;

Var vector_norm(const Var& x, const NormOrd& ord, int axis, bool keepdims) {
  THEANO_USER_CHECK(ord.is_none() || ord.is_number(), ValueError)
      << "norm: ord " << ord.str() << " is a matrix norm; a vector norm (one axis) takes None, a number, inf or -inf";
  const double p = ord.is_none() ? 2.0 : ord.p();
  const Axes ax(axis);
  if (std::isinf(p)) return p > 0 ? max(abs(x), ax, keepdims) : min(abs(x), ax, keepdims);
  if (p == 0) return sum(cast(neq(x, 0), tensor_type(x)->dtype()), ax, keepdims);
  if (p == 1) return sum(abs(x), ax, keepdims);
  if (p == 2) return sqrt(sum(sqr(x), ax, keepdims));
  // The exponents in x's dtype: a float32 x keeps float32 (NumPy's), 1 / 3 included.
  const DType dt = tensor_type(x)->dtype();
  const Var pe = constant(NDArray::scalar(p).astype(dt)), inv = constant(NDArray::scalar(1.0 / p).astype(dt));
  return pow(sum(pow(abs(x), pe), ax, keepdims), inv);
}

/// The singular values' norms over axes (row, col): p 2 the largest, -2 the
/// smallest, 0 ('nuc') their sum; the other axes are svdvals' batch.
Var singular_value_norm(const Var& x, double p, int row, int col, bool keepdims) {
  const int nd = tensor_type(x)->ndim();
  std::vector<int> order;
  for (int d = 0; d < nd; ++d)
    if (d != row && d != col) order.push_back(d);
  order.push_back(row);
  order.push_back(col);
  const Var s = svdvals(dimshuffle(x, order));  // (..., min(m, n))
  const Axes last(nd - 2);
  Var r = p == 0 ? sum(s, last) : p > 0 ? max(s, last) : min(s, last);
  if (!keepdims) return r;
  std::vector<int> back;  // the reduced axes back in place, of size 1
  for (int d = 0, k = 0; d < nd; ++d) back.push_back(d == row || d == col ? kNewAxis : k++);
  return dimshuffle(r, back);
}

Var matrix_norm(const Var& x, const NormOrd& ord, int row, int col, bool keepdims) {
  if (ord.is_none() || ord.is_fro()) return sqrt(sum(sqr(x), Axes{row, col}, keepdims));
  const double p = ord.is_number() ? ord.p() : 0;
  if (ord.is_nuc() || p == 2 || p == -2) return singular_value_norm(x, ord.is_nuc() ? 0 : p, row, col, keepdims);
  THEANO_USER_CHECK(p == 1 || p == -1 || std::isinf(p), ValueError)
      << "norm: invalid matrix norm ord " << ord.str()
      << "; expected None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf";
  // ord +-1: the largest / smallest column sum of |x| (summed over rows); +-inf: row sums (over columns).
  const bool by_columns = !std::isinf(p);
  const int summed = by_columns ? row : col;
  int other = by_columns ? col : row;
  if (!keepdims && other > summed) --other;
  const Var sums = sum(abs(x), Axes(summed), keepdims);
  return p > 0 ? max(sums, Axes(other), keepdims) : min(sums, Axes(other), keepdims);
}

}  // namespace

Var norm(const TensorLike& x_in, const NormOrd& ord, const std::vector<int>& axis, bool keepdims) {
  Var x = x_in.var();
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(is_float(t.dtype()) || is_integer(t.dtype()) || t.dtype() == DType::Bool, TypeError)
      << "norm: expected a real tensor, got " << x.str() << " of type " << t.str();
  if (!is_float(t.dtype())) x = cast(x, DType::Float64);  // NumPy computes integer norms in float64
  const int nd = t.ndim();
  const std::string subject = x_in.var().str() + " of rank " + std::to_string(nd);
  if (axis.empty()) {
    if (ord.is_none()) return sqrt(sum(sqr(x), Axes::all(), keepdims));
    THEANO_USER_CHECK(nd == 1 || nd == 2, ValueError)
        << "norm: ord " << ord.str() << " with axis None needs a vector or a matrix, got " << subject;
    return nd == 1 ? vector_norm(x, ord, 0, keepdims) : matrix_norm(x, ord, 0, 1, keepdims);
  }
  THEANO_USER_CHECK(axis.size() <= 2, ValueError)
      << "norm: axis has " << axis.size() << " entries; expected 1 (a vector norm) or 2 (a matrix norm)";
  if (axis.size() == 1) return vector_norm(x, ord, resolve_axis(axis[0], nd, "norm", "axis", subject), keepdims);
  const auto [row, col] = detail::resolve_axis_pair(axis[0], axis[1], nd, "norm", subject);
  return matrix_norm(x, ord, row, col, keepdims);
}

}  // namespace theano::tensor::linalg

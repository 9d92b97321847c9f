// The structural questions of the linalg rewrites (linalg_match.h): transposes,
// products, triangular / diagonal structure, squareness and symmetry, read
// from the ops that compute a variable. Recursion is bounded (kDepth) so that
// a long elementwise chain costs little and never overflows the stack.
#include "linalg_match.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail::la {

namespace T = theano::tensor;
namespace L = theano::tensor::linalg;

namespace {

constexpr int kDepth = 8;

int rank(const Var& v) { return T::tensor_type(v)->ndim(); }

/// Whether v's last two dims are static 1 (constant over the matrix axes: a scalar broadcast).
bool matrix_broadcast(const Var& v) {
  const T::TensorType* t = T::tensor_type(v);
  if (!t) return false;
  const int n = t->ndim();
  for (int d = std::max(n - 2, 0); d < n; ++d)
    if (t->shape()[static_cast<std::size_t>(d)] != T::Dim(1)) return false;
  return true;
}

/// The order of a DimShuffle computing v, with its input; nullopt otherwise.
std::optional<std::pair<Var, std::vector<int>>> dimshuffle_of(const Var& v) {
  const auto* ds = op_of<T::DimShuffle>(v);
  if (!ds) return std::nullopt;
  return std::make_pair(v.owner()->input(0), ds->new_order());
}

bool is_alloc_diag_matrix(const Var& v) {
  const auto* ad = op_of<L::AllocDiag>(v);
  const int n = rank(v);
  return ad && ad->offset() == 0 && ad->axis1() == n - 2 && ad->axis2() == n - 1;
}

Structure meet(Structure a, Structure b) {
  if (a == b) return a;
  if (a == Structure::Diagonal) return b;
  if (b == Structure::Diagonal) return a;
  return Structure::General;
}

Structure join(Structure a, Structure b) {  // zeros of either (a product)
  if (a == Structure::General) return b;
  if (b == Structure::General) return a;
  return a == b ? a : Structure::Diagonal;
}

/// The structure of a constant's values (constant folding turns eye(4) into one).
Structure constant_structure(const Constant& c) {
  const NDArray a = c.data().astype(DType::Float64).contiguous();
  const auto& s = a.shape();
  const std::int64_t r = s[s.size() - 2], n = s.back(), planes = r * n == 0 ? 0 : a.size() / (r * n);
  bool lower = true, upper = true;
  const double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < planes; ++k)
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        if (p[(k * r + i) * n + j] == 0) continue;
        if (j > i) lower = false;
        if (j < i) upper = false;
      }
  return lower && upper ? Structure::Diagonal : lower ? Structure::Lower : upper ? Structure::Upper : Structure::General;
}

Structure structure_at(const Var& v, int depth) {
  if (!v || depth > kDepth || !T::tensor_type(v) || rank(v) < 2) return Structure::General;
  if (const Constant* c = v.as_constant(); c && !matrix_broadcast(v)) return constant_structure(*c);
  if (!v.owner()) return Structure::General;
  if (const auto* ch = op_of<L::Cholesky>(v)) return ch->lower() ? Structure::Lower : Structure::Upper;
  if (const auto* tp = op_of<L::TriangularPart>(v)) {
    if (tp->lower() && tp->k() <= 0) return Structure::Lower;
    if (!tp->lower() && tp->k() >= 0) return Structure::Upper;
    return Structure::General;
  }
  if (is_alloc_diag_matrix(v)) return Structure::Diagonal;
  if (op_of<T::Eye>(v)) {
    const std::optional<double> k = scalar_constant_value(v.owner()->input(2));
    return k && *k == 0 ? Structure::Diagonal : Structure::General;
  }
  if (Var x = transpose_input(v)) {
    const Structure s = structure_at(x, depth + 1);
    return s == Structure::Lower ? Structure::Upper : s == Structure::Upper ? Structure::Lower : s;
  }
  Apply* node = v.owner();
  if (T::is_elemwise(node, "neg")) return structure_at(node->input(0), depth + 1);
  if (T::is_elemwise(node, "true_div")) return structure_at(node->input(0), depth + 1);
  if (T::is_elemwise(node, "mul")) {
    Structure s = Structure::General;
    for (const Var& in : node->inputs()) s = join(s, structure_at(in, depth + 1));
    return s;
  }
  if (T::is_elemwise(node, "add") || T::is_elemwise(node, "sub")) {
    Structure s = Structure::Diagonal;
    for (const Var& in : node->inputs()) s = meet(s, structure_at(in, depth + 1));
    return s;
  }
  return Structure::General;
}

bool square_at(const Var& v, int depth) {
  const T::TensorType* t = T::tensor_type(v);
  if (!t || t->ndim() < 2) return false;
  const T::Dim r = t->shape()[static_cast<std::size_t>(t->ndim() - 2)], c = t->shape().back();
  if (r && c && *r == *c) return true;
  if (!v.owner() || depth > kDepth) return false;
  if (op_of<L::Cholesky>(v) || op_of<L::MatrixInverse>(v) || is_alloc_diag_matrix(v)) return true;
  if (op_of<T::Eye>(v)) return v.owner()->input(0) == v.owner()->input(1);
  if (Var x = transpose_input(v)) return square_at(x, depth + 1);
  if (op_of<T::Elemwise>(v))
    for (const Var& in : v.owner()->inputs())
      if (T::tensor_type(in)->ndim() == t->ndim() && !matrix_broadcast(in) && square_at(in, depth + 1)) return true;
  return false;
}

/// Whether a and b are each other's matrix transposes, structurally.
bool transposed_pair(const Var& a, const Var& b) {
  if (transpose_input(a) == b || transpose_input(b) == a) return true;
  const auto da = dimshuffle_of(a), db = dimshuffle_of(b);
  if (!da || !db || da->first != db->first || da->second.size() < 2) return false;
  std::vector<int> swapped = da->second;
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  return swapped == db->second;
}

bool constant_symmetric(const Constant& c) {
  NDArray a = c.data().astype(DType::Float64).contiguous();
  const auto& s = a.shape();
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2]) return false;
  const std::int64_t n = s.back(), planes = n == 0 ? 0 : a.size() / (n * n);
  const double* p = a.data_as<double>();
  for (std::int64_t k = 0; k < planes; ++k)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        const double x = p[k * n * n + i * n + j], y = p[k * n * n + j * n + i];
        if (!(x == y) && !(std::isnan(x) && std::isnan(y))) return false;
      }
  return true;
}

bool symmetric_at(const Var& v, int depth) {
  if (!v || depth > kDepth || !T::tensor_type(v) || rank(v) < 2) return false;
  if (matrix_broadcast(v)) return true;
  if (const Constant* c = v.as_constant()) return constant_symmetric(*c);
  if (!v.owner()) return false;
  if (structure_at(v, depth) == Structure::Diagonal) return true;
  if (Var x = transpose_input(v)) return symmetric_at(x, depth + 1);
  if (op_of<L::MatrixInverse>(v)) return symmetric_at(v.owner()->input(0), depth + 1);
  if (const std::optional<Product> p = product_of(v)) return rank(p->left) >= 2 && transposed_pair(p->left, p->right);
  if (!op_of<T::Elemwise>(v)) return false;
  Apply* node = v.owner();
  const bool commutative = T::is_elemwise(node, "add") || T::is_elemwise(node, "mul");
  std::vector<Var> rest;
  for (const Var& in : node->inputs())
    if (!symmetric_at(in, depth + 1)) rest.push_back(in);
  if (rest.empty()) return true;
  if (!commutative) return false;
  // The remaining operands must pair up as mutual transposes.
  std::vector<bool> used(rest.size(), false);
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (used[i]) continue;
    bool found = false;
    for (std::size_t j = i + 1; j < rest.size() && !found; ++j)
      if (!used[j] && transposed_pair(rest[i], rest[j])) used[i] = used[j] = found = true;
    if (!found) return false;
  }
  return true;
}

/// The operand under a DimShuffle of the matmul graph: `order` must be `lead`
/// new axes, then the operand's axes in order except that the last two may be
/// swapped (a transposed operand), with one new axis inserted at `new_at`
/// (counted in the operand's axes: before axis `new_at`). Returns the operand
/// (transposed when the order swaps) or a null Var.
Var matmul_operand(const Var& v, int out_rank, bool left) {
  const auto ds = dimshuffle_of(v);
  if (!ds) return {};
  const Var& x = ds->first;
  const std::vector<int>& o = ds->second;
  const int xn = rank(x);
  if (xn < 2 || static_cast<int>(o.size()) != out_rank + 1 || xn > out_rank) return {};
  const int lead = out_rank - xn;
  std::vector<int> want;
  for (int d = 0; d < lead; ++d) want.push_back(T::kNewAxis);
  for (int d = 0; d < xn - 2; ++d) want.push_back(d);
  if (!left) want.push_back(T::kNewAxis);
  want.push_back(xn - 2);
  want.push_back(xn - 1);
  if (left) want.push_back(T::kNewAxis);
  if (o == want) return x;
  std::vector<int> swapped = want;
  const std::size_t a = left ? want.size() - 3 : want.size() - 2;
  std::swap(swapped[a], swapped[a + 1]);
  if (o == swapped) return transposed(x);
  return {};
}

}  // namespace

Var transpose_input(const Var& v) {
  const auto ds = dimshuffle_of(v);
  if (!ds) return {};
  const std::vector<int>& o = ds->second;
  const int n = static_cast<int>(o.size());
  if (n < 2 || rank(ds->first) != n) return {};
  for (int d = 0; d < n - 2; ++d)
    if (o[static_cast<std::size_t>(d)] != d) return {};
  if (o[static_cast<std::size_t>(n - 2)] != n - 1 || o[static_cast<std::size_t>(n - 1)] != n - 2) return {};
  return ds->first;
}

Var transposed(const Var& v) {
  if (Var x = transpose_input(v)) return x;
  return L::matrix_transpose(v);
}

Structure structure_of(const Var& v) { return structure_at(v, 0); }

bool is_square(const Var& v) { return square_at(v, 0); }

bool is_symmetric(const Var& v) { return symmetric_at(v, 0); }

std::optional<Product> product_of(const Var& v) {
  if (!v || !v.owner()) return std::nullopt;
  const std::string_view kind = v.owner()->op()->type_name();
  if (kind == "Dot" || kind == "Dot22") return Product{v.owner()->input(0), v.owner()->input(1)};
  if (kind == "BatchedDot") {
    // matmul pads the operand of lower rank with leading size-1 axes: take it unpadded.
    auto unpadded = [](const Var& x) {
      const auto ds = dimshuffle_of(x);
      if (!ds) return x;
      const std::vector<int>& o = ds->second;
      const int lead = static_cast<int>(o.size()) - rank(ds->first);
      if (lead <= 0 || rank(ds->first) < 2) return x;
      for (int d = 0; d < static_cast<int>(o.size()); ++d)
        if (o[static_cast<std::size_t>(d)] != (d < lead ? T::kNewAxis : d - lead)) return x;
      return ds->first;
    };
    return Product{unpadded(v.owner()->input(0)), unpadded(v.owner()->input(1))};
  }
  const auto* red = op_of<T::CAReduce>(v);
  const int nd = rank(v);
  if (!red || red->scalar_op() != "add" || red->pre() || red->axes() != std::vector<int>{nd - 1} || nd < 2)
    return std::nullopt;
  const Var& m = v.owner()->input(0);
  if (!m.owner() || !T::is_elemwise(m.owner(), "mul") || m.owner()->nin() != 2) return std::nullopt;
  for (int first = 0; first < 2; ++first) {
    const Var l = matmul_operand(m.owner()->input(first), nd, true);
    const Var r = matmul_operand(m.owner()->input(1 - first), nd, false);
    if (l && r) return Product{l, r};
  }
  return std::nullopt;
}

}  // namespace theano::rewrite::detail::la

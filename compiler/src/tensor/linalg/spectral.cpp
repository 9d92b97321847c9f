// Eigh, SVD and QR (eigh / eigvalsh, svd, qr): make_node, perform through
// kernels/linalg.h (lapack_op.cpp's driver), infer_shape and the gradients
// (PyTensor's EighGrad; Townsend 2016 for the SVD; Walter & Lehmann 2018 /
// Seeger et al. 2017 for QR).
#include <tuple>
#include <utility>

#include "linalg_util.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/linalg.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"

namespace theano::tensor::linalg {
namespace {

using detail::eye_like;
using detail::tril_mask;

/// A batch of vectors w as the batch of diagonal matrices diag(w).
Var diag_of(const Var& w) {
  const Var col = detail::as_column(w, 1);
  return mul(matrix_transpose(col), eye_like(w));  // w[..., None, :] * I
}

/// x[..., :, None] - x[..., None, :] turned into F_ij = 1 / (x_j - x_i) off
/// the diagonal and 0 on it (no division by zero there).
Var inverse_gaps(const Var& x) {
  const Var col = detail::as_column(x, 1);
  const Var gap = sub(matrix_transpose(col), col);  // x_j - x_i
  const Var I = eye_like(x);
  return true_div(sub(1.0, I), add(gap, I));
}

Var dim(const Var& x, int from_end) { return shape_i(x, tensor_type(x)->ndim() - from_end); }

StaticShape known(std::initializer_list<Dim> d) { return StaticShape(d); }

/// The static core sizes (m, n, min(m, n)) of a matrix input (unknown: nullopt).
std::tuple<Dim, Dim, Dim> rows_cols_min(const Var& x) {
  Dim m, n, k;
  if (tensor_type(x)->ndim() >= 2) {
    const StaticShape c = detail::core_static(x, 2);
    m = c[0];
    n = c[1];
    if (m && n) k = std::min(*m, *n);
  }
  return {m, n, k};
}

}  // namespace

THEANO_REGISTER_OP(Eigh);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp
THEANO_REGISTER_OP(SVD);  // GPU form: codegen/src/emit/lower/gpu_linalg.cpp (gesvd)
THEANO_REGISTER_OP(QR);   // GPU form: codegen/src/emit/lower/gpu_linalg.cpp (geqrf, orgqr)

int Eigh::la_kind() const { return THEANO_LA_EIGH; }
int SVD::la_kind() const { return THEANO_LA_SVD; }
int QR::la_kind() const { return THEANO_LA_QR; }

std::vector<int> Eigh::core_out_ranks() const { return compute_v_ ? std::vector<int>{1, 2} : std::vector<int>{1}; }
std::vector<int> SVD::core_out_ranks() const { return compute_uv_ ? std::vector<int>{2, 1, 2} : std::vector<int>{1}; }

QR::QR(std::string mode) : mode_(std::move(mode)) {
  THEANO_USER_CHECK(mode_ == "reduced" || mode_ == "complete" || mode_ == "r", ValueError)
      << "QR: mode must be \"reduced\", \"complete\" or \"r\", got \"" << mode_ << "\"";
}
std::vector<std::int64_t> QR::la_options() const { return {mode_ == "reduced" ? 0 : mode_ == "complete" ? 1 : 2}; }
std::vector<int> QR::core_out_ranks() const { return mode_ == "r" ? std::vector<int>{2} : std::vector<int>{2, 2}; }

ApplyPtr Eigh::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const StaticShape sq = detail::square_core(x);
  const Dim n = sq.empty() ? Dim() : sq[0];
  std::vector<StaticShape> outs{known({n})};
  if (compute_v_) outs.push_back(known({n, n}));
  return detail::make_lapack_node(*this, {x}, outs);
}

ApplyPtr SVD::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const auto [m, n, k] = rows_cols_min(x);
  if (!compute_uv_) return detail::make_lapack_node(*this, {x}, {known({k})});
  return detail::make_lapack_node(*this, {x},
                                  {known({m, full_matrices_ ? m : k}), known({k}), known({full_matrices_ ? n : k, n})});
}

ApplyPtr QR::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const auto [m, n, k] = rows_cols_min(x);
  if (mode_ == "r") return detail::make_lapack_node(*this, {x}, {known({k, n})});
  const bool complete = mode_ == "complete";
  return detail::make_lapack_node(*this, {x}, {known({m, complete ? m : k}), known({complete ? m : k, n})});
}

void Eigh::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void SVD::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}
void QR::perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  detail::run_lapack(*this, node, inputs, outputs);
}

std::vector<std::vector<Var>> Eigh::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  return detail::eigen_shapes(shapes[0], compute_v_);
}

std::vector<std::vector<Var>> SVD::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  const std::vector<Var>& s = shapes[0];
  const std::vector<Var> b(s.begin(), s.end() - 2);
  const Var m = s[s.size() - 2], n = s[s.size() - 1], k = minimum(m, n);
  auto with = [&](std::vector<Var> core) {
    std::vector<Var> r = b;
    r.insert(r.end(), core.begin(), core.end());
    return r;
  };
  if (!compute_uv_) return {with({k})};
  return {with({m, full_matrices_ ? m : k}), with({k}), with({full_matrices_ ? n : k, n})};
}

std::vector<std::vector<Var>> QR::infer_shape(const Apply&, const std::vector<std::vector<Var>>& shapes) const {
  const std::vector<Var>& s = shapes[0];
  const std::vector<Var> b(s.begin(), s.end() - 2);
  const Var m = s[s.size() - 2], n = s[s.size() - 1], k = minimum(m, n);
  auto with = [&](std::vector<Var> core) {
    std::vector<Var> r = b;
    r.insert(r.end(), core.begin(), core.end());
    return r;
  };
  if (mode_ == "r") return {with({k, n})};
  const bool complete = mode_ == "complete";
  return {with({m, complete ? m : k}), with({complete ? m : k, n})};
}

// A = V diag(w) V^T: Ā = V (diag(w̄) + F ∘ (V^T V̄)) V^T, F_ij = 1 / (w_j - w_i),
// folded onto the triangle read.
std::vector<Var> Eigh::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& gw = output_grads.at(0);
  const Var gv = compute_v_ ? output_grads.at(1) : Var();
  const Var& A = node.input(0);
  if (!gw && !gv) return {Var()};
  std::vector<Var> wv = compute_v_ ? std::vector<Var>{node.output(0), node.output(1)}
                                   : (*OpPtr(new Eigh(lower_, true)))({A});
  const Var &w = wv[0], &V = wv[1];
  Var inner;
  if (gw) inner = diag_of(gw);
  if (gv) {
    const Var t = mul(inverse_gaps(w), matmul(matrix_transpose(V), gv));
    inner = inner ? add(inner, t) : t;
  }
  const Var G = matmul(matmul(V, inner), matrix_transpose(V));
  return {detail::sum_to(detail::fold_onto_triangle(G, lower_), A)};
}

// S only: Ā = U diag(S̄) Vt. (U, S, Vt) reduced, Townsend 2016 (real case):
// Ā = U [(F ∘ (U^T Ū - Ū^T U)) S + diag(S̄) + S (F ∘ (V^T V̄ - V̄^T V))] V^T
//     + (I - U U^T) Ū S^-1 V^T + U S^-1 V̄^T (I - V V^T),  F_ij = 1 / (s_j² - s_i²).
std::vector<Var> SVD::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& A = node.input(0);
  if (compute_uv_ && full_matrices_) {
    THEANO_USER_CHECK(!detail::any_grad(output_grads), ValueError) << name()
                                        << ": no gradient with full_matrices=true (as PyTensor's); use "
                                           "full_matrices=false";
    return {Var()};
  }
  const Var gU = compute_uv_ ? output_grads.at(0) : Var();
  const Var gS = compute_uv_ ? output_grads.at(1) : output_grads.at(0);
  const Var gVt = compute_uv_ ? output_grads.at(2) : Var();
  if (!gU && !gS && !gVt) return {Var()};
  const std::vector<Var> usv = compute_uv_ ? std::vector<Var>{node.output(0), node.output(1), node.output(2)}
                                           : (*OpPtr(new SVD(false, true)))({A});
  const Var &U = usv[0], &S = usv[1], &Vt = usv[2];
  const Var V = matrix_transpose(Vt);
  Var inner = gS ? diag_of(gS) : Var();
  const Var Sd = diag_of(S);
  const Var F = inverse_gaps(sqr(S));
  const Var Sinv = diag_of(reciprocal(S));
  Var extra;
  if (gU) {
    const Var UtgU = matmul(matrix_transpose(U), gU);
    const Var t = matmul(mul(F, sub(UtgU, matrix_transpose(UtgU))), Sd);
    inner = inner ? add(inner, t) : t;
    // (I - U U^T) Ū S^-1 V^T
    const Var proj = sub(gU, matmul(U, UtgU));
    extra = matmul(matmul(proj, Sinv), Vt);
  }
  if (gVt) {
    const Var gV = matrix_transpose(gVt);
    const Var VtgV = matmul(Vt, gV);
    const Var t = matmul(Sd, mul(F, sub(VtgV, matrix_transpose(VtgV))));
    inner = inner ? add(inner, t) : t;
    // U S^-1 V̄^T (I - V V^T)
    const Var proj = sub(gVt, matmul(matrix_transpose(VtgV), Vt));
    const Var e = matmul(matmul(U, Sinv), proj);
    extra = extra ? add(extra, e) : e;
  }
  Var gA = inner ? matmul(matmul(U, inner), Vt) : Var();
  if (extra) gA = gA ? add(gA, extra) : extra;
  return {gA};
}

// Reduced QR with m >= n: M = R R̄^T - Q̄^T Q, Ā = (Q̄ + Q copyltu(M)) R^-T,
// copyltu(M) = tril(M) + tril(M, -1)^T. Checked at run time (an Assert on R): m >= n.
std::vector<Var> QR::grad(const Apply& node, const std::vector<Var>& output_grads) const {
  const Var& A = node.input(0);
  const bool r_only = mode_ == "r";
  const Var gQ = r_only ? Var() : output_grads.at(0);
  const Var gR = r_only ? output_grads.at(0) : output_grads.at(1);
  if (!gQ && !gR) return {Var()};
  THEANO_USER_CHECK(mode_ != "complete", ValueError)
      << name() << ": no gradient with mode=\"complete\" (as PyTensor's); use \"reduced\"";
  const std::vector<Var> qr_out = r_only ? (*OpPtr(new QR("reduced")))({A}) : std::vector<Var>{node.output(0), node.output(1)};
  const Var& Q = qr_out[0];
  const Var R = assert_op(qr_out[1], {ge(dim(A, 2), dim(A, 1))},
                          "QR: the gradient needs a matrix with at least as many rows as columns (m >= n), got {} x {}",
                          {dim(A, 2), dim(A, 1)});
  Var M;
  if (gR) M = matmul(R, matrix_transpose(gR));
  if (gQ) M = M ? sub(M, matmul(matrix_transpose(gQ), Q)) : neg(matmul(matrix_transpose(gQ), Q));
  const Var low = tril_mask(M);
  const Var copyltu = add(mul(M, low), matrix_transpose(mul(M, sub(low, eye_like(M)))));
  Var B = matmul(Q, copyltu);
  if (gQ) B = add(B, gQ);
  // B R^-T = (R^-1 B^T)^T
  return {matrix_transpose(solve_triangular(R, matrix_transpose(B), false, 0))};
}

std::pair<Var, Var> eigh(const TensorLike& x, std::string_view UPLO) {
  THEANO_USER_CHECK(UPLO == "L" || UPLO == "U", ValueError) << "eigh: UPLO must be \"L\" or \"U\", got \"" << UPLO << "\"";
  const std::vector<Var> outs = (*OpPtr(new Eigh(UPLO == "L", true)))({detail::as_float(x)});
  return {outs[0], outs[1]};
}

Var eigvalsh(const TensorLike& x, std::string_view UPLO) {
  THEANO_USER_CHECK(UPLO == "L" || UPLO == "U", ValueError)
      << "eigvalsh: UPLO must be \"L\" or \"U\", got \"" << UPLO << "\"";
  return OpPtr(new Eigh(UPLO == "L", false))->apply1({detail::as_float(x)});
}

std::vector<Var> svd(const TensorLike& x, bool full_matrices, bool compute_uv) {
  return (*OpPtr(new SVD(full_matrices, compute_uv)))({detail::as_float(x)});
}

Var svdvals(const TensorLike& x) { return OpPtr(new SVD(false, false))->apply1({detail::as_float(x)}); }

std::vector<Var> qr(const TensorLike& x, std::string_view mode) {
  return (*OpPtr(new QR(std::string(mode))))({detail::as_float(x)});
}

}  // namespace theano::tensor::linalg

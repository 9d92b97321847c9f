/// \file
/// The rewriters of the LAPACK-backed ops (linalg_solve.cpp, linalg_det.cpp;
/// docs/linalg.md, "Rewrites"), each registered (stage, tags, order) by
/// optdb_layout.cpp and only there. Apart from rewrites.h so that adding one
/// does not rebuild every rewrite family. Private to compiler/src/rewrite.
#pragma once

#include "theano/rewrite/rewriter.h"

namespace theano::rewrite::detail {

// linalg_solve.cpp: products with inverses as solves, transposed / structured solves, one factorization shared.
NodeRewriterPtr local_inv_to_solve();
NodeRewriterPtr local_solve_transpose();
NodeRewriterPtr local_solve_triangular_structure();
NodeRewriterPtr local_solve_cholesky_product();
NodeRewriterPtr local_paired_triangular_solves_to_cho_solve();
NodeRewriterPtr local_reuse_decomposition();
// linalg_det.cpp: determinants of structured and factored matrices, log-determinant stabilizations, inverses and
// Cholesky factors of diagonals.
NodeRewriterPtr local_det_of_structure();
NodeRewriterPtr local_det_of_factored();
NodeRewriterPtr local_det_of_lu();
NodeRewriterPtr local_log_det();
NodeRewriterPtr local_sign_det();
NodeRewriterPtr local_log_prod();
NodeRewriterPtr local_inv_of_inv();
NodeRewriterPtr local_inv_of_diag();
NodeRewriterPtr local_cholesky_of_diag();

}  // namespace theano::rewrite::detail

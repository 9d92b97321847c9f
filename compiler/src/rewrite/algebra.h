/// \file
/// Private declarations of the algebra family (canonicalize.cpp, algebra.cpp,
/// stabilize.cpp, sigmoid.cpp, simplify.cpp, softmax_rewrites.cpp): the Canonizer, the
/// algebraic simplifications, fill cut / sink, the stabilizations and the
/// softmax family, plus the helpers they (and nnet.cpp) share: exact type
/// fitting and the matchers owner_input / reduce_input.
///
/// Why a stricter fit than rewrites.h's `fit_type`: a replacement whose dim is
/// statically 1 where the output's is unknown passes the Type check (unknown
/// accepts 1) but has the wrong run-time shape (`(x + y) - x -> y` with
/// x:(n,), y:(1,)). `fit_exact` broadcasts such dims back through `second`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rewrites.h"

namespace theano::rewrite::detail {

/// `v` cast to `out`'s dtype and broadcast (through `second` against `refs`)
/// until it has `out`'s run-time shape and a type `out` accepts; null Var when
/// no ref supplies a missing dimension.
Var fit_exact(Var v, const Var& out, const std::vector<Var>& refs);
/// fit_exact as a RewriteResult for `node`'s single output (fail names why).
RewriteResult fitted_exact(const Var& v, const Apply& node, const std::vector<Var>& refs);
/// A constant `value` of `like`'s dtype with shape (1, ..., 1) of its rank (no
/// DimShuffle needed when combined with `like`-ranked terms).
Var constant_like(double value, const Var& like);
/// Input `i` of the elementwise `scalar` op computing `v`; a null Var when `v`
/// is null or not computed by that op (so matchers chain: owner_input(owner_input(a, "neg"), "exp")).
Var owner_input(const Var& v, std::string_view scalar, int i = 0);
/// The input of a plain CAReduce{scalar_op} (no fused pre op) over exactly
/// {axis} computing `v`; a null Var otherwise (or when `v` is null).
Var reduce_input(const Var& v, std::string_view scalar_op, int axis);

// canonicalize.cpp
NodeRewriterPtr local_add_canonizer();
NodeRewriterPtr local_mul_canonizer();

// algebra.cpp
NodeRewriterPtr local_neg_div_neg();
NodeRewriterPtr local_sum_scalar_mul();
NodeRewriterPtr local_fill_sink();
NodeRewriterPtr local_fill_cut();
NodeRewriterPtr local_useless_arith();
NodeRewriterPtr local_useless_cast();

// stabilize.cpp
NodeRewriterPtr local_log_sigmoid();
NodeRewriterPtr local_expm1();
NodeRewriterPtr local_log_sum_exp();
NodeRewriterPtr local_crossentropy_to_log_softmax();
NodeRewriterPtr local_logaddexp();
NodeRewriterPtr local_log1mexp();

// sigmoid.cpp
/// -x without a double negation: neg(v) gives v back.
Var negated(const Var& x);
NodeRewriterPtr local_1msigmoid();
NodeRewriterPtr local_exp_over_1_plus_exp();
NodeRewriterPtr local_sigm_times_exp();
NodeRewriterPtr local_sigm_quotient_distribute();

// simplify.cpp
NodeRewriterPtr local_mul_neg_const();
NodeRewriterPtr local_neg_to_mul();
NodeRewriterPtr local_exp_log();
NodeRewriterPtr local_useless_comparison();
NodeRewriterPtr local_cast_cast();
NodeRewriterPtr local_useless_assert();
NodeRewriterPtr local_remove_grad_stops();
NodeRewriterPtr local_reduce_reduce();
NodeRewriterPtr local_abs_merge();
NodeRewriterPtr local_trivial_arith();

// softmax.cpp
NodeRewriterPtr local_exp_log_softmax();
NodeRewriterPtr local_log_softmax_from_lse();
NodeRewriterPtr local_softmax_simplifier();
NodeRewriterPtr local_sigmoid_from_exp();

}  // namespace theano::rewrite::detail

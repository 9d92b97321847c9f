/// \file
/// The special functions A of issue 37 (scipy.special's names and semantics, as
/// PyTensor has them): erfinv, erfcinv, erfcx, logit, log1pexp, xlogx, xlogy0,
/// xlog1py, gamma, tri_gamma, polygamma, betaln, ndtr, log_ndtr, ndtri. Each is a
/// row of the scalar table (one definition per function in
/// runtime/include/theano/runtime/kernels/special_math.h, for perform, generated
/// C++ and CUDA); methods, domains and measured accuracy in
/// docs/special-functions.md. Beside math.h's erf and gammaln, in a header of
/// their own so that adding them did not recompile every user of math.h.
#pragma once

#include "theano/tensor/math.h"

namespace theano::tensor {

/// Inverse of erf on [-1, 1] (+-inf at +-1, NaN outside).
Var erfinv(TL a);
/// Inverse of erfc on [0, 2] (+inf at 0, -inf at 2, NaN outside).
Var erfcinv(TL a);
/// The scaled complementary error function exp(a^2) erfc(a), finite for large a.
Var erfcx(TL a);
/// log(a / (1 - a)) on [0, 1].
Var logit(TL a);
/// log(1 + exp(a)): PyTensor's alias of softplus.
Var log1pexp(TL a);
/// a log(a), 0 at a = 0 (PyTensor's xlogx).
Var xlogx(TL a);
/// x log(y), 0 where x == 0 whatever y (PyTensor's xlogy0); xlogy is the same function.
Var xlogy0(TL x, TL y);
Var xlogy(TL x, TL y);
/// x log1p(y), 0 where x == 0 whatever y (scipy.special.xlog1py).
Var xlog1py(TL x, TL y);
/// The gamma function (+-inf at +-0, NaN at the negative integers).
Var gamma(TL a);
/// psi'(a), the trigamma function (PyTensor's tri_gamma).
Var tri_gamma(TL a);
/// psi^(n)(x) for an integer order n >= 0 (NaN otherwise); no gradient for n.
Var polygamma(TL n, TL x);
/// log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), without their cancellation for large a, b.
Var betaln(TL a, TL b);
/// The standard normal CDF.
Var ndtr(TL a);
/// log(ndtr(a)), accurate for a -> -inf.
Var log_ndtr(TL a);
/// The inverse of ndtr on [0, 1] (-inf at 0, +inf at 1).
Var ndtri(TL a);

}  // namespace theano::tensor

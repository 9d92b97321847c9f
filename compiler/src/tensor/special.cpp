// The special functions A (theano/tensor/special.h): thin wrappers that build
// Elemwise nodes from their rows of the scalar table.
#include "theano/tensor/special.h"

#include "theano/tensor/elemwise.h"

namespace theano::tensor {

Var erfinv(TL a) { return elemwise("erfinv", {a.var()}); }
Var erfcinv(TL a) { return elemwise("erfcinv", {a.var()}); }
Var erfcx(TL a) { return elemwise("erfcx", {a.var()}); }
Var logit(TL a) { return elemwise("logit", {a.var()}); }
Var log1pexp(TL a) { return softplus(a); }
Var xlogx(TL a) { return elemwise("xlogx", {a.var()}); }
Var xlogy0(TL x, TL y) { return elemwise("xlogy0", {x.var(), y.var()}); }
Var xlogy(TL x, TL y) { return xlogy0(x, y); }
Var xlog1py(TL x, TL y) { return elemwise("xlog1py", {x.var(), y.var()}); }
Var gamma(TL a) { return elemwise("gamma", {a.var()}); }
Var tri_gamma(TL a) { return elemwise("tri_gamma", {a.var()}); }
Var polygamma(TL n, TL x) { return elemwise("polygamma", {n.var(), x.var()}); }
Var betaln(TL a, TL b) { return elemwise("betaln", {a.var(), b.var()}); }
Var ndtr(TL a) { return elemwise("ndtr", {a.var()}); }
Var log_ndtr(TL a) { return elemwise("log_ndtr", {a.var()}); }
Var ndtri(TL a) { return elemwise("ndtri", {a.var()}); }

}  // namespace theano::tensor

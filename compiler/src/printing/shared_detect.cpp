// How the printers recognise shared variables (compile/shared.h).
#include "printing_internal.h"
#include "theano/compile/shared.h"

namespace theano::printing_detail {

bool is_shared(const Var& v) { return theano::is_shared(v); }

}  // namespace theano::printing_detail

// Lowerings of the join ops (see lowering.h). Not written yet: ops without a
// lowering are refused with MethodNotDefined by the cpp linker.
#include "lowering.h"

namespace theano::codegen::lower {

void add_join_lowerings(LoweringTable&) {}

}  // namespace theano::codegen::lower

// The host-side steps of the LAPACK-backed ops' GPU forms that more than one
// lowering file emits (emit/lower/gpu_linalg.cpp defines them; gpu_expm.cpp
// uses them too): a GPU work buffer, a failure worded by the CPU kernel, and
// the `explain` lambda that reruns the CPU kernel on the downloaded inputs so
// the GPU form's errors are the CPU form's (docs/linalg.md, "On the GPU").
#pragma once

#include <theano/runtime/dtype.h>

#include <string>

#include "lowering.h"

namespace theano::codegen::lower {

/// Declares the GPU buffer `name` of `count` (a C expression) elements of `dt`.
void gpu_buffer(NodeLowering& L, const std::string& name, DType dt, const std::string& count);

/// The statement failing with the CPU kernel's words in `call`.msg after the node's label.
std::string kernel_fail(NodeLowering& L, const std::string& call, const std::string& rc);

/// Emits the lambda `explain(b, v)` over the call record `c`: the inputs downloaded, the CPU kernel rerun on
/// them on the host; its error, or (it finds none) an error naming batch entry b and the status v the GPU reported.
void emit_explain(NodeLowering& L, DType dt, const std::string& S);

}  // namespace theano::codegen::lower

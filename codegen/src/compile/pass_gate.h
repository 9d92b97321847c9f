/// \file
/// Which of LLVM's machine-code passes generated code skips: Loop Strength
/// Reduction, through the LLVMContext's pass gate (LLVM's OptPassGate, the
/// hook -opt-bisect-limit uses), so no process-wide LLVM option changes.
///
/// Why: LSR rewrites each loop's address arithmetic into induction
/// variables. On our loops (flat loops indexed by one counter, x86's
/// base + index * scale addressing; strided nests with a few byte strides)
/// it bought no measurable run time, and with the passes after it that work
/// on its extra induction variables it cost 15-30% of the machine-code stage
/// (docs/jit-and-cache.md, "Machine code").
#pragma once

#include <cstdint>

namespace llvm {
class LLVMContext;
}

namespace theano::codegen::detail {

/// Installs the gate on `context`: every pass runs except Loop Strength
/// Reduction. The gate is a static object; the context only refers to it.
void install_pass_gate(llvm::LLVMContext& context);

/// How many times the gate has refused Loop Strength Reduction in this
/// process (one per loop it would have run on): tests check that LLVM still
/// asks the gate under the name the gate knows.
std::uint64_t skipped_loop_strength_reductions();

}  // namespace theano::codegen::detail

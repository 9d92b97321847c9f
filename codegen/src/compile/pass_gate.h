/// \file
/// Which of LLVM's passes generated code skips: in the machine-code stage
/// Loop Strength Reduction, through the LLVMContext's pass gate (LLVM's
/// OptPassGate, the hook -opt-bisect-limit uses); in the -O pipeline
/// CalledValuePropagation, through the pipeline's own instrumentation. No
/// process-wide LLVM option changes.
///
/// Why LSR: it rewrites each loop's address arithmetic into induction
/// variables. On our loops (flat loops indexed by one counter, x86's
/// base + index * scale addressing; strided nests with a few byte strides)
/// it bought no measurable run time, and with the passes after it that work
/// on its extra induction variables it cost 15-30% of the machine-code stage
/// (docs/jit-and-cache.md, "Machine code").
///
/// Why CalledValuePropagation: it walks the whole module to attach, to each
/// indirect call, the list of functions it may call (!callees metadata),
/// which nothing in the -O2 pipeline or the x86 back end reads. A unit's
/// indirect calls all go through the host's kernel table, whose targets no
/// pass can see. It took 4-5 ms of each unit's -O stage (W9's two units, of
/// about 90 ms each), and the objects of bench/run's rows come out byte
/// for byte the same without it (docs/jit-and-cache.md, "Machine
/// code").
#pragma once

#include <cstdint>

namespace llvm {
class LLVMContext;
class PassInstrumentationCallbacks;
}

namespace theano::codegen::detail {

/// Installs the gate on `context`: every pass runs except Loop Strength
/// Reduction. The gate is a static object; the context only refers to it.
void install_pass_gate(llvm::LLVMContext& context);

/// How many times the gate has refused Loop Strength Reduction in this
/// process (one per loop it would have run on): tests check that LLVM still
/// asks the gate under the name the gate knows.
std::uint64_t skipped_loop_strength_reductions();

/// Makes the -O pipeline built with `callbacks` skip CalledValuePropagation
/// (every other pass runs as the pipeline says).
void skip_called_value_propagation(llvm::PassInstrumentationCallbacks& callbacks);

/// How many times it was skipped in this process (tests: LLVM still names
/// the pass as this file does).
std::uint64_t skipped_called_value_propagations();

}  // namespace theano::codegen::detail

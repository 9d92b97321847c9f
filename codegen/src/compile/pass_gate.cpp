// The passes generated code skips (pass_gate.h): Loop Strength Reduction in
// the machine-code stage, CalledValuePropagation in the -O pipeline; every
// other pass as LLVM schedules it.
#include "pass_gate.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/IR/PassInstrumentation.h>

#include <atomic>

namespace theano::codegen::detail {
namespace {

std::atomic<std::uint64_t> g_skipped_lsr{0};
std::atomic<std::uint64_t> g_skipped_cvp{0};

class SkipLoopStrengthReduction final : public llvm::OptPassGate {
 public:
  // The legacy pass manager asks for every pass on every function (and loop
  // pass on every loop) while the gate is enabled.
  bool shouldRunPass(const llvm::StringRef pass, llvm::StringRef) override {
    if (pass != "Loop Strength Reduction") return true;
    g_skipped_lsr.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  bool isEnabled() const override { return true; }
};

}  // namespace

void install_pass_gate(llvm::LLVMContext& context) {
  static SkipLoopStrengthReduction gate;
  context.setOptPassGate(gate);
}

std::uint64_t skipped_loop_strength_reductions() { return g_skipped_lsr.load(std::memory_order_relaxed); }

void skip_called_value_propagation(llvm::PassInstrumentationCallbacks& callbacks) {
  callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass, llvm::Any) {
    if (pass != "CalledValuePropagationPass") return true;
    g_skipped_cvp.fetch_add(1, std::memory_order_relaxed);
    return false;
  });
}

std::uint64_t skipped_called_value_propagations() { return g_skipped_cvp.load(std::memory_order_relaxed); }

}  // namespace theano::codegen::detail

/// \file
/// The op registry (theano/graph/op_registry.h) against what the library
/// really has: every registered op class has a perform, an infer_shape, a
/// grad, a C++ lowering (codegen's lowering table) and a CUDA form (a GPU
/// lowering, or its C++ lowering run on device addresses), or states beside
/// its registration why not; a reason given for a part that exists is stale
/// and fails too. An op class in codegen's lowering tables that is not
/// registered fails as well. Here rather than in compile_tests because the
/// lowering tables are codegen's.
///
/// A numeric check of every lowering against perform is not driven from the
/// registry: an op needs props and inputs of its own domain to be built, which
/// the per-family tests (test_lower_<family>.cpp, test_cuda_<family>.cpp) do.
#include <doctest/doctest.h>
#include <theano/graph/op_registry.h>

#include <set>
#include <string>
#include <typeindex>

#include "../../codegen/src/lower/lowering.h"

namespace {

using theano::OpInfo;
namespace L = theano::codegen::lower;

// One part of an op: whether it exists and the reason given for its absence.
void check_part(std::string& problems, const OpInfo& op, const char* part, bool has, std::string_view reason) {
  const std::string who = std::string(op.class_name) + ": ";
  if (!has && reason.empty())
    problems += who + "no " + part + " and no reason given (OpDeclaration::no_" + part + ")\n";
  if (has && !reason.empty())
    problems += who + "has a " + part + ", but its registration says it has none: \"" + std::string(reason) + "\"\n";
}

}  // namespace

TEST_CASE("op registry: every registered op has each part or a stated reason") {
  const std::vector<OpInfo> ops = theano::registered_ops();
  // The library's op classes (tensor, sparse, control, GPU, collectives, gradient stops, scalar ops).
  REQUIRE(ops.size() >= 50);
  std::string problems;
  for (const OpInfo& op : ops) {
    const std::type_index type(*op.type);
    check_part(problems, op, "perform", op.has_perform, op.decl.no_perform);
    check_part(problems, op, "infer_shape", op.has_infer_shape, op.decl.no_infer_shape);
    check_part(problems, op, "grad", op.has_grad, op.decl.no_grad);
    check_part(problems, op, "cpp", L::find_lowering(type) != nullptr, op.decl.no_cpp);
    const bool cuda = L::find_gpu_lowering(type) != nullptr || L::gpu_form_is_host_lowering(type);
    check_part(problems, op, "cuda", cuda, op.decl.no_cuda);
    if (L::gpu_form_is_host_lowering(type) && !L::find_lowering(type))
      problems += std::string(op.class_name) + ": its GPU form runs its C++ lowering, which it does not have\n";
  }
  CHECK_MESSAGE(problems.empty(), "\n" << problems);
}

TEST_CASE("op registry: every op class codegen lowers is registered") {
  std::set<std::type_index> registered;
  for (const OpInfo& op : theano::registered_ops()) registered.insert(std::type_index(*op.type));
  std::string missing;
  for (const L::LoweringTable* table : {&L::lowering_table(), &L::gpu_lowering_table()})
    for (const auto& [type, fn] : *table)
      if (!registered.count(type)) missing += std::string(type.name()) + "\n";
  CHECK_MESSAGE(missing.empty(), "lowered but not registered (THEANO_REGISTER_OP):\n" << missing);
}

TEST_CASE("op registry: kinds are known and belong to one class") {
  std::set<std::string> seen;
  for (const OpInfo& op : theano::registered_ops())
    for (std::string_view k : op.decl.kinds) {
      CHECK_MESSAGE(seen.insert(std::string(k)).second, std::string(k));
      CHECK(theano::is_registered_op_kind(k));
    }
  for (const char* k : {"Softmax", "Argmax", "Argmin", "ZeroGrad", "DisconnectedGrad", "MpiAllreduce", "Scalar"})
    CHECK_MESSAGE(seen.count(k) == 1, std::string(k));
  CHECK_FALSE(theano::is_registered_op_kind("Sofmax"));
}

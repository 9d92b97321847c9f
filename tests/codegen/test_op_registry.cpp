/// \file
/// The op registry (theano/graph/op_registry.h) against what the library
/// really has: every registered op class has a perform, an infer_shape, a
/// grad, a C++ lowering and a CUDA form (codegen's lowering table, targets
/// cpu and cuda), or states beside
/// its registration why not; a reason given for a part that exists is stale
/// and fails too. An op class in codegen's lowering table that is not
/// registered fails as well. Here rather than in compile_tests because the
/// lowering table is codegen's.
///
/// A numeric check of every lowering against perform is not driven from the
/// registry: an op needs props and inputs of its own domain to be built, which
/// the per-family tests (test_lower_<family>.cpp, test_cuda_<family>.cpp) do.
#include <doctest/doctest.h>
#include <theano/graph/op_registry.h>
#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/join.h>
#include <theano/tensor/subtensor.h>

#include <set>
#include <string>
#include <typeindex>

#include "../../codegen/src/emit/lower/lowering.h"

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
    check_part(problems, op, "cpp", L::find_lowering(type, L::Target::Cpu) != nullptr, op.decl.no_cpp);
    check_part(problems, op, "cuda", L::find_lowering(type, L::Target::Cuda) != nullptr, op.decl.no_cuda);
  }
  CHECK_MESSAGE(problems.empty(), "\n" << problems);
}

TEST_CASE("op registry: every op class codegen lowers is registered") {
  std::set<std::type_index> registered;
  for (const OpInfo& op : theano::registered_ops()) registered.insert(std::type_index(*op.type));
  std::string missing;
  for (const L::LoweringTable::Key& k : L::lowering_table().keys())
    if (!registered.count(k.op)) missing += std::string(k.op.name()) + "\n";
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

TEST_CASE("lowering table: one row per op class and target, a view's GPU form is its C++ lowering") {
  L::LoweringTable t;
  const L::LowerFn f = +[](L::NodeLowering&) {};
  t.add<theano::tensor::Join>(L::Target::Cpu, f);
  CHECK((t.find(typeid(theano::tensor::Join), L::Target::Cpu) == f));
  CHECK((t.find(typeid(theano::tensor::Join), L::Target::Cuda) == nullptr));
  CHECK_THROWS_AS(t.add<theano::tensor::Join>(L::Target::Cpu, f), theano::InternalError);
  for (const std::type_index type : {std::type_index(typeid(theano::tensor::DimShuffle)),
                                     std::type_index(typeid(theano::tensor::Subtensor)),
                                     std::type_index(typeid(theano::tensor::Split))}) {
    CHECK((L::find_lowering(type, L::Target::Cpu) != nullptr));
    CHECK((L::find_lowering(type, L::Target::Cuda) == L::find_lowering(type, L::Target::Cpu)));
  }
}

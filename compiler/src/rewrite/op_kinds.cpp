/// \file
/// The names a node rewriter may track (rewrite::dispatch_keys): every op kind
/// (an Op's `type_name()`) and `Elemwise:<scalar op>` for each row of the
/// scalar op table. EquilibriumDB::register_rewrite checks a rewrite's tracks
/// against them, so a misspelled track is an error at registration naming the
/// rewrite, not a rewrite that silently never fires.
///
/// The library's op kinds are listed by header below; the few ops whose
/// type_name() depends on their parameters are asked directly. An op declared
/// outside the library registers its kind with register_op_kind.
#include "op_kinds.h"

#include <functional>
#include <mutex>
#include <set>

#include "theano/distributed/collectives.h"
#include "theano/gradient.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::rewrite {

namespace {

namespace T = theano::tensor;

constexpr std::string_view kElemwisePrefix = "Elemwise:";
// GpuOp's kind is "Gpu" + its host op's (GpuDimShuffle, GpuAlloc, ...: gpu/ops.h).
constexpr std::string_view kGpuPrefix = "Gpu";

std::set<std::string, std::less<>> builtin_kinds() {
  // The type_name() of every op the library declares, by public header (THEANO_OP_DECLARE's
  // literal). A kind missing here makes the default optdb fail to build when a rewrite tracks it,
  // naming the track; an op registry filled from the op declarations would make this list go away.
  std::set<std::string, std::less<>> k{
      // tensor/elemwise.h, reduction.h, basic_ops.h, shape.h, join.h, subtensor.h
      "Elemwise", "DimShuffle", "CAReduce", "Alloc", "ARange", "Eye", "Assert", "Shape", "Shape_i", "MakeVector",
      "SpecifyShape", "Reshape", "Join", "Split", "Subtensor", "IncSubtensor", "AdvancedSubtensor1",
      "AdvancedIncSubtensor1",
      // tensor/blas.h, nnet.h, random.h, scalar.h
      "Dot", "Dot22", "Gemm", "Gemv", "Ger", "Softmax", "LogSoftmax", "CrossentropyCategorical1Hot",
      "CrossentropyCategorical1HotGrad", "RandomFunction", "Composite",
      // sparse/ops.h, sparse/components.h
      "CSM", "CSMProperties", "DenseFromSparse", "SparseFromDense", "SparseTranspose", "StructuredDot",
      "SampledDotSparse", "GatherSparse", "TrueDot", "SpMM", "SampledDot", "SparseGather", "ComponentsToDense",
      "SwapFormat", "DenseToComponents", "Usmm", "AddSS", "MulSS", "MulSV", "StructuredAddSV", "SparseMerge",
      "SparseRowVector",
      // control/ifelse.h, control/scan.h, gpu/ops.h
      "IfElse", "Scan", "GpuFromHost", "HostFromGpu", "GpuElemwise"};
  // Kinds that depend on the op's parameters, asked of the ops themselves.
  k.emplace(T::scalar_op("add")->type_name());  // a scalar op inside a Composite
  k.emplace(T::scalar_cast_op(DType::Float64)->type_name());
  k.emplace(T::ArgReduce(true, {}).type_name());
  k.emplace(T::ArgReduce(false, {}).type_name());
  const Var x = T::dscalar("x");
  k.emplace(zero_grad(x).owner()->op()->type_name());
  k.emplace(disconnected_grad(x).owner()->op()->type_name());
  for (auto c : {runtime::Collective::allreduce_sum, runtime::Collective::allreduce_mean,
                 runtime::Collective::allreduce_max, runtime::Collective::broadcast, runtime::Collective::allgather,
                 runtime::Collective::rank, runtime::Collective::size})
    k.emplace(distributed::CollectiveOp(c, 0).type_name());
  return k;
}

struct Kinds {
  std::mutex mu;
  std::set<std::string, std::less<>> names = builtin_kinds();
};
Kinds& kinds() {
  static Kinds k;
  return k;
}

bool is_kind(std::string_view name) {
  Kinds& k = kinds();
  std::lock_guard<std::mutex> lock(k.mu);
  return k.names.count(name) != 0;
}

}  // namespace

void register_op_kind(std::string_view type_name) {
  THEANO_USER_CHECK(!type_name.empty() && type_name.find(':') == std::string_view::npos, ValueError)
      << "register_op_kind: '" << type_name << "' is not an op type_name() (empty, or has a ':')";
  Kinds& k = kinds();
  std::lock_guard<std::mutex> lock(k.mu);
  k.names.emplace(type_name);
}

std::string invalid_track_reason(std::string_view track) {
  if (track.substr(0, kElemwisePrefix.size()) == kElemwisePrefix) {
    const std::string_view scalar = track.substr(kElemwisePrefix.size());
    for (const T::ScalarOpInfo& row : T::scalar_op_table())
      if (row.name == scalar) return {};
    std::string known;
    for (const T::ScalarOpInfo& row : T::scalar_op_table()) known += (known.empty() ? "" : ", ") + row.name;
    return "no row of the scalar op table is named '" + std::string(scalar) + "' (rows: " + known + ")";
  }
  if (is_kind(track)) return {};
  if (track.substr(0, kGpuPrefix.size()) == kGpuPrefix && is_kind(track.substr(kGpuPrefix.size()))) return {};
  return "no op has type_name() '" + std::string(track) +
         "' (an op kind such as Softmax, or Elemwise:<scalar op> such as Elemwise:mul; an op defined outside "
         "the library: rewrite::register_op_kind)";
}

}  // namespace theano::rewrite

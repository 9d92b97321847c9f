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
#include "theano/graph/op_registry.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/type.h"

namespace theano::rewrite {

namespace {

namespace T = theano::tensor;

constexpr std::string_view kElemwisePrefix = "Elemwise:";
// GpuOp's kind is "Gpu" + its host op's (GpuDimShuffle, GpuAlloc, ...: gpu/ops.h).
constexpr std::string_view kGpuPrefix = "Gpu";

bool is_kind(std::string_view name) { return is_registered_op_kind(name); }

}  // namespace

void register_op_kind(std::string_view type_name) {
  THEANO_USER_CHECK(!type_name.empty() && type_name.find(':') == std::string_view::npos, ValueError)
      << "register_op_kind: '" << type_name << "' is not an op type_name() (empty, or has a ':')";
  add_op_kind(type_name);
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

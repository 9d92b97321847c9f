/// \file
/// The scalar code of a CAReduce node, shared by its CPU lowering
/// (emit/lower/reduction.cpp) and its GPU kernels (emit/lower/gpu_reduction.cpp):
/// one description of perform's semantics (compute dtype, accumulator,
/// conversions) so the two back ends cannot drift apart.
///
/// Each element is converted to the compute dtype (the accumulator dtype of
/// sum/prod, bool for all/any, the input dtype for max/min), folded from the
/// identity, and the result converted to the output dtype. Integer sums and
/// products fold in 64 bits, float sums and products in double, bool folds
/// in an int. The fold, the join of two partial folds (`combine`: a parallel
/// or vectorized fold's lanes) and the identity are the functions of
/// runtime/kernels/reduce_rules.h for that accumulator, the text perform
/// calls (integers wrap, bool folds are or / and, max / min propagate NaN).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lowering.h"

namespace theano::tensor {
class CAReduce;
}

namespace theano::codegen::lower {

struct ReduceCode {
  int nin = 1;
  bool has_pre = false;   ///< a fused elementwise op computes each element (`ex`)
  ElemwiseExprs ex;       ///< its scalar code (request ex.support where the helpers go)
  std::string in_t;       ///< C type of the value reduced (input 0's, or pre's output)
  std::string out_t;      ///< C type of the output
  std::string cd_t;       ///< C type of the compute dtype
  bool cd_bool = false;   ///< all / any (and bool sums, products, max, min)
  std::string acc_t;      ///< the accumulator's C type
  std::string rules;      ///< its suffix in reduce_rules.h (reduce_rules_suffix)
  std::string fold;       ///< the fold function (of a, the accumulator, and v, the converted element)
  std::string combine;    ///< the function joining two partial folds
  std::string init;       ///< the identity, a C expression of acc_t
  bool no_identity = false;  ///< max / min: an empty reduction is a ValueError

  /// An element of in_t converted to the accumulator.
  std::string conv(const std::string& v) const;
  /// An accumulator converted to the output dtype.
  std::string store(const std::string& a) const;
  /// The helper functions <fn>_fold, <fn>_combine, <fn>_conv and (with a
  /// fused op) <fn>_map, each declared with `qualifiers` ("static inline"; a
  /// CUDA unit compiles every function for the device). They call the
  /// functions of reduce_rules_support(rules), which the caller requests.
  std::string helpers(const std::string& fn, const std::string& qualifiers) const;
  /// The accumulator value of one element given each input's load (a C
  /// expression of the input's element type).
  std::string element(const std::string& fn, const std::vector<std::string>& loads) const;
};

/// The suffix of reduce_rules.h's functions for accumulator dtype `d` (f64,
/// ..., u8; b for bool values held in an int).
std::string reduce_rules_suffix(DType d);
/// The support code (key, text) defining reduce_rules.h's functions of
/// suffix `suffix`: the header's text, then that type's instantiation; for
/// L.need or CudaUnit::need.
std::vector<std::pair<std::string, std::string>> reduce_rules_support(const std::string& suffix);

/// The code of CAReduce node L.node (L.op is the CAReduce; its inputs may be
/// GPU arrays: only their dtypes are read). Refuses dtypes without C types.
ReduceCode reduce_code(const NodeLowering& L, const tensor::CAReduce& op);

}  // namespace theano::codegen::lower

/// \file
/// Value comparisons and summaries shared by the checking modes (DebugMode,
/// NanGuardMode) and by the conversions of literals (function(), calls);
/// private to compiler/src/compile.
///
/// Why: both modes report values the same way (a few differing or bad
/// elements with their index, and per-input summaries), and DebugMode needs
/// one notion of "equal enough": Theano's dtype-aware tolerances
/// (tensor/basic.py: float16 rtol 1e-2 atol 5e-3, float32 rtol 1e-5 atol
/// 1e-5, float64 rtol 1e-5 atol 1e-8; complex by component; integers and
/// bools exact), with NaN equal to NaN at the same position and infinities
/// equal only to themselves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/runtime/ndarray.h"

namespace theano::detail {

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

/// Theano's tolerance for `dtype` (zero for integers and bools).
Tolerance tolerance_for(DType dtype);

struct CompareOptions {
  std::string got_name = "got";    ///< how the messages call `got` ("compiled", "optimized", ...)
  std::string want_name = "want";  ///< and `want` ("perform", "unoptimized", ...)
  bool exact = false;              ///< bit-for-bit (NaN still equals NaN): "left unchanged" checks
  /// Positions where `want` is NaN or infinite are not compared (a
  /// stabilizing rewrite may give a finite value where the original overflowed).
  bool skip_nonfinite_want = false;
  int max_reported = 5;  ///< differing elements listed in the message
};

/// "" when `got` equals `want` within the tolerance of their dtype, else a
/// description: dtype or shape mismatch, or how many elements differ, the
/// largest differences and the first few positions with both values.
std::string compare_values(const NDArray& got, const NDArray& want, const CompareOptions& options = {});

/// Whether `converted` (a host or device array) holds the values of `original`
/// exactly: converted back to `original`'s dtype it equals it (NaN equal to
/// NaN). Theano's test for taking a literal into another dtype.
bool converts_exactly(const NDArray& original, const NDArray& converted);

/// "float64 (2, 3) min=-1 max=3 has_nan=false has_inf=false" (no min/max for
/// empty arrays; "<no value>" for an undefined one).
std::string summarize(const NDArray& a);

/// "[1, 2]": the multi-index of C-order flat position `flat` in `shape`.
std::string index_str(const std::vector<std::int64_t>& shape, std::int64_t flat);

/// The first NaN / infinity / big value (|x| > 1e10) of a float or complex
/// array, in C order, among the kinds asked for.
struct BadValue {
  enum Kind { None, NaN, Inf, Big } kind = None;
  std::int64_t flat = -1;  ///< C-order position
  std::string value;       ///< the element, printed
  std::int64_t count = 0;  ///< elements of that kind
};
BadValue find_bad_value(const NDArray& a, bool nan, bool inf, bool big, double big_threshold = 1e10);
const char* bad_kind_name(BadValue::Kind k);

}  // namespace theano::detail

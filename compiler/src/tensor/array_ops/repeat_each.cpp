// repeat with one count per element (numpy.repeat(x, [2, 0, 3], axis)): the
// source index of every output position, found in O(n + total) from the
// counts alone (a 1 added at each count's running-sum end, then a running
// sum), and one take along the axis, whose gradient scatters back
// (docs/array-ops.md).
#include <cstdint>
#include <limits>
#include <string>

#include "../shape/shape_util.h"
#include "array_ops_util.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/extra_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::tensor::array_ops {

Var repeat_each(const Var& x, const Var& repeats, int a) {
  const Var n = shape_i(x, a);
  Var r = detail::as_int64(repeats);
  const Var len = shape_i(r, 0);
  const std::string axis = std::to_string(a);
  r = require(r, eq(len, n), "repeat: repeats has {} entries for axis " + axis + " of length {}", {len, n});
  r = require(r, all_(ge(r, 0)), "repeat: a count in repeats is negative");
  // n * max(r) <= INT64_MAX: the total (a sum of n counts) cannot overflow.
  const Var limit = int_div(detail::int64_const(std::numeric_limits<std::int64_t>::max()), maximum(n, 1));
  r = require(r, all_(le(r, limit)), "repeat: the repeated length of axis " + axis + " (length {}) overflows int64",
              {n});
  // ends[i] = r[0] + ... + r[i]; output positions ends[i - 1] .. ends[i] - 1 come from i.
  const Var ends = cumsum(r, 0);
  const Var total = sum(r);
  const Var starts = ends[slice(none, -1)];  // where the source index steps up by one (zero counts: several)
  Var steps = zeros({add(total, 1)}, DType::Int64);
  steps = inc_subtensor(steps[starts], ones_like(starts));
  const Var src = cumsum(steps[slice(none, total)], 0);
  return take(x, src, a);
}

}  // namespace theano::tensor::array_ops

// mgrid and ogrid: one arange per range, shaped to broadcast (ogrid) or
// broadcast and stacked (mgrid) (docs/array-ops.md).
#include "theano/runtime/error.h"
#include "theano/tensor/array_ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/join.h"
#include "theano/tensor/shape.h"

namespace theano::tensor {

std::vector<Var> ogrid(const std::vector<GridRange>& ranges) {
  THEANO_USER_CHECK(!ranges.empty(), ValueError) << "ogrid: give at least one range";
  const int k = static_cast<int>(ranges.size());
  std::vector<Var> out;
  for (int i = 0; i < k; ++i) {
    const GridRange& r = ranges[static_cast<std::size_t>(i)];
    std::vector<int> order(static_cast<std::size_t>(k), kNewAxis);
    order[static_cast<std::size_t>(i)] = 0;
    out.push_back(dimshuffle(arange(r.start, r.stop, r.step), order));
  }
  return out;
}

Var mgrid(const std::vector<GridRange>& ranges) {
  THEANO_USER_CHECK(!ranges.empty(), ValueError) << "mgrid: give at least one range";
  const std::vector<Var> open = ogrid(ranges);
  std::vector<TensorLike> shape;
  for (std::size_t i = 0; i < open.size(); ++i) shape.emplace_back(shape_i(open[i], static_cast<int>(i)));
  std::vector<Var> dense;
  for (const Var& o : open) dense.push_back(alloc(o, shape));
  return stack(dense, 0);
}

}  // namespace theano::tensor

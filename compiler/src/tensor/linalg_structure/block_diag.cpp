// block_diag (SciPy's, PyTensor's) as a graph: zeros of (batch..., sum of
// rows, sum of columns) in the inputs' promoted dtype with each matrix set in
// its block (IncSubtensor, inplace after the inplace stage). Its gradient is
// the graph's (each input gets its block of the output gradient).
#include <string>

#include "diag_graph.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/index.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

using detail::int64_constant;

Var block_diag(const std::vector<Var>& matrices) {
  THEANO_USER_CHECK(!matrices.empty(), ValueError) << "block_diag: expected at least one matrix, got none";
  std::vector<Var> ms;
  for (const Var& m : matrices) ms.push_back(as_tensor_variable(m));
  const int nd = tensor_type(ms[0])->ndim();
  DType dtype = tensor_type(ms[0])->dtype();
  for (std::size_t i = 0; i < ms.size(); ++i) {
    const int r = tensor_type(ms[i])->ndim();
    THEANO_USER_CHECK(r >= 2 && r == nd, ValueError)
        << "block_diag: input " << i << " (" << ms[i].str() << ") has rank " << r
        << "; expected matrices (rank 2, or more for a batch) all of the rank of input 0 (" << nd << ")";
    dtype = promote_types(dtype, tensor_type(ms[i])->dtype());
  }
  std::vector<TensorLike> shape;
  for (int d = 0; d < nd - 2; ++d) {  // batch sizes broadcast: the largest (set_subtensor checks the others)
    Var size = shape_i(ms[0], d);
    for (std::size_t i = 1; i < ms.size(); ++i) size = maximum(size, shape_i(ms[i], d));
    shape.emplace_back(size);
  }
  Var rows = int64_constant(0), cols = int64_constant(0);
  for (const Var& m : ms) {
    rows = add(rows, shape_i(m, nd - 2));
    cols = add(cols, shape_i(m, nd - 1));
  }
  shape.emplace_back(rows);
  shape.emplace_back(cols);
  Var out = zeros(shape, dtype);
  Var r0 = int64_constant(0), c0 = int64_constant(0);
  for (const Var& m : ms) {
    const Var r1 = add(r0, shape_i(m, nd - 2)), c1 = add(c0, shape_i(m, nd - 1));
    std::vector<Index> idx(static_cast<std::size_t>(nd - 2), Index(all));
    idx.emplace_back(slice(r0, r1));
    idx.emplace_back(slice(c0, c1));
    out = set_subtensor(subtensor(out, idx), m);
    r0 = r1;
    c0 = c1;
  }
  return out;
}

}  // namespace theano::tensor::linalg

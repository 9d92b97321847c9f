// Tril / Triu (NumPy's tril, triu over the last two axes): make_node's
// checks, perform by index arithmetic, infer_shape, the gradient (the same
// op on the output gradient) and the graph form the specialize stage puts in
// its place (a switch on a comparison of aranges, which fusion makes one loop).
#include <cstring>

#include "diag_graph.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor::linalg {

using namespace detail;

TriangularPart::TriangularPart(bool lower, int k) : lower_(lower), k_(k) {}

THEANO_REGISTER_OP(TriangularPart, .kinds = {"Tril", "Triu"},
                   .no_cpp = "expanded at specialize (local_linalg_structure_expand) into a switch on a comparison "
                             "of aranges, one fused elementwise loop",
                   .no_cuda = "expanded at specialize into elementwise ops and ARange, which have GPU forms");

ApplyPtr TriangularPart::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << name() << " takes 1 input, got " << inputs.size();
  const Var x = as_tensor_variable(inputs[0]);
  const TensorType& t = *tensor_type(x);
  THEANO_USER_CHECK(t.ndim() >= 2, ValueError)
      << name() << ": expected " << x.str() << " of rank 2 or more (a matrix, or a batch of them), got " << t.str();
  return Apply::create(OpPtr(this), {x}, {t.make_variable()});
}

void TriangularPart::perform(const Apply&, std::span<const NDArray> inputs, std::span<NDArray> outputs) const {
  NDArray out = inputs[0].copy();  // C-contiguous; the other triangle is zeroed below
  THEANO_USER_CHECK(out.ndim() >= 2, ValueError) << name() << ": expected a value of rank 2 or more, got shape "
                                                 << shape_to_string(out.shape());
  const std::int64_t n = out.shape()[out.shape().size() - 2], m = out.shape().back();
  const std::int64_t planes = n * m == 0 ? 0 : out.size() / (n * m);
  const std::size_t item = out.itemsize();
  auto* p = static_cast<std::byte*>(out.data());
  for (std::int64_t b = 0; b < planes; ++b)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j) {
        const bool keep = lower_ ? j <= i + k_ : j >= i + k_;
        // All-zero bytes are 0 in every dtype (0.0, 0, false).
        if (!keep) std::memset(p + static_cast<std::size_t>((b * n + i) * m + j) * item, 0, item);
      }
  outputs[0] = std::move(out);
}

std::vector<std::vector<Var>> TriangularPart::infer_shape(const Apply&,
                                                          const std::vector<std::vector<Var>>& shapes) const {
  return {shapes[0]};
}

// Each output element is the input element or a constant 0: the gradient keeps the same triangle of gz.
std::vector<Var> TriangularPart::grad(const Apply&, const std::vector<Var>& output_grads) const {
  const Var& gz = output_grads.at(0);
  if (!gz) return {Var()};
  return {OpPtr(new TriangularPart(lower_, k_))->apply1({gz})};
}

Var TriangularPart::expanded(const std::vector<Var>& inputs) const {
  const Var& x = inputs.at(0);
  const int nd = tensor_type(x)->ndim();
  // The aranges broadcast to x's rank before the comparison, so that fusion takes it into the switch's loop.
  std::vector<int> row_order(static_cast<std::size_t>(nd), kNewAxis), col_order(row_order);
  row_order[static_cast<std::size_t>(nd - 2)] = 0;
  col_order[static_cast<std::size_t>(nd - 1)] = 0;
  const Var rows = add(dimshuffle(arange(shape_i(x, nd - 2)), row_order), int64_constant(k_));
  const Var cols = dimshuffle(arange(shape_i(x, nd - 1)), col_order);
  const Var keep = lower_ ? le(cols, rows) : ge(cols, rows);
  return switch_(keep, x, constant(NDArray::zeros({}, tensor_type(x)->dtype())));
}

Var tril(const TensorLike& x, int k) { return OpPtr(new TriangularPart(true, k))->apply1({x.var()}); }

Var triu(const TensorLike& x, int k) { return OpPtr(new TriangularPart(false, k))->apply1({x.var()}); }

}  // namespace theano::tensor::linalg

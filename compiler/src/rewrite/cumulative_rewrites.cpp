/// \file
/// Cumulative-op rewrites: the running sum of a constant fill along an axis
/// is the fill times 1, 2, 3, ...: one elementwise product, no scan along
/// the lines (and one rounding per element where the running sum of floats
/// rounds at every step). docs/array-ops.md, "Cumulative".
#include "rewrites.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/extra_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

// cumsum(alloc(c, dims), a) -> alloc(c, dims) * arange(1, dims[a] + 1) along a (c a scalar)
NodeRewriterPtr local_cumsum_of_fill() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_cumsum_of_fill", {"CumOp"}, "cumsum(alloc(c, dims), a) -> alloc(c, dims) * arange(1, dims[a] + 1) along a",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const auto& op = static_cast<const T::CumOp&>(*node.op());
        if (op.mode() != "add") return RewriteResult::fail("not a cumsum");
        const Var& v = node.input(0);
        const Apply* fill = v.owner();
        if (!fill || fill->op()->type_name() != "Alloc" || T::tensor_type(fill->input(0))->ndim() != 0)
          return RewriteResult::fail("not the cumsum of a scalar's alloc");
        const T::TensorType& tv = *T::tensor_type(v);
        const DType d = tv.dtype();
        if (T::tensor_type(node.output(0))->dtype() != d || !(is_float(d) || (is_integer(d) && d != DType::Bool)))
          return RewriteResult::fail("a dtype the product would not keep");
        const int a = op.axis();
        std::vector<int> order(static_cast<std::size_t>(tv.ndim()), T::kNewAxis);
        order[static_cast<std::size_t>(a)] = 0;
        const Var n = T::shape_i(v, a);
        const Var ramp = T::dimshuffle(T::cast(T::add(T::arange(n, DType::Int64), 1), d), order);
        return T::mul(v, ramp);
      });
  return r;
}

}  // namespace theano::rewrite::detail

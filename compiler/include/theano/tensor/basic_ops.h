/// \file
/// Creation ops: `Alloc` (a value broadcast to a possibly symbolic shape, what
/// zeros/ones/fill lower to), `ARange` (numpy.arange with Theano's dtype rule),
/// `Eye` (numpy.eye), and `Assert` (passes a value through after checking
/// scalar conditions at run time, what shape-unsafe rewrites leave behind).
///
/// Why together: they are Theano's tensor/basic.py "allocation" family and share
/// the handling of integer-scalar size inputs (any integer dtype, read as int64,
/// constants folded into the static shape of the output).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/graph/op_props.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/type.h"

namespace theano {
/// Raised by `Assert` when a condition is false at run time; the message is the
/// one given to `assert_op`.
class AssertionError : public ValueError {
 public:
  using ValueError::ValueError;
};
}  // namespace theano

namespace theano::tensor {

/// `Alloc`: inputs value, then one integer scalar per output dimension. The
/// output (value's dtype) is value broadcast to that shape; value's rank may be
/// lower (left-padded). Sizes that are constants give the output static shape.
class Alloc final : public Op {
 public:
  THEANO_OP_DECLARE("Alloc")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  bool foldable() const override;
  /// The output gradient summed over the broadcast dimensions; nothing for sizes.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// `ARange{dtype}`: inputs start, stop, step (0-d); numpy.arange values.
class ARange final : public Op {
 public:
  explicit ARange(DType dtype) : dtype_(dtype) {}
  THEANO_OP_DECLARE("ARange")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::string name() const override;  ///< `ARange{dtype='int64'}`
  /// Float ranges: d/dstart = sum(gz), d/dstep = sum(gz * arange(n)); stop only
  /// changes the length (disconnected). Integer ranges: no gradient.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((DType, dtype))
};

/// `Eye{dtype}`: inputs n, m, k (integer scalars); ones on diagonal k of an n x m
/// matrix.
class Eye final : public Op {
 public:
  explicit Eye(DType dtype) : dtype_(dtype) {}
  THEANO_OP_DECLARE("Eye")
  std::optional<GpuPlacement> gpu_form(const Apply& node) const override;
  std::string name() const override;  ///< `Eye{dtype='float64'}`
  /// No gradient (all inputs are integers).
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  THEANO_OP_PROPS((DType, dtype))
};

/// `Assert{msg, nvalues}`: inputs value, then 0-d conditions, then `nvalues`
/// (at most 3) integer scalars the message reports. The output is value (a
/// view) when every condition is true (nonzero), else AssertionError(msg) with
/// each "{}" of msg, in order, replaced by one reported value
/// (`assert_message_pieces`), so a failed check can say which sizes disagreed.
class Assert final : public Op {
 public:
  /// Throws TypeError unless msg has exactly `nvalues` "{}" (0 <= nvalues <= 3;
  /// with none, msg is plain text).
  explicit Assert(std::string msg, int nvalues = 0);
  THEANO_OP_DECLARE("Assert")
  std::string name() const override;  ///< `Assert{msg='...'}`
  /// Identity for value; conditions are disconnected.
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  ViewMap view_map() const override;

  /// The number of condition inputs (after value, before the reported values).
  int nconditions(const Apply& node) const { return node.nin() - 1 - nvalues_; }

  THEANO_OP_PROPS((std::string, msg), (int, nvalues, 0))
};

/// msg cut at each "{}" when `nvalues` > 0 (nvalues + 1 pieces; the reported
/// values go between them), else msg whole. One rule for perform and the C++
/// lowering.
std::vector<std::string> assert_message_pieces(const std::string& msg, int nvalues);

/// `value` broadcast to `shape` (integer scalars: literals, constants or symbolic).
Var alloc(const TensorLike& value, const std::vector<TensorLike>& shape);
/// Same, with the shape as a symbolic integer vector of static length (or one
/// integer scalar: a 1-d result, so `zeros({n})` works with a Var n).
Var alloc(const TensorLike& value, const Var& shape_vector);
/// Zeros / ones of `shape`; dtype defaults to config().floatX.
Var zeros(const std::vector<TensorLike>& shape, std::optional<DType> dtype = {});
Var zeros(const Var& shape_vector, std::optional<DType> dtype = {});
Var ones(const std::vector<TensorLike>& shape, std::optional<DType> dtype = {});
Var ones(const Var& shape_vector, std::optional<DType> dtype = {});

/// numpy.arange(stop) / arange(start, stop, step). Default dtype (Theano's rule):
/// the promotion of the arguments' dtypes, widened to int64 for signed integers
/// and uint64 for unsigned ones; floats keep the promoted float dtype.
Var arange(const TensorLike& stop);
Var arange(const TensorLike& stop, DType dtype);
Var arange(const TensorLike& start, const TensorLike& stop, const TensorLike& step = 1,
           std::optional<DType> dtype = {});

/// numpy.eye(n, m (default n), k); dtype defaults to config().floatX.
Var eye(const TensorLike& n, std::optional<TensorLike> m = {}, const TensorLike& k = 0,
        std::optional<DType> dtype = {});

/// `x` after checking that every condition (0-d, nonzero = true) holds. A
/// failed check's message is `message` with each "{}" replaced, in order, by
/// one of `values` (at most 3 integer scalars), e.g.
/// `assert_op(x, {le(m, n)}, "a sample of {} from a population of {}", {m, n})`.
Var assert_op(const Var& x, const std::vector<Var>& conditions, std::string message = "Theano Assert failed!",
              const std::vector<Var>& values = {});

}  // namespace theano::tensor

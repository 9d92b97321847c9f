/// \file
/// Collective ops: `allreduce` (sum, mean, max), `broadcast`, `allgather` and
/// the communicator's `rank` / `size` as graph nodes, for data-parallel
/// training over MPI (theano/distributed/distributed.h has the training
/// helpers). Like Horovod's and JAX's collectives they are ordinary ops:
/// perform, infer_shape, grad, and a lowering whose generated code calls MPI
/// through the runtime (TheanoContext::collective); both paths run
/// runtime/collectives.h, which first makes every rank agree on dtype and
/// shape, so a mismatch raises the same ShapeError on every rank instead of
/// hanging.
///
/// Every rank must run the same collectives in the same order: compile the
/// same graph on every rank (the optimizer is deterministic, and ranks on one
/// host share the compiled code through the compiledir) and call the
/// functions in the same order. A collective under an `ifelse` whose
/// condition differs between ranks deadlocks, as it would in any MPI program.
/// Collectives are never constant-folded (their value is other processes').
///
/// Gradients (each rank holds the cotangent of its own output):
///   allreduce sum:  dx_r = allreduce_sum(g)
///   allreduce mean: dx_r = allreduce_mean(g)
///   allreduce max:  dx_r = allreduce_sum(g) * (x_r == y)   (ties all get it)
///   broadcast:      dx_r = rank == root ? allreduce_sum(g) : 0
///   allgather:      dx_r = allreduce_sum(g)[rank * n : (rank + 1) * n]
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/graph/basic.h"
#include "theano/graph/op.h"
#include "theano/runtime/collectives.h"

namespace theano::distributed {

/// A communicator: 0 is every process of the job (MPI_COMM_WORLD); `split`
/// makes others. The same number on every rank.
struct Communicator {
  std::int64_t id = 0;
  static Communicator world() { return {0}; }
  /// MPI_Comm_split: ranks passing the same `color` form a communicator,
  /// ordered by `key`. Collective: every rank of this one must call it.
  Communicator split(std::int64_t color, std::int64_t key) const;
  std::int64_t rank() const;
  std::int64_t size() const;
};

enum class ReduceOp { sum, mean, max };

/// One collective op (the kinds of runtime::Collective) on communicator
/// `comm`; `root` for broadcast. Type names start with "Mpi".
class CollectiveOp final : public Op {
 public:
  CollectiveOp(runtime::Collective kind, std::int64_t comm, std::int64_t root = 0);
  std::string_view type_name() const override;
  bool foldable() const override;
  ApplyPtr make_node(std::vector<Var> inputs) const override;
  bool has_perform() const override { return true; }
  void perform(const Apply& node, std::span<const NDArray> inputs, std::span<NDArray> outputs) const override;
  std::vector<std::vector<Var>> infer_shape(const Apply& node,
                                            const std::vector<std::vector<Var>>& input_shapes) const override;
  // By hand: which props exist depends on the kind (`op` for an allreduce, `root` for a broadcast).
  Props props() const override;
  std::vector<Var> grad(const Apply& node, const std::vector<Var>& output_grads) const override;

  runtime::Collective kind() const noexcept { return kind_; }
  std::int64_t comm() const noexcept { return comm_; }
  std::int64_t root() const noexcept { return root_; }

 private:
  runtime::Collective kind_;
  std::int64_t comm_;
  std::int64_t root_;
};

/// Whether `node` is a collective (nullptr if not).
const CollectiveOp* as_collective(const Apply& node);

/// The elementwise reduction of `x` (float32 / float64, the same shape on
/// every rank) over the ranks of `comm`; the result has x's type.
Var allreduce(const Var& x, ReduceOp op = ReduceOp::sum, Communicator comm = Communicator::world());
/// `root`'s `x` on every rank (every rank passes an x of the same shape).
Var broadcast(const Var& x, std::int64_t root = 0, Communicator comm = Communicator::world());
/// The ranks' `x` (same shape on every rank, at least 1-d) stacked along
/// axis 0 in rank order: shape (size * x.shape[0], ...).
Var allgather(const Var& x, Communicator comm = Communicator::world());
/// This process's rank and the communicator's size as graph values: int64
/// scalars read when the function runs (never constants: ranks share
/// compiled code). distributed::rank() / size() are the plain numbers.
Var symbolic_rank(Communicator comm = Communicator::world());
Var symbolic_size(Communicator comm = Communicator::world());

}  // namespace theano::distributed

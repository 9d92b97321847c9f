/// \file
/// Collective communication between processes over MPI (Open MPI from
/// Debian): the one implementation behind the collective ops' `perform`
/// (theano/distributed/collectives.h) and the host callback their generated
/// code calls (TheanoContext::collective, codegen/src/thunk_abi.h).
///
/// Why here: libmpi is linked by the runtime, never by user code, and
/// both execution paths must check and communicate the same way (one fact,
/// one place). Every collective first agrees on the operands' dtype and shape
/// (one small MPI_Allreduce of MAX over [dtype, ndim, shape..., and their
/// negations]): a rank whose array differs makes every rank raise the same
/// ShapeError naming the op, where plain MPI would truncate, read past a
/// buffer or hang. Then the data moves with one MPI call (in chunks of at
/// most INT_MAX elements, MPI's count type).
///
/// Communicators are small integers, the same on every rank: 0 is
/// MPI_COMM_WORLD, `comm_split` numbers new ones in creation order (a
/// collective call, so every rank counts alike).
///
/// MPI is initialized on first use (MPI_THREAD_SERIALIZED: collectives run on
/// the calling thread) and finalized at exit, unless the program initialized
/// it itself. Without `mpirun` a process is a world of one (MPI's singleton).
#pragma once

#include <cstdint>
#include <string>

#include "theano/runtime/ndarray.h"

namespace theano::runtime {

/// What a collective computes. The numbers are part of the thunk ABI
/// (TheanoContext::collective's `kind`).
enum class Collective : std::int64_t {
  allreduce_sum = 0,
  allreduce_mean = 1,  ///< the sum divided by the communicator's size
  allreduce_max = 2,
  broadcast = 3,       ///< every rank gets `root`'s array
  allgather = 4,       ///< the ranks' arrays stacked along axis 0, rank order
  rank = 5,            ///< this process's rank (a 0-d int64 output)
  size = 6,            ///< the communicator's size (a 0-d int64 output)
};

/// "allreduce(sum)", "broadcast", ... for messages.
std::string collective_name(Collective kind);

/// Initializes MPI if nobody did (idempotent; argc/argv may be null). Raises
/// theano::Error when MPI cannot start.
void mpi_init(int* argc = nullptr, char*** argv = nullptr);
/// Whether MPI is initialized and not yet finalized.
bool mpi_initialized();
/// Finalizes MPI if this runtime initialized it (idempotent; also at exit).
/// After it no collective can run in this process.
void mpi_finalize();

/// The rank of this process in `comm` and the communicator's size.
std::int64_t comm_rank(std::int64_t comm = 0);
std::int64_t comm_size(std::int64_t comm = 0);
/// MPI_Comm_split of `comm`: the ranks passing the same color form a new
/// communicator, ordered by `key`. Collective over `comm`. Returns its number.
std::int64_t comm_split(std::int64_t comm, std::int64_t color, std::int64_t key);
/// MPI_Barrier.
void comm_barrier(std::int64_t comm = 0);

/// The shape `out` must have for `kind` of `in` on `comm` (allgather: axis 0
/// times the size; rank / size: 0-d).
std::vector<std::int64_t> collective_output_shape(Collective kind, std::int64_t comm, const NDArray& in);

/// Runs `kind` on `comm`: reads `in` (any strides, float32 or float64; unused
/// for rank / size), writes `out`, which the caller allocated C-contiguous
/// with collective_output_shape() and `in`'s dtype (int64 for rank / size).
/// `root` is broadcast's source rank. Errors (ShapeError / ValueError /
/// theano::Error) start with `what` (the op, or the node's label).
void run_collective(Collective kind, std::int64_t comm, std::int64_t root, const NDArray& in, NDArray& out,
                    const std::string& what);

}  // namespace theano::runtime

/// \file
/// `theano::distributed`: data-parallel training over MPI, the way Horovod
/// wraps a framework: start the job with `mpirun -np N program`, call
/// `init()`, build the same graph on every rank, replace the gradients by
/// `average_gradients(grads)` (one fused allreduce of every gradient, not one
/// per parameter) and make the initial parameters equal with
/// `broadcast_parameters(params)`. Each rank then trains on its share of the
/// global batch; with equal shares and a mean loss the update is the one a
/// single process computes on the whole batch.
///
/// Ranks on one host share a compiledir: each function is compiled once per
/// host (the compile cache's locks), the other ranks load it. Across hosts,
/// give each host its compiledir or use the remote cache (README).
#pragma once

#include <cstdint>
#include <vector>

#include "theano/distributed/collectives.h"
#include "theano/graph/basic.h"

namespace theano::distributed {

/// Initializes MPI (idempotent; argc/argv may be null; also done by the
/// first collective). Without mpirun the process is a world of one.
void init(int* argc = nullptr, char*** argv = nullptr);
bool initialized();
/// Finalizes MPI (idempotent; also at exit). No collective can run after it.
void finalize();
/// This process's rank in the world and the world's size (init() first if needed).
std::int64_t rank();
std::int64_t size();
/// Waits until every rank of `comm` got here.
void barrier(Communicator comm = Communicator::world());

/// The mean over the ranks of each gradient, as ONE allreduce per dtype:
/// the gradients are flattened and joined into one vector, averaged with a
/// single allreduce(mean), then cut back into their shapes. Returns one Var
/// per gradient, of the same type. TypeError naming the gradient for a
/// non-float32/float64 one.
std::vector<Var> average_gradients(const std::vector<Var>& grads, Communicator comm = Communicator::world());

/// Sets every shared variable in `params` to `root`'s value (MPI broadcast,
/// run now, not a graph): call it once after building the model so every
/// rank starts from the same parameters. Every rank's value must have the
/// same shape (ShapeError naming the variable otherwise).
void broadcast_parameters(const std::vector<Var>& params, std::int64_t root = 0,
                          Communicator comm = Communicator::world());

}  // namespace theano::distributed

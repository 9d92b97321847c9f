// MPI collectives behind the collective ops (see collectives.h): start-up,
// communicators, the shape agreement every collective makes first, and the
// data movement.
#include "theano/runtime/collectives.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <vector>

#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace theano::runtime {

namespace {

std::mutex mu;                  // guards the state below (not the collectives)
// MPI_THREAD_SERIALIZED: one MPI call at a time in the process, whichever
// thread calls a compiled function (the ranks must still call collectives in
// the same order: concurrent callers of collectives on one rank lose that).
std::mutex calls_mu;
bool we_initialized = false;    // MPI_Init came from here: finalize at exit
bool finalized_here = false;
std::vector<MPI_Comm>* comms = nullptr;  // [0] = MPI_COMM_WORLD; the split ones are freed at finalize

std::string mpi_error_text(int rc) {
  char buf[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(buf, static_cast<std::size_t>(len));
}

void check_mpi(int rc, const std::string& what, const char* call) {
  if (rc != MPI_SUCCESS) throw Error(what + ": " + call + " failed: " + mpi_error_text(rc));
}

void finalize_at_exit() { mpi_finalize(); }

/// Open MPI does not free all that MPI_Init allocates (its components are
/// unloaded at MPI_Finalize, so LeakSanitizer could not even name them):
/// under ASan, what MPI allocates while starting and stopping is not
/// reported as leaked. Our own allocations are never inside these scopes.
struct MpiAllocations {
#if defined(__SANITIZE_ADDRESS__)
  MpiAllocations() { __lsan_disable(); }
  ~MpiAllocations() { __lsan_enable(); }
#else
  MpiAllocations() = default;
#endif
  MpiAllocations(const MpiAllocations&) = delete;
  MpiAllocations& operator=(const MpiAllocations&) = delete;
};

/// The MPI communicator numbered `comm`, initializing MPI on first use.
MPI_Comm communicator(std::int64_t comm, const std::string& what) {
  mpi_init();
  std::lock_guard<std::mutex> lock(mu);
  if (finalized_here) throw Error(what + ": MPI was finalized (distributed::finalize()); no collective can run");
  if (comm < 0 || static_cast<std::size_t>(comm) >= comms->size())
    throw ValueError(what + ": no communicator " + std::to_string(comm) + " (" + std::to_string(comms->size()) +
                     " exist: 0 is the world, comm_split makes others)");
  return (*comms)[static_cast<std::size_t>(comm)];
}

MPI_Datatype mpi_type(DType d, const std::string& what) {
  switch (d) {
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Float32:
      return MPI_FLOAT;
    default:
      throw TypeError(what + ": collectives move float32 or float64 arrays, got " + std::string(dtype_name(d)));
  }
}

std::string shape_text(const std::int64_t* s, std::int64_t nd) {
  std::ostringstream os;
  os << "(";
  for (std::int64_t d = 0; d < nd; ++d) os << (d ? ", " : "") << s[d] << (nd == 1 ? "," : "");
  os << ")";
  return os.str();
}

/// Every rank of `c` must pass the same dtype and shape (for allgather the
/// same trailing shape; its rows may not differ either, MPI_Allgather's
/// equal blocks). One MPI_Allreduce(MAX) of the description and its negation
/// gives every rank the maximum and the minimum, so all ranks raise alike.
void agree_on_operands(MPI_Comm c, const NDArray& in, const std::string& what) {
  constexpr int n = 2 + THEANO_MAX_NDIM;
  std::int64_t desc[2 * n] = {};
  desc[0] = static_cast<std::int64_t>(in.dtype());
  desc[1] = in.ndim();
  for (int d = 0; d < in.ndim() && d < THEANO_MAX_NDIM; ++d) desc[2 + d] = in.shape()[static_cast<std::size_t>(d)];
  for (int i = 0; i < n; ++i) desc[n + i] = -desc[i];
  std::int64_t agreed[2 * n];
  check_mpi(MPI_Allreduce(desc, agreed, 2 * n, MPI_INT64_T, MPI_MAX, c), what, "MPI_Allreduce (shape agreement)");
  bool same = true;
  for (int i = 0; i < n; ++i) same = same && agreed[i] == -agreed[n + i];
  if (same) return;
  int rank = 0;
  MPI_Comm_rank(c, &rank);
  std::int64_t lo[n], hi[n];
  for (int i = 0; i < n; ++i) {
    hi[i] = agreed[i];
    lo[i] = -agreed[n + i];
  }
  std::ostringstream os;
  os << what << ": every rank must pass the same dtype and shape; rank " << rank << " passed "
     << dtype_name(in.dtype()) << " " << shape_text(desc + 2, desc[1]);
  if (hi[0] != lo[0])
    os << ", but the ranks pass different dtypes";
  else if (hi[1] != lo[1])
    os << ", but the ranks pass arrays of " << lo[1] << " to " << hi[1] << " dimensions";
  else
    os << ", but the ranks' shapes range from " << shape_text(lo + 2, lo[1]) << " to " << shape_text(hi + 2, hi[1]);
  throw ShapeError(os.str());
}

/// Calls `fn(offset, count)` over [0, n) in pieces of at most INT_MAX.
template <typename Fn>
void in_chunks(std::int64_t n, Fn fn) {
  for (std::int64_t off = 0; off < n; off += INT_MAX) fn(off, static_cast<int>(std::min<std::int64_t>(INT_MAX, n - off)));
}

}  // namespace

std::string collective_name(Collective kind) {
  switch (kind) {
    case Collective::allreduce_sum:
      return "allreduce(sum)";
    case Collective::allreduce_mean:
      return "allreduce(mean)";
    case Collective::allreduce_max:
      return "allreduce(max)";
    case Collective::broadcast:
      return "broadcast";
    case Collective::allgather:
      return "allgather";
    case Collective::rank:
      return "comm_rank";
    case Collective::size:
      return "comm_size";
  }
  return "collective " + std::to_string(static_cast<std::int64_t>(kind));
}

void mpi_init(int* argc, char*** argv) {
  std::lock_guard<std::mutex> lock(mu);
  if (comms) return;
  int done = 0;
  MPI_Finalized(&done);
  if (done) throw Error("MPI was already finalized in this process: it cannot start again");
  MPI_Initialized(&done);
  if (!done) {
    int provided = 0;
    const int rc = [&] {
      [[maybe_unused]] MpiAllocations untracked;
      return MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    }();
    if (rc != MPI_SUCCESS) throw Error("MPI_Init_thread failed: " + mpi_error_text(rc));
    we_initialized = true;
    std::atexit(finalize_at_exit);
  }
  // Errors come back as return codes (turned into exceptions here), not as
  // MPI's default abort of the whole job.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  comms = new std::vector<MPI_Comm>{MPI_COMM_WORLD};
}

bool mpi_initialized() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

void mpi_finalize() {
  std::lock_guard<std::mutex> lock(mu);
  if (!we_initialized || finalized_here) return;
  int fin = 0;
  MPI_Finalized(&fin);
  if (!fin) {
    [[maybe_unused]] MpiAllocations untracked;
    MPI_Finalize();
  }
  finalized_here = true;
}

std::int64_t comm_rank(std::int64_t comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(communicator(comm, "comm_rank"), &r), "comm_rank", "MPI_Comm_rank");
  return r;
}

std::int64_t comm_size(std::int64_t comm) {
  int s = 0;
  check_mpi(MPI_Comm_size(communicator(comm, "comm_size"), &s), "comm_size", "MPI_Comm_size");
  return s;
}

std::int64_t comm_split(std::int64_t comm, std::int64_t color, std::int64_t key) {
  MPI_Comm parent = communicator(comm, "comm_split");
  if (color < 0 || color > INT_MAX || key < INT_MIN || key > INT_MAX)
    throw ValueError("comm_split: color must be in [0, 2^31) and key an int, got color " + std::to_string(color) +
                     ", key " + std::to_string(key));
  MPI_Comm made;
  std::lock_guard<std::mutex> serial(calls_mu);
  check_mpi(MPI_Comm_split(parent, static_cast<int>(color), static_cast<int>(key), &made), "comm_split",
            "MPI_Comm_split");
  MPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN);
  std::lock_guard<std::mutex> lock(mu);
  comms->push_back(made);
  return static_cast<std::int64_t>(comms->size()) - 1;
}

void comm_barrier(std::int64_t comm) {
  MPI_Comm c = communicator(comm, "barrier");
  std::lock_guard<std::mutex> serial(calls_mu);
  check_mpi(MPI_Barrier(c), "barrier", "MPI_Barrier");
}

std::vector<std::int64_t> collective_output_shape(Collective kind, std::int64_t comm, const NDArray& in) {
  if (kind == Collective::rank || kind == Collective::size) return {};
  std::vector<std::int64_t> shape = in.shape();
  if (kind == Collective::allgather) {
    if (shape.empty()) throw ShapeError("allgather: the array must have at least one dimension (stacked on axis 0)");
    std::int64_t rows = 0;
    if (theano_checked_mul(shape[0], comm_size(comm), &rows) != THEANO_RULE_OK)
      throw ValueError("allgather: " + std::to_string(shape[0]) + " rows times " + std::to_string(comm_size(comm)) +
                       " ranks overflows int64");
    shape[0] = rows;
  }
  return shape;
}

void run_collective(Collective kind, std::int64_t comm, std::int64_t root, const NDArray& in, NDArray& out,
                    const std::string& what) {
  MPI_Comm c = communicator(comm, what);
  if (kind == Collective::rank || kind == Collective::size) {
    if (out.dtype() != DType::Int64 || out.ndim() != 0)
      throw InternalError(what + ": the rank / size output must be a 0-d int64 array");
    *out.data_as<std::int64_t>() = kind == Collective::rank ? comm_rank(comm) : comm_size(comm);
    return;
  }
  const MPI_Datatype type = mpi_type(in.dtype(), what);
  if (out.dtype() != in.dtype() || !out.is_c_contiguous() ||
      out.shape() != collective_output_shape(kind, comm, in))
    throw InternalError(what + ": the output buffer does not have the collective's shape and dtype");
  const NDArray src = in.contiguous();
  const std::int64_t size = comm_size(comm);
  std::lock_guard<std::mutex> serial(calls_mu);
  agree_on_operands(c, in, what);
  const auto item = static_cast<std::int64_t>(in.itemsize());
  const char* sp = static_cast<const char*>(src.address());
  char* dp = static_cast<char*>(out.address());
  const std::int64_t n = in.size();
  switch (kind) {
    case Collective::allreduce_sum:
    case Collective::allreduce_mean:
    case Collective::allreduce_max: {
      const MPI_Op op = kind == Collective::allreduce_max ? MPI_MAX : MPI_SUM;
      in_chunks(n, [&](std::int64_t off, int count) {
        check_mpi(MPI_Allreduce(sp + off * item, dp + off * item, count, type, op, c), what, "MPI_Allreduce");
      });
      if (kind == Collective::allreduce_mean) {
        if (out.dtype() == DType::Float64) {
          auto* p = out.data_as<double>();
          for (std::int64_t i = 0; i < n; ++i) p[i] /= static_cast<double>(size);
        } else {
          auto* p = out.data_as<float>();
          for (std::int64_t i = 0; i < n; ++i) p[i] /= static_cast<float>(size);
        }
      }
      return;
    }
    case Collective::broadcast: {
      if (root < 0 || root >= size)
        throw ValueError(what + ": root rank " + std::to_string(root) + " is not in the communicator of " +
                         std::to_string(size) + " ranks");
      if (dp != sp) std::copy(sp, sp + n * item, dp);
      in_chunks(n, [&](std::int64_t off, int count) {
        check_mpi(MPI_Bcast(dp + off * item, count, type, static_cast<int>(root), c), what, "MPI_Bcast");
      });
      return;
    }
    case Collective::allgather: {
      if (n > INT_MAX)
        throw ValueError(what + ": allgather moves at most 2^31 - 1 elements per rank, got " + std::to_string(n));
      check_mpi(MPI_Allgather(sp, static_cast<int>(n), type, dp, static_cast<int>(n), type, c), what,
                "MPI_Allgather");
      return;
    }
    default:
      break;
  }
  throw InternalError(what + ": unknown collective " + std::to_string(static_cast<std::int64_t>(kind)));
}

}  // namespace theano::runtime

// theano_allreduce_bench: the allreduce op of a compiled function (cpp
// linker: output allocation, the ranks' shape agreement, the MPI call)
// against MPI_Allreduce called directly on preallocated buffers, OSU-style,
// in the same run on the same ranks. Run under mpirun:
//
//   mpirun --allow-run-as-root -np 2 build/release/bench/theano_allreduce_bench [--json FILE]
//
// Per message size (float64): the median time per call over the ranks'
// slowest (barrier before every call), algorithm bandwidth (bytes / time) and
// bus bandwidth (2 (p - 1) / p of it, NCCL-tests' convention: what each link
// carries in a ring), and ours / direct. Exits non-zero when a result is wrong.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <theano/codegen/c_linker.h>
#include <theano/theano.hpp>

namespace {

namespace T = theano::tensor;
namespace D = theano::distributed;
using Clock = std::chrono::steady_clock;

/// Seconds per call of `a` and of `b`, timed alternately (a, b, a, b, ...,
/// so drift and page faults hit both alike): per call the slowest rank's
/// time (barrier before each), the median over `reps` calls after 3 warm-up
/// pairs.
template <typename A, typename B>
std::pair<double, double> median_slowest(int reps, A a, B b) {
  std::vector<double> ta, tb;
  auto one = [](auto& f) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = Clock::now();
    f();
    double mine = std::chrono::duration<double>(Clock::now() - t0).count(), slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
  };
  for (int i = 0; i < reps + 3; ++i) {
    const double x = one(a), y = one(b);
    if (i >= 3) {
      ta.push_back(x);
      tb.push_back(y);
    }
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  D::init(&argc, &argv);
  std::string json;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--json" && i + 1 < argc) json = argv[++i];
  const std::int64_t rank = D::rank(), p = D::size();
  theano::codegen::register_linkers();
  theano::Config c = theano::config();
  c.flags["linker"] = "cpp";
  theano::ConfigGuard guard(c);
  theano::Var x = T::dvector("x");
  theano::Function f = theano::function({x}, {D::allreduce(x, D::ReduceOp::sum)});

  const double bus = p > 1 ? 2.0 * static_cast<double>(p - 1) / static_cast<double>(p) : 1.0;
  if (rank == 0) {
    std::printf("allreduce(sum) of float64 over %lld ranks: a compiled function vs MPI_Allreduce direct\n",
                static_cast<long long>(p));
    std::printf("%10s %12s %12s %12s %12s %12s %8s\n", "bytes", "direct us", "ours us", "direct GB/s", "ours GB/s",
                "ours busbw", "ours/dir");
  }
  std::string rows;
  int failures = 0;
  for (std::int64_t n : {128LL, 1024LL, 16384LL, 131072LL, 1048576LL, 4194304LL}) {
    theano::NDArray in = theano::NDArray::full({n}, static_cast<double>(rank + 1));
    std::vector<double> out(static_cast<std::size_t>(n));
    const int reps = n >= 1048576 ? 40 : 400;
    theano::NDArray got;
    const auto [direct, ours] = median_slowest(
        reps,
        [&] {
          MPI_Allreduce(in.data_as<double>(), out.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        },
        [&] { got = f({in})[0]; });
    const double want = static_cast<double>(p * (p + 1) / 2);
    if (got.data_as<double>()[n - 1] != want || out[static_cast<std::size_t>(n - 1)] != want) ++failures;
    const double bytes = 8.0 * static_cast<double>(n);
    if (rank == 0) {
      std::printf("%10.0f %12.1f %12.1f %12.2f %12.2f %12.2f %8.2f\n", bytes, direct * 1e6, ours * 1e6,
                  bytes / direct / 1e9, bytes / ours / 1e9, bus * bytes / ours / 1e9, ours / direct);
      char row[256];
      std::snprintf(row, sizeof row,
                    "%s{\"bytes\": %.0f, \"direct_s\": %.9g, \"ours_s\": %.9g, \"ours_over_direct\": %.4f}",
                    rows.empty() ? "" : ", ", bytes, direct, ours, ours / direct);
      rows += row;
    }
  }
  if (rank == 0 && !json.empty())
    std::ofstream(json) << "{\"ranks\": " << p << ", \"dtype\": \"float64\", \"rows\": [" << rows << "]}\n";
  if (failures) std::fprintf(stderr, "rank %lld: wrong allreduce results\n", static_cast<long long>(rank));
  return failures ? 1 : 0;
}

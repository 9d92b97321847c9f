// theano_conv_backends: a measurement, not part of the library (issue 36). It
// decides how theano-cpp computes 2-d convolutions on the CPU by timing the
// three candidates on the same inputs, after checking that they agree:
//   (a) im2col + OpenBLAS gemm, Theano's CorrMM: per image (theano-cpp's own
//       kernels, theano/runtime/kernels/conv.h) or one gemm over the whole
//       batch's columns (this file's im2col with a row stride); OpenBLAS
//       threaded, or our threads over the batch with OpenBLAS at one thread;
//   (b) a direct loop over padded, flattened image planes (one loop per filter
//       row, its taps unrolled), so the compiler vectorizes it; threads over
//       the batch;
//   (c) oneDNN (libdnnl 2.6) convolution primitives, with memory format `any`
//       (blocked layouts, reorders from and to NCHW counted and timed) and
//       with plain NCHW; primitive creation timed apart from execution.
// Passes: forward, gradient wrt weights, gradient wrt inputs (cross-correlation,
// as CorrMM and oneDNN compute it; stride 1). Shapes: LeNet / W10 (batch 64)
// and two larger common ones. The yardstick is one large OpenBLAS gemm
// measured in the same run. Usage and the results: bench/README.md, section
// "theano_conv_backends".
#include <cblas.h>

#include <theano/runtime/kernels/conv.h>

#include "conv_backends_common.h"
#include "conv_backends_direct.h"
#include "conv_backends_dnnl.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace {

using namespace conv_bench;

// ---------------------------------------------------------------- (a) im2col + gemm
// col row (c, r, s), column p*Q + q; rows ld apart (PQ per image, N*PQ for the batch).
template <class T>
void im2col(const Shape& z, const T* __restrict x, T* __restrict col, i64 ld) {
  const i64 P = z.P(), Q = z.Q();
  for (i64 c = 0; c < z.C; ++c)
    for (i64 r = 0; r < z.R; ++r)
      for (i64 s = 0; s < z.S; ++s) {
        T* row = col + ((c * z.R + r) * z.S + s) * ld;
        const i64 q0 = q_lo(z, s), q1 = q_hi(z, s);
        for (i64 p = 0; p < P; ++p) {
          T* o = row + p * Q;
          const i64 h = p + r - z.pad;
          if (h < 0 || h >= z.H) {
            std::fill(o, o + Q, T(0));
            continue;
          }
          const T* xr = x + (c * z.H + h) * z.W + s - z.pad;
          for (i64 q = 0; q < q0; ++q) o[q] = 0;
          for (i64 q = q0; q < q1; ++q) o[q] = xr[q];
          for (i64 q = q1; q < Q; ++q) o[q] = 0;
        }
      }
}

template <class T>
void col2im(const Shape& z, const T* __restrict col, i64 ld, T* __restrict dx) {
  const i64 P = z.P(), Q = z.Q();
  std::fill(dx, dx + z.C * z.H * z.W, T(0));
  for (i64 c = 0; c < z.C; ++c)
    for (i64 r = 0; r < z.R; ++r)
      for (i64 s = 0; s < z.S; ++s) {
        const T* row = col + ((c * z.R + r) * z.S + s) * ld;
        const i64 q0 = q_lo(z, s), q1 = q_hi(z, s);
        for (i64 p = 0; p < P; ++p) {
          const i64 h = p + r - z.pad;
          if (h < 0 || h >= z.H) continue;
          T* xr = dx + (c * z.H + h) * z.W + s - z.pad;
          const T* o = row + p * Q;
          for (i64 q = q0; q < q1; ++q) xr[q] += o[q];
        }
      }
}



// Per image: theano-cpp's own CorrMM kernels (theano/runtime/kernels/conv.h,
// the ones perform and generated code call), `threads` of ours over the batch
// (OpenBLAS set by the caller), each thread its own scratch and, for gradW,
// its own partial sum, as codegen/src/emit/lower/conv.cpp runs them.
template <class T>
struct Im2colPerImage {
  const Shape& z;
  int threads;
  TheanoConvGeom g{};
  std::vector<std::vector<T>> scratch, dwpart;
  Im2colPerImage(const Shape& z_, int t) : z(z_), threads(t), scratch(t), dwpart(t) {
    const i64 ish[4] = {z.N, z.C, z.H, z.W}, wsh[4] = {z.K, z.C, z.R, z.S}, pad[2] = {z.pad, z.pad},
              one[2] = {1, 1};
    i64 bad = 0, n = 0, most = 0;
    if (theano_conv_rule(2, ish, wsh, pad, one, one, 1, &g, &bad) != THEANO_CONV_OK)
      throw std::runtime_error(std::string(z.name) + ": conv.h refuses the shape");
    for (int dir = 0; dir < 3; ++dir) {
      if (theano_conv_scratch_size(&g, dir, &n) != THEANO_CONV_OK) throw std::runtime_error("scratch size");
      most = std::max(most, n);
    }
    for (auto& s : scratch) s.resize(static_cast<std::size_t>(most));
    for (auto& p : dwpart) p.resize(static_cast<std::size_t>(z.K * z.crs()));
  }
  void run(Pass pass, Tensors<T>& d) {
    const i64 xs[4] = {z.C * z.H * z.W, z.H * z.W, z.W, 1}, ws[4] = {z.crs(), z.R * z.S, z.S, 1},
              ts[4] = {z.K * z.P() * z.Q(), z.P() * z.Q(), z.Q(), 1};
    over_batch(threads, z.N, [&](int t, i64 n0, i64 n1) {
      T* work = scratch[t].data();
      if constexpr (std::is_same_v<T, float>) {
        if (pass == Pass::Fwd) theano_corr_fwd_f32(&g, n0, n1, d.x.data(), xs, d.w.data(), ws, d.y.data(), work);
        if (pass == Pass::GradW)
          theano_corr_grad_weights_f32(&g, n0, n1, d.x.data(), xs, d.dy.data(), ts, dwpart[t].data(), work);
        if (pass == Pass::GradI) theano_corr_grad_inputs_f32(&g, n0, n1, d.w.data(), ws, d.dy.data(), ts, d.dx.data(), work);
      } else {
        if (pass == Pass::Fwd) theano_corr_fwd_f64(&g, n0, n1, d.x.data(), xs, d.w.data(), ws, d.y.data(), work);
        if (pass == Pass::GradW)
          theano_corr_grad_weights_f64(&g, n0, n1, d.x.data(), xs, d.dy.data(), ts, dwpart[t].data(), work);
        if (pass == Pass::GradI) theano_corr_grad_inputs_f64(&g, n0, n1, d.w.data(), ws, d.dy.data(), ts, d.dx.data(), work);
      }
    });
    if (pass == Pass::GradW) {
      std::copy(dwpart[0].begin(), dwpart[0].end(), d.dw.begin());
      for (int t = 1; t < threads; ++t)
        for (i64 i = 0; i < z.K * z.crs(); ++i) d.dw[i] += dwpart[t][i];
    }
  }
};

// One gemm over the batch: col (CRS, N*PQ); y and dy permuted to / from (K, N*PQ).
template <class T>
struct Im2colBatch {
  const Shape& z;
  std::vector<T> col, kt;
  explicit Im2colBatch(const Shape& z_) : z(z_), col(z.crs() * z.N * z.P() * z.Q()), kt(z.K * z.N * z.P() * z.Q()) {}
  void run(Pass pass, Tensors<T>& d) {
    const i64 PQ = z.P() * z.Q(), CRS = z.crs(), CHW = z.C * z.H * z.W, NPQ = z.N * PQ;
    auto dy_to_kt = [&] {
      for (i64 n = 0; n < z.N; ++n)
        for (i64 k = 0; k < z.K; ++k) std::memcpy(&kt[k * NPQ + n * PQ], &d.dy[(n * z.K + k) * PQ], PQ * sizeof(T));
    };
    if (pass != Pass::GradI)
      for (i64 n = 0; n < z.N; ++n) im2col(z, d.x.data() + n * CHW, col.data() + n * PQ, NPQ);
    if (pass == Pass::Fwd) {
      gemm(CblasNoTrans, CblasNoTrans, z.K, NPQ, CRS, d.w.data(), CRS, col.data(), NPQ, T(0), kt.data(), NPQ);
      for (i64 n = 0; n < z.N; ++n)
        for (i64 k = 0; k < z.K; ++k) std::memcpy(&d.y[(n * z.K + k) * PQ], &kt[k * NPQ + n * PQ], PQ * sizeof(T));
    } else if (pass == Pass::GradW) {
      dy_to_kt();
      gemm(CblasNoTrans, CblasTrans, z.K, CRS, NPQ, kt.data(), NPQ, col.data(), NPQ, T(0), d.dw.data(), CRS);
    } else {
      dy_to_kt();
      gemm(CblasTrans, CblasNoTrans, CRS, NPQ, z.K, d.w.data(), CRS, kt.data(), NPQ, T(0), col.data(), NPQ);
      for (i64 n = 0; n < z.N; ++n) col2im(z, col.data() + n * PQ, NPQ, d.dx.data() + n * CHW);
    }
  }
};

// ---------------------------------------------------------------- the run
std::vector<float> uniform(i64 n, unsigned seed) {
  std::vector<float> v(n);
  std::uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& e : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    e = float(double(s >> 11) / double(1ull << 53) * 2.0 - 1.0);
  }
  return v;
}

template <class T>
Tensors<T> make_tensors(const Shape& z) {
  Tensors<T> d;
  const i64 nx = z.N * z.C * z.H * z.W, nw = z.K * z.crs(), ny = z.N * z.K * z.P() * z.Q();
  auto cast = [](const std::vector<float>& v) { return std::vector<T>(v.begin(), v.end()); };
  d.x = cast(uniform(nx, 1));
  d.w = cast(uniform(nw, 2));
  d.dy = cast(uniform(ny, 3));
  d.y.assign(ny, T(0));
  d.dw.assign(nw, T(0));
  d.dx.assign(nx, T(0));
  return d;
}

struct Cell {
  std::string backend;
  int threads;
  Timing t;
};
struct Row {
  std::string shape, dtype, pass;
  double flops;
  std::vector<Cell> cells;
};
std::vector<Row> g_rows;
std::vector<std::string> g_notes;
double g_peak[2][2][3];  // [median 0, best 1][f32 0, f64 1][threads]: GFLOP/s of the big gemm

const std::vector<double>& ref_of(Pass p, const Tensors<double>& r) {
  return p == Pass::Fwd ? r.y : p == Pass::GradW ? r.dw : r.dx;
}
template <class T>
const std::vector<T>& out_of(Pass p, const Tensors<T>& d) {
  return p == Pass::Fwd ? d.y : p == Pass::GradW ? d.dw : d.dx;
}
template <class T>
void clear_out(Pass p, Tensors<T>& d) {
  auto& o = const_cast<std::vector<T>&>(out_of(p, d));
  std::fill(o.begin(), o.end(), T(-7));  // a stale value the check would catch
}

template <class T>
void check(const char* what, const Shape& z, Pass p, const Tensors<T>& d, const Tensors<double>& ref) {
  const double e = rel_err(out_of(p, d), ref_of(p, ref));
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  if (!(e <= tol)) {
    std::fprintf(stderr, "MISMATCH %s %s %s: max|err|/max|ref| = %.3g > %.1g\n", what, z.name, pass_name(p), e, tol);
    std::exit(1);
  }
}

// One back end at one thread count: `setup` sets OpenBLAS's and OpenMP's
// thread counts before each of its calls (outside the timing).
struct Candidate {
  std::string name;
  int threads;
  std::function<void()> setup;
  std::function<void(Pass)> call;
};

// Every candidate is checked against the reference, then timed: by default
// in a block of calls per candidate after one warm-up call; with --interleave
// round-robin (each round calls every candidate once, so a burst of load
// from the other users of a shared machine falls on all alike). Round-robin
// also switches thread runtimes on every call (OpenBLAS's pthreads, libgomp,
// ours), whose idle threads still spin when the next one starts: the 2-thread
// figures then measure that contention (see bench/README.md).
template <class T>
void run_dtype(const Shape& z, const Tensors<double>& ref) {
  const bool f32 = sizeof(T) == 4;
  Tensors<T> d = make_tensors<T>(z);
  std::vector<Candidate> cs;
  auto blas = [](int t) { return [t] { openblas_set_num_threads(t); }; };
  std::vector<std::unique_ptr<Im2colPerImage<T>>> img;
  std::vector<std::unique_ptr<Direct<T>>> dir;
  auto batch = std::make_unique<Im2colBatch<T>>(z);
  for (int t : {1, 2}) {
    img.push_back(std::make_unique<Im2colPerImage<T>>(z, t));
    dir.push_back(std::make_unique<Direct<T>>(z, t));
    auto* im = img.back().get();
    auto* di = dir.back().get();
    cs.push_back({"gemm/img", t, blas(1), [&d, im](Pass p) { im->run(p, d); }});  // our threads, OpenBLAS at 1
    if (t > 1) cs.push_back({"gemm/img blasT", t, blas(t), [&d, im1 = img[0].get()](Pass p) { im1->run(p, d); }});
    cs.push_back({"gemm/batch blasT", t, blas(t), [&d, b = batch.get()](Pass p) { b->run(p, d); }});
    cs.push_back({"direct", t, blas(1), [&d, di](Pass p) { di->run(p, d); }});
  }
  // oneDNN (f32 only): primitives made for the OpenMP thread count they run at.
  std::vector<std::unique_ptr<DnnlConv>> dn;
  std::vector<std::string> dn_notes;
  if constexpr (sizeof(T) == 4) {
    for (int t : {1, 2})
      for (bool blocked : {true, false}) {
        set_omp_threads(t);
        // Creation cost: the median of 5 creations with oneDNN's primitive cache off.
        std::vector<double> cms[3];
        for (int i = 0; i < 5; ++i) {
          dn.push_back(std::make_unique<DnnlConv>(z, blocked, d));
          for (int p = 0; p < 3; ++p) cms[p].push_back(dn.back()->pass[p].create_ms);
          if (i < 4) dn.pop_back();
        }
        DnnlConv* c = dn.back().get();
        auto setup = [t] {
          openblas_set_num_threads(1);
          set_omp_threads(t);
        };
        const std::string name = blocked ? "dnnl any" : "dnnl nchw";
        cs.push_back({name, t, setup, [c](Pass p) { c->pass[int(p)].with_reorders(); }});
        cs.push_back({name + " prim", t, setup, [c](Pass p) { c->pass[int(p)].prim_only(); }});
        for (int p = 0; p < 3; ++p) {
          std::sort(cms[p].begin(), cms[p].end());
          char buf[300];
          std::snprintf(buf, sizeof buf, "| %s | %s | %d | %s | %s | %d | %.2f |", z.name, name.c_str(), t,
                        pass_name(Pass(p)), c->pass[p].impl.c_str(), c->pass[p].reorders, cms[p][2]);
          dn_notes.push_back(buf);
        }
      }
  }
  std::vector<Timing> prim_t[3];
  for (int p = 0; p < 3; ++p) {
    const Pass pass = Pass(p);
    double warm = 0;
    for (auto& c : cs) {  // check (also the warm-up: page faults, buffers, scratchpads)
      c.setup();
      clear_out(pass, d);
      const auto t0 = Clock::now();
      c.call(pass);
      warm += std::chrono::duration<double>(Clock::now() - t0).count();
      if (c.name.find(" prim") == std::string::npos) check(c.name.c_str(), z, pass, d, ref);
    }
    const int rounds = std::clamp(int(g_min_seconds * 3 / warm), g_min_runs, 200);
    std::vector<std::vector<double>> ms(cs.size());
    auto timed = [&](size_t i) {
      cs[i].setup();
      const auto t0 = Clock::now();
      cs[i].call(pass);
      ms[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    };
    if (g_interleave) {
      for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < cs.size(); ++i) timed(i);
    } else {
      for (size_t i = 0; i < cs.size(); ++i) {
        cs[i].setup();
        cs[i].call(pass);  // warm-up: the threads of this back end's runtime awake, the others' asleep
        for (int r = 0; r < rounds; ++r) timed(i);
      }
    }
    Row row{z.name, f32 ? "f32" : "f64", pass_name(pass), z.flops(), {}};
    for (size_t i = 0; i < cs.size(); ++i) {
      std::sort(ms[i].begin(), ms[i].end());
      const Timing t{ms[i][ms[i].size() / 2], ms[i].front(), rounds};
      if (cs[i].name.find(" prim") == std::string::npos) row.cells.push_back({cs[i].name, cs[i].threads, t});
      else prim_t[p].push_back(t);
    }
    g_rows.push_back(row);
  }
  // The oneDNN notes in the order they were made: (t, mode) outer, pass inner.
  for (size_t i = 0; i < dn_notes.size(); ++i) {
    const int p = int(i % 3), k = int(i / 3);
    const std::string mode = k % 2 == 0 ? "dnnl any" : "dnnl nchw";
    const int t = k / 2 + 1;
    const Row& row = g_rows[g_rows.size() - 3 + p];
    double call = 0;
    for (const Cell& c : row.cells)
      if (c.backend == mode && c.threads == t) call = c.t.median_ms;
    char buf[120];
    std::snprintf(buf, sizeof buf, " %.3f | %.3f |", call, prim_t[p][k].median_ms);
    g_notes.push_back(dn_notes[i] + buf);
  }
  openblas_set_num_threads(1);
  if constexpr (sizeof(T) == 4) set_omp_threads(1);
}

void measure_gemm_peak() {
  constexpr int n = 1500;
  const auto a = uniform(n * n, 11), b = uniform(n * n, 12);
  std::vector<float> c(n * n);
  const std::vector<double> a2(a.begin(), a.end()), b2(b.begin(), b.end());
  std::vector<double> c2(n * n);
  const int saved = g_min_runs;
  g_min_runs = 7;
  for (int t : {1, 2}) {
    openblas_set_num_threads(t);
    const Timing s = time_it([&] { gemm(CblasNoTrans, CblasNoTrans, n, n, n, a.data(), n, b.data(), n, 0.f, c.data(), n); });
    const Timing d =
        time_it([&] { gemm(CblasNoTrans, CblasNoTrans, n, n, n, a2.data(), n, b2.data(), n, 0., c2.data(), n); });
    // Measured at the start and at the end; the higher is the machine's.
    auto keep = [](double& v, double ms) { v = std::max(v, 2.0 * n * n * n / ms / 1e6); };
    keep(g_peak[0][0][t], s.median_ms);
    keep(g_peak[0][1][t], d.median_ms);
    keep(g_peak[1][0][t], s.min_ms);
    keep(g_peak[1][1][t], d.min_ms);
  }
  g_min_runs = saved;
  openblas_set_num_threads(1);
}

std::string loadavg() {
  FILE* f = std::fopen("/proc/loadavg", "r");
  char buf[128] = "?";
  if (f) {
    if (!std::fgets(buf, sizeof buf, f)) buf[0] = 0;
    std::fclose(f);
  }
  std::string s(buf);
  return s.substr(0, s.find(' ', s.find(' ', s.find(' ') + 1) + 1));
}

// One table of medians (or minima): rows shape x dtype x pass, columns the back
// ends; a missing column (oneDNN in f64) prints as "-".
void print_table(bool minima) {
  const std::vector<std::pair<std::string, int>> cols = {
      {"gemm/img", 1}, {"gemm/batch blasT", 1}, {"direct", 1},           {"dnnl any", 1}, {"dnnl nchw", 1},
      {"gemm/img", 2}, {"gemm/img blasT", 2},   {"gemm/batch blasT", 2}, {"direct", 2},   {"dnnl any", 2},
      {"dnnl nchw", 2}};
  std::printf("\n%s ms per call (1 thread | 2 threads); best = the fastest: GFLOP/s and %% of the %s gemm "
              "GFLOP/s at that thread count.\n\n",
              minima ? "Minimum" : "Median", minima ? "best" : "median");
  std::printf("| shape | dtype | pass | MFLOP |");
  for (auto& [n, t] : cols) std::printf(" %s %dT |", n.c_str(), t);
  std::printf(" best 1T | best 2T |\n|---|---|---|---|");
  for (size_t i = 0; i < cols.size() + 2; ++i) std::printf("---|");
  std::printf("\n");
  for (const Row& r : g_rows) {
    std::printf("| %s | %s | %s | %.0f |", r.shape.c_str(), r.dtype.c_str(), r.pass.c_str(), r.flops / 1e6);
    const Cell* best[3] = {nullptr, nullptr, nullptr};
    auto ms = [&](const Cell* c) { return minima ? c->t.min_ms : c->t.median_ms; };
    for (auto& [n, t] : cols) {
      const Cell* c = nullptr;
      for (const Cell& x : r.cells)
        if (x.backend == n && x.threads == t) c = &x;
      if (!c) {
        std::printf(" - |");
        continue;
      }
      std::printf(" %.3f |", ms(c));
      if (!best[t] || ms(c) < ms(best[t])) best[t] = c;
    }
    for (int t : {1, 2}) {
      const double gf = r.flops / ms(best[t]) / 1e6;
      std::printf(" %s %.1f (%.0f%%) |", best[t]->backend.c_str(), gf,
                  100 * gf / g_peak[minima][r.dtype == "f64"][t]);
    }
    std::printf("\n");
  }
}

void print_tables() {
  print_table(false);
  print_table(true);
  std::printf("\noneDNN (f32): implementation, reorders per call, creation ms (pd + primitive + reorders, median of 5, "
              "primitive cache off), median call ms with reorders, primitive alone.\n\n");
  std::printf("| shape | mode | T | pass | impl | reorders | create ms | call ms | prim ms |\n|---|---|---|---|---|---|---|"
              "---|---|\n");
  for (auto& n : g_notes) std::printf("%s\n", n.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes = {
      {"L1 64x1x28x28 * 20x1x5x5", 64, 1, 28, 28, 20, 5, 5, 0},
      {"L2 64x20x12x12 * 50x20x5x5", 64, 20, 12, 12, 50, 5, 5, 0},
      {"64x3x32x32 * 32x3x3x3 pad1", 64, 3, 32, 32, 32, 3, 3, 1},
      {"32x64x56x56 * 64x64x3x3 pad1", 32, 64, 56, 56, 64, 3, 3, 1},
  };
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") g_min_runs = 3, g_min_seconds = 0;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--interleave") g_interleave = true;
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--interleave] [--only L1|L2|small|big]\n", argv[0]);
      return 2;
    }
  }
  if (!only.empty()) {
    const int k = only == "L1" ? 0 : only == "L2" ? 1 : only == "small" ? 2 : only == "big" ? 3 : -1;
    if (k < 0) {
      std::fprintf(stderr, "--only takes L1, L2, small or big\n");
      return 2;
    }
    shapes = {shapes[k]};
  }
  dnnl::set_primitive_cache_capacity(0);
  const dnnl_version_t* v = dnnl_version();
  const char* env = std::getenv("OPENBLAS_NUM_THREADS");
  std::printf("cores %u, oneDNN %d.%d.%d (cpu runtime %s), OpenBLAS %s, OPENBLAS_NUM_THREADS=%s (set per run here), "
              "loadavg %s\n",
              std::thread::hardware_concurrency(), v->major, v->minor, v->patch,
              v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other", OPENBLAS_VERSION, env ? env : "unset",
              loadavg().c_str());
  {  // the first primitive of the process pays oneDNN's one-time set-up
    set_omp_threads(1);
    Tensors<float> d = make_tensors<float>(shapes[0]);
    const auto t0 = Clock::now();
    DnnlConv c(shapes[0], true, d);
    std::printf("first oneDNN primitive set of the process (%s, 3 passes): %.1f ms\n", shapes[0].name,
                std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  measure_gemm_peak();
  std::printf("gemm n=1500, 7 runs, GFLOP/s median (best): sgemm 1T %.1f (%.1f) 2T %.1f (%.1f), dgemm 1T %.1f (%.1f) "
              "2T %.1f (%.1f)\n",
              g_peak[0][0][1], g_peak[1][0][1], g_peak[0][0][2], g_peak[1][0][2], g_peak[0][1][1], g_peak[1][1][1],
              g_peak[0][1][2], g_peak[1][1][2]);
  for (const Shape& z : shapes) {
    // The reference: the direct loop in double, itself checked against the naive
    // loop where that is cheap (all but the big shape).
    Tensors<double> ref = make_tensors<double>(z);
    DirectRows<double> dir(z, 1);
    for (int p = 0; p < 3; ++p) dir.run(Pass(p), ref);
    if (z.flops() < 1e9) {
      Tensors<double> nv = make_tensors<double>(z);
      naive(z, ref, nv);
      for (int p = 0; p < 3; ++p) check("direct vs naive", z, Pass(p), ref, nv);
    }
    std::printf("%s: loadavg at the start %s\n", z.name, loadavg().c_str());
    std::fflush(stdout);
    run_dtype<float>(z, ref);
    run_dtype<double>(z, ref);
  }
  measure_gemm_peak();
  std::printf("gemm again at the end, the higher kept: sgemm 1T %.1f (%.1f) 2T %.1f (%.1f), dgemm 1T %.1f (%.1f) "
              "2T %.1f (%.1f)\n",
              g_peak[0][0][1], g_peak[1][0][1], g_peak[0][0][2], g_peak[1][0][2], g_peak[0][1][1], g_peak[1][1][1],
              g_peak[0][1][2], g_peak[1][1][2]);
  print_tables();
  std::printf("\nloadavg at the end %s\n", loadavg().c_str());
  return 0;
}

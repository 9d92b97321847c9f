// Judging and writing the figures of a bench/run run (see report.h).
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>

#include "targets.h"

namespace theano::bench {

namespace {

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

/// A limit in its natural unit: "15 ms", "12.32 ms", "3 us", "0.6 us".
struct Scaled {
  double factor;  // ms -> unit
  const char* unit;
};
Scaled unit_for(double ms) {
  if (ms >= 1) return {1, "ms"};
  if (ms >= 1e-4) return {1e3, "us"};
  return {1e6, "ns"};
}

/// 30000000 -> "3x10^7", 1000 -> "10^3", 12345 -> "12345".
std::string power_of_ten(std::int64_t n) {
  int e = 0;
  std::int64_t m = n;
  while (m >= 10 && m % 10 == 0) {
    m /= 10;
    ++e;
  }
  if (e < 3) return std::to_string(n);
  return (m == 1 ? std::string() : std::to_string(m) + "x") + "10^" + std::to_string(e);
}
std::string format_limit_ms(double ms) {
  const Scaled s = unit_for(ms);
  return printf_string("%g %s", ms * s.factor, s.unit);
}

std::string percent(double p) { return p >= 10 ? printf_string("%.0f %%", p) : printf_string("%.1f %%", p); }

const GemmResult* gemm_for(const Limits& limits, const std::string& dtype) {
  const auto& g = dtype == "float32" ? limits.sgemm : limits.dgemm;
  return g ? &*g : nullptr;
}

std::string gemm_name(const std::string& dtype) { return dtype == "float32" ? "sgemm" : "dgemm"; }

std::string values_text(const std::vector<double>& v, const char* fmt) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + printf_string(fmt, v[i]);
  return s;
}

std::string checksum_text(const Row& r) {
  return std::string(r.checksum_ok ? "ok " : "MISMATCH ") + values_text(r.checksum, "%.10g");
}

/// A message on one table line: later lines indented under it.
std::string indented(std::string s) {
  for (std::size_t i = s.find('\n'); i != std::string::npos; i = s.find('\n', i + 6)) s.replace(i, 1, "\n     ");
  return s;
}

}  // namespace

std::string format_time_ms(double ms) {
  if (ms >= 0.1) return printf_string(ms >= 1000 ? "%.1f ms" : "%.3f ms", ms);
  if (ms >= 1e-4) return printf_string("%.3f us", ms * 1e3);
  return printf_string("%.1f ns", ms * 1e6);
}

void evaluate(Row& r, const Limits& limits) {
  r.why = std::string(targets::why(r.workload, r.dtype));
  if (r.compile_warm_ms) r.compile_warm_ok = *r.compile_warm_ms <= targets::kWarmCompileMs;
  if (const double t = targets::cold_compile_target_ms(r.workload); t > 0 && r.compile_cold_ms)
    r.compile_cold_ok = *r.compile_cold_ms <= t;

  const GemmResult* gemm = nullptr;
  if (r.workload == "W7" || r.workload == "W7s") {
    gemm = gemm_for(limits, r.dtype);
    r.limit = gemm_name(r.dtype);
    if (r.paired_ratio)
      r.ratio_to_limit = r.paired_ratio;
    else if (r.timed && gemm)
      r.ratio_to_limit = r.call_median_ms / gemm->median_ms;
  } else if (r.workload == "W1d") {
    r.limit = "device copy";
    if (r.timed && limits.device_copy) {
      r.achieved_gbs = r.bytes_per_call / (r.call_median_ms * 1e-3) / 1e9;
      if (limits.device_copy->best_gbs > 0) r.ratio_to_limit = *r.achieved_gbs / limits.device_copy->best_gbs;
    }
  } else if (r.bytes_per_call > 0) {
    r.limit = "triad";
    if (r.timed) {
      r.achieved_gbs = r.bytes_per_call / (r.call_median_ms * 1e-3) / 1e9;
      if (limits.triad.best_gbs > 0) r.ratio_to_limit = *r.achieved_gbs / limits.triad.best_gbs;
    }
  }

  const targets::CallTarget* t = targets::call_target(r.workload, r.dtype);
  if (!t) return;
  if (t->kind == targets::Kind::CallMs) {
    r.target = "call <= " + format_limit_ms(t->limit);
    if (!r.timed) return;
    r.target_met = r.call_median_ms <= t->limit;
    if (!*r.target_met) {
      const Scaled s = unit_for(t->limit);
      const double over = r.call_median_ms - t->limit;
      r.miss_short = printf_string("+%.2f %s (%s)", over * s.factor, s.unit, percent(100 * over / t->limit).c_str());
      r.miss = r.miss_short + " over " + format_limit_ms(t->limit);
    }
  } else if (t->kind == targets::Kind::RatioAtLeast) {
    r.target = printf_string("ratio >= %.2f", t->limit);
    if (!r.ratio_to_limit) return;
    r.target_met = *r.ratio_to_limit >= t->limit;
    if (!*r.target_met) {
      r.miss_short = printf_string("ratio %.2f", *r.ratio_to_limit);
      r.miss = r.miss_short + printf_string(" under %.2f of the %s bandwidth", t->limit, r.limit.c_str());
    }
  } else {
    r.target = printf_string("call <= %g x %s", t->limit, r.limit.c_str());
    if (!r.ratio_to_limit) return;
    r.target_met = *r.ratio_to_limit <= t->limit;
    if (!*r.target_met) {
      // Over by the ratio's excess times the gemm it was taken against (the paired one where measured).
      const double gemm_ms = r.paired_gemm_median_ms ? *r.paired_gemm_median_ms : gemm->median_ms;
      const double allowed_ms = t->limit * gemm_ms;
      r.miss_short = printf_string("+%.2f ms (%s)", (*r.ratio_to_limit - t->limit) * gemm_ms,
                                   percent(100 * (*r.ratio_to_limit - t->limit) / t->limit).c_str());
      r.miss = r.miss_short + printf_string(" over %g x %s = %.2f ms (ratio %.3f)", t->limit, r.limit.c_str(),
                                            allowed_ms, *r.ratio_to_limit);
    }
  }
}

void print_table(std::FILE* out, const MachineInfo& m, const Limits& limits, const std::vector<Row>& rows,
                 const RunInfo& run) {
  std::string dtypes;
  for (const auto& d : run.dtypes) dtypes += (dtypes.empty() ? "" : ", ") + d;
  std::fprintf(out, "theano-cpp bench/run: W1..W13 of workloads.md (%s%s), device %s\n", dtypes.c_str(),
               run.quick ? ", --quick" : "", run.device.c_str());
  std::fprintf(out, "machine: %d cores (%s), loop threads %d%s; OpenBLAS %s (%s, %d threads); LLVM %s; %s\n", m.cores,
               m.cpu.c_str(), m.loop_threads, m.threads_flag.empty() ? "" : " (THEANO_FLAGS threads)",
               m.openblas_version.c_str(), m.openblas_core.c_str(), m.blas_threads, m.llvm_version.c_str(),
               m.host_compiler.c_str());
  const TriadResult& t = limits.triad;
  std::fprintf(out,
               "limits:  STREAM triad %.2f GB/s (best of %d; median %.2f; %d threads, 3 arrays of %s doubles, "
               "24 bytes/element)\n",
               t.best_gbs, t.reps, t.median_gbs, t.threads, power_of_ten(t.n).c_str());
  if (limits.device_copy)
    std::fprintf(out, "         device copy on %s: %.2f GB/s (best of %d; median %.2f; %s bytes, 2 x bytes moved)\n",
                 limits.device_copy->device.c_str(), limits.device_copy->best_gbs, limits.device_copy->reps,
                 limits.device_copy->median_gbs, power_of_ten(limits.device_copy->bytes).c_str());
  for (const char* d : {"float64", "float32"}) {
    const GemmResult* g = gemm_for(limits, d);
    if (!g) continue;
    std::fprintf(out, "         %s 2000x2000 (cblas, direct): median %s (min %s, max %s) = %.1f GFLOP/s, %d threads\n",
                 gemm_name(d).c_str(), format_time_ms(g->median_ms).c_str(), format_time_ms(g->min_ms).c_str(),
                 format_time_ms(g->max_ms).c_str(), g->gflops, g->threads);
  }
  if (run.compile_measured)
    std::fprintf(out,
                 "compile: function() in fresh processes: cold = median of %d, each on an empty compiledir; warm = "
                 "median of %d on a populated one\n",
                 run.cold_runs, run.warm_runs);
  else
    std::fprintf(out, "compile: not measured (--skip-compile)\n");
  std::fprintf(out,
               "calls:   per call, median (min, max) of %d samples after 2 warm-ups; W1s: samples of 2000 calls; "
               "W6, W6t: 7 loops of 10^5 calls;\n"
               "         W8, W8g: also a second function compiled with THEANO_FLAGS threads=1 (its 'threads=1' line, "
               "no target)\n\n",
               run.reps);

  std::fprintf(out, "%-4s %-7s %-21s %8s %7s  %10s %10s %10s  %5s  %-21s %-24s %s\n", "", "dtype", "size", "cold ms",
               "warm ms", "median", "min", "max", "ratio", "target", "result", "checksum");
  for (const Row& r : rows) {
    auto compile_cell = [](const std::optional<double>& v, const std::optional<bool>& ok, const char* fmt) {
      if (!v) return std::string("-");
      return printf_string(fmt, *v) + (ok && !*ok ? "*" : "");
    };
    const std::string cold = compile_cell(r.compile_cold_ms, r.compile_cold_ok, "%.1f");
    const std::string warm = compile_cell(r.compile_warm_ms, r.compile_warm_ok, "%.2f");
    const std::string ratio = r.ratio_to_limit ? printf_string("%.2f", *r.ratio_to_limit) : "-";
    const std::string result = !r.target_met ? "-" : *r.target_met ? "met" : "MISS " + r.miss_short;
    if (r.timed)
      std::fprintf(out, "%-4s %-7s %-21s %8s %7s  %10s %10s %10s  %5s  %-21s %-24s %s\n", r.workload.c_str(),
                   r.dtype.c_str(), r.size.c_str(), cold.c_str(), warm.c_str(),
                   format_time_ms(r.call_median_ms).c_str(), format_time_ms(r.call_min_ms).c_str(),
                   format_time_ms(r.call_max_ms).c_str(), ratio.c_str(), r.target.empty() ? "-" : r.target.c_str(),
                   result.c_str(), checksum_text(r).c_str());
    else
      std::fprintf(out, "%-4s %-7s %-21s %8s %7s  FAILED: %s\n", r.workload.c_str(), r.dtype.c_str(), r.size.c_str(),
                   cold.c_str(), warm.c_str(), indented(r.error).c_str());
    if (r.timed && r.call_1t_median_ms) {
      const double gbs = r.bytes_per_call > 0 ? r.bytes_per_call / (*r.call_1t_median_ms * 1e-3) / 1e9 : 0;
      const std::string ratio =
          gbs > 0 && limits.triad.best_gbs > 0 ? printf_string("%.2f", gbs / limits.triad.best_gbs) : "-";
      std::fprintf(out, "%-4s %-7s %-21s %8s %7s  %10s %10s %10s  %5s  %-21s %-24s %s%s\n", "", "", "  threads=1", "",
                   "", format_time_ms(*r.call_1t_median_ms).c_str(), format_time_ms(*r.call_1t_min_ms).c_str(),
                   format_time_ms(*r.call_1t_max_ms).c_str(), ratio.c_str(), "(single thread)",
                   printf_string("%.2fx the %d-thread one", *r.call_1t_median_ms / r.call_median_ms, m.loop_threads)
                       .c_str(),
                   r.checksum_1t_ok ? "ok " : "MISMATCH ", values_text(r.checksum_1t, "%.10g").c_str());
    }
    if (r.timed && r.paired_gemm_median_ms)
      std::fprintf(out, "%-4s %-7s %-21s %8s %7s  %10s %10s %10s  %5s  (the %s timed beside each sample)\n", "", "",
                   ("  direct " + r.limit).c_str(), "", "", format_time_ms(*r.paired_gemm_median_ms).c_str(),
                   format_time_ms(*r.paired_gemm_min_ms).c_str(), "", "", r.limit.c_str());
    if (r.timed && r.paired_floor_median_ms)
      std::fprintf(out,
                   "%-4s %-7s %-21s %8s %7s  %10s %10s %10s  %5.2f  (the call / a hand-written copy + %s timed "
                   "beside each sample: a new matrix's floor)\n",
                   "", "", "  C copy + gemm", "", "", format_time_ms(*r.paired_floor_median_ms).c_str(),
                   format_time_ms(*r.paired_floor_min_ms).c_str(), "", *r.paired_floor_ratio, r.limit.c_str());
    if (!r.compile_error.empty())
      std::fprintf(out, "     compile measurement FAILED: %s\n", indented(r.compile_error).c_str());
  }

  std::fprintf(out,
               "\nratio: W1, W4a-c, W5, W8, W8g: achieved GB/s (bytes moved per call / median) / triad GB/s, 1.00 = "
               "the triad's bandwidth, higher is better\n"
               "       (W8: 10^6 rows of D read, S's components read, out written; W8g: twice W8's bytes);\n"
               "       W1d: the same over the device's copy bandwidth (its arrays on the GPU);\n"
               "       W7, W7s: median over samples of call / the direct gemm timed beside it, 1.00 = equal, lower "
               "is better. "
               "'*' after a compile time: over its target.\n");
  // Compile targets.
  std::string cold_line;
  int warm_n = 0, warm_ok = 0;
  std::string warm_over;
  for (const Row& r : rows) {
    if (r.compile_cold_ok)
      cold_line += printf_string("%s%s %s %.1f ms %s", cold_line.empty() ? "" : "; ", r.workload.c_str(),
                                 r.dtype.c_str(), *r.compile_cold_ms, *r.compile_cold_ok ? "ok" : "OVER");
    if (r.compile_warm_ok) {
      ++warm_n;
      if (*r.compile_warm_ok) ++warm_ok;
      else
        warm_over += printf_string("%s%s %s %.2f ms", warm_over.empty() ? "" : ", ", r.workload.c_str(),
                                   r.dtype.c_str(), *r.compile_warm_ms);
    }
  }
  if (run.compile_measured) {
    std::fprintf(out, "compile targets: cold W1 <= %g ms, W3 <= %g ms, W7 <= %g ms: %s\n", targets::kColdCompileW1Ms,
                 targets::kColdCompileW3Ms, targets::kColdCompileW7Ms, cold_line.empty() ? "(not run)" : cold_line.c_str());
    std::fprintf(out, "                 warm <= %g ms per function: %d of %d ok%s%s%s\n", targets::kWarmCompileMs,
                 warm_ok, warm_n, warm_over.empty() ? "" : " (over: ", warm_over.c_str(),
                 warm_over.empty() ? "" : ")");
    if (!targets::kCompileWhy.empty())
      std::fprintf(out, "                 why: %s\n", std::string(targets::kCompileWhy).c_str());
  }
  int with_target = 0, met = 0, mismatches = 0, failed = 0;
  for (const Row& r : rows) {
    if (r.target_met) {
      ++with_target;
      if (*r.target_met) ++met;
    }
    if (r.timed && !r.checksum_ok) ++mismatches;
    if (r.failed()) ++failed;
  }
  std::fprintf(out, "call targets: %d of %d met\n", met, with_target);
  for (const Row& r : rows)
    if (r.target_met && !*r.target_met)
      std::fprintf(out, "  MISS %-4s %-7s %s\n", r.workload.c_str(), r.dtype.c_str(), r.miss.c_str());
  for (const Row& r : rows)
    if (!r.why.empty()) std::fprintf(out, "  why %-4s %-7s %s\n", r.workload.c_str(), r.dtype.c_str(), r.why.c_str());
  for (const Row& r : rows)
    if (r.timed && !r.checksum_ok)
      std::fprintf(out, "CHECKSUM MISMATCH %s %s: got %s; workloads.md: %s\n", r.workload.c_str(), r.dtype.c_str(),
                   values_text(r.checksum, "%.16g").c_str(), values_text(r.expected, "%.16g").c_str());
  if (failed)
    std::fprintf(out, "FAILED: %d row(s) (%d checksum mismatch(es)); exit status 1\n", failed, mismatches);
  else
    std::fprintf(out, "checksums: all %zu ok\n", rows.size());
  std::fprintf(out, "wall time %.1f s\n", run.wall_s);
}

namespace {

Json gemm_json(const GemmResult& g, int reps) {
  return Json::object()
      .set("n", 2000)
      .set("alpha", 0.5)
      .set("beta", 0.25)
      .set("median_ms", g.median_ms)
      .set("min_ms", g.min_ms)
      .set("max_ms", g.max_ms)
      .set("calls", reps)
      .set("threads", g.threads);
}

}  // namespace

Json report_json(const MachineInfo& m, const Limits& limits, const std::vector<Row>& rows, const RunInfo& run) {
  Json dtypes = Json::array();
  for (const auto& d : run.dtypes) dtypes.push(d);
  bool checksums_ok = true, ok = true;
  int with_target = 0, met = 0;
  for (const Row& r : rows) {
    checksums_ok = checksums_ok && (!r.timed || r.checksum_ok);
    ok = ok && !r.failed();
    if (r.target_met) {
      ++with_target;
      if (*r.target_met) ++met;
    }
  }
  Json run_j = Json::object()
                   .set("command", run.command)
                   .set("device", run.device)
                   .set("dtypes", dtypes)
                   .set("quick", run.quick)
                   .set("samples", run.reps)
                   .set("cold_runs", run.compile_measured ? Json(run.cold_runs) : Json())
                   .set("warm_runs", run.compile_measured ? Json(run.warm_runs) : Json())
                   .set("wall_s", run.wall_s)
                   .set("ok", ok)
                   .set("checksums_ok", checksums_ok)
                   .set("targets_met", met)
                   .set("targets", with_target);

  Json compiler = Json::object()
                      .set("llvm", m.llvm_version)
                      .set("jit_clang", Json::string_or_null(m.jit_clang))
                      .set("host", m.host_compiler);
  Json libraries = Json::object().set("openblas", Json::object()
                                                      .set("version", Json::string_or_null(m.openblas_version))
                                                      .set("config", m.openblas_config)
                                                      .set("core", Json::string_or_null(m.openblas_core)));
  libraries.set("boost", m.boost_version);
  if (!m.cuda_version.empty()) libraries.set("cuda", m.cuda_version);
  if (!m.nvrtc_version.empty()) libraries.set("nvrtc", m.nvrtc_version);
  const TriadResult& t = limits.triad;
  Json machine = Json::object()
                     .set("cores", m.cores)
                     .set("cpu", m.cpu)
                     .set("threads", m.loop_threads)
                     .set("threads_flag", Json::string_or_null(m.threads_flag))
                     .set("blas_threads", m.blas_threads)
                     .set("triad_gbs", t.best_gbs)
                     .set("triad", Json::object()
                                       .set("statistic", "best of " + std::to_string(t.reps) + " repetitions")
                                       .set("best_gbs", t.best_gbs)
                                       .set("median_gbs", t.median_gbs)
                                       .set("threads", t.threads)
                                       .set("elements", t.n)
                                       .set("bytes_per_element", 24));
  if (limits.dgemm) {
    machine.set("dgemm_gflops", limits.dgemm->gflops);
    machine.set("dgemm", gemm_json(*limits.dgemm, run.reps));
  }
  if (limits.sgemm) {
    machine.set("sgemm_gflops", limits.sgemm->gflops);
    machine.set("sgemm", gemm_json(*limits.sgemm, run.reps));
  }
  if (limits.device_copy)
    machine.set("device_copy", Json::object()
                                   .set("device", limits.device_copy->device)
                                   .set("best_gbs", limits.device_copy->best_gbs)
                                   .set("median_gbs", limits.device_copy->median_gbs)
                                   .set("bytes", limits.device_copy->bytes)
                                   .set("reps", limits.device_copy->reps));
  machine.set("compiler", compiler).set("libraries", libraries);

  // Compile targets.
  Json cold = Json::array(), warm_over = Json::array();
  std::optional<bool> cold_ok, warm_ok;
  for (const Row& r : rows) {
    if (r.compile_cold_ok) {
      cold.push(Json::object()
                    .set("workload", r.workload)
                    .set("dtype", r.dtype)
                    .set("compile_cold_ms", r.compile_cold_ms)
                    .set("target_ms", targets::cold_compile_target_ms(r.workload))
                    .set("ok", *r.compile_cold_ok));
      cold_ok = cold_ok.value_or(true) && *r.compile_cold_ok;
    }
    if (r.compile_warm_ok) {
      warm_ok = warm_ok.value_or(true) && *r.compile_warm_ok;
      if (!*r.compile_warm_ok)
        warm_over.push(
            Json::object().set("workload", r.workload).set("dtype", r.dtype).set("compile_warm_ms", r.compile_warm_ms));
    }
  }
  std::optional<bool> compile_ok;
  if (cold_ok || warm_ok) compile_ok = cold_ok.value_or(true) && warm_ok.value_or(true);
  Json compile_targets =
      Json::object()
          .set("cold_ms", Json::object()
                                  .set("W1", targets::kColdCompileW1Ms)
                                  .set("W3", targets::kColdCompileW3Ms)
                                  .set("W7", targets::kColdCompileW7Ms))
          .set("warm_ms_per_function", targets::kWarmCompileMs)
          .set("cold", cold)
          .set("cold_ok", cold_ok)
          .set("warm_over", warm_over)
          .set("warm_ok", warm_ok)
          .set("ok", compile_ok)
          .set("why", Json::string_or_null(std::string(targets::kCompileWhy)));

  Json results = Json::array();
  for (const Row& r : rows) {
    Json sums = Json::array(), expected = Json::array();
    for (double v : r.checksum) sums.push(v);
    for (double v : r.expected) expected.push(v);
    auto timed = [&](double v) { return r.timed ? Json(v) : Json(); };
    results.push(Json::object()
                     .set("workload", r.workload)
                     .set("dtype", r.dtype)
                     .set("size", r.size)
                     .set("compile_cold_ms", r.compile_cold_ms)
                     .set("compile_warm_ms", r.compile_warm_ms)
                     .set("call_median_ms", timed(r.call_median_ms))
                     .set("call_min_ms", timed(r.call_min_ms))
                     .set("call_max_ms", timed(r.call_max_ms))
                     .set("checksum", sums)
                     .set("checksum_ok", r.timed ? Json(r.checksum_ok) : Json(false))
                     .set("ratio_to_limit", r.ratio_to_limit)
                     .set("target", Json::string_or_null(r.target))
                     .set("target_met", r.target_met)
                     .set("miss", Json::string_or_null(r.miss))
                     .set("why", Json::string_or_null(r.why))
                     .set("compile_cold_ok", r.compile_cold_ok)
                     .set("compile_warm_ok", r.compile_warm_ok)
                     .set("limit", Json::string_or_null(r.limit))
                     .set("achieved_gbs", r.achieved_gbs)
                     .set("bytes_per_call", r.bytes_per_call > 0 ? Json(r.bytes_per_call) : Json())
                     .set("paired_gemm_median_ms", r.paired_gemm_median_ms)
                     .set("paired_gemm_min_ms", r.paired_gemm_min_ms)
                     .set("paired_floor_median_ms", r.paired_floor_median_ms)
                     .set("paired_floor_min_ms", r.paired_floor_min_ms)
                     .set("paired_floor_ratio", r.paired_floor_ratio)
                     .set("call_1thread_median_ms", r.call_1t_median_ms)
                     .set("call_1thread_min_ms", r.call_1t_min_ms)
                     .set("call_1thread_max_ms", r.call_1t_max_ms)
                     .set("checksum_1thread", r.call_1t_median_ms ? [&] {
                       Json a = Json::array();
                       for (double v : r.checksum_1t) a.push(v);
                       return a;
                     }() : Json())
                     .set("expected_checksum", expected)
                     .set("samples", r.samples)
                     .set("calls_per_sample", r.calls_per_sample)
                     .set("compile_cold_min_ms", r.compile_cold_min_ms)
                     .set("compile_cold_max_ms", r.compile_cold_max_ms)
                     .set("compile_cold_clang_ms", r.compile_cold_clang_ms)
                     .set("compile_cold_runs", r.compile_cold_runs ? Json(r.compile_cold_runs) : Json())
                     .set("compile_warm_min_ms", r.compile_warm_min_ms)
                     .set("compile_warm_max_ms", r.compile_warm_max_ms)
                     .set("compile_warm_runs", r.compile_warm_runs ? Json(r.compile_warm_runs) : Json())
                     .set("error", Json::string_or_null(r.error.empty() ? r.compile_error : r.error)));
  }
  return Json::object()
      .set("machine", machine)
      .set("run", run_j)
      .set("compile_targets", compile_targets)
      .set("results", results);
}

}  // namespace theano::bench

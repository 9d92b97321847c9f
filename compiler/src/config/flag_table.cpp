/// \file
/// Every THEANO_FLAGS key theano-cpp reads, declared once (flag_registry.h
/// says what each field means and where values are checked). A new flag is one
/// row here, read through config_flags.h; `theano-cache flags` and the
/// unknown-key warning learn of it from this table.
#include "flag_registry.h"

#include <climits>
#include <iterator>

#include "theano/runtime/thread_pool.h"

namespace theano::flags {
namespace {

constexpr FlagSpec kFlags[] = {
    // Graph building.
    {.name = "floatX", .kind = Kind::Choice, .default_value = "float64",
     .doc = "dtype of matrix()-style makers and of float constants", .words = "float64|float32"},
    {.name = "traceback_limit", .kind = Kind::Int, .default_value = "0",
     .doc = "frames of user code recorded where each Variable is created, named by run-time errors (0: off)",
     .lo = 0, .hi = INT_MAX, .expected = "a non-negative whole number of frames"},
    {.name = "traceback__limit", .kind = Kind::Int, .default_value = "0", .doc = "Theano's spelling of traceback_limit",
     .lo = 0, .hi = INT_MAX, .expected = "a non-negative whole number of frames", .alias_of = "traceback_limit"},

    // Modes, linkers, rewrites.
    {.name = "mode", .kind = Kind::Text, .default_value = "fast_run",
     .doc = "default compilation mode (fast_run, fast_compile, o1..o4, stabilize, unsafe, unoptimized, DebugMode, "
            "NanGuardMode; any case)",
     .empty_is_default = true, .type = "mode name"},
    {.name = "linker", .kind = Kind::Text, .default_value = "",
     .doc = "overrides the mode's linker: a registered linker (cpp, c, opwise, py); empty: the mode's",
     .type = "linker name"},
    {.name = "optimizer_including", .kind = Kind::Text, .default_value = "",
     .doc = "rewrites, stages or tags added to every mode's query (each must exist)", .type = "names a:b"},
    {.name = "optimizer_excluding", .kind = Kind::Text, .default_value = "",
     .doc = "rewrites, stages or tags removed from every mode's query", .type = "names a:b"},
    {.name = "optimizer_print_after", .kind = Kind::Text, .default_value = "",
     .doc = "dumps the graph to stderr after this optdb stage (all: after each)", .type = "stage|all"},
    {.name = "profile", .kind = Kind::Bool, .default_value = "false",
     .doc = "time calls (and nodes, with linker=opwise): f.profile().summary()"},
    {.name = "log_compile", .kind = Kind::Bool, .default_value = "false",
     .doc = "one line per compiled function on stderr: rewrite / codegen / clang / load ms"},
    {.name = "nanguard_nan_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "NanGuardMode: a NaN in a value is an error"},
    {.name = "nanguard_inf_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "NanGuardMode: an infinity in a value is an error"},
    {.name = "nanguard_big_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "NanGuardMode: a value of magnitude above 1e10 is an error"},
    {.name = "NanGuardMode__nan_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "Theano's spelling of nanguard_nan_is_error", .alias_of = "nanguard_nan_is_error"},
    {.name = "NanGuardMode__inf_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "Theano's spelling of nanguard_inf_is_error", .alias_of = "nanguard_inf_is_error"},
    {.name = "NanGuardMode__big_is_error", .kind = Kind::Bool, .default_value = "true",
     .doc = "Theano's spelling of nanguard_big_is_error", .alias_of = "nanguard_big_is_error"},

    // Generated code.
    {.name = "threads", .kind = Kind::Int, .default_value = "0",
     .doc = "loop threads of generated code (0 or absent: every core, 1: no splitting); a value given also sets "
            "BLAS's threads",
     .lo = 0, .hi = kMaxParallelParts, .expected = "a whole number of threads (0: every core)"},
    {.name = "stream_gemv_two_pass_bytes", .kind = Kind::Number, .default_value = "auto",
     .doc = "RowStreamGemv (rewrite stream_gemv): a matrix under this many bytes is read by two BLAS products, a "
            "larger one in one pass over its rows (auto: 16777216 on AMD CPUs, whose L3 serves the second pass "
            "fast; 0, always one pass, elsewhere)",
     .lo = 0, .hi = 1e18, .words = "auto", .expected = "a number of bytes", .empty_is_default = true},
    {.name = "codegen_threads", .kind = Kind::Int, .default_value = "0",
     .doc = "threads compiling one function, as that many translation units (0: automatic)", .lo = 0, .hi = 64,
     .expected = "a whole number of threads (0: automatic)"},
    {.name = "cxxflags", .kind = Kind::Text, .default_value = "",
     .doc = "extra compiler driver flags, space-separated, appended last", .type = "flags"},
    {.name = "precompile_prelude", .kind = Kind::Bool, .default_value = "true",
     .doc = "parse the generated code's prelude once into a precompiled header, kept in memory and in the "
            "compiledir, and reuse it in every compile (docs/jit-and-cache.md)"},
    {.name = "tiered_compile", .kind = Kind::Bool, .default_value = "false",
     .doc = "on a compile-cache miss, run the function's code compiled without optimization at once while the "
            "optimized code compiles on a background thread and takes over (docs/jit-and-cache.md)"},
    {.name = "keep_sources", .kind = Kind::Bool, .default_value = "false",
     .doc = "keep each generated source under $TMPDIR/theano-cpp-<uid>/theano-cpp-sources/"},

    // The GPU.
    {.name = "device", .kind = Kind::Text, .default_value = "cpu",
     .doc = "where compiled functions compute: cpu, cuda, cuda<N>, auto (a GPU if usable) or emulated",
     .empty_is_default = true, .type = "device"},
    {.name = "gpu_preallocate", .kind = Kind::Number, .default_value = "0",
     .doc = "fraction of the GPU's memory reserved up front for the caching allocator (0: grow on demand)", .lo = 0,
     .hi = 1, .expected = "a fraction of the GPU's memory (0: none)", .empty_is_default = true},
    {.name = "nvrtc_fast_compile", .kind = Kind::Choice, .default_value = "min",
     .doc = "NVRTC's --Ofast-compile level for GPU code (0: NVRTC's full optimization)", .words = "0|min|mid|max",
     .empty_is_default = true},

    // The compile cache.
    {.name = "compiledir", .kind = Kind::Text, .default_value = "",
     .doc = "the compiledir (off: no cache; default <base_compiledir>/compiledir_<triple>-<cpu>-clang<ver>-abi<n>)",
     .type = "path|off"},
    {.name = "base_compiledir", .kind = Kind::Text, .default_value = "",
     .doc = "where compiledirs live (default $XDG_CACHE_HOME/theano-cpp, ~/.cache/theano-cpp, "
            "$TMPDIR/theano-cpp-<uid>)",
     .type = "path"},
    {.name = "compiledir_group", .kind = Kind::Text, .default_value = "",
     .doc = "a team cache shared by this Unix group (name or number; default: private to you)", .type = "group"},
    {.name = "cache_max_age_days", .kind = Kind::Number, .default_value = "30",
     .doc = "automatic cleanup: entries unused this many days go (off: no age limit; at most 1e6, about 2700 "
            "years, whose seconds fit in int64)",
     .lo = 0, .hi = 1e6,
     .words = "off", .expected = "a number of days", .empty_is_default = true},
    {.name = "cache_max_size", .kind = Kind::Text, .default_value = "2G",
     .doc = "automatic cleanup: then the least recently used beyond this total go (digits, then k, M, G or T; off)",
     .empty_is_default = true, .type = "size|off"},
    {.name = "remote_cache", .kind = Kind::Text, .default_value = "",
     .doc = "a second cache tier on Redis behind the compiledir (needs remote_cache_key_file or remote_cache_key)",
     .type = "redis://host[:port][/db]|off"},
    {.name = "remote_cache_mode", .kind = Kind::Choice, .default_value = "read-write",
     .doc = "whether fresh compiles are published to the remote tier", .words = "read|read-write",
     .empty_is_default = true},
    {.name = "remote_cache_timeout_ms", .kind = Kind::Int, .default_value = "",
     .doc = "the remote tier's connect and per-command timeout (default 500 ms to connect, 2000 ms per command)",
     .lo = 1, .hi = 600000, .expected = "a number of milliseconds", .empty_is_default = true},
    {.name = "remote_cache_key", .kind = Kind::Text, .default_value = "",
     .doc = "the secret signing the remote tier's entries (prefer remote_cache_key_file)", .type = "secret",
     .secret = true},
    {.name = "remote_cache_key_file", .kind = Kind::Text, .default_value = "",
     .doc = "a file only you can read holding that secret", .type = "path"},
    {.name = "remote_cache_password", .kind = Kind::Text, .default_value = "",
     .doc = "the Redis server's password (AUTH)", .type = "secret", .secret = true},
};

/// parse_int's overflow bound.
constexpr bool int_ranges_fit() {
  for (const FlagSpec& f : kFlags)
    if (f.kind == Kind::Int && (f.lo < 0 || f.hi > INT_MAX)) return false;
  return true;
}
static_assert(int_ranges_fit(), "an Int flag's range must lie within 0..INT_MAX");

}  // namespace

const FlagSpec* specs() { return kFlags; }
std::size_t spec_count() { return std::size(kFlags); }

}  // namespace theano::flags

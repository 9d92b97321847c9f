/// \file
/// Where the JIT caches compiled objects and how it names them.
///
/// The compiledir in use: THEANO_FLAGS `compiledir=<dir>` if given (the value
/// `off` disables caching), else `<base>/<name>` where base is THEANO_FLAGS
/// `base_compiledir` or cache::default_base_compiledir() and the name reads
/// like `compiledir_x86_64-pc-linux-gnu-sapphirerapids-clang19.1.7-abi6`: one
/// per target, CPU, compiler version and runtime ABI, so objects are never
/// shared where they would not run.
///
/// Who may write it (cache/dir_security.h): by default the compiledir is private
/// to the effective uid (created 0700; a foreign-owned or world-writable one is
/// refused with one warning and a uid-private fallback is used). THEANO_FLAGS
/// `compiledir_group=<group>` makes it a team cache: 02770 directories and 0640
/// entries owned by that group, which may then own and write them.
///
/// A fleet-wide second tier (cache/remote_cache.h): THEANO_FLAGS
/// `remote_cache=redis://host[:port][/db]` puts a Redis server behind the
/// object cache (not behind its function records or shared libraries, which
/// are cheap to rebuild from an object). Entries are signed with the key of
/// `remote_cache_key=<secret>` or `remote_cache_key_file=<path>` (a file only
/// its owner can read); without one the tier is not used (one warning).
/// `remote_cache_mode=read|read-write` (default read-write),
/// `remote_cache_timeout_ms` (each connect and command; default 500 ms to
/// connect, 2000 ms per command), `remote_cache_password` (AUTH).
///
/// The key of a translation unit is BLAKE3 (160 bits, hex) over length-prefixed
/// fields: a schema version, the runtime ABI version, the compiler identity
/// (full clang version, triple, CPU, features, normalized driver flags: nothing
/// that depends on the working directory or the environment), and the whole
/// source with its prelude.
#pragma once

#include <theano/cache/compile_cache.h>
#include <theano/cache/remote_cache.h>
#include <theano/codegen/clang_compiler.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen {

/// Version of the thunk ABI (TheanoArray / TheanoContext layout, entry
/// protocol); part of every key and of the compiledir name.
inline constexpr int kRuntimeAbiVersion = 15;  // 15: TheanoHostKernels' scratch copies; 14: TheanoHostKernels' BLAS thread count; 13: TheanoHostKernels' reshape rule; 12: its copy entry; 11: its BLAS entries; 10: its error and allocation entries

/// A compiledir key: BLAKE3 over the length-prefixed `fields` (so no two
/// field lists hash alike by concatenation), truncated to 160 bits, as 40 hex
/// digits. Every kind of entry (host objects, CUDA images) is keyed by it.
std::string hash_fields(const std::vector<std::string_view>& fields);

/// The key of an entry only the local compiledir holds, derived from the
/// request or from an object's key: the function records
/// (function_record.cpp) and the shared libraries (shared_object.cpp).
/// XXH3-128 over the same length-prefixed `fields` (a field over 1 KiB
/// framed as a flagged length and its own XXH3-128), as 32 hex digits. Not
/// cryptographic: the remote tier never carries these entries, they are read
/// under the same trust checks as the objects, and they name their object by
/// its BLAKE3 key. Its first use executes no CPUID; BLAKE3's first use
/// detects the CPU's SIMD support, 50 us of every warm start in a VM
/// (docs/jit-and-cache.md).
std::string local_hash_fields(const std::vector<std::string_view>& fields);

/// The cache key of `source` compiled with `options`.
std::string cache_key(const CompileOptions& options, const std::string& source);

/// The compiledir the current configuration selects ("" when caching is off).
std::filesystem::path current_compiledir();

/// How the current configuration opens a compiledir: THEANO_FLAGS
/// `compiledir_group=<group name or gid>` (a team cache) or private; refused
/// compiledirs fall back to cache::private_fallback_compiledir(). ValueError
/// naming the flag when the group does not exist.
cache::CacheOptions compile_cache_options();

/// The process's CompileCache for current_compiledir(), or nullptr when
/// caching is off. One per directory and group setting, kept for the life of
/// the process (its lock files stay open).
cache::CompileCache* current_cache();

/// The subdirectory of a compiledir that holds function records (the warm
/// start's request -> compiled object map, codegen/src/cache/function_record.h):
/// a CompileCache of its own, so the compiledir's counters and entries stay
/// those of compiled code.
inline constexpr const char* kRecordsDir = "records";

/// The process's CompileCache of function records for current_compiledir()
/// (its kRecordsDir), or nullptr when caching is off.
cache::CompileCache* current_record_cache();

/// The subdirectory of a compiledir that holds the shared libraries linked
/// from its CPU objects (codegen/src/load/shared_object.h), keyed by
/// detail::shared_object_key of the object's key; its own CompileCache too.
inline constexpr const char* kLibrariesDir = "libraries";

/// The process's CompileCache of those libraries (kLibrariesDir of
/// current_compiledir()), or nullptr when caching is off or the object cache
/// is read-only.
cache::CompileCache* current_library_cache();

/// The subdirectory of a compiledir that holds precompiled preludes
/// (docs/jit-and-cache.md, "The precompiled prelude"): one per compiler and
/// flag set, keyed by hash_fields of the PreludeStore key; its own
/// CompileCache, so its entries get the same ownership, permission, size
/// and CRC checks as objects.
inline constexpr const char* kPreludeDir = "prelude";

/// A PreludeStore over `prelude_cache` (a compiledir's kPreludeDir), or
/// nullptr for none.
std::shared_ptr<const PreludeStore> prelude_store(cache::CompileCache* prelude_cache);

/// The JIT's PreludeStore: it loads from the build tree's precompiled
/// preludes (what the build's `theano-cache precompile` wrote, when the flag
/// set and the compiler are the build's; also with caching off), else from
/// the current compiledir's kPreludeDir (looked up on each call, so a
/// compiledir that stops being trusted stops serving it); it saves to the
/// compiledir only (nowhere with caching off).
std::shared_ptr<const PreludeStore> current_prelude_store();

/// THEANO_FLAGS `remote_cache` ("" when unset or `off`).
std::string remote_cache_url();

/// The remote tier's options for the server `url` from THEANO_FLAGS
/// `remote_cache_mode`, `remote_cache_key` / `remote_cache_key_file`,
/// `remote_cache_password` and `remote_cache_timeout_ms`, with
/// remote_cache_arch(). ValueError naming the flag when a value is malformed
/// or the key file is refused; `hmac_key` is empty when no key is set.
cache::RemoteOptions remote_cache_options(const std::string& url);

/// This build's architecture string, written into remote entries and
/// required of them: what the compiledir's name holds (target triple, CPU,
/// clang version, runtime ABI), e.g.
/// `x86_64-pc-linux-gnu-sapphirerapids-clang19.1.7-abi6`.
std::string remote_cache_arch();

/// The statistics of the current compiledir's cache in this process.
cache::CacheStats compile_cache_stats();

/// One line for profiles: "3 hits, 1 miss, 1 compile, 24.0 KiB read, 96.0 KiB
/// written, 88 ms of compiling saved" ("" when caching is off), followed by
/// the remote tier's counters when one is attached ("; remote
/// redis://host:6379/0: 1 hit, 0 misses, 0 rejected, 1 published, 0 errors").
std::string compile_cache_report();

/// The automatic cleanup's policy from THEANO_FLAGS: `cache_max_age_days`
/// (default 30; `off` or a negative number: no age limit) and `cache_max_size`
/// (default 2G; `off` or 0: no size limit). ValueError naming the flag when a
/// value is malformed. current_cache() applies it once per process and
/// compiledir, and it runs at most once a day per compiledir.
cache::CleanupPolicy auto_cleanup_policy();

}  // namespace theano::codegen

// theano-cache: inspect and maintain the JIT's compiledir.
//
//   theano-cache                       print the compiledir in use
//   theano-cache list                  one line per entry: key, size, created, last used, kind, origin
//   theano-cache info                  directories, entry count, total size, compiler identity, NVRTC
//   theano-cache stats                 entries, bytes, recorded compile time (also per kind)
//   theano-cache clear                 remove every entry of the compiledir
//   theano-cache cleanup [--older-than DAYS] [--max-size SIZE]
//   theano-cache basecompiledir list|purge
//   theano-cache remote stats|list|purge [--url redis://host:port/db]   the Redis tier (remote.cpp)
//   theano-cache flags                 every THEANO_FLAGS key: type, default, value, doc (flags.cpp)
//   theano-cache precompile            precompile the generated code's prelude into the compiledir
// Every command takes --compiledir PATH (remote: --url; flags: neither) and --json; --help for each.
// Exit codes: 0 ok, 1 error, 2 usage. A command on a missing compiledir exits
// 1 and creates nothing; one on a compiledir the cache would refuse (foreign
// owner, writable by others: see cache/dir_security.h) exits 1 too.
#include <theano/cache/compile_cache.h>
#include <theano/codegen/c_linker.h>
#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/nvrtc_compiler.h>
#include <theano/config_flags.h>

#include "cli_format.h"
#include "flags.h"
#include "remote.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using theano::cache::CompileCache;
using theano::cache::EntryInfo;
using theano::cli::human;
using theano::cli::iso_time;
using theano::cli::json_string;
using theano::cli::Usage;

namespace {

const std::map<std::string, std::string> kHelp = {
    {"", "usage: theano-cache [COMMAND] [--compiledir PATH] [--json]\n"
         "commands: list, info, stats, clear, cleanup, basecompiledir list|purge, remote stats|list|purge, flags\n"
         "with no command, prints the compiledir in use. `theano-cache COMMAND --help` for details.\n"
         "exit codes: 0 ok, 1 error, 2 usage\n"},
    {"list", "usage: theano-cache list [--compiledir PATH] [--json]\n"
             "one line per entry: key, total size, created, last used, kind, origin\n"
             "kind: cpu (a host object), or a CUDA image with its architecture: \"cuda sm_90 cubin\",\n"
             "\"cuda compute_90 ptx\" (PTX for devices newer than the toolkit)\n"},
    {"info", "usage: theano-cache info [--compiledir PATH] [--json]\n"
             "the base directory, the compiledir, entry count, total size (also per kind), the compiler identity\n"
             "and the NVRTC version\n"},
    {"stats", "usage: theano-cache stats [--compiledir PATH] [--json]\n"
              "entries, bytes, and the compile time the entries recorded (what a hit saves), in all and per kind\n"
              "(cpu, cuda sm_90 cubin, ...)\n"},
    {"clear", "usage: theano-cache clear [--compiledir PATH] [--json]\nremoves every entry of the compiledir (and its function records)\n"},
    {"cleanup", "usage: theano-cache cleanup [--older-than DAYS] [--max-size SIZE] [--compiledir PATH] [--json]\n"
                "removes entries unused for more than DAYS (default 30), then the least recently used until\n"
                "the compiledir holds at most SIZE (e.g. 500M, 2G; default no limit)\n"},
    {"basecompiledir", "usage: theano-cache basecompiledir list|purge [--json]\n"
                       "list: every compiledir under the base directory (other compilers, CPUs, ABIs);\n"
                       "purge: remove all of them\n"},
    {"remote", theano::cli::kRemoteHelp},
    {"flags", theano::cli::kFlagsHelp},
    {"precompile", "usage: theano-cache precompile [--compiledir PATH] [--json]\n"
                   "precompiles the generated code's prelude for the JIT's flags (THEANO_FLAGS cxxflags\n"
                   "included), at -O2 and at -O0, into the compiledir (created if needed), so that the\n"
                   "first compile of the next processes reads it precompiled (docs/jit-and-cache.md)\n"},
};

fs::path base_dir() {
  if (const auto base = theano::flag_value("base_compiledir"); base && !base->empty()) return *base;
  return theano::cache::default_base_compiledir();
}

int run(const std::vector<std::string>& args) {
  std::string command, sub;
  std::optional<std::string> compiledir, older, max_size, url;
  bool json = false, help = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) {
      if (i + 1 >= args.size()) throw Usage{std::string(name) + " needs a value"};
      return args[++i];
    };
    if (a == "--json") json = true;
    else if (a == "--help" || a == "-h") help = true;
    else if (a == "--compiledir") compiledir = value("--compiledir");
    else if (a == "--older-than") older = value("--older-than");
    else if (a == "--max-size") max_size = value("--max-size");
    else if (a == "--url") url = value("--url");
    else if (!a.empty() && a[0] == '-') throw Usage{"unknown option " + a};
    else if (command.empty()) command = a;
    else if ((command == "basecompiledir" || command == "remote") && sub.empty()) sub = a;
    else throw Usage{"unexpected argument " + a};
  }
  if (!kHelp.count(command)) throw Usage{"unknown command '" + command + "'"};
  if (help) {
    std::cout << kHelp.at(command);
    return 0;
  }
  if ((older || max_size) && command != "cleanup") throw Usage{"--older-than and --max-size go with cleanup"};
  if (url && command != "remote") throw Usage{"--url goes with remote"};
  if (command == "remote") {
    if (compiledir) throw Usage{"remote takes --url, not --compiledir"};
    return theano::cli::run_remote(sub, url, json);
  }
  if (command == "flags") {
    if (compiledir) throw Usage{"flags takes no --compiledir"};
    return theano::cli::run_flags(json);
  }
  double days = 30;
  if (older) {
    try {
      std::size_t pos = 0;
      days = std::stod(*older, &pos);
      if (pos != older->size() || days < 0) throw std::invalid_argument("bad");
    } catch (const std::exception&) {
      throw Usage{"--older-than takes a number of days, got '" + *older + "'"};
    }
  }
  std::uintmax_t limit = 0;
  if (max_size) {
    auto v = theano::cache::parse_size(*max_size);
    if (!v) throw Usage{"--max-size takes a size like 500M or 2G, got '" + *max_size + "'"};
    limit = *v;
  }
  const fs::path dir = compiledir ? fs::path(*compiledir) : theano::codegen::current_compiledir();
  if (command.empty()) {
    if (json) std::cout << "{\"compiledir\": " << json_string(dir.string()) << "}\n";
    else std::cout << (dir.empty() ? std::string("(caching is off: THEANO_FLAGS compiledir=off)") : dir.string())
                   << "\n";
    return 0;
  }
  if (command == "basecompiledir") {
    if (sub != "list" && sub != "purge") throw Usage{"basecompiledir takes list or purge"};
    const fs::path base = base_dir();
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_directory() && it->path().filename().string().rfind("compiledir_", 0) == 0) dirs.push_back(it->path());
    std::sort(dirs.begin(), dirs.end());
    if (sub == "purge")
      for (const auto& d : dirs) {
        fs::remove_all(d, ec);
        if (ec) {
          std::cerr << "theano-cache: cannot remove " << d << ": " << ec.message() << "\n";
          return 1;
        }
      }
    if (json) {
      std::cout << "{\"base\": " << json_string(base.string()) << ", \"" << (sub == "purge" ? "purged" : "compiledirs")
                << "\": [";
      for (std::size_t i = 0; i < dirs.size(); ++i) std::cout << (i ? ", " : "") << json_string(dirs[i].string());
      std::cout << "]}\n";
    } else {
      for (const auto& d : dirs) std::cout << (sub == "purge" ? "removed " : "") << d.string() << "\n";
    }
    return 0;
  }
  if (dir.empty()) {
    std::cerr << "theano-cache: caching is off (THEANO_FLAGS compiledir=off); give --compiledir PATH\n";
    return 1;
  }
  if (command == "precompile") {
    theano::cache::CacheOptions options = theano::codegen::compile_cache_options();
    options.fallback = fs::path();  // refused: report it, write nothing elsewhere
    CompileCache top(dir, options);
    if (top.stats().fallback || top.stats().disabled) {
      std::cerr << "theano-cache: cannot use " << dir.string() << " as a compiledir; nothing was written\n";
      return 1;
    }
    CompileCache preludes(dir / theano::codegen::kPreludeDir, options);
    if (preludes.stats().fallback || preludes.stats().disabled) {
      std::cerr << "theano-cache: cannot use " << (dir / theano::codegen::kPreludeDir).string()
                << "; nothing was written\n";
      return 1;
    }
    const theano::codegen::CLinker linker(theano::codegen::CompileOptions{}, "cpp");
    std::vector<std::pair<std::string, std::size_t>> built;
    for (const bool fast : {false, true}) {
      theano::LinkOptions link;
      link.fast_compile = fast;
      const theano::codegen::CompileOptions copts = linker.compile_options(link);
      built.emplace_back(fast ? "-O0" : "-O2",
                         theano::codegen::build_prelude_pch(copts, theano::codegen::CLinker::prelude(),
                                                            *theano::codegen::prelude_store(&preludes)));
    }
    if (json) {
      std::cout << "{\"compiledir\": " << json_string(dir.string()) << ", \"precompiled\": {";
      for (std::size_t i = 0; i < built.size(); ++i)
        std::cout << (i ? ", " : "") << json_string(built[i].first) << ": " << built[i].second;
      std::cout << "}}\n";
    } else {
      for (const auto& [level, bytes] : built)
        std::cout << "precompiled the prelude for " << level << ": " << bytes / 1024 << " KiB in "
                  << (dir / theano::codegen::kPreludeDir).string() << "\n";
    }
    return 0;
  }
  // Every command here needs the compiledir to exist: a typo must not create
  // a directory tree (nor a lock directory) anywhere.
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    std::cerr << "theano-cache: no compiledir at " << dir.string()
              << (fs::exists(dir, ec) ? " (not a directory)" : " (it does not exist; nothing was created)") << "\n";
    return 1;
  }
  theano::cache::CacheOptions options = theano::codegen::compile_cache_options();
  options.fallback = fs::path();                      // refused: report it, use nothing else
  options.create = command == "clear" || command == "cleanup";  // the read commands write nothing
  CompileCache cache(dir, options);
  if (cache.stats().fallback) {
    std::cerr << "theano-cache: " << dir.string() << " is not trusted (see the warning above); nothing was read\n";
    return 1;
  }
  std::vector<EntryInfo> entries = cache.entries();
  std::sort(entries.begin(), entries.end(), [](const EntryInfo& a, const EntryInfo& b) { return a.key < b.key; });
  std::uintmax_t total = 0;
  double compile_ms = 0;
  struct KindTotals {
    std::size_t entries = 0;
    std::uintmax_t bytes = 0;
    double compile_ms = 0;
  };
  std::map<std::string, KindTotals> kinds;  // "cpu", "cuda sm_90 cubin", ...
  for (const auto& e : entries) {
    total += e.total_bytes, compile_ms += e.compile_ms;
    KindTotals& k = kinds[e.kind];
    ++k.entries, k.bytes += e.total_bytes, k.compile_ms += e.compile_ms;
  }
  if (command == "list") {
    if (json) {
      std::cout << "[";
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const auto& e = entries[i];
        std::cout << (i ? ",\n " : "") << "{\"key\": " << json_string(e.key) << ", \"bytes\": " << e.total_bytes
                  << ", \"object_bytes\": " << e.object_bytes << ", \"created\": " << e.created
                  << ", \"last_used\": " << e.last_used << ", \"compile_ms\": " << e.compile_ms
                  << ", \"kind\": " << json_string(e.kind) << ", \"origin\": " << json_string(e.origin) << "}";
      }
      std::cout << "]\n";
    } else {
      for (const auto& e : entries)
        std::cout << e.key << "  " << human(e.total_bytes) << "  created " << iso_time(e.created) << "  used "
                  << iso_time(e.last_used) << "  " << e.kind << "  " << e.origin << "\n";
    }
    return 0;
  }
  if (command == "info" || command == "stats") {
    const std::string identity = command == "info" ? theano::codegen::compiler_identity() : "";
    const std::string nvrtc = command != "info" ? "" : [] {
      try {
        return theano::codegen::nvrtc_version();  // "" without NVRTC
      } catch (const std::exception&) {
        return std::string();
      }
    }();
    if (json) {
      std::cout << "{\"compiledir\": " << json_string(dir.string()) << ", \"base_compiledir\": "
                << json_string(base_dir().string()) << ", \"entries\": " << entries.size() << ", \"bytes\": " << total
                << ", \"compile_ms_recorded\": " << compile_ms;
      std::cout << ", \"kinds\": {";
      bool first = true;
      for (const auto& [kind, k] : kinds) {
        std::cout << (first ? "" : ", ") << json_string(kind) << ": {\"entries\": " << k.entries
                  << ", \"bytes\": " << k.bytes << ", \"compile_ms_recorded\": " << k.compile_ms << "}";
        first = false;
      }
      std::cout << "}";
      if (command == "info")
        std::cout << ", \"compiler\": " << json_string(identity) << ", \"nvrtc\": " << json_string(nvrtc);
      std::cout << "}\n";
    } else {
      std::cout << "compiledir: " << dir.string() << "\nbase_compiledir: " << base_dir().string()
                << "\nentries: " << entries.size() << "\nsize: " << human(total) << " (" << total << " bytes)"
                << "\ncompile time recorded: " << compile_ms << " ms\n";
      if (!kinds.empty()) {
        std::cout << "by kind:\n";
        for (const auto& [kind, k] : kinds)
          std::cout << "  " << kind << ": " << k.entries << " entr" << (k.entries == 1 ? "y" : "ies") << ", "
                    << human(k.bytes) << ", " << k.compile_ms << " ms recorded\n";
      }
      if (command == "info") std::cout << "nvrtc: " << (nvrtc.empty() ? "unavailable" : nvrtc) << "\n";
      if (command == "info") std::cout << "compiler:\n  " << [&] {
        std::string s = identity;
        for (std::size_t p = 0; (p = s.find('\n', p)) != std::string::npos; p += 3) s.replace(p, 1, "\n  ");
        return s;
      }() << "\n";
    }
    return 0;
  }
  theano::cache::CleanupResult removed;
  if (command == "clear") {
    removed.entries = cache.clear();
  } else {  // cleanup
    removed = cache.cleanup(static_cast<std::int64_t>(days * 86400), limit);
  }
  // The function records (warm start) and the shared libraries linked from
  // the objects live in their own caches inside; a record or library whose
  // object is gone is ignored, but clear removes them too.
  for (const char* inner_dir : {theano::codegen::kRecordsDir, theano::codegen::kLibrariesDir}) {
    if (!fs::is_directory(dir / inner_dir, ec)) continue;
    theano::cache::CacheOptions inner_options = options;
    inner_options.create = false;
    CompileCache inner(dir / inner_dir, inner_options);
    if (inner.stats().fallback || inner.stats().disabled) continue;
    if (command == "clear") {
      inner.clear();
    } else {
      inner.cleanup(static_cast<std::int64_t>(days * 86400), limit);
    }
  }
  if (json)
    std::cout << "{\"removed\": " << removed.entries << ", \"leftovers_removed\": " << removed.leftovers
              << ", \"bytes_freed\": " << removed.bytes << ", \"remaining\": " << cache.entries().size() << "}\n";
  else {
    std::cout << "removed " << removed.entries << " entr" << (removed.entries == 1 ? "y" : "ies");
    if (removed.leftovers) std::cout << " and " << removed.leftovers << " leftover file(s) of interrupted writers";
    if (removed.bytes) std::cout << ", " << human(removed.bytes) << " freed";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const Usage& u) {
    std::cerr << "theano-cache: " << u.message << "\n" << kHelp.at("");
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "theano-cache: " << e.what() << "\n";
    return 1;
  }
}

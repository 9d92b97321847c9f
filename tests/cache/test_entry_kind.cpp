// Entry::kind: written to the `.meta` file and read back by entries(); an
// entry without one (the default, an empty kind, or a `.meta` written before
// kinds existed) reads as "cpu" and still hits.
#include <doctest/doctest.h>
#include <theano/cache/compile_cache.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "stderr_capture.h"
#include "temp_dir.h"

using namespace theano::cache;
namespace fs = std::filesystem;
using theano::test::slurp;
using theano::test::TempDir;

namespace {

const std::string kCpuKey = "aa00000000000000000000000000000000000001";
const std::string kCudaKey = "bb00000000000000000000000000000000000002";
const std::string kEmptyKey = "cc00000000000000000000000000000000000003";
const std::string kOddKey = "dd00000000000000000000000000000000000004";

std::map<std::string, EntryInfo> listing(const CompileCache& c) {
  std::map<std::string, EntryInfo> m;
  for (const EntryInfo& e : c.entries()) m[e.key] = e;
  return m;
}

fs::path meta_of(const fs::path& dir, const std::string& key) { return dir / key.substr(0, 2) / (key + ".meta"); }

}  // namespace

TEST_SUITE("compile cache entry kind") {
  TEST_CASE("the kind round-trips through the metadata, the default and an empty kind read as cpu") {
    TempDir d("theano-entry-kind");
    {
      CompileCache c(d.path);
      c.get_or_produce(kCpuKey, [] { return Entry{"host object", "// host", 2.0, "a graph"}; });
      c.get_or_produce(kCudaKey, [] {
        Entry e{
            "\x7f"
            "ELF cubin",
            "extern \"C\" __global__ void k() {}", 120.0, "a kernel"};
        e.kind = "cuda sm_90 cubin";
        return e;
      });
      c.get_or_produce(kEmptyKey, [] {
        Entry e{"obj", "", 1.0, "empty kind"};
        e.kind = "";
        return e;
      });
      c.get_or_produce(kOddKey, [] {
        Entry e{"obj", "", 1.0, "odd kind"};
        e.kind = "cuda compute_90\nptx";  // one line in the metadata
        return e;
      });
    }
    CHECK(slurp(meta_of(d.path, kCudaKey)).find("\nkind=cuda sm_90 cubin\n") != std::string::npos);
    CHECK(slurp(meta_of(d.path, kCpuKey)).find("\nkind=cpu\n") != std::string::npos);
    CompileCache c(d.path);
    auto m = listing(c);
    REQUIRE(m.size() == 4);
    CHECK(m[kCpuKey].kind == "cpu");
    CHECK(m[kCudaKey].kind == "cuda sm_90 cubin");
    CHECK(m[kCudaKey].origin == "a kernel");
    CHECK(m[kEmptyKey].kind == "cpu");
    CHECK(m[kOddKey].kind == "cuda compute_90 ptx");
    bool hit = false;
    CHECK(c.get_or_produce(
              kCudaKey,
              [] {
                return Entry{"other", "", 0, ""};
              },
              &hit) ==
          "\x7f"
          "ELF cubin");
    CHECK(hit);
  }

  TEST_CASE("an entry written before kinds existed reads as cpu and still hits") {
    TempDir d("theano-entry-kind");
    {
      CompileCache c(d.path);
      c.get_or_produce(kCpuKey, [] { return Entry{"old object", "// old", 3.0, "old graph"}; });
    }
    // Rewrite the metadata as the previous format had it: no kind line.
    const fs::path meta = meta_of(d.path, kCpuKey);
    std::string text = slurp(meta);
    const auto p = text.find("kind=");
    REQUIRE(p != std::string::npos);
    text.erase(p, text.find('\n', p) + 1 - p);
    CHECK(text.find("kind") == std::string::npos);
    fs::remove(meta);
    std::ofstream(meta, std::ios::binary) << text;
    fs::permissions(meta, fs::perms::owner_read | fs::perms::owner_write);
    CompileCache c(d.path);
    const auto m = listing(c);
    REQUIRE(m.size() == 1);
    CHECK(m.at(kCpuKey).kind == "cpu");
    CHECK(m.at(kCpuKey).origin == "old graph");
    bool hit = false;
    CHECK(c.get_or_produce(
              kCpuKey,
              [] {
                return Entry{"new object", "", 0, ""};
              },
              &hit) == "old object");
    CHECK(hit);
    CHECK(c.stats().corrupt == 0);
  }
}

// Linking cached objects into shared libraries with lld, in-process (see
// shared_object.h).
#include "shared_object.h"

#include "scratch_dir.h"

#include <theano/codegen/clang_compiler.h>
#include <theano/codegen/compiledir.h>
#include <theano/codegen/errors.h>

#include <lld/Common/Driver.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/raw_ostream.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

LLD_HAS_DRIVER(elf)

namespace theano::codegen::detail {
namespace {

namespace fs = std::filesystem;

/// The link flags; they are part of shared_object_key.
/// -Bsymbolic: the library's references to its own symbols bind to itself,
/// whatever the process defines. --no-gnu-unique: an STB_GNU_UNIQUE symbol
/// would make the library impossible to unload. --threads=1: no thread pool
/// of lld's beside ours, for a link of a few milliseconds.
constexpr const char* kLinkFlags[] = {"-shared",         "-Bsymbolic", "--no-gnu-unique", "--hash-style=gnu",
                                      "--eh-frame-hdr",  "-z",         "noexecstack",     "-z",
                                      "now",             "-z",         "relro",           "--build-id=none",
                                      "--threads=1"};

std::mutex g_lld_mu;     // lld keeps global state: one link at a time
bool g_lld_broken = false;  // a crash inside lld: never call it again (lld::Result::canRunAgain)

/// Runs lld on a thread of its own, joined before returning. lld 19 puts its
/// input sections in thread_local arenas (lld::makeThreadLocal) that only a
/// thread's exit frees; run on the caller's thread, every link would leave
/// about 1 KiB there for good. (--threads=1 keeps all of lld's work on this
/// one thread.) Costs one thread start, tens of microseconds, per link.
///
/// The thread leaves its alternate signal stack as it found it: the first
/// link of a process registers LLVM's signal handlers (lld writes through a
/// TempFile), which installs a malloc'ed alternate stack on the calling
/// thread; a sanitizer runtime would munmap that stack at thread exit and
/// abort. LLVM keeps its pointer, so nothing is lost.
lld::Result run_lld(const std::vector<const char*>& args, llvm::raw_ostream& out, llvm::raw_ostream& err) {
  lld::Result r{1, true};
  std::thread([&] {
    stack_t before{};
    const bool saved = ::sigaltstack(nullptr, &before) == 0;
    r = lld::lldMain(args, out, err, {{lld::Gnu, &lld::elf::link}});
    if (saved) ::sigaltstack(&before, nullptr);
  }).join();
  return r;
}

/// The whole of a regular file this process just wrote in its private directory.
std::string read_back(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw LoadError("link_shared_object: lld wrote no " + path.string() + ": " + std::strerror(errno));
  std::string bytes;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw LoadError("link_shared_object: cannot read " + path.string() + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return bytes;
}

}  // namespace

std::string shared_object_key(const std::string& object_key) {
  std::vector<std::string_view> fields = {"theano-cpp shared object key 2", "lld " LLVM_VERSION_STRING, object_key};
  for (const char* f : kLinkFlags) fields.emplace_back(f);
  return local_hash_fields(fields);
}

std::string link_shared_object(std::string_view object) {
  // Inputs and output live in a private scratch directory (scratch_dir.h).
  const ScratchDir dir("link_shared_object", "link");
  std::vector<std::string> inputs;
  for (std::string_view part : unbundle_objects(object))
    inputs.push_back(dir.write("part-" + std::to_string(inputs.size()) + ".o", part).string());
  const std::string output = (dir.path() / "library.so").string();
  std::vector<const char*> args = {"ld.lld"};
  for (const char* f : kLinkFlags) args.push_back(f);
  args.push_back("-o");
  args.push_back(output.c_str());
  for (const std::string& in : inputs) args.push_back(in.c_str());

  std::string out, err;
  {
    std::lock_guard lock(g_lld_mu);
    if (g_lld_broken) throw LoadError("link_shared_object: lld failed fatally earlier in this process");
    llvm::raw_string_ostream out_os(out), err_os(err);
    const lld::Result r = run_lld(args, out_os, err_os);
    if (!r.canRunAgain) g_lld_broken = true;
    if (r.retCode != 0) throw LoadError("link_shared_object: lld failed:\n" + err + out);
  }
  return read_back(output);
}

}  // namespace theano::codegen::detail

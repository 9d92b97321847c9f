// Capture and printing of Variable creation sites (see creation_site.h).
// Capture is glibc's backtrace() (return addresses only). Printing maps each
// address to its module with dladdr and asks binutils' addr2line for the
// function and file:line (one addr2line run per module, only when a site is
// printed); without addr2line it falls back to dladdr's symbol names.
#include "theano/graph/creation_site.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "theano/config.h"

namespace theano {
namespace {

thread_local int suppressed = 0;

/// theano's own frames (and the standard library's under them) are not the user's.
bool internal(const std::string& name) {
  // Judge the qualified name only, not the parameter list ("f(theano::Var)" is the user's).
  const std::string head = name.substr(0, name.find('('));
  for (const char* ns : {"theano::", "std::", "boost::", "__gnu_cxx::"})
    if (head.rfind(ns, 0) == 0 || head.find(std::string(" ") + ns) != std::string::npos) return true;
  return head.rfind("__libc_start", 0) == 0 || head == "_start" || head == "??";
}

struct Symbol {
  std::string function, location;
};

/// Symbols of `offsets` in `module` through `addr2line -a -f -C -i -e module`.
/// With -i an address inside inlined code lists the inline chain, innermost
/// first; the last pair is the function the code was inlined into (the
/// caller's own line), which is what a creation site wants. -a prints each
/// address first, delimiting the groups.
std::vector<Symbol> addr2line(const std::string& module, const std::vector<std::uintptr_t>& offsets) {
  std::vector<Symbol> out;
  if (module.find('\'') != std::string::npos) return out;
  std::string cmd = "addr2line -a -f -C -i -e '" + module + "'";
  for (std::uintptr_t o : offsets) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%zx", static_cast<std::size_t>(o));
    cmd += buf;
  }
  cmd += " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::vector<std::string> lines;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::string l = line;
    if (!l.empty() && l.back() == '\n') l.pop_back();
    lines.push_back(std::move(l));
  }
  ::pclose(p);
  for (std::size_t i = 0; i < lines.size();) {
    if (lines[i].rfind("0x", 0) != 0) {
      ++i;
      continue;
    }
    Symbol s;
    std::size_t j = i + 1;
    for (; j + 1 < lines.size() + 1 && j < lines.size() && lines[j].rfind("0x", 0) != 0; j += 2) {
      s.function = lines[j];
      s.location = j + 1 < lines.size() ? lines[j + 1] : "";
    }
    out.push_back(std::move(s));
    i = j;
  }
  return out;
}

}  // namespace

SuppressCreationSites::SuppressCreationSites() { ++suppressed; }
SuppressCreationSites::~SuppressCreationSites() { --suppressed; }

CreationSitePtr capture_creation_site() {
  const int limit = config().traceback_limit;
  if (limit <= 0 || suppressed) return nullptr;
  // theano's frames come first (the operator, make_node, this constructor):
  // capture enough to get past them.
  std::vector<void*> buf(static_cast<std::size_t>(limit) + 32);
  const int n = ::backtrace(buf.data(), static_cast<int>(buf.size()));
  return std::make_shared<const CreationSite>(std::vector<const void*>(buf.begin() + 1, buf.begin() + std::max(n, 1)),
                                              limit);
}

std::string CreationSite::str() const {
  // Group the return addresses by module; addr2line wants module offsets, and
  // an address one byte back, inside the call instruction.
  std::vector<Symbol> symbols(frames_.size());
  std::map<std::string, std::vector<std::size_t>> by_module;
  std::vector<std::uintptr_t> offsets(frames_.size());
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    Dl_info info{};
    if (!::dladdr(frames_[i], &info) || !info.dli_fname) continue;
    offsets[i] = reinterpret_cast<std::uintptr_t>(frames_[i]) - 1 - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    by_module[info.dli_fname].push_back(i);
    if (info.dli_sname) symbols[i].function = info.dli_sname;
  }
  for (const auto& [module, idx] : by_module) {
    std::vector<std::uintptr_t> offs;
    for (std::size_t i : idx) offs.push_back(offsets[i]);
    const std::vector<Symbol> found = addr2line(module, offs);
    for (std::size_t k = 0; k < found.size() && k < idx.size(); ++k)
      if (found[k].function != "??") symbols[idx[k]] = found[k];
  }
  std::ostringstream os;
  int shown = 0;
  for (const Symbol& s : symbols) {
    if (s.function.empty() || internal(s.function)) continue;
    os << "  at " << s.function;
    if (!s.location.empty() && s.location.rfind("??", 0) != 0) os << " (" << s.location << ")";
    os << "\n";
    if (++shown >= limit_ || s.function == "main") break;
  }
  return os.str();
}

}  // namespace theano

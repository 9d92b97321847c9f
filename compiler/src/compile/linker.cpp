/// \file
/// The linker registry and the mode table. The registry is a function-local
/// static (no static-initialisation-order traps); the reference linker is
/// registered the first time the registry is used, later linkers (codegen/)
/// call `register_linker` at start-up.
#include "theano/compile/linker.h"

#include <functional>
#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "theano/config_flags.h"
#include "theano/runtime/error.h"

namespace theano {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, LinkerFactory, std::less<>> factories;
};

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // leaked on purpose: linkers may be made during static destruction
    reg->factories["py"] = [] { return make_perform_linker(); };
    reg->factories["perform"] = [] { return make_perform_linker(); };
    return reg;
  }();
  return *r;
}

std::string join(const std::vector<std::string>& names) {
  std::string r;
  for (const std::string& n : names) r += (r.empty() ? "" : ", ") + n;
  return r;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Mode name -> canonical name. Each mode's optimizer query is
// rewrite::mode_query (optdb_layout.cpp); its linker is chosen by get_mode.
const std::map<std::string, std::string, std::less<>>& mode_aliases() {
  static const std::map<std::string, std::string, std::less<>> m = {
      {"fast_run", "fast_run"}, {"o4", "fast_run"}, {"fast_compile", "fast_compile"}, {"o1", "fast_compile"},
      {"o2", "o2"},             {"o3", "o3"},       {"stabilize", "stabilize"},       {"unsafe", "unsafe"},
      {"unoptimized", "unoptimized"},  // no rewrites (tests, debugging the raw graph)
      {"debugmode", "debugmode"},      // checking modes (debug_mode.h, nan_guard.h): fast_run + checks
      {"nanguardmode", "nanguardmode"},
  };
  return m;
}

}  // namespace

void Thunk::run_refs(std::span<const NDArray* const> inputs, std::span<NDArray> outputs) const {
  std::vector<NDArray> values;
  values.reserve(inputs.size());
  for (const NDArray* v : inputs) values.push_back(*v);
  run(values, outputs);
}

void register_linker(std::string name, LinkerFactory factory) {
  THEANO_USER_CHECK(!name.empty() && factory, ValueError) << "register_linker: a linker needs a name and a factory";
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.factories[std::move(name)] = std::move(factory);
}

std::vector<std::string> registered_linkers() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, f] : r.factories) names.push_back(name);
  return names;
}

std::unique_ptr<Linker> make_linker(std::string_view name) {
  LinkerFactory factory;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.factories.find(name);
    if (it != r.factories.end()) factory = it->second;
  }
  THEANO_USER_CHECK(factory, ValueError) << "unknown linker '" << name
                                         << "'; registered linkers: " << join(registered_linkers());
  return factory();
}

std::vector<std::string> valid_modes() {
  std::vector<std::string> names;
  for (const auto& [alias, canonical] : mode_aliases()) names.push_back(alias);
  return names;
}

Mode get_mode(std::string_view name) {
  std::string requested(name);
  if (requested.empty()) {
    const auto flag = flag_value("mode");
    requested = flag && !flag->empty() ? *flag : "fast_run";
  }
  const auto& aliases = mode_aliases();
  auto it = aliases.find(lower(requested));
  THEANO_USER_CHECK(it != aliases.end(), ValueError)
      << "unknown mode '" << requested << "'; valid modes (case-insensitive): " << join(valid_modes());
  // The JIT linker when codegen/ is linked in (it registers "cpp"), else the
  // reference linker.
  const std::vector<std::string> registered = registered_linkers();
  const bool have_cpp = std::find(registered.begin(), registered.end(), "cpp") != registered.end();
  Mode mode{it->second, have_cpp ? "cpp" : "py"};
  if (const auto linker = flag_value("linker"); linker && !linker->empty()) {
    const std::vector<std::string> linkers = registered_linkers();
    THEANO_USER_CHECK(std::find(linkers.begin(), linkers.end(), *linker) != linkers.end(), ValueError)
        << "THEANO_FLAGS linker='" << *linker << "' is not a registered linker; registered linkers: "
        << join(linkers);
    mode.linker = *linker;
  }
  return mode;
}

}  // namespace theano

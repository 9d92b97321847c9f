/// \file
/// The op registry's storage (theano/graph/op_registry.h): filled by the
/// THEANO_REGISTER_OP registrars during static initialization, read by the
/// rewrite registry's track check and by the registry test.
#include "theano/graph/op_registry.h"

#include <mutex>
#include <set>
#include <string>
#include <typeindex>

#include "theano/runtime/error.h"

namespace theano {

namespace {

struct Registry {
  std::mutex mu;
  std::vector<OpInfo> ops;
  std::set<std::type_index> types;
  std::set<std::string, std::less<>> kinds;
  // A bad registration, reported by the readers: registrars run before main,
  // where an exception could only terminate the program.
  std::string problem;
};
// A function-local static: registrars in other object files run during static
// initialization, in an unspecified order, and may come first.
Registry& registry() {
  static Registry r;
  return r;
}

void check(const Registry& r) { THEANO_USER_CHECK(r.problem.empty(), ValueError) << "op registry: " << r.problem; }

}  // namespace

bool register_op(OpInfo info) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::string why;
  if (info.type == nullptr || !r.types.insert(std::type_index(*info.type)).second)
    why = "op class " + std::string(info.class_name) + " registered twice (THEANO_REGISTER_OP belongs in one .cpp)";
  for (std::string_view k : info.decl.kinds) {
    if (!why.empty()) break;
    if (k.empty() || k.find(':') != std::string_view::npos)
      why = "op class " + std::string(info.class_name) + ": '" + std::string(k) +
            "' is not an op kind (empty, or has a ':')";
    else if (!r.kinds.emplace(k).second)
      why = "op kind '" + std::string(k) + "' registered twice (again by " + std::string(info.class_name) + ")";
  }
  if (!why.empty()) {
    if (r.problem.empty()) r.problem = why;
    return false;
  }
  r.ops.push_back(std::move(info));
  return true;
}

std::vector<OpInfo> registered_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  check(r);
  return r.ops;
}

bool is_registered_op_kind(std::string_view kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  check(r);
  return r.kinds.count(kind) != 0;
}

void add_op_kind(std::string_view kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.kinds.emplace(kind);
}

}  // namespace theano

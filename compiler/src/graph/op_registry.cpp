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
};
// A function-local static: registrars in other object files run during static
// initialization, in an unspecified order, and may come first.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool register_op(OpInfo info) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  THEANO_INTERNAL_CHECK(info.type != nullptr && r.types.insert(std::type_index(*info.type)).second)
      << "op class " << info.class_name << " registered twice (THEANO_REGISTER_OP belongs in one .cpp)";
  for (std::string_view k : info.decl.kinds) {
    THEANO_INTERNAL_CHECK(!k.empty() && k.find(':') == std::string_view::npos)
        << "op class " << info.class_name << ": '" << k << "' is not an op kind (empty, or has a ':')";
    THEANO_INTERNAL_CHECK(r.kinds.emplace(k).second)
        << "op kind '" << k << "' registered twice (again by " << info.class_name << ")";
  }
  r.ops.push_back(std::move(info));
  return true;
}

std::vector<OpInfo> registered_ops() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.ops;
}

bool is_registered_op_kind(std::string_view kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.kinds.count(kind) != 0;
}

void add_op_kind(std::string_view kind) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.kinds.emplace(kind);
}

}  // namespace theano

// The process-wide node -> FunctionGraph registry (see membership.h).
#include "membership.h"

#include <mutex>

#include "theano/runtime/fork_guard.h"
#include <unordered_map>

namespace theano::fgraph_membership {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const void*, const FunctionGraph*> owners;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: graphs may die during static destruction
  return *r;
}

}  // namespace

// Each takes a ForkGuard before the lock (fork_guard.h): graphs are made and
// destroyed outside compiles too (a Function going out of scope).
const FunctionGraph* owner(const void* key) {
  ForkGuard no_fork;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.owners.find(key);
  return it == r.owners.end() ? nullptr : it->second;
}

void claim(const void* key, const FunctionGraph* fg) {
  ForkGuard no_fork;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.owners[key] = fg;
}

// noexcept holds: erase() never allocates, and locking a std::mutex fails
// only for a thread that already holds it (never here: no callback runs under
// it) or for lack of resources a futex does not need.
void release(const void* key, const FunctionGraph* fg) noexcept {
  ForkGuard no_fork;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.owners.find(key);
  if (it != r.owners.end() && it->second == fg) r.owners.erase(it);
}

}  // namespace theano::fgraph_membership

/// \file
/// `Var::eval`: compile once, call many times.
///
/// Cache design: a process-wide LRU table (64 entries, mutex-guarded) keyed by
/// the creation ids of the output variable and of the bound input variables
/// (sorted). Creation ids are never reused, so a dead graph can never be
/// confused with a new one at the same address. The cache holds no reference
/// to the user's output graph: the Function is compiled from a copy of it
/// (clone_replace: the copy shares the leaves, i.e. the bound inputs, shared
/// variables and constants), and the output variable is *watched*
/// (GraphNode::watch): when the user drops the last handle on the graph, its
/// destruction erases the entry, which frees the copy and the Function. So
/// dropping a graph frees it and everything compiled for it, without
/// clear_eval_cache(). (An evaluated leaf, e.g. a shared variable, is the
/// output itself: its entry keeps it until evicted.) Functions leaving the
/// table are destroyed after its lock is released, since their destruction
/// may destroy watched nodes, which takes the lock again. Shared variables are
/// read through their containers at every call, so cached functions always see
/// current values. As in Theano, default updates apply. Unlike Theano (and
/// like PyTensor's usual call `eval(..., on_unused_input="ignore")`), a bound
/// variable that the expression does not need is ignored: one binding can then
/// evaluate several derived expressions (e.g. gradients that lose a variable).
#include <algorithm>
#include <list>
#include <map>
#include <mutex>

#include "theano/compile/function.h"
#include "theano/graph/clone.h"

namespace theano {
namespace {

constexpr std::size_t kEvalCacheCapacity = 64;

struct EvalCache {
  using Key = std::vector<std::uint64_t>;  // output id, then sorted input ids
  using Entries = std::list<std::pair<Key, Function>>;
  std::mutex mu;
  Entries lru;  // most recent first
  std::map<Key, Entries::iterator> index;
};

void forget_output(std::uint64_t id) noexcept;

EvalCache& eval_cache() {
  static EvalCache* c = [] {
    GraphNode::set_death_hook(&forget_output);
    return new EvalCache;  // never destroyed: watched nodes may die during static destruction
  }();
  return *c;
}

// The death hook: erases the entries of a watched output that was destroyed.
// They are destroyed after the lock is released (splice does not allocate).
void forget_output(std::uint64_t id) noexcept {
  EvalCache& cache = eval_cache();
  EvalCache::Entries dead;
  std::lock_guard<std::mutex> lock(cache.mu);
  for (auto it = cache.lru.begin(); it != cache.lru.end();) {
    auto next = std::next(it);
    if (it->first.front() == id) {
      cache.index.erase(it->first);
      dead.splice(dead.end(), cache.lru, it);
    }
    it = next;
  }
  // `dead` is declared before `lock`, so it is destroyed after the unlock.
}

}  // namespace

NDArray Var::eval(const std::vector<std::pair<Var, NDArray>>& inputs) const {
  THEANO_USER_CHECK(p_, ValueError) << "eval: called on a null Var";
  std::vector<std::pair<Var, NDArray>> bound = inputs;
  std::sort(bound.begin(), bound.end(), [](const auto& a, const auto& b) { return a.first.id() < b.first.id(); });
  EvalCache::Key key{id()};
  for (const auto& [v, value] : bound) {
    THEANO_USER_CHECK(v, ValueError) << "eval: a null Var is bound to a value";
    key.push_back(v.id());
  }
  std::vector<NDArray> args;
  for (const auto& [v, value] : bound) args.push_back(value);

  EvalCache& cache = eval_cache();
  Function fn;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.index.find(key);
    if (it != cache.index.end()) {
      cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
      fn = it->second->second;
      found = true;
    }
  }
  if (!found) {
    std::vector<In> ins;
    for (const auto& [v, value] : bound) ins.emplace_back(v);
    FunctionOptions options;
    options.on_unused_input = OnUnusedInput::Ignore;
    // Compiled from a copy, so the Function holds no handle on this graph.
    fn = function(ins, {Out(clone_replace({*this}, {})[0])}, options);
    (*this)->watch();
    EvalCache::Entries evicted;  // destroyed after the unlock (declared before the lock)
    std::lock_guard<std::mutex> lock(cache.mu);
    if (!cache.index.count(key)) {
      cache.lru.emplace_front(key, fn);
      cache.index[key] = cache.lru.begin();
      while (cache.lru.size() > kEvalCacheCapacity) {
        cache.index.erase(cache.lru.back().first);
        evicted.splice(evicted.end(), cache.lru, std::prev(cache.lru.end()));
      }
    }
  }
  return fn(args)[0];
}

void clear_eval_cache() {
  EvalCache& cache = eval_cache();
  EvalCache::Entries dropped;  // destroyed after the unlock
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.index.clear();
  dropped.splice(dropped.end(), cache.lru);
}

std::size_t eval_cache_size() {
  EvalCache& cache = eval_cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.lru.size();
}

}  // namespace theano

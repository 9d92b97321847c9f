/// \file
/// `Var::eval`: compile once, call many times.
///
/// Cache design: a process-wide LRU table (64 entries, mutex-guarded) keyed by
/// the creation ids of the output variable and of the bound input variables
/// (sorted). Creation ids are never reused, so a dead graph can never be
/// confused with a new one at the same address, and the cache holds no strong
/// reference to the user's output graph: the cached Function owns only its own
/// cloned FunctionGraph and handles on the (leaf) input variables. Entries of
/// dead graphs are therefore harmless and are evicted by the LRU bound;
/// `clear_eval_cache()` drops everything. Shared variables are read through
/// their containers at every call, so cached functions always see current
/// values. As in Theano, default updates apply. Unlike Theano (and like
/// PyTensor's usual call `eval(..., on_unused_input="ignore")`), a bound
/// variable that the expression does not need is ignored: one binding can then
/// evaluate several derived expressions (e.g. gradients that lose a variable).
#include <algorithm>
#include <list>
#include <map>
#include <mutex>

#include "theano/compile/function.h"

namespace theano {
namespace {

constexpr std::size_t kEvalCacheCapacity = 64;

struct EvalCache {
  using Key = std::vector<std::uint64_t>;  // output id, then sorted input ids
  std::mutex mu;
  std::list<std::pair<Key, Function>> lru;  // most recent first
  std::map<Key, std::list<std::pair<Key, Function>>::iterator> index;
};

EvalCache& eval_cache() {
  static EvalCache* c = new EvalCache;  // never destroyed: Functions may outlive static destruction order
  return *c;
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
    fn = function(ins, {Out(*this)}, options);
    std::lock_guard<std::mutex> lock(cache.mu);
    if (!cache.index.count(key)) {
      cache.lru.emplace_front(key, fn);
      cache.index[key] = cache.lru.begin();
      while (cache.lru.size() > kEvalCacheCapacity) {
        cache.index.erase(cache.lru.back().first);
        cache.lru.pop_back();
      }
    }
  }
  return fn(args)[0];
}

void clear_eval_cache() {
  EvalCache& cache = eval_cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  cache.index.clear();
  cache.lru.clear();
}

std::size_t eval_cache_size() {
  EvalCache& cache = eval_cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.lru.size();
}

}  // namespace theano

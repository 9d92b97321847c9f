/// \file
/// Function::copy: Theano's Function.copy(share_memory, swap, delete_updates).
/// A copy shares the compiled program and gets its own default values and
/// states; its shared-variable containers are the original's, copies of
/// them, or (swap) another shared variable's. Without updates the program is
/// compiled again (the updates' expressions may be in-place on the shared
/// storage, so skipping their write-back would not leave the values alone).
#include "function_impl.h"
#include "theano/sparse/type.h"
#include "theano/compile/function.h"

namespace theano {
namespace {

using detail::FunctionImpl;

const FunctionImpl& checked(const std::shared_ptr<const FunctionImpl>& impl) {
  THEANO_USER_CHECK(impl, ValueError) << "copy of an empty (default-constructed) Function";
  return *impl;
}

/// `f` without its updates: its request again with no update expressions,
/// each state input keeping the value it has now as a plain default.
Function compile_without_updates(const FunctionImpl& f, const std::vector<std::shared_ptr<SharedStorage>>& defaults) {
  std::vector<In> ins = f.ins;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    ins[i].update = Var();
    if (defaults[i]) ins[i].value = defaults[i]->value;
  }
  std::vector<Out> outs;
  // The user's outputs (a sparse one is compiled as four components, each with its borrow flag).
  for (std::size_t k = 0, at = 0; k < f.user_outputs.size(); ++k) {
    outs.emplace_back(f.user_outputs[k], f.out_borrow[at]);
    at += sparse::sparse_type(f.user_outputs[k]) ? 4 : 1;
  }
  FunctionOptions options = f.options;
  options.updates.clear();
  options.no_default_updates = true;
  // An input only an update read is unused now (Theano's copy ignores it too).
  options.on_unused_input = OnUnusedInput::Ignore;
  return function(ins, outs, options);
}

}  // namespace

const Var& Function::shared_var(std::size_t k) const { return swapped_ ? swapped_->vars[k] : impl_->shared_vars[k]; }

namespace {

/// The Swapped view of `impl` with `vars` standing for its shared variables.
std::shared_ptr<const detail::Swapped> make_swapped(const FunctionImpl& impl, std::vector<Var> vars) {
  auto s = std::make_shared<detail::Swapped>();
  s->updates = impl.updates;
  for (auto& [var, expr] : s->updates)
    for (std::size_t k = 0; k < impl.shared_vars.size(); ++k)
      if (impl.shared_vars[k] == var) var = vars[k];
  s->vars = std::move(vars);
  return s;
}

}  // namespace

Function Function::copy(bool share_memory) const {
  CopyOptions options;
  options.share_memory = share_memory;
  return copy(options);
}

Function Function::copy(const CopyOptions& options) const {
  const FunctionImpl& f = checked(impl_);
  Function r;
  if (options.delete_updates && (!f.updates.empty() || !f.input_updates.empty())) {
    r = compile_without_updates(f, defaults_);
    // Its shared variables are some of this function's: take their containers
    // from here (this function may be a copy or a swapped copy).
    std::vector<Var> vars;
    for (std::size_t k = 0; k < r.shared_.size(); ++k) {
      std::size_t j = 0;
      while (j < impl_->shared_vars.size() && !(impl_->shared_vars[j] == r.impl_->shared_vars[k])) ++j;
      THEANO_INTERNAL_CHECK(j < impl_->shared_vars.size())
          << "copy(delete_updates): shared variable " << r.impl_->shared_vars[k].str() << " is not in the original";
      r.shared_[k] = shared_[j];
      vars.push_back(shared_var(j));
    }
    if (swapped_) r.swapped_ = make_swapped(*r.impl_, std::move(vars));
  } else {
    r = *this;
    for (auto& d : r.defaults_)
      if (d) d = std::make_shared<SharedStorage>(SharedStorage{d->value.copy()});
  }
  if (!options.share_memory)
    for (auto& s : r.shared_) s = std::make_shared<SharedStorage>(SharedStorage{s->value.copy()});
  if (options.swap.empty()) return r;

  std::vector<Var> vars;
  for (std::size_t k = 0; k < r.shared_.size(); ++k) vars.push_back(r.shared_var(k));
  std::vector<char> swapped(vars.size(), 0);
  for (const auto& [from, to] : options.swap) {
    THEANO_USER_CHECK(is_shared(from), TypeError)
        << f.what() << ": copy: swap: " << from.str() << " is not a shared variable";
    THEANO_USER_CHECK(is_shared(to), TypeError)
        << f.what() << ": copy: swap: the replacement of " << from.str() << ", " << to.str()
        << ", is not a shared variable";
    std::size_t k = 0;
    while (k < vars.size() && !(vars[k] == from) && as_shared(vars[k])->storage() != as_shared(from)->storage()) ++k;
    THEANO_USER_CHECK(k < vars.size(), ValueError)
        << f.what() << ": copy: swap: shared variable " << from.str() << " is not used by this function";
    THEANO_USER_CHECK(!swapped[k], ValueError)
        << f.what() << ": copy: swap: shared variable " << from.str() << " is swapped twice";
    THEANO_USER_CHECK(*from.type() == *to.type(), TypeError)
        << f.what() << ": copy: swap: " << from.str() << " has type " << from.type()->str() << " but its replacement "
        << to.str() << " has type " << to.type()->str() << "; a swap needs the same type";
    swapped[k] = 1;
    r.shared_[k] = as_shared(to)->storage();
    vars[k] = to;
  }
  r.swapped_ = make_swapped(*r.impl_, std::move(vars));
  return r;
}

}  // namespace theano

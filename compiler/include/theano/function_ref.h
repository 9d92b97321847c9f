/// \file
/// `FunctionRef<R(Args...)>`: a non-owning reference to a callable, for
/// parameters that are called during the call and not kept (scan's step,
/// verify_grad's function, the graph printers' formatters); and
/// `Callback<R(Args...)>`: an owning, copyable callable for the few that are
/// kept (a linker factory, a printer's condition).
///
/// Why not std::function: these types are in public signatures that every user
/// translation unit sees, and <functional> (which brings <unordered_map>,
/// <array>, <tuple> and the searchers) cost each of them a tenth of its compile
/// (bench/build_time.sh). Both accept anything std::function accepts that can
/// be called as `f(args...)`: lambdas, function pointers, functors, and a
/// std::function itself.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace theano {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  /// Refers to `f`, which must outlive every call through this reference (a
  /// temporary lambda passed as an argument lives until the call returns).
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f) noexcept {  // NOLINT: implicit, as std::function's constructor
    using Fn = std::remove_reference_t<F>;
    if constexpr (std::is_function_v<Fn>) {
      target_.fn = reinterpret_cast<void (*)()>(&f);
      call_ = [](Target t, Args... args) -> R { return reinterpret_cast<Fn*>(t.fn)(std::forward<Args>(args)...); };
    } else {
      target_.obj = const_cast<void*>(static_cast<const void*>(std::addressof(f)));
      call_ = [](Target t, Args... args) -> R { return (*static_cast<Fn*>(t.obj))(std::forward<Args>(args)...); };
    }
  }

  R operator()(Args... args) const { return call_(target_, std::forward<Args>(args)...); }

 private:
  union Target {
    void* obj;
    void (*fn)();
  };
  Target target_;
  R (*call_)(Target, Args...);
};

template <class Signature>
class Callback;

template <class R, class... Args>
class Callback<R(Args...)> {
 public:
  /// Empty: `bool(callback)` is false and calling it is a bug.
  Callback() = default;
  Callback(std::nullptr_t) {}  // NOLINT: implicit, as std::function's
  /// Keeps a copy of `f` (shared by copies of this Callback: `f` is called
  /// through a const reference, so it must not rely on being copied).
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, Callback> && std::is_invocable_r_v<R, const std::decay_t<F>&, Args...>)
  Callback(F&& f)  // NOLINT: implicit, as std::function's constructor
      : impl_(std::make_shared<Impl<std::decay_t<F>>>(std::forward<F>(f))) {}

  R operator()(Args... args) const { return impl_->call(std::forward<Args>(args)...); }
  explicit operator bool() const noexcept { return impl_ != nullptr; }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual R call(Args... args) const = 0;
  };
  template <class F>
  struct Impl final : Base {
    explicit Impl(F f) : f(std::move(f)) {}
    R call(Args... args) const override { return f(std::forward<Args>(args)...); }
    F f;
  };
  std::shared_ptr<const Base> impl_;
};

}  // namespace theano

/// \file
/// The op registry: every Op class of the library registers itself once, in
/// the .cpp that defines its make_node (`THEANO_REGISTER_OP`), with the
/// op kinds (`type_name()` values) it can have and, beside them, the reason
/// for each part it lacks (no grad, no C++ lowering, no CUDA form, ...).
///
/// What reads it: the rewrite registry checks a rewrite's `tracks` against the
/// registered kinds (rewrite/op_kinds.cpp); tests/codegen/test_op_registry.cpp
/// walks every registered class and requires each part or its reason, and
/// fails when a reason is stale (the part exists after all). See
/// docs/adding-an-op.md.
///
/// Registration runs during static initialization of the op's object file.
/// theano_compiler is linked whole-archive (the top-level CMakeLists.txt), so
/// every library op is registered in every program, also the ops it never
/// builds (a rewrite may track them). An op defined outside the library may
/// register itself the same way; a program that links its object file has it.
#pragma once

#include <span>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "theano/graph/op.h"

namespace theano {

/// What a registration states by hand: the kinds and the reasons. An empty
/// reason means "this part exists"; the test holds the op to it.
struct OpDeclaration {
  /// Every value the class's `type_name()` can return (several when it
  /// depends on props: Argmax / Argmin). Left out for a class declared with
  /// THEANO_OP_DECLARE: its one kind is the name declared there. Empty
  /// only for GpuOp, whose kind is "Gpu" + its host op's (see op_kinds.cpp).
  std::vector<std::string_view> kinds;
  std::string_view no_perform;      ///< why there is no reference implementation
  std::string_view no_infer_shape;  ///< why there is no infer_shape
  std::string_view no_grad;         ///< why there is no grad
  std::string_view no_cpp;          ///< why codegen has no C++ lowering (the perform fallback runs)
  std::string_view no_cuda;         ///< why there is no CUDA form of its own
};

/// One registered Op class.
struct OpInfo {
  const std::type_info* type = nullptr;
  std::string_view class_name;  ///< as written in the registration, e.g. "tensor::Softmax"
  OpDeclaration decl;
  // Whether the class (or a base below Op) overrides the member, found by the
  // compiler from the declaration, not stated by hand.
  bool has_perform = false;
  bool has_infer_shape = false;
  bool has_grad = false;
  /// Overrides Op::kernel_form: codegen's generic lowerings compute it, on
  /// the CPU and the GPU (no lowering file of its own).
  bool has_kernel_form = false;
};

/// Adds `info`; returns false, and makes the readers below raise a
/// ValueError naming both, when its class or one of its kinds is already
/// registered (the registrars run before main, where nothing can catch).
bool register_op(OpInfo info);
/// Every registered class, in registration order (a copy: registration may
/// continue while it is read).
std::vector<OpInfo> registered_ops();
/// Whether some registered class has `kind` among its kinds (or
/// rewrite::register_op_kind added it).
bool is_registered_op_kind(std::string_view kind);
/// Adds a kind without a class (rewrite::register_op_kind: ops defined
/// outside the library that rewrites track).
void add_op_kind(std::string_view kind);

namespace detail {
template <class C>
constexpr bool overrides_perform =
    !std::is_same_v<decltype(&C::perform),
                    void (Op::*)(const Apply&, std::span<const NDArray>, std::span<NDArray>) const>;
template <class C>
constexpr bool overrides_infer_shape =
    !std::is_same_v<decltype(&C::infer_shape),
                    std::vector<std::vector<Var>> (Op::*)(const Apply&, const std::vector<std::vector<Var>>&) const>;
template <class C>
constexpr bool overrides_grad =
    !std::is_same_v<decltype(&C::grad), std::vector<Var> (Op::*)(const Apply&, const std::vector<Var>&) const>;

template <class C>
constexpr bool overrides_kernel_form =
    !std::is_same_v<decltype(&C::kernel_form), std::optional<KernelForm> (Op::*)(const KernelSignature&) const>;
template <class C>
OpInfo describe_op(std::string_view class_name, OpDeclaration decl) {
  static_assert(std::is_base_of_v<Op, C>, "THEANO_REGISTER_OP: not an Op");
  if constexpr (requires { C::theano_declared_kind; })
    if (decl.kinds.empty()) decl.kinds = {C::theano_declared_kind};
  return OpInfo{&typeid(C),
                class_name,
                std::move(decl),
                overrides_perform<C>,
                overrides_infer_shape<C>,
                overrides_grad<C>,
                overrides_kernel_form<C>};
}
}  // namespace detail

}  // namespace theano

#define THEANO_OP_REGISTRAR_CAT2(a, b) a##b
#define THEANO_OP_REGISTRAR_CAT(a, b) THEANO_OP_REGISTRAR_CAT2(a, b)

/// Registers Op class CLASS with an OpDeclaration given by designated
/// initializers, at namespace scope in the .cpp defining CLASS::make_node:
///
///     THEANO_REGISTER_OP(Softmax, .no_cuda = "...");
///
/// (`.kinds` is needed only where `type_name()` is not THEANO_OP_DECLARE's
/// literal: THEANO_OP_DECLARE gives it.)
#define THEANO_REGISTER_OP(CLASS, ...)                                                          \
  [[maybe_unused]] static const bool THEANO_OP_REGISTRAR_CAT(theano_op_registered_, __LINE__) = \
      ::theano::register_op(::theano::detail::describe_op<CLASS>(#CLASS, ::theano::OpDeclaration{__VA_ARGS__}))

/// \file
/// Constant folding through `perform`.
///
/// Every node whose inputs are all constants is evaluated once at compile time
/// and replaced by Constants of its outputs' types, except: ops without
/// `perform`, ops that destroy an input, and ops that say they are not
/// `foldable()` (random ops: their value must change between calls;
/// collectives: their value comes from the other processes; Alloc, whose
/// output can be far larger than its inputs; the GPU forms of these). A node
/// whose `perform` raises (a failing Assert on constants) is left alone so
/// the error happens at run time, as written. Nor is a node whose outputs
/// would be large constants grown from small inputs (`eye(500)`, `arange(n)`
/// of a big n, a broadcast of a scalar): over kFoldGrowthLimit bytes and more
/// than its constant inputs hold. Such a constant would be hashed into the
/// compile cache key, written into the cache record (function_record.cpp) and
/// read back by every warm start; the node computing it instead costs one pass
/// over the array a call. A fold that shrinks or keeps the bytes (a sum, a
/// transpose of a big constant) still happens.
#include <string_view>

#include "rewrites.h"
#include "theano/graph/type.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace {

/// Bytes of constant a fold may add beyond its inputs' (64 KiB: 8192 doubles).
constexpr std::int64_t kFoldGrowthLimit = std::int64_t{1} << 16;

/// The bytes of `v`'s value when its type knows every size, else -1.
std::int64_t static_bytes(const Var& v) {
  const auto* t = dynamic_cast<const tensor::TensorType*>(v.type().get());
  if (!t) return -1;
  std::int64_t n = static_cast<std::int64_t>(dtype_size(t->dtype()));
  for (const tensor::Dim& d : t->shape()) {
    if (!d || __builtin_mul_overflow(n, *d, &n)) return -1;
  }
  return n;
}

}  // namespace

// op(c1, c2, ...) -> Constant(op.perform(c1, c2, ...))
NodeRewriterPtr constant_folding() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "constant_folding", {}, "op(c1, c2, ...) -> Constant(perform(c1, c2, ...))",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        if (node.nin() == 0) return RewriteResult::fail("no inputs");
        std::vector<NDArray> args;
        std::int64_t in_bytes = 0;
        for (const Var& in : node.inputs()) {
          const Constant* c = in.as_constant();
          if (!c) return RewriteResult::fail("input " + in.str() + " is not a constant");
          args.push_back(c->data());
          in_bytes += c->data().nbytes();
        }
        // Known before perform where the types give every size (eye, arange and
        // alloc of constant sizes); else checked on perform's results below.
        // Why a fold of `out_bytes` of outputs is refused, or empty.
        const auto too_big = [&](std::int64_t out_bytes) -> std::string {
          if (out_bytes <= kFoldGrowthLimit || out_bytes <= in_bytes) return {};
          return "its output (" + std::to_string(out_bytes) + " bytes) would be a constant far larger than its inputs";
        };
        std::int64_t known_out = 0;
        for (int i = 0; i < node.nout() && known_out >= 0; ++i) {
          const std::int64_t b = static_bytes(node.output(i));
          known_out = b < 0 ? -1 : known_out + b;
        }
        if (const std::string why = known_out >= 0 ? too_big(known_out) : std::string(); !why.empty())
          return RewriteResult::fail(why);
        const Op& op = *node.op();
        std::string_view kind = op.type_name();
        if (!op.has_perform()) return RewriteResult::fail("op has no perform");
        if (!op.destroy_map().empty()) return RewriteResult::fail("op destroys an input");
        if (!op.foldable()) return RewriteResult::fail(std::string(kind) + " is not folded");
        std::vector<NDArray> outs(static_cast<std::size_t>(node.nout()));
        std::vector<Var> repl;
        try {
          op.perform(node, args, outs);
          std::int64_t out_bytes = 0;
          for (const NDArray& v : outs) out_bytes += v.nbytes();
          if (const std::string why = too_big(out_bytes); !why.empty()) return RewriteResult::fail(why);
          for (int i = 0; i < node.nout(); ++i) {
            NDArray v = outs[static_cast<std::size_t>(i)];
            for (const NDArray& a : args)
              if (v.shares_buffer(a)) v = v.copy();
            repl.push_back(node.output(i).type()->make_constant(v));
          }
        } catch (const Error& e) {
          return RewriteResult::fail(std::string("perform raised: ") + e.what());
        }
        return repl;
      });
  return r;
}

}  // namespace theano::rewrite::detail

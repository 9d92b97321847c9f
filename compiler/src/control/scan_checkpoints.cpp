/// \file
/// `scan_checkpoints` (control/scan.h): Theano's gradient checkpointing for
/// scan, built as Theano builds it, on scan itself. The sequences are cut into
/// blocks of N = save_every_N rows (zero-padded to a multiple of N, or
/// asserted to be one); an outer scan walks the blocks, and its step runs the
/// user's step over one block with an inner scan starting from the outer
/// state, returning only the inner scan's last state. So the forward pass
/// stores ceil(n / N) states, and the gradient of the outer scan recomputes
/// each block's states inside its backward step (scan's gradient rebuilds the
/// step's graph, inner scan included, from the stored outer states).
///
/// Each block's step count is min(N, n - b * N), so the last block runs the
/// remainder (Theano patches the last entry of a vector of N's, which fails
/// for zero steps; here zero steps make zero blocks).
#include <algorithm>

#include "scan_parts.h"
#include "theano/control/scan.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/join.h"
#include "theano/tensor/math.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano {

namespace T = tensor;

namespace {

Var i64(std::int64_t v) { return T::constant(NDArray::scalar<std::int64_t>(v)); }

std::string taps_text(const std::vector<std::int64_t>& taps) {
  std::string r = "{";
  for (std::size_t k = 0; k < taps.size(); ++k) r += (k ? ", " : "") + std::to_string(taps[k]);
  return r + "}";
}

/// `s` (n, ...) as (ceil(n / N), N, ...): zero-padded at the end, or, without
/// padding, asserted to be a whole number of blocks.
Var blocks(const Var& s, std::int64_t N, bool padding, const std::string& what) {
  const T::TensorType* t = T::tensor_type(s);
  THEANO_USER_CHECK(t && t->ndim() >= 1, TypeError)
      << what << " (" << s.str() << ") must be a tensor with at least one dimension to iterate over, got "
      << s.type()->str();
  const int nd = t->ndim();
  const Var len = T::shape_i(s, 0);
  Var full = s;
  if (padding) {
    std::vector<T::TensorLike> pad_shape{T::mod(T::sub(i64(N), T::mod(len, i64(N))), i64(N))};
    for (int d = 1; d < nd; ++d) pad_shape.emplace_back(T::shape_i(s, d));
    full = T::join(0, {s, T::zeros(pad_shape, t->dtype())});
  } else {
    full = T::assert_op(
        s, {T::eq(T::mod(len, i64(N)), i64(0))},
        what + ": without padding its length must be a multiple of save_every_N (" + std::to_string(N) + "), got {}",
        {len});
  }
  std::vector<Var> dims{T::int_div(T::shape_i(full, 0), i64(N)), i64(N)};
  for (int d = 1; d < nd; ++d) dims.push_back(T::shape_i(full, d));
  return T::reshape(full, T::make_vector(dims, DType::Int64), nd + 1);
}

}  // namespace

ScanResult scan_checkpoints(const StepFn& step, const ScanArgs& args) {
  return detail::scan_checkpoints(step, detail::kVectorStep, args);
}

ScanResult detail::scan_checkpoints(const StepFn& step, std::size_t arity, const ScanArgs& args) {
  const std::string& nm = args.name();
  const std::int64_t N = args.save_every_N().value_or(10);
  const bool padding = args.padding().value_or(true);
  THEANO_USER_CHECK(N >= 1, ValueError) << nm << ": save_every_N is " << N << "; it must be >= 1";
  THEANO_USER_CHECK(!args.go_backwards(), ValueError) << nm << ": scan_checkpoints does not support go_backwards";
  THEANO_USER_CHECK(args.truncate_gradient() == -1, ValueError)
      << nm << ": scan_checkpoints does not support truncate_gradient (it is " << args.truncate_gradient() << ")";
  const std::vector<SeqInfo>& seqs = args.sequences();
  for (std::size_t s = 0; s < seqs.size(); ++s)
    THEANO_USER_CHECK(seqs[s].taps == std::vector<std::int64_t>{0}, ValueError)
        << nm << ": scan_checkpoints takes no taps, but sequence " << s << " has taps " << taps_text(seqs[s].taps);
  const std::vector<OutputInfo>& outs = args.outputs_info();
  for (std::size_t k = 0; k < outs.size(); ++k)
    THEANO_USER_CHECK(!outs[k].initial || outs[k].taps == std::vector<std::int64_t>{-1}, ValueError)
        << nm << ": scan_checkpoints takes no taps, but output " << k << " has taps " << taps_text(outs[k].taps);

  // The number of steps: given, else what the sequences allow.
  Var n = args.n_steps();
  if (n) {
    n = detail::checked_n_steps(n, nm);
  } else {
    THEANO_USER_CHECK(!seqs.empty(), ValueError)
        << nm << ": without sequences the number of steps must be given (ScanArgs::n_steps)";
    for (const SeqInfo& s : seqs) {
      THEANO_USER_CHECK(s.value, ValueError) << nm << ": a sequence is null";
      const Var len = T::cast(T::shape_i(T::as_tensor_variable(s.value), 0), DType::Int64);
      n = n ? T::minimum(n, len) : len;
    }
  }
  // Blocks: ceil(n / N) of them, block b running min(N, n - b N) steps.
  const Var n_blocks = T::int_div(T::add(n, i64(N - 1)), i64(N));
  const Var block_steps = T::minimum(i64(N), T::sub(n, T::mul(T::arange(n_blocks, DType::Int64), i64(N))));

  std::vector<SeqInfo> outer_seqs;
  for (std::size_t s = 0; s < seqs.size(); ++s) {
    THEANO_USER_CHECK(seqs[s].value, ValueError) << nm << ": sequence " << s << " is null";
    outer_seqs.emplace_back(
        blocks(T::as_tensor_variable(seqs[s].value), N, padding, nm + ": sequence " + std::to_string(s)));
  }
  outer_seqs.emplace_back(block_steps);
  const std::size_t ns = seqs.size();
  std::size_t nr = 0;
  for (const OutputInfo& o : outs) nr += o.initial ? 1 : 0;

  // The user's step may not stop early: the outer scan would still run every block.
  const auto no_until = [&](const std::vector<Var>& a) {
    StepResult r = step(a);
    THEANO_USER_CHECK(!r.until, ValueError) << nm << ": scan_checkpoints does not support an until condition";
    return r;
  };
  auto outer_step = [&](const std::vector<Var>& a) -> StepResult {
    const std::vector<SeqInfo> inner_seqs(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(ns));
    const Var& steps = a[ns];
    std::vector<OutputInfo> inner_outs;
    std::size_t at = ns + 1;
    for (const OutputInfo& o : outs) inner_outs.push_back(o.initial ? OutputInfo(a[at++]) : OutputInfo::none());
    const std::vector<Var> inner_nonseqs(a.begin() + static_cast<std::ptrdiff_t>(ns + 1 + nr), a.end());
    const ScanResult r = detail::scan(no_until, arity,
                                      ScanArgs()
                                          .sequences(inner_seqs)
                                          .outputs_info(inner_outs)
                                          .non_sequences(inner_nonseqs)
                                          .n_steps(steps)
                                          .strict(args.strict())
                                          .name(nm + "_inner"));
    std::vector<Var> last;  // each block runs at least one step
    for (const Var& o : r.outputs) last.push_back(T::subtensor(o, {T::Index(std::int64_t{-1})}));
    return StepResult(std::move(last), r.updates);
  };
  return theano::scan(outer_step, ScanArgs()
                                      .sequences(outer_seqs)
                                      .outputs_info(outs)
                                      .non_sequences(args.non_sequences())
                                      .n_steps(n_blocks)
                                      .name(nm + "_outer"));
}

}  // namespace theano

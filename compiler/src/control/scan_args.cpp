/// \file
/// ScanArgs' named setters and StepResult's conversions (control/scan.h):
/// kept here so the public header declares them only. The values are
/// checked by scan(), which knows the scan's name for its errors.
#include <limits>

#include "theano/control/scan.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"

namespace theano {

ScanArgs& ScanArgs::sequences(const Var& sequence) { return sequences(std::vector<SeqInfo>{SeqInfo(sequence)}); }
ScanArgs& ScanArgs::sequences(SeqInfo sequence) { return sequences(std::vector<SeqInfo>{std::move(sequence)}); }
ScanArgs& ScanArgs::sequences(std::vector<SeqInfo> sequences) {
  sequences_ = std::move(sequences);
  return *this;
}

ScanArgs& ScanArgs::outputs_info(const Var& initial) {
  return outputs_info(std::vector<OutputInfo>{OutputInfo(initial)});
}
ScanArgs& ScanArgs::outputs_info(OutputInfo output) { return outputs_info(std::vector<OutputInfo>{std::move(output)}); }
ScanArgs& ScanArgs::outputs_info(std::vector<OutputInfo> outputs) {
  outputs_info_ = std::move(outputs);
  return *this;
}

ScanArgs& ScanArgs::non_sequences(const Var& value) { return non_sequences(std::vector<Var>{value}); }
ScanArgs& ScanArgs::non_sequences(std::vector<Var> values) {
  non_sequences_ = std::move(values);
  return *this;
}

ScanArgs& ScanArgs::n_steps(const Var& n) {
  n_steps_ = n;
  return *this;
}
ScanArgs& ScanArgs::n_steps_signed(long long n) {
  // A negative count becomes a constant too: scan() reports it with the scan's name.
  return n_steps(tensor::constant(NDArray::scalar<std::int64_t>(static_cast<std::int64_t>(n))));
}
ScanArgs& ScanArgs::n_steps_unsigned(unsigned long long n) {
  THEANO_USER_CHECK(n <= static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()), ValueError)
      << "ScanArgs::n_steps: " << n << " steps do not fit in int64";
  return n_steps_signed(static_cast<long long>(n));
}

ScanArgs& ScanArgs::go_backwards(bool backwards) {
  go_backwards_ = backwards;
  return *this;
}
ScanArgs& ScanArgs::truncate_gradient(std::int64_t steps) {
  truncate_gradient_ = steps;
  return *this;
}
ScanArgs& ScanArgs::name(std::string name) {
  name_ = std::move(name);
  return *this;
}
ScanArgs& ScanArgs::strict(bool strict) {
  strict_ = strict;
  return *this;
}
ScanArgs& ScanArgs::save_every_N(std::int64_t n) {
  save_every_N_ = n;
  return *this;
}
ScanArgs& ScanArgs::padding(bool pad) {
  padding_ = pad;
  return *this;
}

StepResult::StepResult(Var output) : outputs{std::move(output)} {}
StepResult::StepResult(std::vector<Var> outputs_, Updates updates_, Var until_)
    : outputs(std::move(outputs_)), updates(std::move(updates_)), until(std::move(until_)) {}
StepResult::StepResult(Updates updates_) : updates(std::move(updates_)) {}

}  // namespace theano

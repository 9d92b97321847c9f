/// \file
/// PerformLinker: the reference VM ("py"). It precomputes, for the toposort of
/// a FunctionGraph, a flat program of steps (storage slots of each node's
/// inputs and outputs, the slots to release after it, the inputs to protect
/// from an in-place op). `run` allocates one storage vector per call, so a
/// Thunk is stateless and shareable.
///
/// Why a flat program: the per-call work is then one loop over steps with no
/// hashing, and freeing intermediates is a precomputed list per step (the
/// "allow_gc" behaviour of Theano's VM). The order is the lazy schedule
/// (compile/lazy_schedule.h): a node only one branch of an IfElse needs is
/// skipped when that branch is not taken.
#include <new>
#include <sstream>
#include <unordered_map>

#include "theano/compile/lazy_schedule.h"
#include "theano/compile/linker.h"
#include "theano/control/ifelse.h"
#include "theano/fgraph/function_graph.h"
#include "theano/runtime/error.h"
#include "theano/runtime/memory_error.h"

namespace theano {
namespace {

struct Step {
  Apply* node;
  std::vector<int> in_slots;
  std::vector<int> out_slots;
  std::vector<int> release;   // slots whose last client is this node
  std::vector<bool> destroyed;  // per input: the op overwrites it (destroy_map)
  /// The node runs iff each (condition slot, truth) holds, tested in order
  /// (lazy_schedule: only the taken branch of an IfElse runs).
  std::vector<std::pair<int, bool>> guard;
};

std::string shape_str(const NDArray& a) {
  if (!a.defined()) return "<no value>";
  return shape_to_string(a.shape());
}

class PerformThunk final : public Thunk {
 public:
  PerformThunk(std::shared_ptr<const FunctionGraph> fg, const LinkOptions& options)
      : fg_(std::move(fg)), observer_(options.observer) {
    const FunctionGraph& fg_ref = *fg_;
    std::unordered_map<const Variable*, int> slot;
    auto slot_of = [&](const Var& v) {
      auto [it, fresh] = slot.try_emplace(v.get(), static_cast<int>(slot.size()));
      if (fresh && v.is_constant()) constants_.emplace_back(it->second, v.as_constant()->data());
      return it->second;
    };
    const auto& inputs = fg_ref.inputs();
    for (const Var& in : inputs) slot_of(in);
    const LazySchedule schedule = lazy_schedule(fg_ref);
    const std::vector<Apply*>& order = schedule.order;
    for (std::size_t t = 0; t < order.size(); ++t) {
      Apply* node = order[t];
      THEANO_USER_CHECK(node->op()->has_perform(), MethodNotDefined)
          << "PerformLinker: op " << node->op()->name() << " (node " << *node
          << ") has no reference implementation (perform); use a mode whose linker can compile it";
      Step s{node, {}, {}, {}, {}, {}};
      for (const LazySchedule::Term& term : schedule.guards[t])
        s.guard.emplace_back(slot_of(order[term.ifelse]->input(0)), term.truth);
      const ViewMap destroy = node->op()->destroy_map();
      std::vector<bool> destroyed(static_cast<std::size_t>(node->nin()), false);
      for (const auto& [out, ins] : destroy)
        for (int i : ins)
          if (i >= 0 && i < node->nin()) destroyed[static_cast<std::size_t>(i)] = true;
      for (int i = 0; i < node->nin(); ++i) {
        const Var& in = node->input(i);
        s.in_slots.push_back(slot_of(in));
        s.destroyed.push_back(destroyed[static_cast<std::size_t>(i)]);
      }
      for (int j = 0; j < node->nout(); ++j) s.out_slots.push_back(slot_of(node->output(j)));
      steps_.push_back(std::move(s));
    }
    for (const Var& out : fg_ref.outputs()) output_slots_.push_back(slot_of(out));
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (!(k < options.mutable_inputs.size() && options.mutable_inputs[k])) protected_slots_.push_back(static_cast<int>(k));
    for (const auto& [sl, value] : constants_) protected_slots_.push_back(sl);
    n_slots_ = static_cast<int>(slot.size());

    // Release each intermediate after its last client. Graph inputs, constants
    // and outputs are never released.
    std::vector<int> last_use(static_cast<std::size_t>(n_slots_), -1);
    for (std::size_t k = 0; k < steps_.size(); ++k)
      for (int sl : steps_[k].in_slots) last_use[static_cast<std::size_t>(sl)] = static_cast<int>(k);
    std::vector<bool> keep(static_cast<std::size_t>(n_slots_), false);
    for (std::size_t i = 0; i < inputs.size(); ++i) keep[i] = true;
    for (const auto& [sl, value] : constants_) keep[static_cast<std::size_t>(sl)] = true;
    for (int sl : output_slots_) keep[static_cast<std::size_t>(sl)] = true;
    for (int sl = 0; sl < n_slots_; ++sl) {
      if (keep[static_cast<std::size_t>(sl)]) continue;
      const int k = last_use[static_cast<std::size_t>(sl)];
      if (k >= 0) steps_[static_cast<std::size_t>(k)].release.push_back(sl);
    }
    // Outputs nobody reads (other outputs of a multi-output node) die right away.
    for (std::size_t k = 0; k < steps_.size(); ++k)
      for (int sl : steps_[k].out_slots)
        if (!keep[static_cast<std::size_t>(sl)] && last_use[static_cast<std::size_t>(sl)] < 0)
          steps_[k].release.push_back(sl);
  }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    const auto& fg_inputs = fg_->inputs();
    THEANO_INTERNAL_CHECK(inputs.size() == fg_inputs.size())
        << "PerformLinker: " << inputs.size() << " input values for " << fg_inputs.size() << " graph inputs";
    THEANO_INTERNAL_CHECK(outputs.size() == output_slots_.size())
        << "PerformLinker: " << outputs.size() << " output slots for " << output_slots_.size() << " graph outputs";
    std::vector<NDArray> storage(static_cast<std::size_t>(n_slots_));
    // perform computes on host values: a device array (a GPU shared variable's
    // value) is downloaded (gpu/type.h).
    for (std::size_t i = 0; i < inputs.size(); ++i)
      storage[i] = inputs[i].defined() && !inputs[i].on_host() ? inputs[i].to_host() : inputs[i];
    for (const auto& [sl, value] : constants_) storage[static_cast<std::size_t>(sl)] = value;
    std::vector<NDArray> in_values, out_values;
    for (std::size_t k = 0; k < steps_.size(); ++k) {
      const Step& s = steps_[k];
      if (!guard_holds(s, storage)) {  // a branch not taken
        for (int sl : s.release) storage[static_cast<std::size_t>(sl)] = NDArray();
        continue;
      }
      in_values.clear();
      for (std::size_t i = 0; i < s.in_slots.size(); ++i) {
        const NDArray& v = storage[static_cast<std::size_t>(s.in_slots[i])];
        in_values.push_back(s.destroyed[i] && aliases_protected(v, storage) ? v.copy() : v);
      }
      out_values.assign(s.out_slots.size(), NDArray());
      std::vector<NDArray> before;  // for the observer (checking modes)
      if (observer_ && observer_->wants_inputs_before())
        for (const NDArray& v : in_values) before.push_back(v.defined() ? v.copy() : v);
      try {
        s.node->op()->perform(*s.node, in_values, out_values);
        for (std::size_t j = 0; j < out_values.size(); ++j) {
          THEANO_USER_CHECK(out_values[j].defined(), InternalError)
              << "op " << s.node->op()->name() << " did not produce output " << j << " (this is a bug in the op)";
          out_values[j] = s.node->output(static_cast<int>(j)).type()->filter(out_values[j], /*strict=*/true);
        }
      } catch (Error& e) {
        e.add_context(context(k, in_values));  // same exception type, more context
        throw;
      } catch (const std::bad_alloc&) {  // an op's own container: out of memory, as NDArray::empty says it
        throw MemoryError(std::string("op ") + s.node->op()->name() + ": out of memory\n" + context(k, in_values));
      } catch (const std::exception& e) {
        throw InternalError(std::string("op raised a non-theano exception: ") + e.what() + "\n" +
                            context(k, in_values));
      }
      if (observer_) observer_->after_node(NodeRun{k, *s.node, in_values, before, out_values});
      for (std::size_t j = 0; j < s.out_slots.size(); ++j)
        storage[static_cast<std::size_t>(s.out_slots[j])] = std::move(out_values[j]);
      for (int sl : s.release) storage[static_cast<std::size_t>(sl)] = NDArray();
    }
    for (std::size_t i = 0; i < output_slots_.size(); ++i)
      outputs[i] = storage[static_cast<std::size_t>(output_slots_[i])];
  }

 private:
  static bool guard_holds(const Step& s, const std::vector<NDArray>& storage) {
    for (const auto& [sl, truth] : s.guard)
      if (IfElse::truth(storage[static_cast<std::size_t>(sl)]) != truth) return false;
    return true;
  }

  // A destroyed value that is (or views) a protected graph input or a constant
  // is copied first: the caller's arrays, shared values and constants are never
  // written in place.
  bool aliases_protected(const NDArray& v, const std::vector<NDArray>& storage) const {
    for (int sl : protected_slots_) {
      const NDArray& p = storage[static_cast<std::size_t>(sl)];
      if (p.defined() && v.defined() && v.shares_buffer(p)) return true;
    }
    return false;
  }

  std::string context(std::size_t k, const std::vector<NDArray>& values) const {
    const Apply& node = *steps_[k].node;
    std::ostringstream os;
    os << "Apply node that caused the error: " << node << "\nToposort index: " << k << "\nInputs types: [";
    for (int i = 0; i < node.nin(); ++i) os << (i ? ", " : "") << node.input(i).type()->str();
    os << "]\nInputs shapes: [";
    for (std::size_t i = 0; i < values.size(); ++i) os << (i ? ", " : "") << shape_str(values[i]);
    os << "]\nInputs strides: [";
    for (std::size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : "") << (values[i].defined() ? shape_to_string(values[i].strides()) : "<no value>");
    os << "]";
    if (const std::string note = creation_note(node); !note.empty()) os << "\n" << note;
    return os.str();
  }

  std::shared_ptr<const FunctionGraph> fg_;
  std::shared_ptr<const NodeObserver> observer_;
  std::vector<std::pair<int, NDArray>> constants_;
  std::vector<Step> steps_;
  std::vector<int> output_slots_;
  std::vector<int> protected_slots_;
  int n_slots_ = 0;
};

class PerformLinker final : public Linker {
 public:
  std::string_view name() const override { return "py"; }
  std::unique_ptr<Thunk> make_thunk(std::shared_ptr<const FunctionGraph> fgraph,
                                    const LinkOptions& options) const override {
    return std::make_unique<PerformThunk>(std::move(fgraph), options);
  }
};

}  // namespace

std::unique_ptr<Linker> make_perform_linker() { return std::make_unique<PerformLinker>(); }

}  // namespace theano

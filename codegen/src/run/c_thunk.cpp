// The host Thunk of generated code (c_thunk.h): the pool of per-call
// workspaces (workspace.h), the context each call hands generated code (its
// callbacks: host_callbacks.h; its kernels: host_kernels.h) and the run
// loop, whole-graph or node by node (OpWise, for profiles and the checking
// modes).
#include "c_thunk.h"

#include <theano/compile/profile.h>
#include <theano/gpu/type.h>
#include <theano/runtime/error.h>
#include <theano/runtime/memory_error.h>
#include <theano/runtime/thread_pool.h>
#include <theano/tensor/basic_ops.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "../thunk_abi.h"
#include "cuda/gpu_device.h"
#include "host_callbacks.h"
#include "host_kernels.h"
#include "workspace.h"

namespace theano::codegen {
namespace {

using tensor::TensorType;
using namespace detail;

// What the thunk needs of a variable's type, from the compiler's types (the
// lowerings' helpers are the emit stage's, not the run stage's).
bool on_gpu(const Var& v) { return gpu::gpu_type(v) != nullptr; }

/// The host TensorType of a graph input: its own, or a GPU array's host twin
/// (interned, so the pointer stays valid).
const TensorType* host_type(const Var& v) {
  if (const TensorType* t = tensor::tensor_type(v)) return t;
  const gpu::GpuArrayType* g = gpu::gpu_type(v);
  THEANO_INTERNAL_CHECK(g != nullptr) << "the cpp linker expects tensor or GPU array variables";
  return g->host_type().get();
}


/// The host value of a generated-code array: a download for a GPU array
/// (any strides: a view is fetched by the byte range it spans, device_copy.h).
NDArray host_value(const Workspace& ws, const TheanoArray& a, bool gpu) {
  NDArray v = as_ndarray(ws, a);
  return gpu ? v.to_host() : v;
}

class CThunk final : public Thunk {
 public:
  CThunk(ThunkSignature signature, LoadedModule module, ThunkParts parts)
      : sig_(std::move(signature)),
        module_(std::move(module)),
        constants_(std::move(parts.constants)),
        nslots_(static_cast<std::size_t>(parts.nslots)),
        copy_inputs_(std::move(parts.copy_inputs)),
        fallback_(std::move(parts.fallback)),
        opwise_(parts.opwise),
        profile_(parts.profile),
        threads_(parts.threads),
        nvars_(static_cast<std::size_t>(parts.nvars)),
        stats_(std::move(parts.stats)),
        observer_(std::move(parts.observer)),
        step_in_(std::move(parts.step_in)),
        step_out_(std::move(parts.step_out)),
        step_nodes_(std::move(parts.step_nodes)),
        gpu_(std::move(parts.gpu)),
        tier_(std::move(parts.tier)) {
    if (opwise_) {
      step_ = module_.function<int (*)(TheanoContext*, std::int64_t)>("theano_step");
      finish_ = module_.function<int (*)(TheanoContext*)>("theano_finish");
      for (std::string& l : parts.labels) stats_.nodes.push_back({std::move(l), 0.0, 0});
    } else {
      entry_ = module_.function<int (*)(TheanoContext*)>("theano_entry");
    }
    for (const Var& v : sig_.inputs) {
      in_types_.push_back(host_type(v));
      in_gpu_.push_back(on_gpu(v));
    }
    if (gpu_) gpu_device_ = gpu_->device().device();
    const std::int64_t base = static_cast<std::int64_t>(sig_.inputs.size());
    for (std::size_t j = 0; j < constants_.size(); ++j)
      const_desc_.push_back(describe(constants_[j], base + static_cast<std::int64_t>(j)));
  }

  ~CThunk() override { delete spare_.load(); }
  CThunk(const CThunk&) = delete;
  CThunk& operator=(const CThunk&) = delete;

  ThunkStats stats() const override {
    ThunkStats s;
    {
      std::lock_guard<std::mutex> lock(stats_mutex_);
      s = stats_;
    }
    if (tier_) {
      std::lock_guard<std::mutex> lock(tier_->mu);
      s.tier = tier_->state;
    }
    return s;
  }
  std::vector<NDArray> constant_values() const override { return constants_; }
  void set_load_ms(double ms) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.load_ms = ms;
  }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    std::vector<const NDArray*> refs;
    refs.reserve(inputs.size());
    for (const NDArray& v : inputs) refs.push_back(&v);
    run_refs(refs, outputs);
  }

  void run_refs(std::span<const NDArray* const> inputs, std::span<NDArray> outputs) const override {
    THEANO_USER_CHECK(inputs.size() == in_types_.size(), ValueError)
        << "the compiled function takes " << in_types_.size() << " inputs, got " << inputs.size();
    THEANO_USER_CHECK(outputs.size() == sig_.noutputs, ValueError)
        << "the compiled function has " << sig_.noutputs << " outputs, got room for " << outputs.size();
    std::unique_ptr<Workspace> ws = acquire();
    struct Release {  // however the call ends: the workspace emptied, back to the pool
      const CThunk* self;
      std::unique_ptr<Workspace>& ws;
      ~Release() {
        self->finish_call(*ws);
        self->release(std::move(ws));
      }
    } release{this, ws};
    ws->in_desc.resize(inputs.size());
    ws->out_desc.resize(outputs.size());
    // (input_copies never reallocates: refs point into it)
    ws->input_copies.reserve(copy_inputs_.size() + inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const TensorType& t = *in_types_[i];
      THEANO_USER_CHECK(inputs[i]->defined() && inputs[i]->dtype() == t.dtype() && inputs[i]->ndim() == t.ndim(),
                        TypeError)
          << "input " << i << " (" << sig_.inputs[i].str() << ") must be a " << t.str() << " value";
      ws->refs.push_back(inputs[i]);
      if (!in_gpu_[i]) {
        THEANO_USER_CHECK(inputs[i]->on_host(), TypeError)
            << "input " << i << " (" << sig_.inputs[i].str() << ") must be a host array, got an array on the GPU "
            << inputs[i]->device().str() << " (call to_host() on it)";
        continue;
      }
      // A GPU input: the value on this function's device, C-contiguous (the
      // transfers and the observers' downloads copy whole buffers); a host
      // value is uploaded for this call.
      const NDArray& v = *inputs[i];
      if (v.device() != gpu_device_ || !v.is_c_contiguous()) {
        ws->input_copies.push_back(v.to(gpu_device_).contiguous());
        ws->refs[i] = &ws->input_copies.back();
      }
    }
    for (std::size_t i : copy_inputs_) {  // protected, overwritten in place: work on a copy
      ws->input_copies.push_back(ws->refs[i]->copy());
      ws->refs[i] = &ws->input_copies.back();
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      describe_into(ws->in_desc[i], *ws->refs[i], static_cast<std::int64_t>(i));
    for (const NDArray& c : constants_) ws->refs.push_back(&c);
    char error[2048];
    error[0] = 0;
    TheanoContext ctx{ws->in_desc.data(),
                      ws->out_desc.data(),
                      const_desc_.data(),
                      ws.get(),
                      &host_alloc,
                      error,
                      sizeof error,
                      &host_perform,
                      nullptr,
                      &parallel_for,
                      threads_,
                      &host_gpu_alloc,
                      &host_gpu_copy,
                      &host_gpu_launch,
                      &host_gpu_gemm,
                      &host_collective,
                      &host_release,
                      &host_gpu_lapack,
                      detail::host_kernels(),
                      &host_gpu_gemm_batched};
    const int rc = opwise_ ? run_opwise(ctx, *ws) : this->entry()(&ctx);
    if (rc != 0) {
      std::string msg(error);
      ws->clear();
      // The message starts with the failing node's label, "node <k> (...)":
      // add where the user created that node's outputs, when recorded.
      std::size_t k = 0;
      if (std::sscanf(msg.c_str(), "node %zu (", &k) == 1) {
        if (k < step_nodes_.size())
          if (const std::string note = creation_note(*step_nodes_[k]); !note.empty()) msg += "\n" + note;
      }
      if (rc == THEANO_ERR_HOST && ws->host_error) {
        std::exception_ptr e = std::exchange(ws->host_error, nullptr);
        std::rethrow_exception(e);
      }
      switch (rc) {
        case THEANO_ERR_SHAPE:
          throw ShapeError(msg);
        case THEANO_ERR_INDEX:
          throw IndexError(msg);
        case THEANO_ERR_VALUE:
          throw ValueError(msg);
        case THEANO_ERR_MEMORY:
          throw MemoryError(msg);
        case THEANO_ERR_ASSERT:
          throw AssertionError(msg);
        default:
          throw InternalError("generated code returned error code " + std::to_string(rc) + ": " + msg);
      }
    }
    for (std::size_t o = 0; o < outputs.size(); ++o) outputs[o] = take_output(*ws, o);
  }

  /// Empties a call's workspace and keeps the most arrays it held (peak_arrays).
  void finish_call(Workspace& ws) const noexcept {
    ws.clear();
    std::size_t peak = peak_arrays_.load(std::memory_order_relaxed);
    while (ws.peak_allocs > peak && !peak_arrays_.compare_exchange_weak(peak, ws.peak_allocs)) {
    }
    ws.peak_allocs = 0;
  }

  /// Output `o` of a finished call: the array the call allocated for it,
  /// moved out of the workspace (no copy of its shape and strides) when it
  /// is that whole array and no later output uses it; else as_ndarray.
  static NDArray take_output(Workspace& ws, std::size_t o) {
    const TheanoArray& a = ws.out_desc[o];
    const auto owner = static_cast<std::size_t>(a.owner);
    if (a.owner < 0 || owner < ws.refs.size() || owner >= ws.refs.size() + ws.allocs.size())
      return as_ndarray(ws, a);
    for (std::size_t k = o + 1; k < ws.out_desc.size(); ++k)
      if (ws.out_desc[k].owner == a.owner) return as_ndarray(ws, a);
    NDArray& base = ws.allocs[owner - ws.refs.size()];
    if (!is_whole(base, a)) return as_ndarray(ws, a);
    return std::move(base);
  }

  /// The most arrays one call of this thunk held at once (peak_arrays).
  std::size_t peak_arrays() const { return peak_arrays_.load(std::memory_order_relaxed); }

 private:
  /// Runs the nodes one by one (timing each when profiling), then the outputs.
  int run_opwise(TheanoContext& ctx, Workspace& ws) const {
    TheanoArray unset{};
    unset.owner = -1;  // no value: a node an IfElse guard skipped
    ws.vars.assign(nvars_, unset);
    ctx.vars = ws.vars.data();
    const std::size_t n = stats_.nodes.size();
    std::vector<double> seconds(profile_ ? n : 0);
    int rc = 0;
    std::size_t t = 0;
    for (; t < n && rc == 0; ++t) {
      std::vector<NDArray> before;  // the observer's copies of the inputs
      const Apply& node = *step_nodes_[t];
      if (observer_ && observer_->wants_inputs_before())
        before = step_arrays(ws, step_in_[t], node.inputs(), /*copy=*/true);
      if (!profile_) {
        rc = step_(&ctx, static_cast<std::int64_t>(t));
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        rc = step_(&ctx, static_cast<std::int64_t>(t));
        seconds[t] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      if (rc == THEANO_STEP_SKIPPED) {
        rc = 0;
        continue;  // a branch not taken: nothing ran, nothing to observe
      }
      if (rc == 0 && observer_) {
        const std::vector<NDArray> in = step_arrays(ws, step_in_[t], node.inputs(), false),
                                   out = step_arrays(ws, step_out_[t], node.outputs(), false);
        observer_->after_node(NodeRun{t, node, in, before, out});
      }
    }
    if (profile_) {
      std::lock_guard<std::mutex> lock(stats_mutex_);
      for (std::size_t k = 0; k < t; ++k) {
        stats_.nodes[k].seconds += seconds[k];
        ++stats_.nodes[k].calls;
      }
    }
    return rc != 0 ? rc : finish_(&ctx);
  }

  /// The arrays a node read or wrote (`vars`), as host NDArrays (copies when
  /// asked; GPU arrays are always downloaded).
  std::vector<NDArray> step_arrays(const Workspace& ws, const std::vector<ArrayRef>& refs, const std::vector<Var>& vars,
                                   bool copy) const {
    std::vector<NDArray> r;
    for (std::size_t k = 0; k < refs.size(); ++k) {
      const ArrayRef& a = refs[k];
      const auto i = static_cast<std::size_t>(a.index);
      const TheanoArray& d = a.kind == 'i' ? ws.in_desc[i] : a.kind == 'c' ? const_desc_[i] : ws.vars[i];
      if (d.owner < 0) {  // the branch of an IfElse not taken
        r.emplace_back();
        continue;
      }
      const bool gpu = on_gpu(vars[k]);
      NDArray v = host_value(ws, d, gpu);
      r.push_back(copy && !gpu ? v.copy() : std::move(v));
    }
    return r;
  }

  std::unique_ptr<Workspace> acquire() const {
    // The common case, one caller at a time: the spare workspace, no lock.
    if (Workspace* w = spare_.exchange(nullptr, std::memory_order_acquire)) return std::unique_ptr<Workspace>(w);
    {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (!pool_.empty()) {
        std::unique_ptr<Workspace> ws = std::move(pool_.back());
        pool_.pop_back();
        return ws;
      }
    }
    auto ws = std::make_unique<Workspace>();
    ws->slot_buffers.resize(nslots_);
    ws->slot_bytes.assign(nslots_, 0);
    ws->refs.reserve(in_types_.size() + constants_.size());
    ws->allocs.reserve(16);
    ws->fallback = &fallback_;
    ws->gpu = gpu_.get();
    ws->gpu_slot_blocks.resize(nslots_);
    ws->gpu_slot_bytes.assign(nslots_, 0);
    return ws;
  }
  /// The code calls run: the optimized entry once tiered compilation loaded it.
  int (*entry() const)(TheanoContext*) {
    if (tier_)
      if (TierSlot::Entry optimized = tier_->entry.load(std::memory_order_acquire)) return optimized;
    return entry_;
  }
  void release(std::unique_ptr<Workspace> ws) const noexcept {
    Workspace* expected = nullptr;
    if (spare_.compare_exchange_strong(expected, ws.get(), std::memory_order_release)) {
      (void)ws.release();
      return;
    }
    try {
      std::lock_guard<std::mutex> lock(pool_mutex_);
      if (pool_.size() < 4) pool_.push_back(std::move(ws));
    } catch (...) {
    }
  }

  ThunkSignature sig_;
  LoadedModule module_;
  std::vector<NDArray> constants_;
  std::vector<TheanoArray> const_desc_;
  std::vector<const TensorType*> in_types_;
  std::vector<bool> in_gpu_;  // per input: a GPU array (its value lives on gpu_device_)
  Device gpu_device_;
  std::size_t nslots_;
  std::vector<std::size_t> copy_inputs_;
  std::vector<const Apply*> fallback_;
  bool opwise_;
  bool profile_;
  std::int64_t threads_;
  std::size_t nvars_;
  mutable std::mutex stats_mutex_;
  mutable ThunkStats stats_;
  std::shared_ptr<const NodeObserver> observer_;
  std::vector<std::vector<ArrayRef>> step_in_, step_out_;
  std::vector<const Apply*> step_nodes_;
  std::shared_ptr<const cuda::GpuProgram> gpu_;
  std::shared_ptr<TierSlot> tier_;
  int (*entry_)(TheanoContext*) = nullptr;
  int (*step_)(TheanoContext*, std::int64_t) = nullptr;
  int (*finish_)(TheanoContext*) = nullptr;
  mutable std::atomic<std::size_t> peak_arrays_{0};
  mutable std::atomic<Workspace*> spare_{nullptr};  // owned; taken without a lock
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<Workspace>> pool_;
};

}  // namespace

std::size_t peak_arrays(const Thunk& thunk) {
  const auto* c = dynamic_cast<const CThunk*>(&thunk);
  return c ? c->peak_arrays() : 0;
}

std::unique_ptr<Thunk> make_c_thunk(ThunkSignature signature, LoadedModule module, ThunkParts parts,
                                    std::chrono::steady_clock::time_point load_start) {
  auto thunk = std::make_unique<CThunk>(std::move(signature), std::move(module), std::move(parts));
  thunk->set_load_ms(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count());
  return thunk;
}

std::unique_ptr<Thunk> make_c_thunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, ThunkParts parts,
                                    std::chrono::steady_clock::time_point load_start) {
  ThunkSignature signature{fg->inputs(), fg->outputs().size(), fg};
  return make_c_thunk(std::move(signature), std::move(module), std::move(parts), load_start);
}

}  // namespace theano::codegen

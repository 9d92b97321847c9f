// The host Thunk of generated code (c_thunk.h): describing arrays to the
// thunk ABI, the per-call workspaces, the host callbacks (perform fallback,
// allocation of outputs into planned slots) and the run loop, whole-graph or
// node by node (OpWise, for profiles and the checking modes).
#include "c_thunk.h"

#include <theano/compile/profile.h>
#include <theano/gpu/type.h>
#include <theano/runtime/collectives.h>
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
#include <new>
#include <utility>
#include <vector>

#include "../thunk_abi.h"
#include "host_kernels.h"
#include "cuda/gpu_device.h"

namespace theano::codegen {
namespace {

using tensor::TensorType;

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

TheanoArray describe(const NDArray& a, std::int64_t owner) {
  TheanoArray d{};
  d.data = static_cast<char*>(a.address());  // a device address for a GPU array
  d.ndim = a.ndim();
  d.dtype = static_cast<std::int64_t>(a.dtype());
  d.owner = owner;
  for (int i = 0; i < a.ndim(); ++i) {
    d.shape[i] = a.shape()[static_cast<std::size_t>(i)];
    d.strides[i] = a.strides()[static_cast<std::size_t>(i)];
  }
  return d;
}

/// What one call needs besides the inputs: the planned slot buffers (kept
/// between calls), the table of arrays the generated code refers to by
/// `owner`, and the descriptor arrays. A thunk keeps a few of these in a pool,
/// so concurrent calls (of copies of a Function) never share one.
struct Workspace {
  std::vector<std::shared_ptr<std::byte[]>> slot_buffers;
  std::vector<std::size_t> slot_bytes;
  // Arrays by `owner` index: inputs and constants (not copied: pointers to the
  // caller's arrays), then the arrays allocated during the call.
  std::vector<const NDArray*> refs;
  std::vector<NDArray> allocs;
  std::vector<NDArray> input_copies;  // protected inputs an op overwrites
  std::size_t peak_allocs = 0;  // the most arrays `allocs` held at once during the call
  std::int64_t next_owner() const { return static_cast<std::int64_t>(refs.size() + allocs.size()); }
  void note_peak() { peak_allocs = std::max(peak_allocs, allocs.size()); }
  const NDArray& owner_array(std::int64_t owner) const {
    const auto o = static_cast<std::size_t>(owner);
    return o < refs.size() ? *refs[o] : allocs[o - refs.size()];
  }
  void clear() {
    note_peak();
    refs.clear();
    allocs.clear();
    input_copies.clear();
  }
  std::vector<TheanoArray> in_desc, out_desc;
  std::vector<TheanoArray> vars;                        // OpWise: node outputs
  const std::vector<const Apply*>* fallback = nullptr;  // the thunk's perform-fallback nodes
  std::exception_ptr host_error;                        // what a fallback perform or a GPU callback threw
  const cuda::GpuProgram* gpu = nullptr;                // the function's kernels (GPU functions)
  std::vector<std::shared_ptr<void>> gpu_slot_blocks;   // planned slots of GPU intermediates
  std::vector<std::size_t> gpu_slot_bytes;
};

/// The NDArray a generated-code array stands for (a view into its owner's buffer).
NDArray as_ndarray(const Workspace& ws, const TheanoArray& a) {
  THEANO_INTERNAL_CHECK(a.owner >= 0 && a.owner < ws.next_owner()) << "generated code passed an array with no owner";
  const NDArray& base = ws.owner_array(a.owner);
  const auto nd = static_cast<std::size_t>(a.ndim);
  if (a.data == static_cast<const char*>(base.address()) && static_cast<DType>(a.dtype) == base.dtype() &&
      std::equal(a.shape, a.shape + nd, base.shape().begin(), base.shape().end()) &&
      std::equal(a.strides, a.strides + nd, base.strides().begin(), base.strides().end()))
    return base;
  return NDArray::from_strided(base.owner(), a.data, static_cast<DType>(a.dtype),
                               std::vector<std::int64_t>(a.shape, a.shape + nd),
                               std::vector<std::int64_t>(a.strides, a.strides + nd), base.device());
}

int host_perform(void* host, std::int64_t index, const TheanoArray* const* in, TheanoArray* const* out) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    const Apply& node = *(*ws->fallback)[static_cast<std::size_t>(index)];
    std::vector<NDArray> inputs, outputs(static_cast<std::size_t>(node.nout()));
    for (int i = 0; i < node.nin(); ++i) inputs.push_back(as_ndarray(*ws, *in[i]));
    node.op()->perform(node, inputs, outputs);
    for (int k = 0; k < node.nout(); ++k) {
      NDArray& v = outputs[static_cast<std::size_t>(k)];
      TheanoArray& d = *out[k];
      const auto* t = tensor::tensor_type(node.output(k));
      THEANO_INTERNAL_CHECK(v.defined() && v.dtype() == t->dtype() && v.ndim() == t->ndim())
          << node.op()->name() << ".perform returned a value that does not match output " << k << "'s type "
          << t->str();
      const TheanoArray desc = describe(v, ws->next_owner());
      std::copy(std::begin(desc.shape), std::end(desc.shape), d.shape);
      std::copy(std::begin(desc.strides), std::end(desc.strides), d.strides);
      d.data = desc.data;
      d.owner = desc.owner;
      ws->allocs.push_back(std::move(v));
    }
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

/// The memory-plan slot generated code asks for, checked against the thunk's
/// (the count may come from a function record, read back from disk).
std::size_t checked_slot(std::int64_t slot, std::size_t nslots) {
  THEANO_INTERNAL_CHECK(slot >= 0 && static_cast<std::uint64_t>(slot) < nslots)
      << "generated code asked for memory-plan slot " << slot << " of a plan with " << nslots
      << " slots (a function record that does not match its compiled object?)";
  return static_cast<std::size_t>(slot);
}

int host_alloc(void* host, TheanoArray* a, std::int64_t slot) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    if (a->ndim < 0 || a->ndim > THEANO_MAX_NDIM) return 1;
    std::vector<std::int64_t> shape(a->shape, a->shape + a->ndim);
    const DType dt = static_cast<DType>(a->dtype);
    NDArray arr;
    if (slot < 0) {
      arr = NDArray::empty(std::move(shape), dt);
    } else {
      const std::size_t s = checked_slot(slot, ws->slot_bytes.size());
      // The rule generated code checked before calling (shape_rules.h), again:
      // the host never trusts a size it is handed.
      std::int64_t n = 0, bad = 0;
      const int rule = theano_shape_size(shape.data(), a->ndim, static_cast<std::int64_t>(dtype_size(dt)), &n, &bad);
      if (rule != THEANO_RULE_OK) return 1;
      const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(dt);
      if (ws->slot_bytes[s] < bytes || !ws->slot_buffers[s]) {
        // 64-byte aligned like NDArray::empty; at least one element.
        const std::size_t want = std::max<std::size_t>(bytes, 64);
        ws->slot_buffers[s] =
            std::shared_ptr<std::byte[]>(static_cast<std::byte*>(::operator new[](want, std::align_val_t{64})),
                                         [](std::byte* p) { ::operator delete[](p, std::align_val_t{64}); });
        ws->slot_bytes[s] = want;
      }
      std::vector<std::int64_t> strides(shape.size());
      std::int64_t st = static_cast<std::int64_t>(dtype_size(dt));
      for (std::size_t d = shape.size(); d-- > 0;) {
        strides[d] = st;
        st *= std::max<std::int64_t>(shape[d], 1);
      }
      arr = NDArray::from_strided(std::shared_ptr<void>(ws->slot_buffers[s], ws->slot_buffers[s].get()),
                                  ws->slot_buffers[s].get(), dt, std::move(shape), std::move(strides));
    }
    a->data = static_cast<char*>(arr.data());
    for (int i = 0; i < a->ndim; ++i) a->strides[i] = arr.strides()[static_cast<std::size_t>(i)];
    a->owner = ws->next_owner();
    ws->allocs.push_back(std::move(arr));
    return 0;
  } catch (const InternalError&) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  } catch (...) {
    return 1;
  }
}

std::int64_t host_release(void* host, std::int64_t keep) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  ws->note_peak();
  if (keep >= 0 && static_cast<std::uint64_t>(keep) < ws->allocs.size())
    ws->allocs.resize(static_cast<std::size_t>(keep));  // NDArray's move-only resize never throws when shrinking
  return static_cast<std::int64_t>(ws->allocs.size());
}

/// C-order byte strides of `a`'s shape, written into `a`; its size in bytes.
std::size_t set_c_strides(TheanoArray* a) {
  std::int64_t st = static_cast<std::int64_t>(dtype_size(static_cast<DType>(a->dtype)));
  for (std::int64_t d = a->ndim; d-- > 0;) {
    a->strides[d] = st;
    st *= std::max<std::int64_t>(a->shape[d], 1);
  }
  return static_cast<std::size_t>(st);
}

bool c_contiguous(const TheanoArray& a) {
  std::int64_t expect = static_cast<std::int64_t>(dtype_size(static_cast<DType>(a.dtype)));
  for (std::int64_t d = a.ndim; d-- > 0;) {
    if (a.shape[d] == 1) continue;
    if (a.strides[d] != expect) return false;
    expect *= a.shape[d];
  }
  return true;
}

/// GPU memory for `a` (ndim, dtype, shape set; the size rule already
/// checked by generated code, checked again here): C-order strides, a
/// fresh block or the planned slot's.
int host_gpu_alloc(void* host, TheanoArray* a, std::int64_t slot) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    THEANO_INTERNAL_CHECK(ws->gpu && a->ndim >= 0 && a->ndim <= THEANO_MAX_NDIM) << "bad GPU allocation request";
    const DType dt = static_cast<DType>(a->dtype);
    std::int64_t n = 0, bad = 0;
    const int rule = theano_shape_size(a->shape, a->ndim, static_cast<std::int64_t>(dtype_size(dt)), &n, &bad);
    THEANO_INTERNAL_CHECK(rule == THEANO_RULE_OK) << "GPU allocation of an invalid shape";
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(dt);
    std::shared_ptr<void> block;
    if (slot < 0) {
      block = ws->gpu->device().allocate(bytes);
    } else {
      const std::size_t s = checked_slot(slot, ws->gpu_slot_bytes.size());
      if (ws->gpu_slot_bytes[s] < bytes || !ws->gpu_slot_blocks[s]) {
        ws->gpu_slot_blocks[s] = ws->gpu->device().allocate(bytes);
        ws->gpu_slot_bytes[s] = bytes;
      }
      block = ws->gpu_slot_blocks[s];
    }
    set_c_strides(a);
    a->data = static_cast<char*>(block.get());
    a->owner = ws->next_owner();
    // A device array: returned as such when it is an output of the function.
    ws->allocs.push_back(NDArray::from_strided(block, block.get(), dt,
                                               std::vector<std::int64_t>(a->shape, a->shape + a->ndim),
                                               std::vector<std::int64_t>(a->strides, a->strides + a->ndim),
                                               ws->gpu->device().device()));
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

/// dst <- src between host and GPU (direction 0: to the GPU, 1: to the host).
int host_gpu_copy(void* host, TheanoArray* dst, const TheanoArray* src, std::int64_t direction) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    std::int64_t n = 1;  // an existing array's size passed the shape rule when it was made
    for (std::int64_t d = 0; d < src->ndim; ++d) n *= src->shape[d];
    if (n == 0) return 0;  // (the strides of an empty array are arbitrary)
    const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(static_cast<DType>(src->dtype));
    THEANO_INTERNAL_CHECK(c_contiguous(*dst)) << "a transfer into a non-contiguous array";
    if (direction == 0) {
      const NDArray h = as_ndarray(*ws, *src).contiguous();
      ws->gpu->device().copy_to_device(dst->data, h.data(), bytes);
    } else {
      // HostFromGpu gathers a non-contiguous view into a contiguous GPU
      // buffer before it calls this (emit/lower/gpu.cpp).
      THEANO_INTERNAL_CHECK(c_contiguous(*src)) << "a transfer from a non-contiguous GPU array";
      try {
        ws->gpu->device().copy_to_host(dst->data, src->data, bytes);
      } catch (const Error& e) {
        // Launches are asynchronous: a kernel that failed earlier is reported here.
        throw Error(std::string("copying a GPU result to the host failed (a kernel launched before it may have "
                                "failed): ") +
                    e.what());
      }
    }
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

int host_gpu_launch(void* host, std::int64_t kernel, std::int64_t n, const std::int64_t* params,
                    std::int64_t nparams) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    ws->gpu->launch(kernel, n, params, nparams);
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

int host_gpu_gemm(void* host, std::int64_t dtype, std::int64_t trans_a, std::int64_t trans_b, std::int64_t m,
                  std::int64_t n, std::int64_t k, double alpha, const char* a, std::int64_t lda, const char* b,
                  std::int64_t ldb, double beta, char* c, std::int64_t ldc) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    ws->gpu->device().gemm(static_cast<DType>(dtype), trans_a != 0, trans_b != 0, m, n, k, alpha, a, lda, b, ldb,
                           beta, c, ldc);
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

int host_gpu_lapack(void* host, std::int64_t routine, std::int64_t dtype, std::int64_t flags, std::int64_t n,
                    std::int64_t nrhs, char* a, std::int64_t lda, char* b, std::int64_t ldb, char* ipiv,
                    char* info) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    ws->gpu->device().lapack(static_cast<int>(routine), static_cast<DType>(dtype), flags, n, nrhs, a, lda, b, ldb,
                             ipiv, info);
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

int host_collective(void* host, std::int64_t kind, std::int64_t comm, std::int64_t root, const TheanoArray* in,
                    TheanoArray* out, const char* label) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    // rank / size have no input: generated code passes the output for both,
    // or (allgather's size query) a 0-d array of its own stack, owner -1.
    auto wrap = [&](const TheanoArray& a) {
      if (a.owner >= 0) return as_ndarray(*ws, a);
      const auto nd = static_cast<std::size_t>(a.ndim);
      return NDArray::from_strided(nullptr, a.data, static_cast<DType>(a.dtype),
                                   std::vector<std::int64_t>(a.shape, a.shape + nd),
                                   std::vector<std::int64_t>(a.strides, a.strides + nd));
    };
    const NDArray x = wrap(*in);
    NDArray y = wrap(*out);
    runtime::run_collective(static_cast<runtime::Collective>(kind), comm, root, x, y, label);
    return 0;
  } catch (...) {
    ws->host_error = std::current_exception();
    return THEANO_ERR_HOST;
  }
}

/// The host value of a generated-code array: a download for a GPU array
/// (any strides: a view is fetched by the byte range it spans, device_copy.h).
NDArray host_value(const Workspace& ws, const TheanoArray& a, bool gpu) {
  NDArray v = as_ndarray(ws, a);
  return gpu ? v.to_host() : v;
}

class CThunk final : public Thunk {
 public:
  CThunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, ThunkParts parts)
      : fg_(std::move(fg)),
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
        gpu_(std::move(parts.gpu)) {
    if (opwise_) {
      step_ = module_.function<int (*)(TheanoContext*, std::int64_t)>("theano_step");
      finish_ = module_.function<int (*)(TheanoContext*)>("theano_finish");
      for (std::string& l : parts.labels) stats_.nodes.push_back({std::move(l), 0.0, 0});
    } else {
      entry_ = module_.function<int (*)(TheanoContext*)>("theano_entry");
    }
    for (const Var& v : fg_->inputs()) {
      in_types_.push_back(host_type(v));
      in_gpu_.push_back(on_gpu(v));
    }
    if (gpu_) gpu_device_ = gpu_->device().device();
    const std::int64_t base = static_cast<std::int64_t>(fg_->inputs().size());
    for (std::size_t j = 0; j < constants_.size(); ++j)
      const_desc_.push_back(describe(constants_[j], base + static_cast<std::int64_t>(j)));
  }

  ~CThunk() override { delete spare_.load(); }
  CThunk(const CThunk&) = delete;
  CThunk& operator=(const CThunk&) = delete;

  ThunkStats stats() const override {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    return stats_;
  }
  std::vector<NDArray> constant_values() const override { return constants_; }
  void set_load_ms(double ms) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    stats_.load_ms = ms;
  }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    THEANO_USER_CHECK(inputs.size() == in_types_.size(), ValueError)
        << "the compiled function takes " << in_types_.size() << " inputs, got " << inputs.size();
    THEANO_USER_CHECK(outputs.size() == fg_->outputs().size(), ValueError)
        << "the compiled function has " << fg_->outputs().size() << " outputs, got room for " << outputs.size();
    std::unique_ptr<Workspace> ws = acquire();
    struct Release {
      const CThunk* self;
      std::unique_ptr<Workspace>& ws;
      ~Release() { self->release(std::move(ws)); }
    } release{this, ws};
    ws->clear();
    ws->in_desc.resize(inputs.size());
    ws->out_desc.resize(outputs.size());
    // (input_copies never reallocates: refs point into it)
    ws->input_copies.reserve(copy_inputs_.size() + inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const TensorType& t = *in_types_[i];
      THEANO_USER_CHECK(inputs[i].defined() && inputs[i].dtype() == t.dtype() && inputs[i].ndim() == t.ndim(),
                        TypeError)
          << "input " << i << " (" << fg_->inputs()[i].str() << ") must be a " << t.str() << " value";
      ws->refs.push_back(&inputs[i]);
      if (!in_gpu_[i]) {
        THEANO_USER_CHECK(inputs[i].on_host(), TypeError)
            << "input " << i << " (" << fg_->inputs()[i].str() << ") must be a host array, got an array on the GPU "
            << inputs[i].device().str() << " (call to_host() on it)";
        continue;
      }
      // A GPU input: the value on this function's device, C-contiguous (the
      // transfers and the observers' downloads copy whole buffers); a host
      // value is uploaded for this call.
      const NDArray& v = inputs[i];
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
      ws->in_desc[i] = describe(*ws->refs[i], static_cast<std::int64_t>(i));
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
                      detail::host_kernels()};
    const int rc = opwise_ ? run_opwise(ctx, *ws) : entry_(&ctx);
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
    for (std::size_t o = 0; o < outputs.size(); ++o) outputs[o] = as_ndarray(*ws, ws->out_desc[o]);
    ws->clear();
    std::size_t peak = peak_arrays_.load(std::memory_order_relaxed);
    while (ws->peak_allocs > peak && !peak_arrays_.compare_exchange_weak(peak, ws->peak_allocs)) {
    }
    ws->peak_allocs = 0;
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

  std::shared_ptr<const FunctionGraph> fg_;
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

std::unique_ptr<Thunk> make_c_thunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, ThunkParts parts,
                                    std::chrono::steady_clock::time_point load_start) {
  auto thunk = std::make_unique<CThunk>(std::move(fg), std::move(module), std::move(parts));
  thunk->set_load_ms(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count());
  return thunk;
}

}  // namespace theano::codegen

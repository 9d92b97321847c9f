// The host side of TheanoContext's callbacks (host_callbacks.h): the
// perform fallback, allocation into the memory plan's slots, the GPU's
// allocation, copies, launches and library calls, and the collectives.
#include "host_callbacks.h"

#include <theano/graph/basic.h>
#include <theano/graph/op.h>
#include <theano/runtime/collectives.h>
#include <theano/runtime/error.h>
#include <theano/runtime/kernels/shape_rules.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "cuda/gpu_device.h"
#include "workspace.h"

namespace theano::codegen::detail {
namespace {

/// The memory-plan slot generated code asks for, checked against the thunk's
/// (the count may come from a function record, read back from disk).
std::size_t checked_slot(std::int64_t slot, std::size_t nslots) {
  THEANO_INTERNAL_CHECK(slot >= 0 && static_cast<std::uint64_t>(slot) < nslots)
      << "generated code asked for memory-plan slot " << slot << " of a plan with " << nslots
      << " slots (a function record that does not match its compiled object?)";
  return static_cast<std::size_t>(slot);
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

/// C-contiguous for its dtype's elements.
bool c_contiguous(const TheanoArray& a) {
  return theano_c_contiguous_rule(a.shape, a.strides, a.ndim,
                                  static_cast<std::int64_t>(dtype_size(static_cast<DType>(a.dtype)))) != 0;
}

}  // namespace

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

int host_gpu_gemm_batched(void* host, std::int64_t dtype, std::int64_t trans_a, std::int64_t trans_b, std::int64_t m,
                          std::int64_t n, std::int64_t k, double alpha, const char* a, std::int64_t lda,
                          std::int64_t stride_a, const char* b, std::int64_t ldb, std::int64_t stride_b, double beta,
                          char* c, std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) noexcept {
  auto* ws = static_cast<Workspace*>(host);
  try {
    ws->gpu->device().gemm_batched(static_cast<DType>(dtype), trans_a != 0, trans_b != 0, m, n, k, alpha, a, lda,
                                   stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch);
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

}  // namespace theano::codegen::detail

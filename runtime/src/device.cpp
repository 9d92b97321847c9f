// Device names, the GPU back end's DeviceMemory registry (device.h), and the
// array copies across devices (device_copy.h).
#include "theano/runtime/device.h"

#include <atomic>
#include <cstring>

#include "device_copy.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano {

std::string Device::str() const {
  switch (kind) {
    case DeviceKind::CPU:
      return "cpu";
    case DeviceKind::CUDA:
      return "cuda" + std::to_string(index);
    case DeviceKind::Emulated:
      return "emulated";
  }
  return "unknown";
}

bool Device::parse(std::string_view text, Device* out) {
  Device d;
  if (text == "cpu") {
    d = cpu();
  } else if (text == "emulated") {
    d = emulated();
  } else {
    if (text.size() < 5 || text.size() > 7 || text.substr(0, 4) != "cuda") return false;
    if (text.size() > 5 && text[4] == '0') return false;  // "cuda01"
    int n = 0;
    for (std::size_t i = 4; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      n = n * 10 + (text[i] - '0');
    }
    d = cuda(n);
  }
  if (out) *out = d;
  return true;
}

namespace {
std::atomic<DeviceMemoryProvider> g_provider{nullptr};
}  // namespace

void register_device_memory_provider(DeviceMemoryProvider provider) { g_provider.store(provider); }

DeviceMemory& device_memory(const Device& device) {
  THEANO_USER_CHECK(!device.is_cpu(), ValueError) << "device_memory: the CPU is not a GPU device";
  const DeviceMemoryProvider p = g_provider.load();
  THEANO_USER_CHECK(p != nullptr, ValueError)
      << "no GPU back end is linked into this program, so arrays cannot move to " << device.str()
      << " (link theano::codegen, which provides the CUDA and emulated devices)";
  DeviceMemory* m = p(device, /*open=*/true);
  THEANO_INTERNAL_CHECK(m != nullptr) << "the GPU back end opened no memory for " << device.str();
  return *m;
}

DeviceMemory* opened_device_memory(const Device& device) {
  const DeviceMemoryProvider p = g_provider.load();
  return device.is_cpu() || !p ? nullptr : p(device, /*open=*/false);
}

namespace detail {

/// The byte offsets, relative to element [0,...,0], of the lowest byte and one
/// past the highest byte that `a`'s elements span (a non-empty array).
void byte_span(const NDArray& a, int64_t* lo, int64_t* hi) {
  int64_t l = 0, h = 0;
  for (int d = 0; d < a.ndim(); ++d) {
    int64_t span = 0;
    const int64_t n = a.shape()[static_cast<std::size_t>(d)] - 1;
    const bool ok = theano_checked_mul(a.strides()[static_cast<std::size_t>(d)], n, &span) == THEANO_RULE_OK &&
                    theano_checked_add(span < 0 ? l : h, span, span < 0 ? &l : &h) == THEANO_RULE_OK;
    THEANO_USER_CHECK(ok, ValueError) << "the strides of an array of shape " << shape_to_string(a.shape()) << " on "
                                      << a.device().str() << " span more than 2^63 bytes";
  }
  THEANO_USER_CHECK(theano_checked_add(h, static_cast<int64_t>(a.itemsize()), hi) == THEANO_RULE_OK, ValueError)
      << "the strides of an array of shape " << shape_to_string(a.shape()) << " span more than 2^63 bytes";
  *lo = l;
}

namespace {

/// A C-contiguous host copy of device array `a`.
NDArray download(const NDArray& a) {
  DeviceMemory& mem = device_memory(a.device());
  if (a.size() == 0) return NDArray::empty(a.shape(), a.dtype());
  if (a.is_c_contiguous()) {
    NDArray h = NDArray::empty(a.shape(), a.dtype());
    mem.copy_to_host(h.data(), a.address(), static_cast<std::size_t>(a.nbytes()));
    return h;
  }
  // A strided view: fetch the bytes its elements span, view them with the same
  // strides on the host, compact that.
  int64_t lo = 0, hi = 0;
  byte_span(a, &lo, &hi);
  NDArray bytes = NDArray::empty({hi - lo}, DType::UInt8);
  mem.copy_to_host(bytes.data(), static_cast<const std::byte*>(a.address()) + lo, static_cast<std::size_t>(hi - lo));
  auto* first = static_cast<std::byte*>(bytes.data()) - lo;
  return NDArray::from_strided(bytes.owner(), first, a.dtype(), a.shape(), a.strides()).copy();
}

/// A C-contiguous copy of host array `h` on GPU `to`.
NDArray upload(const NDArray& h, const Device& to) {
  NDArray out = NDArray::empty(h.shape(), h.dtype(), to);
  if (h.size() == 0) return out;
  const NDArray c = h.contiguous();
  device_memory(to).copy_to_device(out.address(), c.data(), static_cast<std::size_t>(c.nbytes()));
  return out;
}

}  // namespace

NDArray copy_device_array(const NDArray& a, const Device& to) {
  if (a.on_host()) return to.is_cpu() ? a.copy() : upload(a, to);
  if (to == a.device() && a.is_c_contiguous()) {
    NDArray out = NDArray::empty(a.shape(), a.dtype(), to);
    if (a.size() > 0)
      device_memory(to).copy_on_device(out.address(), a.address(), static_cast<std::size_t>(a.nbytes()));
    return out;
  }
  NDArray h = download(a);
  return to.is_cpu() ? h : upload(h, to);
}

}  // namespace detail
}  // namespace theano

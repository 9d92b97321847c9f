// NDArray core: allocation, factories, element access, layout queries, and the
// converting copy loops (copy, astype, assign, fill).
#include "theano/runtime/ndarray.h"

#include "theano/runtime/buffer_cache.h"

#include <complex>
#include <functional>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <ostream>
#include <sstream>

#include "device_copy.h"
#include "strided_loop.h"
#include "theano/runtime/memory_error.h"
#include "theano/runtime/scalar_cast.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano {
namespace {

// Product of `shape`, checking the rank, that entries are >= 0 and that the
// byte size and strides fit in int64 (shape_rules.h, shared with generated code).
int64_t checked_size(const std::vector<int64_t>& shape, std::size_t itemsize) {
  THEANO_USER_CHECK(shape.size() <= THEANO_MAX_NDIM, TypeError)
      << "arrays have at most " << THEANO_MAX_NDIM << " dimensions, got shape " << shape_to_string(shape) << " ("
      << shape.size() << " dimensions)";
  int64_t n = 0, bad = 0;
  const int rule = theano_shape_size(shape.data(), static_cast<int64_t>(shape.size()),
                                     static_cast<int64_t>(itemsize), &n, &bad);
  if (rule != THEANO_RULE_OK) throw_shape_rule(rule, "array of shape " + shape_to_string(shape), bad);
  return n;
}

std::shared_ptr<void> allocate(std::size_t bytes) { return allocate_buffer(bytes); }

// Converts every element of src (strided) into dst (same shape, strided).
void convert_into(std::byte* dst, DType dst_dtype, const std::vector<int64_t>& dst_strides,
                  const std::byte* src, DType src_dtype, const std::vector<int64_t>& src_strides,
                  const std::vector<int64_t>& shape) {
  visit_dtype(dst_dtype, [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    visit_dtype(src_dtype, [&](auto stag) {
      using S = typename decltype(stag)::type;
      detail::for_each_pair(shape, dst, dst_strides, src, src_strides,
                            [](const std::byte* d, const std::byte* s) {
                              S v;
                              std::memcpy(&v, s, sizeof(S));
                              const D r = scalar_cast<D>(v);
                              std::memcpy(const_cast<std::byte*>(d), &r, sizeof(D));
                            });
    });
  });
}

}  // namespace

std::string out_of_memory_message(std::string_view what, const std::vector<int64_t>& shape, DType dtype,
                                  std::size_t bytes) {
  return std::string(what) + ": out of memory: cannot allocate " + std::to_string(bytes) + " bytes for a " +
         std::string(dtype_name(dtype)) + " array of shape " + shape_to_string(shape);
}

std::string shape_to_string(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << '(';
  for (std::size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) os << ',';
  os << ')';
  return os.str();
}

int64_t NDArray::size() const {
  int64_t n = 1;
  for (int64_t s : shape_) n *= s;
  return n;
}

std::vector<int64_t> NDArray::c_strides(const std::vector<int64_t>& shape, std::size_t itemsize) {
  std::vector<int64_t> st(shape.size());
  int64_t s = static_cast<int64_t>(itemsize);
  for (std::size_t i = shape.size(); i-- > 0;) {
    st[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

std::vector<int64_t> NDArray::f_strides(const std::vector<int64_t>& shape, std::size_t itemsize) {
  std::vector<int64_t> st(shape.size());
  int64_t s = static_cast<int64_t>(itemsize);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    st[i] = s;
    s *= std::max<int64_t>(shape[i], 1);
  }
  return st;
}

void NDArray::check_defined(const char* what) const {
  THEANO_USER_CHECK(defined_, ValueError) << what << "() called on a null NDArray handle";
}

void NDArray::throw_not_on_host(const char* what) const {
  throw ValueError(std::string(what) + "(): the array lives on the GPU " + device_.str() + " (shape " +
                   shape_to_string(shape_) + ", " + std::string(dtype_name(dtype_)) +
                   "); its elements cannot be read or written on the host: call to_host() for a host copy");
}

void NDArray::check_element_type(DType requested) const {
  check_defined("data_as/at");
  check_on_host("data_as/at");
  THEANO_USER_CHECK(requested == dtype_, TypeError)
      << "element type mismatch: the array has dtype " << dtype_name(dtype_)
      << " but was accessed as " << dtype_name(requested);
}

void NDArray::check_value_count(int64_t count, const std::vector<int64_t>& shape) {
  const int64_t n = checked_size(shape, 1);
  THEANO_USER_CHECK(n == count, ShapeError)
      << "cannot make an array of shape " << shape_to_string(shape) << " (" << n
      << " elements) from " << count << " values";
}

std::byte* NDArray::element_ptr(std::span<const int64_t> index) const {
  check_defined("element_ptr");
  check_on_host("element_ptr");
  THEANO_USER_CHECK(index.size() == shape_.size(), IndexError)
      << "expected " << shape_.size() << " indices for an array of shape "
      << shape_to_string(shape_) << ", got " << index.size();
  std::byte* p = data_;
  for (std::size_t ax = 0; ax < index.size(); ++ax) {
    int64_t i = index[ax];
    const int64_t n = shape_[ax];
    THEANO_USER_CHECK(i >= -n && i < n, IndexError)
        << "index " << i << " is out of bounds for axis " << ax << " with size " << n;
    if (i < 0) i += n;
    p += i * strides_[ax];
  }
  return p;
}

void NDArray::item_into(DType to, void* out) const {
  const void* p = single_element_ptr();  // (checks that the array is on the host)
  visit_dtype(to, [&](auto to_tag) {
    using T = typename decltype(to_tag)::type;
    *static_cast<T*>(out) = visit_dtype(dtype_, [p](auto tag) -> T {
      using S = typename decltype(tag)::type;
      return scalar_cast<T>(*static_cast<const S*>(p));
    });
  });
}

const void* NDArray::single_element_ptr() const {
  check_defined("item");
  check_on_host("item");
  THEANO_USER_CHECK(size() == 1, ValueError)
      << "item() needs an array of size 1, got shape " << shape_to_string(shape_) << " (size "
      << size() << ")";
  return data_;
}

bool NDArray::is_c_contiguous() const {
  if (!defined_) return false;
  int64_t expected = static_cast<int64_t>(itemsize());
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

bool NDArray::is_f_contiguous() const {
  if (!defined_) return false;
  int64_t expected = static_cast<int64_t>(itemsize());
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    if (shape_[i] == 0) return true;
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

bool NDArray::shares_buffer(const NDArray& other) const {
  if (!defined_ || !other.defined_ || device_ != other.device_) return false;
  if (owner_ && other.owner_ && !owner_.owner_before(other.owner_) &&
      !other.owner_.owner_before(owner_))
    return true;
  // Otherwise compare the byte ranges the two arrays touch (one pass over
  // the dimensions: every call compares its results with its arguments).
  auto extent = [](const NDArray& a, const std::byte*& lo, const std::byte*& hi) {
    int64_t l = 0, h = 0;
    bool overflow = false;
    for (std::size_t d = 0; d < a.shape_.size(); ++d) {
      if (a.shape_[d] == 0) return false;
      int64_t span = 0;
      int64_t& end = a.strides_[d] < 0 ? l : h;
      overflow |=
          __builtin_mul_overflow(a.strides_[d], a.shape_[d] - 1, &span) || __builtin_add_overflow(end, span, &end);
    }
    overflow |= __builtin_add_overflow(h, static_cast<int64_t>(a.itemsize()), &h);
    if (overflow) detail::byte_span(a, &l, &h);  // throws its ValueError
    lo = a.data_ + l;
    hi = a.data_ + h;
    return true;
  };
  const std::byte *alo, *ahi, *blo, *bhi;
  if (!extent(*this, alo, ahi) || !extent(other, blo, bhi)) return false;
  return std::less<const std::byte*>()(alo, bhi) && std::less<const std::byte*>()(blo, ahi);
}

NDArray NDArray::view(std::byte* data, std::vector<int64_t> shape, std::vector<int64_t> strides) const {
  // Every view passes the size rule too (a broadcast can claim any shape):
  // code that multiplies an array's sizes relies on it.
  checked_size(shape, itemsize());
  NDArray v = *this;
  v.data_ = data;
  v.shape_ = std::move(shape);
  v.strides_ = std::move(strides);
  return v;
}

// ---- factories ------------------------------------------------------------------------

NDArray NDArray::empty(std::vector<int64_t> shape, DType dtype) {
  const std::size_t itemsize = dtype_size(dtype);
  const int64_t n = checked_size(shape, itemsize);
  NDArray a;
  const std::size_t bytes = static_cast<std::size_t>(n) * itemsize;
  try {
    a.owner_ = allocate(bytes);
  } catch (const std::bad_alloc&) {
    throw MemoryError(out_of_memory_message("NDArray::empty", shape, dtype, bytes));
  }
  a.base_ = a.data_ = static_cast<std::byte*>(a.owner_.get());
  a.dtype_ = dtype;
  a.strides_ = c_strides(shape, itemsize);
  a.shape_ = std::move(shape);
  a.defined_ = true;
  return a;
}

NDArray NDArray::zeros(std::vector<int64_t> shape, DType dtype) {
  NDArray a = empty(std::move(shape), dtype);
  std::memset(a.data_, 0, static_cast<std::size_t>(a.nbytes()));  // all-zero bits is 0 for every dtype
  return a;
}

NDArray NDArray::ones(std::vector<int64_t> shape, DType dtype) { return full(std::move(shape), 1.0, dtype); }

NDArray NDArray::full(std::vector<int64_t> shape, double value, DType dtype) {
  NDArray a = empty(std::move(shape), dtype);
  a.fill(value);
  return a;
}

NDArray NDArray::arange(double start, double stop, double step, DType dtype) {
  THEANO_USER_CHECK(step != 0 && std::isfinite(step), ValueError)
      << "arange: step must be finite and non-zero, got " << step;
  THEANO_USER_CHECK(std::isfinite(start) && std::isfinite(stop), ValueError)
      << "arange: start and stop must be finite, got " << start << " and " << stop;
  const double len = std::ceil((stop - start) / step);
  THEANO_USER_CHECK(len < 9e18, ValueError) << "arange: too many elements (" << len << ")";
  const int64_t n = len > 0 ? static_cast<int64_t>(len) : 0;
  NDArray a = empty({n}, dtype);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = reinterpret_cast<T*>(a.data_);
    for (int64_t i = 0; i < n; ++i) p[i] = scalar_cast<T>(start + static_cast<double>(i) * step);
  });
  return a;
}

NDArray NDArray::empty(std::vector<int64_t> shape, DType dtype, const Device& device) {
  if (device.is_cpu()) return empty(std::move(shape), dtype);
  const int64_t n = checked_size(shape, dtype_size(dtype));
  std::shared_ptr<void> block = device_memory(device).allocate(static_cast<std::size_t>(n) * dtype_size(dtype));
  void* data = block.get();
  std::vector<int64_t> strides = c_strides(shape, dtype_size(dtype));
  return from_strided(std::move(block), data, dtype, std::move(shape), std::move(strides), device);
}

NDArray NDArray::from_strided(std::shared_ptr<void> buffer_owner, void* data, DType dtype,
                              std::vector<int64_t> shape, std::vector<int64_t> strides, const Device& device) {
  THEANO_USER_CHECK(shape.size() == strides.size(), ShapeError)
      << "from_strided: shape " << shape_to_string(shape) << " has " << shape.size()
      << " dimensions but " << strides.size() << " strides were given";
  const int64_t n = checked_size(shape, dtype_size(dtype));
  THEANO_USER_CHECK(data != nullptr || n == 0, ValueError)
      << "from_strided: null data pointer for a non-empty array of shape " << shape_to_string(shape);
  NDArray a;
  a.owner_ = std::move(buffer_owner);
  a.base_ = a.data_ = static_cast<std::byte*>(data);
  a.dtype_ = dtype;
  a.device_ = device;
  a.shape_ = std::move(shape);
  a.strides_ = std::move(strides);
  a.defined_ = true;
  return a;
}

// ---- copies -----------------------------------------------------------------------------

NDArray NDArray::copy() const {
  check_defined("copy");
  return on_host() ? astype(dtype_) : detail::copy_device_array(*this, device_);
}

NDArray NDArray::contiguous() const {
  check_defined("contiguous");
  return is_c_contiguous() ? *this : copy();
}

NDArray NDArray::to(const Device& device) const {
  check_defined("to");
  if (device == device_) return *this;
  return detail::copy_device_array(*this, device);
}

NDArray NDArray::astype(DType dtype) const {
  check_defined("astype");
  if (!on_host() && dtype == dtype_) return copy();
  check_on_host("astype");
  NDArray out = empty(shape_, dtype);
  if (dtype == dtype_ && is_c_contiguous()) {
    // An empty array may have no data at all (from_strided with nullptr).
    if (nbytes() > 0) std::memcpy(out.data_, data_, static_cast<std::size_t>(nbytes()));
  } else {
    convert_into(out.data_, dtype, out.strides_, data_, dtype_, strides_, shape_);
  }
  return out;
}

void NDArray::assign(const NDArray& src) {
  check_defined("assign");
  check_on_host("assign");
  src.check_on_host("assign");
  THEANO_USER_CHECK(src.defined(), ValueError) << "assign: the source is a null NDArray handle";
  for (std::size_t i = 0; i < shape_.size(); ++i)
    THEANO_USER_CHECK(strides_[i] != 0 || shape_[i] <= 1, ValueError)
        << "assign: cannot write into a broadcast view (axis " << i << " has stride 0 and size "
        << shape_[i] << ")";
  // Overlapping source: read from a snapshot so writes cannot feed back into reads.
  const NDArray s = (src.shares_buffer(*this) ? src.copy() : src).broadcast_to(shape_);
  convert_into(data_, dtype_, strides_, s.data_, s.dtype_, s.strides_, shape_);
}

void NDArray::fill(double value) {
  check_defined("fill");
  assign(scalar(value));
}

std::ostream& operator<<(std::ostream& os, const NDArray& a) { return os << a.str(); }

}  // namespace theano

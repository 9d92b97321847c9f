/// \file
/// `NDArray`: the n-dimensional array every layer passes around (constants, perform(),
/// function inputs/outputs, DLPack, .npy).
///
/// Why: a cheap-to-copy *handle* (like a numpy ndarray object): a reference-counted
/// buffer owner plus dtype, shape, byte strides and the address of element [0,...,0].
/// Copying an NDArray never copies elements; views (slice, index, transpose, reshape,
/// broadcast_to) share the buffer and see each other's writes; `copy()` is explicit.
///
/// Invariants: buffers allocated here are 64-byte aligned; `data()` of every view lies
/// inside the owner's buffer; strides are in bytes and may be negative or zero (zero
/// after broadcast_to, so such views must not be written through); shape entries are
/// >= 0 and their product fits in int64. A default-constructed NDArray is a null
/// handle (`defined() == false`); calling accessors on it other than defined() and
/// str() is a ValueError.
///
/// Device arrays. An NDArray may live on a GPU (`device()`, device.h): its data
/// is then a device address. Shape, strides, dtype and the views (slice,
/// index, transpose, reshape, broadcast_to, ...) work as on the host, since
/// they touch no element; everything that reads or writes elements on the host
/// (data(), data_as, at, item, fill, assign, astype to another dtype, the
/// comparisons, .npy) is a ValueError naming the device and saying to call
/// to_host() first. copy() and contiguous() copy on the device; `to(device)`
/// moves values between the host and a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "theano/runtime/device.h"
#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"

namespace theano {

/// Alignment (bytes) of every buffer NDArray allocates.
inline constexpr std::size_t kBufferAlignment = 64;

class NDArray {
 public:
  NDArray() = default;

  bool defined() const { return defined_; }

  DType dtype() const { return dtype_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  const std::vector<int64_t>& shape() const { return shape_; }
  /// Strides in bytes (may be negative, or zero for broadcast dimensions).
  const std::vector<int64_t>& strides() const { return strides_; }
  /// Number of elements (1 for a 0-d array).
  int64_t size() const;
  int64_t nbytes() const { return size() * static_cast<int64_t>(itemsize()); }
  std::size_t itemsize() const { return dtype_size(dtype_); }

  /// Where the elements live (the host unless made on or moved to a GPU).
  const Device& device() const { return device_; }
  bool on_host() const { return device_.kind == DeviceKind::CPU; }

  /// Address of element [0,...,0] (buffer base + offset) of a host array;
  /// ValueError for a device array (its address is not a host pointer).
  void* data() {
    if (!on_host()) throw_not_on_host("data");
    return data_;
  }
  const void* data() const {
    if (!on_host()) throw_not_on_host("data");
    return data_;
  }
  /// The address of element [0,...,0] wherever it lives: a host pointer, or a
  /// device address for a device array (never dereference that on the host).
  void* address() const { return data_; }
  /// Byte offset of data() from the start of the buffer this array was made from.
  int64_t offset() const { return data_ - base_; }
  /// The reference that keeps the buffer alive (shared by all views).
  const std::shared_ptr<void>& owner() const { return owner_; }

  /// Typed pointer to element [0,...,0]; TypeError unless T is this array's dtype.
  template <class T>
  T* data_as() {
    check_element_type(dtype_of<T>());
    return reinterpret_cast<T*>(data_);
  }
  template <class T>
  const T* data_as() const {
    check_element_type(dtype_of<T>());
    return reinterpret_cast<const T*>(data_);
  }

  /// Bounds-checked element access (negative indices count from the end). Throws
  /// IndexError naming the axis, the index and the size; TypeError if T is not the dtype.
  template <class T>
  T& at(std::initializer_list<int64_t> index) {
    check_element_type(dtype_of<T>());
    return *reinterpret_cast<T*>(element_ptr(std::span<const int64_t>(index.begin(), index.size())));
  }
  template <class T>
  const T& at(std::initializer_list<int64_t> index) const {
    check_element_type(dtype_of<T>());
    return *reinterpret_cast<const T*>(element_ptr(std::span<const int64_t>(index.begin(), index.size())));
  }
  /// Address of one element; bounds-checked like at().
  std::byte* element_ptr(std::span<const int64_t> index) const;

  /// The single element of a size-1 array, converted to T with scalar_cast
  /// (ValueError if size() != 1).
  template <class T>
  T item() const {
    T out;
    item_into(dtype_of<T>(), &out);
    return out;
  }

  bool is_c_contiguous() const;
  bool is_f_contiguous() const;
  /// True when both handles keep the same buffer alive, or their element ranges overlap
  /// in memory (so an array rebuilt from its own DLPack export still shares).
  bool shares_buffer(const NDArray& other) const;

  /// C-contiguous deep copy, on this array's device.
  NDArray copy() const;
  /// This array if already C-contiguous, else copy().
  NDArray contiguous() const;
  /// This array when it is on `device` already, else a C-contiguous copy of it
  /// there (uploads and downloads through the GPU back end's DeviceMemory).
  NDArray to(const Device& device) const;
  /// `to(Device::cpu())`: the host array itself, or a host copy of a device array.
  NDArray to_host() const { return to(Device::cpu()); }
  /// Converting copy (numpy unsafe casting, see scalar_cast.h).
  NDArray astype(DType) const;
  /// Writes `src` (broadcast to this shape, converted to this dtype) into this array's
  /// elements in place. ShapeError if src does not broadcast; ValueError if this array
  /// has zero strides on a dimension of size > 1 (a broadcast view).
  void assign(const NDArray& src);
  /// Sets every element to `value` (converted to the dtype).
  void fill(double value);

  // ---- views sharing the buffer ------------------------------------------------------
  /// Python slicing `a[start:stop:step]` on `axis` (negative axis counts from the end,
  /// negative steps included). ValueError for step 0, IndexError for a bad axis.
  NDArray slice(int axis, std::optional<int64_t> start, std::optional<int64_t> stop,
                int64_t step = 1) const;
  /// `a[..., i, ...]` on `axis`: drops the axis; negative i counts from the end.
  NDArray index(int axis, int64_t i) const;
  /// Reverses the axes.
  NDArray transpose() const;
  /// `numpy.transpose(a, perm)`; ValueError unless perm is a permutation of 0..ndim-1.
  NDArray transpose(std::vector<int> perm) const;
  /// View with a new shape (C order; one -1 is inferred). ShapeError if the sizes differ,
  /// or if the strides do not allow a view (use reshaped()).
  NDArray reshape(std::vector<int64_t> shape) const;
  /// reshape() when a view is possible, else a reshaped C-contiguous copy.
  NDArray reshaped(std::vector<int64_t> shape) const;
  /// numpy.broadcast_to: zero strides on the new / size-1 dimensions. ShapeError on mismatch.
  NDArray broadcast_to(std::vector<int64_t> shape) const;
  /// Inserts a size-1 axis at `axis` (numpy.expand_dims; -1 appends).
  NDArray expand_dims(int axis) const;
  /// Removes size-1 axis `axis` (ValueError if its size is not 1).
  NDArray squeeze(int axis) const;

  /// numpy's repr: "array([[1., 2.],\n       [3., 4.]])", summarised with "..." when
  /// size() > 1000, ", dtype=float32" when the dtype is not implied. Null handle: "NDArray()".
  std::string str() const;

  // ---- factories -------------------------------------------------------------------
  /// Uninitialised elements.
  static NDArray empty(std::vector<int64_t> shape, DType dtype = DType::Float64);
  /// Uninitialised elements on `device` (device memory for a GPU).
  static NDArray empty(std::vector<int64_t> shape, DType dtype, const Device& device);
  static NDArray zeros(std::vector<int64_t> shape, DType dtype = DType::Float64);
  static NDArray ones(std::vector<int64_t> shape, DType dtype = DType::Float64);
  static NDArray full(std::vector<int64_t> shape, double value, DType dtype = DType::Float64);
  /// numpy.arange: ceil((stop - start) / step) elements start + i*step, converted to dtype.
  static NDArray arange(double start, double stop, double step = 1, DType dtype = DType::Float64);

  /// C-order values; dtype from T; ShapeError if values.size() != product(shape).
  template <class T>
  static NDArray from_vector(const std::vector<T>& values, std::vector<int64_t> shape) {
    check_value_count(static_cast<int64_t>(values.size()), shape);
    NDArray a = empty(std::move(shape), dtype_of<T>());
    T* p = reinterpret_cast<T*>(a.data_);
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = values[i];
    return a;
  }
  /// Like from_vector; an empty `shape` means 1-d of values.size() elements.
  template <class T>
  static NDArray from_list(std::initializer_list<T> values, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
    return from_vector(std::vector<T>(values), std::move(shape));
  }
  /// 0-d array holding `value`.
  template <class T>
  static NDArray scalar(T value) {
    NDArray a = empty({}, dtype_of<T>());
    *reinterpret_cast<T*>(a.data_) = value;
    return a;
  }
  /// Wraps external memory without copying. `buffer_owner` keeps it alive (its deleter
  /// runs when the last view dies); `data` is element [0,...,0] (a device
  /// address when `device` is a GPU); strides in bytes.
  static NDArray from_strided(std::shared_ptr<void> buffer_owner, void* data, DType dtype,
                              std::vector<int64_t> shape, std::vector<int64_t> strides,
                              const Device& device = Device::cpu());

  /// C-order byte strides of a compact array of `shape`.
  static std::vector<int64_t> c_strides(const std::vector<int64_t>& shape, std::size_t itemsize);
  /// Fortran-order byte strides of a compact array of `shape`.
  static std::vector<int64_t> f_strides(const std::vector<int64_t>& shape, std::size_t itemsize);

 private:
  void check_defined(const char* what) const;
  /// ValueError: `what` needs the elements on the host, this array is on a GPU.
  [[noreturn]] void throw_not_on_host(const char* what) const;
  void check_on_host(const char* what) const {
    if (!on_host()) throw_not_on_host(what);
  }
  void check_element_type(DType requested) const;
  const void* single_element_ptr() const;
  /// item(): writes the single element, converted to `to`, at `out` (a `to`
  /// value). Out of line, so this header needs no complete std::complex.
  void item_into(DType to, void* out) const;
  static void check_value_count(int64_t count, const std::vector<int64_t>& shape);
  NDArray view(std::byte* data, std::vector<int64_t> shape, std::vector<int64_t> strides) const;

  std::shared_ptr<void> owner_;
  std::byte* base_ = nullptr;  // start of the buffer (for offset())
  std::byte* data_ = nullptr;  // element [0,...,0]
  DType dtype_ = DType::Float64;
  Device device_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  bool defined_ = false;
};

/// Same shape and equal values (dtypes may differ: values compare as numpy compares
/// them; NaN != NaN).
bool array_equal(const NDArray& a, const NDArray& b);
/// numpy.allclose: |a - b| <= atol + rtol * |b| elementwise after broadcasting
/// (ShapeError if they do not broadcast); infinities must match exactly.
bool allclose(const NDArray& a, const NDArray& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);
/// Hash of dtype + shape + element values in C order, independent of memory layout
/// (a transposed copy of equal values hashes equal). Used to merge constants.
std::size_t content_hash(const NDArray& a);
/// numpy.broadcast_shapes; ShapeError naming both shapes on mismatch.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// "(2, 3)", "(5,)", "()" as Python prints a shape tuple.
std::string shape_to_string(const std::vector<int64_t>& shape);

std::ostream& operator<<(std::ostream&, const NDArray&);

}  // namespace theano

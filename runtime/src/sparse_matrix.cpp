// SparseMatrix (sparse_matrix.h): construction through the shared CSM rule,
// dense conversion, transpose and format change. .npz I/O lives in npz.cpp.
#include "theano/runtime/sparse_matrix.h"

#include <complex>
#include <array>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "theano/runtime/error.h"
#include "theano/runtime/memory_error.h"
#include "theano/runtime/kernels/shape_rules.h"

namespace theano {

namespace {

/// `a` as a C-contiguous int64 vector (int32 and other integer dtypes widen).
NDArray index_vector(const NDArray& a, const char* what) {
  if (!a.defined() || a.ndim() != 1 || !is_integer(a.dtype()))
    throw ValueError(std::string("SparseMatrix: ") + what + " must be a 1-d integer array, got " +
                     (a.defined() ? std::to_string(a.ndim()) + "-d " + std::string(dtype_name(a.dtype())) : "none"));
  return a.dtype() == DType::Int64 ? a.contiguous() : a.astype(DType::Int64);
}

/// The element types data may have (real numbers; see the constructor).
template <class T>
constexpr bool kSparseValue = std::is_arithmetic_v<T> || std::is_same_v<T, half>;

/// a + b in T; half adds in float, as numpy's float16 does.
template <class T>
T add(T a, T b) {
  if constexpr (std::is_same_v<T, half>)
    return half(static_cast<float>(a) + static_cast<float>(b));
  else
    return static_cast<T>(a + b);
}

}  // namespace

const char* to_string(SparseFormat f) { return f == SparseFormat::CSR ? "csr" : "csc"; }

SparseFormat sparse_format_from_string(const std::string& s) {
  if (s == "csr") return SparseFormat::CSR;
  if (s == "csc") return SparseFormat::CSC;
  throw ValueError("sparse format must be 'csr' or 'csc', got '" + s + "'");
}

SparseMatrix::SparseMatrix(SparseFormat format, NDArray data, NDArray indices, NDArray indptr,
                           std::array<int64_t, 2> shape)
    : format_(format), shape_(shape) {
  if (!data.defined() || data.ndim() != 1)
    throw ValueError("SparseMatrix: data must be a 1-d array, got " +
                     (data.defined() ? std::to_string(data.ndim()) + "-d" : std::string("none")));
  if (!data.on_host()) throw ValueError("SparseMatrix: data must be on the host");
  if (is_complex(data.dtype()) || data.dtype() == DType::Bool)
    throw ValueError("SparseMatrix: data must be a real number dtype, got " + std::string(dtype_name(data.dtype())));
  data_ = data.contiguous();
  indices_ = index_vector(indices, "indices");
  indptr_ = index_vector(indptr, "indptr");
  const bool csr = format == SparseFormat::CSR;
  const int64_t major = csr ? shape[0] : shape[1], minor = csr ? shape[1] : shape[0];
  int64_t bad = 0;
  const int64_t zero = 0;
  const int64_t* ptr = indptr_.size() > 0 ? indptr_.data_as<int64_t>() : &zero;
  if (indptr_.size() == 0) {
    throw_shape_rule(THEANO_RULE_CSM_INDPTR_LEN, std::string("SparseMatrix (") + to_string(format) + ")", 0);
  }
  if (const int rule = theano_csm_rule(major, minor, ptr, indptr_.size(), indices_.data_as<int64_t>(),
                                       indices_.size(), data_.size(), &bad))
    throw_shape_rule(rule, std::string("SparseMatrix (") + to_string(format) + ", shape (" + std::to_string(shape[0]) +
                               ", " + std::to_string(shape[1]) + "))",
                     bad);
}

NDArray SparseMatrix::shape_array() const { return NDArray::from_vector<int64_t>({shape_[0], shape_[1]}, {2}); }

SparseMatrix SparseMatrix::from_dense(const NDArray& dense, SparseFormat format) {
  if (!dense.defined() || dense.ndim() != 2)
    throw ValueError("SparseMatrix::from_dense: expected a 2-d array, got " +
                     (dense.defined() ? std::to_string(dense.ndim()) + "-d" : std::string("none")));
  const NDArray src = (format == SparseFormat::CSR ? dense : dense.transpose()).contiguous();
  const NDArray a = src.astype(DType::Float64);
  const int64_t major = src.shape()[0], minor = src.shape()[1];
  const double* v = a.data_as<double>();  // a: src in float64, C-contiguous (astype copies)
  std::vector<int64_t> indices, indptr{0};
  std::vector<int64_t> flat;  // positions in src
  for (int64_t i = 0; i < major; ++i) {
    for (int64_t j = 0; j < minor; ++j)
      if (v[i * minor + j] != 0 || v[i * minor + j] != v[i * minor + j]) {  // NaN is stored, as SciPy does
        indices.push_back(j);
        flat.push_back(i * minor + j);
      }
    indptr.push_back(static_cast<int64_t>(indices.size()));
  }
  NDArray data = NDArray::empty({static_cast<int64_t>(flat.size())}, dense.dtype());
  const std::size_t item = src.itemsize();
  const std::byte* s = static_cast<const std::byte*>(src.data());
  std::byte* d = static_cast<std::byte*>(data.data());
  for (std::size_t k = 0; k < flat.size(); ++k)
    std::copy_n(s + static_cast<std::size_t>(flat[k]) * item, item, d + k * item);
  return SparseMatrix(format, data, NDArray::from_vector(indices, {static_cast<int64_t>(indices.size())}),
                      NDArray::from_vector(indptr, {static_cast<int64_t>(indptr.size())}),
                      {dense.shape()[0], dense.shape()[1]});
}

NDArray SparseMatrix::to_dense() const {
  NDArray out;
  try {
    out = NDArray::zeros({shape_[0], shape_[1]}, dtype());
  } catch (const MemoryError&) {  // the size itself was valid (checked_size passed)
    const std::size_t bytes =
        static_cast<std::size_t>(shape_[0]) * static_cast<std::size_t>(shape_[1]) * dtype_size(dtype());
    throw MemoryError(out_of_memory_message("SparseMatrix::to_dense", {shape_[0], shape_[1]}, dtype(), bytes));
  }
  const int64_t* ptr = indptr_.data_as<int64_t>();
  const int64_t* idx = indices_.data_as<int64_t>();
  const bool csr = format_ == SparseFormat::CSR;
  const int64_t major = csr ? shape_[0] : shape_[1];
  visit_dtype(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kSparseValue<T>) {
      const T* v = data_.data_as<T>();
      T* o = out.data_as<T>();
      for (int64_t i = 0; i < major; ++i)
        for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
          const int64_t r = csr ? i : idx[k], c = csr ? idx[k] : i;
          o[r * shape_[1] + c] = add(o[r * shape_[1] + c], v[k]);
        }
    } else {
      throw ValueError("SparseMatrix::to_dense: unsupported dtype " + std::string(dtype_name(dtype())));
    }
  });
  return out;
}

bool SparseMatrix::has_canonical_indices() const {
  const int64_t* ptr = indptr_.data_as<int64_t>();
  const int64_t* idx = indices_.data_as<int64_t>();
  const int64_t major = indptr_.size() - 1;
  for (int64_t i = 0; i < major; ++i)
    for (int64_t k = ptr[i] + 1; k < ptr[i + 1]; ++k)
      if (idx[k] <= idx[k - 1]) return false;
  return true;
}

SparseMatrix SparseMatrix::transposed() const {
  SparseMatrix t;
  t.format_ = format_ == SparseFormat::CSR ? SparseFormat::CSC : SparseFormat::CSR;
  t.data_ = data_;
  t.indices_ = indices_;
  t.indptr_ = indptr_;
  t.shape_ = {shape_[1], shape_[0]};
  return t;
}

SparseMatrix SparseMatrix::as_format(SparseFormat format) const {
  if (format == format_ && has_canonical_indices()) return *this;
  try {
    return converted(format);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {  // a vector longer than max_size(): out of memory as well
  } catch (const MemoryError&) {
  }
  // At least one list head per new major index and one entry per stored value.
  const int64_t major_out = format == SparseFormat::CSR ? shape_[0] : shape_[1];
  std::uint64_t bytes = 0, values = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(major_out) + 1, std::uint64_t{8}, &bytes) ||
      __builtin_mul_overflow(static_cast<std::uint64_t>(nnz()), std::uint64_t{24} + dtype_size(dtype()), &values) ||
      __builtin_add_overflow(bytes, values, &bytes))
    bytes = std::numeric_limits<std::uint64_t>::max();
  std::ostringstream os;
  os << "SparseMatrix::as_format: out of memory: cannot allocate the " << bytes << " bytes or more that converting a "
     << dtype_name(dtype()) << " " << to_string(format_) << " matrix of shape " << shape_to_string({shape_[0], shape_[1]})
     << " with " << nnz() << " stored entries to " << to_string(format) << " needs";
  throw MemoryError(os.str());
}

SparseMatrix SparseMatrix::converted(SparseFormat format) const {
  // Counting sort of the stored entries by their new major index, then each
  // new row's entries ordered by their new minor index (repeats summed).
  const bool csr_out = format == SparseFormat::CSR;
  const int64_t major_out = csr_out ? shape_[0] : shape_[1];
  const int64_t* ptr = indptr_.data_as<int64_t>();
  const int64_t* idx = indices_.data_as<int64_t>();
  const int64_t major_in = indptr_.size() - 1;
  struct Entry {
    int64_t minor, k;
  };
  std::vector<std::vector<Entry>> rows(static_cast<std::size_t>(major_out));
  for (int64_t i = 0; i < major_in; ++i)
    for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k) {
      const int64_t r = format_ == SparseFormat::CSR ? i : idx[k], c = format_ == SparseFormat::CSR ? idx[k] : i;
      const int64_t new_major = csr_out ? r : c, new_minor = csr_out ? c : r;
      rows[static_cast<std::size_t>(new_major)].push_back({new_minor, k});
    }
  std::vector<int64_t> out_idx, out_ptr{0};
  std::vector<std::vector<int64_t>> groups;  // for each stored entry out, the input positions it sums
  for (auto& row : rows) {
    std::stable_sort(row.begin(), row.end(), [](const Entry& a, const Entry& b) { return a.minor < b.minor; });
    for (std::size_t e = 0; e < row.size(); ++e) {
      if (e > 0 && row[e].minor == row[e - 1].minor) {
        groups.back().push_back(row[e].k);
        continue;
      }
      out_idx.push_back(row[e].minor);
      groups.push_back({row[e].k});
    }
    out_ptr.push_back(static_cast<int64_t>(out_idx.size()));
  }
  NDArray data = NDArray::empty({static_cast<int64_t>(groups.size())}, dtype());
  visit_dtype(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kSparseValue<T>) {
      const T* v = data_.data_as<T>();
      T* o = data.data_as<T>();
      for (std::size_t g = 0; g < groups.size(); ++g) {
        T s = v[groups[g][0]];
        for (std::size_t j = 1; j < groups[g].size(); ++j) s = add(s, v[groups[g][j]]);
        o[g] = s;
      }
    } else {
      throw ValueError("SparseMatrix::as_format: unsupported dtype " + std::string(dtype_name(dtype())));
    }
  });
  return SparseMatrix(format, data, NDArray::from_vector(out_idx, {static_cast<int64_t>(out_idx.size())}),
                      NDArray::from_vector(out_ptr, {static_cast<int64_t>(out_ptr.size())}), shape_);
}

std::string SparseMatrix::str() const {
  std::ostringstream os;
  os << "SparseMatrix(" << to_string(format_) << ", " << (defined() ? dtype_name(dtype()) : "none") << ", shape=("
     << shape_[0] << ", " << shape_[1] << "), nnz=" << (defined() ? nnz() : 0) << ")";
  return os.str();
}

}  // namespace theano

// SparseType (theano/sparse/type.h): interning and the refusal of whole-value use.
#include "theano/sparse/type.h"

#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "theano/graph/traversal.h"
#include "theano/runtime/error.h"

namespace theano::sparse {

SparseTypePtr SparseType::make(SparseFormat format, DType dtype) {
  THEANO_USER_CHECK(is_sparse_value_dtype(dtype), TypeError)
      << "SparseType: dtype must be float32, float64, int32 or int64, got " << dtype_name(dtype);
  static std::mutex mu;
  static std::map<std::pair<SparseFormat, DType>, SparseTypePtr> table;
  std::lock_guard<std::mutex> lock(mu);
  auto& t = table[{format, dtype}];
  if (!t) t = SparseTypePtr(new SparseType(format, dtype));
  return t;
}

std::string SparseType::str() const {
  return std::string("SparseType{") + to_string(format_) + ", " + std::string(dtype_name(dtype_)) + "}";
}

bool SparseType::equals(const Type& other) const {
  const auto* o = dynamic_cast<const SparseType*>(&other);
  return o && o->format_ == format_ && o->dtype_ == dtype_;
}

std::size_t SparseType::hash() const {
  return std::hash<int>()(static_cast<int>(format_) * 64 + static_cast<int>(dtype_)) + 0x5a5e;
}

NDArray SparseType::filter(const NDArray&, bool, bool) const {
  throw TypeError(str() + ": a sparse matrix is not one array; it travels as its components data, indices, "
                  "indptr and shape (sparse::csr_matrix / csc_matrix make the inputs, sparse::arguments the values)");
}

bool is_sparse_value_dtype(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || dtype == DType::Int32 || dtype == DType::Int64;
}

const SparseType* sparse_type(const Var& v) { return v ? dynamic_cast<const SparseType*>(v.type().get()) : nullptr; }

bool graph_has_sparse(const std::vector<Var>& outputs) {
  for (const Var& v : ancestors(outputs))
    if (sparse_type(v)) return true;
  return false;
}

}  // namespace theano::sparse

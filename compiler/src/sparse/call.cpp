// sparse::call (theano/sparse/ops.h): a function's sparse outputs are
// compiled as their four components (function.cpp, take_request); this
// regroups each four into the SparseMatrix the caller gets, checked by its
// constructor like any matrix a user builds.
#include "theano/runtime/error.h"
#include "theano/sparse/ops.h"

namespace theano::sparse {

const SparseMatrix& Value::sparse() const {
  THEANO_USER_CHECK(is_sparse(), TypeError) << "sparse::Value: this output is a dense array, not a sparse matrix";
  return sparse_;
}

const NDArray& Value::dense() const {
  THEANO_USER_CHECK(!is_sparse(), TypeError) << "sparse::Value: this output is a sparse matrix (" << sparse_.str()
                                             << "), not a dense array";
  return dense_;
}

std::vector<Value> call(const Function& f, const std::vector<NDArray>& args) {
  const std::vector<NDArray> flat = f.call_components(args);
  std::vector<Value> r;
  std::size_t k = 0;
  for (const Var& out : f.outputs()) {
    if (const SparseType* t = sparse_type(out)) {
      const NDArray shape = flat.at(k + 3).astype(DType::Int64);
      r.emplace_back(SparseMatrix(t->format(), flat.at(k), flat.at(k + 1), flat.at(k + 2),
                                  {shape.data_as<int64_t>()[0], shape.data_as<int64_t>()[1]}));
      k += 4;
    } else {
      r.emplace_back(flat.at(k++));
    }
  }
  return r;
}

}  // namespace theano::sparse

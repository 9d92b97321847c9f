// The sparse component ops (theano/sparse/components.h): type checks at
// make_node, theano_csm_rule and the shared C kernels (sparse_kernels.h) in
// perform, with the run-time checks the lowering (codegen emit/lower/sparse.cpp)
// repeats in the generated code.
#include "theano/sparse/components.h"

#include <string>

#include "registry_reasons.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/runtime/kernels/shape_rules.h"
#include "theano/runtime/kernels/sparse_kernels.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::sparse {

using tensor::TensorType;

namespace {

const TensorType& tensor_of(const std::string& op, const char* role, const Var& v, int ndim) {
  const TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t && t->ndim() == ndim, TypeError)
      << op << ": " << role << " must be a " << ndim << "-d tensor, got " << v.str() << " of type "
      << (v ? v.type()->str() : std::string("none"));
  return *t;
}

void check_index_vector(const std::string& op, const char* role, const Var& v) {
  const TensorType& t = tensor_of(op, role, v, 1);
  THEANO_USER_CHECK(t.dtype() == DType::Int64, TypeError)
      << op << ": " << role << " must be an int64 vector, got " << v.str() << " of type " << t.str();
}

/// indices, indptr and shape at inputs `at`, `at + 1`, `at + 2`: int64 vectors.
void check_structure(const std::string& op, const std::vector<Var>& inputs, std::size_t at) {
  check_index_vector(op, "indices", inputs[at]);
  check_index_vector(op, "indptr", inputs[at + 1]);
  check_index_vector(op, "shape", inputs[at + 2]);
}

/// The value dtypes of a sparse matrix (sparse_kernels.h has kernels for each).
DType check_values(const std::string& op, const char* role, const Var& v, int ndim) {
  const TensorType& t = tensor_of(op, role, v, ndim);
  THEANO_USER_CHECK(is_sparse_value_dtype(t.dtype()), TypeError)
      << op << ": " << role << " must be float32, float64, int32 or int64, got " << v.str() << " of type " << t.str();
  return t.dtype();
}

/// Calls KERNEL(C type, kernel suffix) for the value dtype `dtype` (one of is_sparse_value_dtype's).
#define THEANO_SPARSE_DISPATCH(dtype, KERNEL)                                        \
  switch (dtype) {                                                                   \
    case DType::Float64: KERNEL(double, f64); break;                                 \
    case DType::Float32: KERNEL(float, f32); break;                                  \
    case DType::Int64: KERNEL(int64_t, i64); break;                                  \
    case DType::Int32: KERNEL(int32_t, i32); break;                                  \
    default: throw InternalError("sparse kernel for " + std::string(dtype_name(dtype)) + ": this is a bug"); \
  }

void check_same(const std::string& op, const char* role, const Var& v, DType dtype) {
  const TensorType& t = *tensor::tensor_type(v);
  THEANO_USER_CHECK(t.dtype() == dtype, TypeError) << op << ": " << role << " must have dtype " << dtype_name(dtype)
                                                   << " like the stored values, got " << v.str() << " of type "
                                                   << t.str();
}

std::string label(const ComponentOp& op) { return std::string(op.type_name()) + "{" + to_string(op.format()) + "}"; }

Var matrix(DType dtype) { return TensorType::make(dtype, {std::nullopt, std::nullopt})->make_variable(); }
Var vector(DType dtype) { return TensorType::make(dtype, {std::nullopt})->make_variable(); }

/// Element strides of a dense 2-d operand (its byte strides / itemsize).
int64_t rs(const NDArray& a) { return a.strides()[0] / static_cast<int64_t>(a.itemsize()); }
int64_t cs(const NDArray& a) { return a.strides()[1] / static_cast<int64_t>(a.itemsize()); }

void check_dense(const std::string& op, const char* role, const NDArray& a, int64_t rows, int64_t cols) {
  if (a.shape()[0] != rows || (cols >= 0 && a.shape()[1] != cols))
    throw ShapeError(op + ": " + role + " has shape (" + std::to_string(a.shape()[0]) + ", " +
                     std::to_string(a.shape()[1]) + "), expected (" + std::to_string(rows) + ", " +
                     (cols >= 0 ? std::to_string(cols) : std::string("any")) + ") for the sparse matrix's shape");
}

std::vector<std::vector<Var>> nnz_shape(const std::vector<std::vector<Var>>& input_shapes, std::size_t indices_at) {
  return {{input_shapes[indices_at][0]}};
}

/// out (C-contiguous, S's rows x D's columns) (+)= alpha * S . D through the
/// shared product kernels: from zero (`zero`, SpMM) or from what out holds
/// (Usmm). The whole range in one part: perform is the reference.
void product(SparseFormat format, double alpha, bool zero, const NDArray& data, const NDArray& indices,
             const NDArray& indptr, int64_t major, const NDArray& d, NDArray& out) {
  const int64_t* ip = indices.data_as<int64_t>();
  const int64_t* pp = indptr.data_as<int64_t>();
  const int64_t rows = out.shape()[0], ncols = d.shape()[1];
  const bool csr = format == SparseFormat::CSR;
#define THEANO_PRODUCT(T, S)                                                                                        \
  if (csr)                                                                                                        \
    theano_csr_product_##S(static_cast<T>(alpha), zero, data.data_as<T>(), ip, pp, d.data_as<T>(), rs(d), cs(d),   \
                           ncols, out.data_as<T>(), ncols, 0, rows);                                              \
  else                                                                                                            \
    theano_csc_product_##S(static_cast<T>(alpha), zero, data.data_as<T>(), ip, pp, major, d.data_as<T>(), rs(d),   \
                           cs(d), rows, out.data_as<T>(), ncols, 0, ncols)
  THEANO_SPARSE_DISPATCH(d.dtype(), THEANO_PRODUCT)
#undef THEANO_PRODUCT
}

}  // namespace

namespace detail {

std::pair<int64_t, int64_t> check_components(const std::string& op, SparseFormat format, const NDArray& indices,
                                             const NDArray& indptr, const NDArray& shape, int64_t n_data) {
  if (shape.size() != 2) throw ValueError(op + ": shape must have 2 entries, got " + std::to_string(shape.size()));
  const NDArray s = shape.contiguous(), idx = indices.contiguous(), ptr = indptr.contiguous();
  const int64_t* sv = s.data_as<int64_t>();
  const bool csr = format == SparseFormat::CSR;
  const int64_t major = csr ? sv[0] : sv[1], minor = csr ? sv[1] : sv[0];
  if (ptr.size() == 0) throw_shape_rule(THEANO_RULE_CSM_INDPTR_LEN, op, 0);
  int64_t bad = 0;
  if (const int rule = theano_csm_rule(major, minor, ptr.data_as<int64_t>(), ptr.size(), idx.data_as<int64_t>(),
                                       idx.size(), n_data, &bad))
    throw_shape_rule(rule, op, bad);
  return {major, minor};
}

}  // namespace detail

// Each component op is registered beside its make_node (reasons: registry_reasons.h).

THEANO_REGISTER_OP(SpMM, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// ---- SpMM
ApplyPtr SpMM::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 5, TypeError) << op << " takes 5 inputs (data, indices, indptr, shape, D), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const DType dt = check_values(op, "data", inputs[0], 1);
  check_structure(op, inputs, 1);
  check_values(op, "D", inputs[4], 2);
  check_same(op, "D", inputs[4], dt);
  const auto& d = tensor::tensor_type(inputs[4])->shape();
  Var out = TensorType::make(dt, {std::nullopt, d[1]})->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void SpMM::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[1], in[2], in[3], in[0].size());
  const NDArray& d = in[4];
  check_dense(op, "D", d, csr() ? minor : major, -1);
  NDArray o = NDArray::empty({csr() ? major : minor, d.shape()[1]}, d.dtype());
  product(format(), 1.0, true, in[0].contiguous(), in[1].contiguous(), in[2].contiguous(), major, d, o);
  out[0] = o;
}

std::vector<std::vector<Var>> SpMM::infer_shape(const Apply& node, const std::vector<std::vector<Var>>& s) const {
  return {{tensor::subtensor(node.input(3), {0}), s[4][1]}};
}

THEANO_REGISTER_OP(SampledDot, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// ---- SampledDot
ApplyPtr SampledDot::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 5, TypeError) << op << " takes 5 inputs (indices, indptr, shape, X, Y), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  check_structure(op, inputs, 0);
  const DType dt = check_values(op, "X", inputs[3], 2);
  check_values(op, "Y", inputs[4], 2);
  check_same(op, "Y", inputs[4], dt);
  return Apply::create(OpPtr(this), std::move(inputs), {vector(dt)});
}

void SampledDot::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[0], in[1], in[2], in[0].size());
  const int64_t rows = csr() ? major : minor, cols = csr() ? minor : major;
  const NDArray &x = in[3], &y = in[4];
  check_dense(op, "X", x, rows, -1);
  check_dense(op, "Y", y, cols, x.shape()[1]);
  const NDArray idx = in[0].contiguous(), ptr = in[1].contiguous();
  NDArray vals = NDArray::empty({idx.size()}, x.dtype());
#define THEANO_SAMPLED(T, S)                                                                                  \
  theano_sampled_dot_##S(idx.data_as<int64_t>(), ptr.data_as<int64_t>(), csr(), x.data_as<T>(), rs(x), cs(x),      \
                         y.data_as<T>(), rs(y), cs(y), x.shape()[1], vals.data_as<T>(), 0, major)
  THEANO_SPARSE_DISPATCH(x.dtype(), THEANO_SAMPLED)
#undef THEANO_SAMPLED
  out[0] = vals;
}

std::vector<std::vector<Var>> SampledDot::infer_shape(const Apply&, const std::vector<std::vector<Var>>& s) const {
  return nnz_shape(s, 0);
}

THEANO_REGISTER_OP(SparseGather, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// ---- SparseGather
ApplyPtr SparseGather::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 4, TypeError) << op << " takes 4 inputs (indices, indptr, shape, M), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  check_structure(op, inputs, 0);
  const DType dt = check_values(op, "M", inputs[3], 2);
  return Apply::create(OpPtr(this), std::move(inputs), {vector(dt)});
}

void SparseGather::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[0], in[1], in[2], in[0].size());
  const NDArray& m = in[3];
  check_dense(op, "M", m, csr() ? major : minor, csr() ? minor : major);
  const NDArray idx = in[0].contiguous(), ptr = in[1].contiguous();
  NDArray vals = NDArray::empty({idx.size()}, m.dtype());
#define THEANO_GATHER(T, S)                                                                                   \
  theano_sparse_gather_##S(idx.data_as<int64_t>(), ptr.data_as<int64_t>(), csr(), m.data_as<T>(), rs(m), cs(m),    \
                           vals.data_as<T>(), 0, major)
  THEANO_SPARSE_DISPATCH(m.dtype(), THEANO_GATHER)
#undef THEANO_GATHER
  out[0] = vals;
}

std::vector<std::vector<Var>> SparseGather::infer_shape(const Apply&, const std::vector<std::vector<Var>>& s) const {
  return nnz_shape(s, 0);
}

THEANO_REGISTER_OP(ComponentsToDense, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// ---- ComponentsToDense
ApplyPtr ComponentsToDense::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 4, TypeError) << op << " takes 4 inputs (data, indices, indptr, shape), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const DType dt = check_values(op, "data", inputs[0], 1);
  check_structure(op, inputs, 1);
  return Apply::create(OpPtr(this), std::move(inputs), {matrix(dt)});
}

void ComponentsToDense::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[1], in[2], in[3], in[0].size());
  const int64_t rows = csr() ? major : minor, cols = csr() ? minor : major;
  NDArray o = NDArray::empty({rows, cols}, in[0].dtype());
  const NDArray data = in[0].contiguous(), idx = in[1].contiguous(), ptr = in[2].contiguous();
#define THEANO_TO_DENSE(T, S)                                                                                 \
  theano_sparse_to_dense_##S(data.data_as<T>(), idx.data_as<int64_t>(), ptr.data_as<int64_t>(), csr(), minor,      \
                             o.data_as<T>(), cols, 0, major)
  THEANO_SPARSE_DISPATCH(o.dtype(), THEANO_TO_DENSE)
#undef THEANO_TO_DENSE
  out[0] = o;
}

std::vector<std::vector<Var>> ComponentsToDense::infer_shape(const Apply& node,
                                                             const std::vector<std::vector<Var>>&) const {
  return {{tensor::subtensor(node.input(3), {0}), tensor::subtensor(node.input(3), {1})}};
}

THEANO_REGISTER_OP(SwapFormat, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// ---- SwapFormat
ApplyPtr SwapFormat::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 4, TypeError) << op << " takes 4 inputs (data, indices, indptr, shape), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const DType dt = check_values(op, "data", inputs[0], 1);
  check_structure(op, inputs, 1);
  return Apply::create(OpPtr(this), std::move(inputs), {vector(dt), vector(DType::Int64), vector(DType::Int64)});
}

void SwapFormat::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[1], in[2], in[3], in[0].size());
  const NDArray data = in[0].contiguous(), idx = in[1].contiguous(), ptr = in[2].contiguous();
  NDArray d = NDArray::empty({data.size()}, data.dtype()), i = NDArray::empty({idx.size()}, DType::Int64);
  int64_t n_ptr = 0;
  if (theano_checked_add(minor, 1, &n_ptr) != THEANO_RULE_OK)
    throw ValueError(op + ": the other format needs " + std::to_string(minor) + " + 1 indptr entries");
  NDArray p = NDArray::empty({n_ptr}, DType::Int64);
#define THEANO_SWAP(T, S)                                                                                     \
  theano_sparse_swap_##S(major, minor, data.data_as<T>(), idx.data_as<int64_t>(), ptr.data_as<int64_t>(),           \
                         d.data_as<T>(), i.data_as<int64_t>(), p.data_as<int64_t>())
  THEANO_SPARSE_DISPATCH(data.dtype(), THEANO_SWAP)
#undef THEANO_SWAP
  out[0] = d;
  out[1] = i;
  out[2] = p;
}

std::vector<std::vector<Var>> SwapFormat::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  throw MethodNotDefined(label(*this) + ": the new indptr's length is read from the shape at run time");
}

THEANO_REGISTER_OP(DenseToComponents, .no_grad = kAfterGrad,
                   .no_cpp = "its output sizes depend on the values: perform runs it", .no_cuda = kHostKernels);

// ---- DenseToComponents
ApplyPtr DenseToComponents::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << op << " takes 1 input (a dense matrix), got " << inputs.size();
  Var m = tensor::as_tensor_variable(inputs[0]);
  const DType dt = check_values(op, "M", m, 2);
  return Apply::create(OpPtr(this), {m}, {vector(dt), vector(DType::Int64), vector(DType::Int64)});
}

void DenseToComponents::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const SparseMatrix m = SparseMatrix::from_dense(in[0], format());
  out[0] = m.data();
  out[1] = m.indices();
  out[2] = m.indptr();
}

std::vector<std::vector<Var>> DenseToComponents::infer_shape(const Apply&,
                                                             const std::vector<std::vector<Var>>&) const {
  throw MethodNotDefined(label(*this) + ": the number of stored values depends on the values");
}

THEANO_REGISTER_OP(Usmm, .no_grad = kAfterGrad, .no_cuda = kHostKernels);

// Usmm(..., z) -> Usmm{inplace}(..., z) (local_usmm's node), in the BLAS inplace stage.
std::vector<InplaceVariant> Usmm::inplace_variants(const Apply&) const {
  if (inplace_) return {};
  return {{InplaceStage::Blas, 6, OpPtr(new Usmm(format(), true))}};
}

// ---- Usmm
ApplyPtr Usmm::make_node(std::vector<Var> inputs) const {
  const std::string op = label(*this);
  THEANO_USER_CHECK(inputs.size() == 7, TypeError)
      << op << " takes 7 inputs (alpha, data, indices, indptr, shape, D, Z), got " << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const TensorType& ta = tensor_of(op, "alpha", inputs[0], 0);
  THEANO_USER_CHECK(!is_complex(ta.dtype()), TypeError) << op << ": alpha must be real, got " << ta.str();
  const DType dt = check_values(op, "data", inputs[1], 1);
  check_structure(op, inputs, 2);
  check_values(op, "D", inputs[5], 2);
  check_same(op, "D", inputs[5], dt);
  check_values(op, "Z", inputs[6], 2);
  check_same(op, "Z", inputs[6], dt);
  Var out = inputs[6].type()->make_variable();
  return Apply::create(OpPtr(this), std::move(inputs), {out});
}

void Usmm::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = label(*this);
  const auto [major, minor] = detail::check_components(op, format(), in[2], in[3], in[4], in[1].size());
  const NDArray &d = in[5], &z = in[6];
  check_dense(op, "D", d, csr() ? minor : major, -1);
  check_dense(op, "Z", z, csr() ? major : minor, d.shape()[1]);
  // The sum lands in a C-contiguous buffer: Z itself when inplace and laid
  // out so, else a copy (written back into Z when inplace).
  const bool direct = inplace_ && z.is_c_contiguous();
  NDArray o = direct ? z : z.copy();
  product(format(), in[0].item<double>(), false, in[1].contiguous(), in[2].contiguous(), in[3].contiguous(), major, d,
          o);
  if (inplace_ && !direct) {
    NDArray target = z;
    target.assign(o);
    o = target;
  }
  out[0] = o;
}

std::vector<std::vector<Var>> Usmm::infer_shape(const Apply&, const std::vector<std::vector<Var>>& s) const {
  return {s.at(6)};
}

ViewMap Usmm::destroy_map() const { return inplace_ ? ViewMap{{0, {6}}} : ViewMap{}; }

// ---- SparseMerge
THEANO_REGISTER_OP(SparseMerge, .no_grad = kAfterGrad, .no_cuda = kHostKernels);
ApplyPtr SparseMerge::make_node(std::vector<Var> inputs) const {
  const std::string op = name();
  THEANO_USER_CHECK(inputs.size() == 8, TypeError)
      << op << " takes 8 inputs (x's data, indices, indptr, shape, y's data, indices, indptr, shape), got "
      << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const DType dt = check_values(op, "x's data", inputs[0], 1);
  check_structure(op, inputs, 1);
  check_values(op, "y's data", inputs[4], 1);
  check_same(op, "y's data", inputs[4], dt);
  check_structure(op, inputs, 5);
  return Apply::create(OpPtr(this), std::move(inputs), {vector(dt), vector(DType::Int64), vector(DType::Int64)});
}

namespace {
/// Checked contiguous components (data, indices, indptr) with each
/// compressed row's indices sorted (theano_sparse_merge's operand): as given
/// when they are, else sorted by theano_sparse_sort_rows.
struct Rows {
  NDArray d, i, p;
};
Rows sorted_rows(const std::string& op, const NDArray& data, const NDArray& idx, const NDArray& ptr, int64_t major,
                 int64_t minor) {
  Rows r{data.contiguous(), idx.contiguous(), ptr.contiguous()};
  if (theano_sparse_first_unsorted(r.i.data_as<int64_t>(), r.p.data_as<int64_t>(), 0, major) < 0) return r;
  const int64_t n = r.d.size();
  int64_t n_minor = 0;
  if (theano_checked_add(minor, 1, &n_minor) != THEANO_RULE_OK)
    throw ValueError(op + ": sorting an operand's rows needs " + std::to_string(minor) + " + 1 indptr entries");
  NDArray td = NDArray::empty({n}, r.d.dtype()), ti = NDArray::empty({n}, DType::Int64);
  NDArray tp = NDArray::empty({n_minor}, DType::Int64);
  Rows out{NDArray::empty({n}, r.d.dtype()), NDArray::empty({n}, DType::Int64), NDArray::empty({r.p.size()}, DType::Int64)};
#define THEANO_SORT(T, S)                                                                                         \
  theano_sparse_sort_rows_##S(major, minor, r.d.data_as<T>(), r.i.data_as<int64_t>(), r.p.data_as<int64_t>(),      \
                              td.data_as<T>(), ti.data_as<int64_t>(), tp.data_as<int64_t>(), out.d.data_as<T>(),   \
                              out.i.data_as<int64_t>(), out.p.data_as<int64_t>())
  THEANO_SPARSE_DISPATCH(r.d.dtype(), THEANO_SORT)
#undef THEANO_SORT
  return out;
}
}  // namespace

void SparseMerge::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = name();
  const auto [major, minor] = detail::check_components(op, format(), in[1], in[2], in[3], in[0].size());
  const auto [y_major, y_minor] = detail::check_components(op, format(), in[5], in[6], in[7], in[4].size());
  const int64_t x_rows = csr() ? major : minor, y_rows = csr() ? y_major : y_minor;
  if (x_rows != y_rows)
    throw ShapeError(op + ": x has " + std::to_string(x_rows) + " rows and y " + std::to_string(y_rows) +
                     "; the shapes must be equal");
  if (major != y_major || minor != y_minor)
    throw ShapeError(op + ": x has " + std::to_string(csr() ? minor : major) + " columns and y " +
                     std::to_string(csr() ? y_minor : y_major) + "; the shapes must be equal");
  const Rows x = sorted_rows(op, in[0], in[1], in[2], major, minor);
  const Rows y = sorted_rows(op, in[4], in[5], in[6], major, minor);
  const NDArray &xd = x.d, &xi = x.i, &xp = x.p, &yd = y.d, &yi = y.i, &yp = y.p;
  int64_t n_ptr = 0;
  if (theano_checked_add(major, 1, &n_ptr) != THEANO_RULE_OK)
    throw ValueError(op + ": the result needs " + std::to_string(major) + " + 1 indptr entries");
  NDArray p = NDArray::empty({n_ptr}, DType::Int64);
  int64_t* pp = p.data_as<int64_t>();
#define THEANO_MERGE(T, S)                                                                                       \
  theano_sparse_merge_##S(mul_, xd.data_as<T>(), xi.data_as<int64_t>(), xp.data_as<int64_t>(), yd.data_as<T>(),  \
                          yi.data_as<int64_t>(), yp.data_as<int64_t>(), static_cast<T*>(nullptr), nullptr, pp, 0,  \
                          major)
  THEANO_SPARSE_DISPATCH(xd.dtype(), THEANO_MERGE)
#undef THEANO_MERGE
  theano_sparse_offsets(pp, major);
  NDArray d = NDArray::empty({pp[major]}, xd.dtype()), i = NDArray::empty({pp[major]}, DType::Int64);
#define THEANO_MERGE(T, S)                                                                                       \
  theano_sparse_merge_##S(mul_, xd.data_as<T>(), xi.data_as<int64_t>(), xp.data_as<int64_t>(), yd.data_as<T>(),  \
                          yi.data_as<int64_t>(), yp.data_as<int64_t>(), d.data_as<T>(), i.data_as<int64_t>(), pp, 0, \
                          major)
  THEANO_SPARSE_DISPATCH(xd.dtype(), THEANO_MERGE)
#undef THEANO_MERGE
  out[0] = d;
  out[1] = i;
  out[2] = p;
}

std::vector<std::vector<Var>> SparseMerge::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  throw MethodNotDefined(name() + ": the number of entries is counted from the patterns at run time");
}

// ---- SparseRowVector
THEANO_REGISTER_OP(SparseRowVector, .no_grad = kAfterGrad, .no_cuda = kHostKernels);
ApplyPtr SparseRowVector::make_node(std::vector<Var> inputs) const {
  const std::string op = name();
  THEANO_USER_CHECK(inputs.size() == 5, TypeError) << op << " takes 5 inputs (data, indices, indptr, shape, v), got "
                                                   << inputs.size();
  for (Var& v : inputs) v = tensor::as_tensor_variable(v);
  const DType dt = check_values(op, "data", inputs[0], 1);
  check_structure(op, inputs, 1);
  check_values(op, "v", inputs[4], 1);
  check_same(op, "v", inputs[4], dt);
  return Apply::create(OpPtr(this), std::move(inputs), {vector(dt)});
}

void SparseRowVector::perform(const Apply&, std::span<const NDArray> in, std::span<NDArray> out) const {
  const std::string op = name();
  const auto [major, minor] = detail::check_components(op, format(), in[1], in[2], in[3], in[0].size());
  const int64_t cols = csr() ? minor : major;
  if (in[4].shape()[0] != cols)
    throw ShapeError(op + ": v has " + std::to_string(in[4].shape()[0]) + " entries, expected " +
                     std::to_string(cols) + ", the sparse matrix's column count");
  const NDArray data = in[0].contiguous(), idx = in[1].contiguous(), ptr = in[2].contiguous(), v = in[4].contiguous();
  NDArray vals = NDArray::empty({data.size()}, data.dtype());
#define THEANO_ROW_VECTOR(T, S)                                                                                  \
  theano_sparse_row_vector_##S(mul_, data.data_as<T>(), idx.data_as<int64_t>(), ptr.data_as<int64_t>(), csr(),   \
                               v.data_as<T>(), 1, vals.data_as<T>(), 0, major)
  THEANO_SPARSE_DISPATCH(data.dtype(), THEANO_ROW_VECTOR)
#undef THEANO_ROW_VECTOR
  out[0] = vals;
}

std::vector<std::vector<Var>> SparseRowVector::infer_shape(const Apply&,
                                                           const std::vector<std::vector<Var>>& s) const {
  return {{s.at(0).at(0)}};
}

}  // namespace theano::sparse

// The elementwise sparse ops of two operands (theano/sparse/ops.h): sparse +
// sparse and sparse * sparse (AddSS, MulSS: a new pattern, from the kernel
// theano_sparse_merge), and a sparse matrix with a dense row vector (MulSV,
// StructuredAddSV: x's pattern, theano_sparse_row_vector). Like the other
// sparse ops they carry types and gradients; sparse_expand (rewrite/sparse.cpp)
// turns them into the component ops SparseMerge / SparseRowVector. The
// functions bring both operands to their dtypes' upcast first, so each op
// sees one dtype (the cast's gradient returns each operand its own).
#include "registry_reasons.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/math.h"
#include "theano/tensor/type.h"

namespace theano::sparse {

using tensor::TensorType;

namespace {

const SparseType& sparse_operand(const std::string& op, const char* role, const Var& v) {
  const SparseType* t = sparse_type(v);
  THEANO_USER_CHECK(t, TypeError) << op << ": " << role << " must be a sparse matrix, got "
                                  << (v ? v.str() + " of type " + v.type()->str() : std::string("a null Var"));
  return *t;
}

Var sparse_var(SparseFormat f, DType dt) { return SparseType::make(f, dt)->make_variable(); }

/// make_node of AddSS / MulSS: two sparse matrices of one dtype -> sparse in x's format.
ApplyPtr sparse_sparse_node(const Op& op, std::vector<Var> inputs) {
  const std::string name(op.type_name());
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name << " takes 2 inputs (x, y), got " << inputs.size();
  const SparseType& tx = sparse_operand(name, "x", inputs[0]);
  const SparseType& ty = sparse_operand(name, "y", inputs[1]);
  THEANO_USER_CHECK(tx.dtype() == ty.dtype(), TypeError)
      << name << ": x and y must have one dtype, got " << inputs[0].str() << " of type " << tx.str() << " and "
      << inputs[1].str() << " of type " << ty.str() << " (sparse::add_s_s / mul_s_s cast them to their upcast)";
  return Apply::create(OpPtr(&op), std::move(inputs), {sparse_var(tx.format(), tx.dtype())});
}

/// make_node of MulSV / StructuredAddSV: a sparse matrix and a dense vector of its dtype.
ApplyPtr sparse_vector_node(const Op& op, std::vector<Var> inputs) {
  const std::string name(op.type_name());
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << name << " takes 2 inputs (x, y), got " << inputs.size();
  const SparseType& tx = sparse_operand(name, "x", inputs[0]);
  Var y = tensor::as_tensor_variable(inputs[1]);
  const TensorType* ty = tensor::tensor_type(y);
  THEANO_USER_CHECK(ty && ty->ndim() == 1 && ty->dtype() == tx.dtype(), TypeError)
      << name << ": y must be a dense vector of x's dtype " << dtype_name(tx.dtype()) << ", got " << y.str()
      << " of type " << y.type()->str();
  return Apply::create(OpPtr(&op), {inputs[0], y}, {sparse_var(tx.format(), tx.dtype())});
}

/// The column sums of `s`'s stored values (a vector of its column count).
Var column_sums(const Var& s) { return sum(s, 0); }

/// x and y in their upcast dtype (a sparse operand's data cast, its structure kept); TypeError naming `fn`
/// unless the upcast is a sparse value dtype.
DType upcast(const char* fn, const Var& x, const Var& y) {
  const DType dx = sparse_type(x)->dtype();
  const DType dy = sparse_type(y) ? sparse_type(y)->dtype() : tensor::tensor_type(y)->dtype();
  const DType dt = promote_types(dx, dy);
  THEANO_USER_CHECK(is_sparse_value_dtype(dt), TypeError)
      << "sparse::" << fn << ": the dtypes " << dtype_name(dx) << " and " << dtype_name(dy) << " upcast to "
      << dtype_name(dt) << ", which a sparse matrix cannot hold (float32, float64, int32 or int64)";
  return dt;
}

Var sparse_as(const Var& s, DType dt) {
  if (sparse_type(s)->dtype() == dt) return s;
  const std::vector<Var> p = csm_properties(s);
  return csm(sparse_type(s)->format(), tensor::cast(p[0], dt), p[1], p[2], p[3]);
}

Var sparse_pair(const char* fn, const OpPtr& op, const Var& x, const Var& y) {
  sparse_operand(std::string("sparse::") + fn, "x", x);
  sparse_operand(std::string("sparse::") + fn, "y", y);
  const DType dt = upcast(fn, x, y);
  return op->apply1({sparse_as(x, dt), sparse_as(y, dt)});
}

Var sparse_with_vector(const char* fn, const OpPtr& op, const Var& x, const tensor::TensorLike& y) {
  sparse_operand(std::string("sparse::") + fn, "x", x);
  Var v = y.var();
  const TensorType* tv = tensor::tensor_type(v);
  THEANO_USER_CHECK(tv && tv->ndim() == 1, TypeError)
      << "sparse::" << fn << ": y must be a dense vector, got " << v.str() << " of type " << v.type()->str();
  const DType dt = upcast(fn, x, v);
  if (tv->dtype() != dt) v = tensor::cast(v, dt);
  return op->apply1({sparse_as(x, dt), v});
}

}  // namespace

// ---- AddSS
THEANO_REGISTER_OP(AddSS, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);
ApplyPtr AddSS::make_node(std::vector<Var> inputs) const { return sparse_sparse_node(*this, std::move(inputs)); }

std::vector<std::vector<Var>> AddSS::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> AddSS::grad(const Apply&, const std::vector<Var>& g) const {
  if (!g.at(0)) return {Var(), Var()};
  return {g[0], g[0]};
}

// ---- MulSS
THEANO_REGISTER_OP(MulSS, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);
ApplyPtr MulSS::make_node(std::vector<Var> inputs) const { return sparse_sparse_node(*this, std::move(inputs)); }

std::vector<std::vector<Var>> MulSS::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> MulSS::grad(const Apply& node, const std::vector<Var>& g) const {
  if (!g.at(0)) return {Var(), Var()};
  return {mul_s_s(node.input(1), g[0]), mul_s_s(node.input(0), g[0])};
}

// ---- MulSV
THEANO_REGISTER_OP(MulSV, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);
ApplyPtr MulSV::make_node(std::vector<Var> inputs) const { return sparse_vector_node(*this, std::move(inputs)); }

std::vector<std::vector<Var>> MulSV::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> MulSV::grad(const Apply& node, const std::vector<Var>& g) const {
  if (!g.at(0)) return {Var(), Var()};
  const Var &x = node.input(0), &y = node.input(1);
  // d/dy[c] = sum over x's stored (r, c) of x[r, c] * gz[r, c].
  const std::vector<Var> px = csm_properties(x);
  const Var x_gz = csm(sparse_type(x)->format(), tensor::mul(px[0], csm_properties(values_at(x, g[0]))[0]), px[1], px[2], px[3]);
  return {mul_s_v(g[0], y), column_sums(x_gz)};
}

// ---- StructuredAddSV
THEANO_REGISTER_OP(StructuredAddSV, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);
ApplyPtr StructuredAddSV::make_node(std::vector<Var> inputs) const {
  return sparse_vector_node(*this, std::move(inputs));
}

std::vector<std::vector<Var>> StructuredAddSV::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> StructuredAddSV::grad(const Apply& node, const std::vector<Var>& g) const {
  if (!g.at(0)) return {Var(), Var()};
  return {g[0], column_sums(values_at(node.input(0), g[0]))};
}

// ---- functions
Var add_s_s(const Var& x, const Var& y) { return sparse_pair("add_s_s", OpPtr(new AddSS()), x, y); }
Var mul_s_s(const Var& x, const Var& y) { return sparse_pair("mul_s_s", OpPtr(new MulSS()), x, y); }
Var mul_s_v(const Var& x, const tensor::TensorLike& y) { return sparse_with_vector("mul_s_v", OpPtr(new MulSV()), x, y); }
Var structured_add_s_v(const Var& x, const tensor::TensorLike& y) {
  return sparse_with_vector("structured_add_s_v", OpPtr(new StructuredAddSV()), x, y);
}

}  // namespace theano::sparse

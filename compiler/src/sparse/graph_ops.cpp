// The graph-level sparse ops (theano/sparse/ops.h): types, shapes and
// structured gradients. They have no perform: the stage "sparse_expand"
// (rewrite/sparse.cpp) replaces them by component ops before linking.
#include "theano/sparse/ops.h"

#include "registry_reasons.h"
#include "theano/graph/op_registry.h"
#include "theano/runtime/error.h"
#include "theano/tensor/as_tensor.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/math.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::sparse {

using tensor::TensorType;

namespace {

const SparseType& sparse_of(const char* op, const char* role, const Var& v) {
  const SparseType* t = sparse_type(v);
  THEANO_USER_CHECK(t, TypeError) << op << ": " << role << " must be a sparse matrix, got " << v.str() << " of type "
                                  << (v ? v.type()->str() : std::string("none"));
  return *t;
}

const TensorType& dense_of(const char* op, const char* role, const Var& v, int ndim) {
  const TensorType* t = tensor::tensor_type(v);
  THEANO_USER_CHECK(t && t->ndim() == ndim, TypeError)
      << op << ": " << role << " must be a dense " << ndim << "-d tensor, got " << v.str() << " of type "
      << (v ? v.type()->str() : std::string("none"));
  return *t;
}

Var int64_vector(const char* op, const char* role, const Var& v) {
  Var t = tensor::as_tensor_variable(v);
  const TensorType& tt = dense_of(op, role, t, 1);
  THEANO_USER_CHECK(is_integer(tt.dtype()), TypeError)
      << op << ": " << role << " must be an integer vector, got " << t.str() << " of type " << tt.str();
  return tt.dtype() == DType::Int64 ? t : tensor::cast(t, DType::Int64);
}

Var sparse_var(SparseFormat f, DType dt) { return SparseType::make(f, dt)->make_variable(); }

/// {rows, cols} of a sparse variable, read from its shape component.
std::vector<Var> sparse_shape(const Var& s) {
  const Var shp = csm_properties(s)[3];
  return {tensor::subtensor(shp, {0}), tensor::subtensor(shp, {1})};
}

}  // namespace

// Why the graph ops have no perform and no lowerings (sparse/ops.h).
THEANO_REGISTER_OP(CSM, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- CSM
ApplyPtr CSM::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 4, TypeError) << "CSM takes 4 inputs (data, indices, indptr, shape), got "
                                                   << inputs.size();
  Var data = tensor::as_tensor_variable(inputs[0]);
  const TensorType& td = dense_of("CSM", "data", data, 1);
  THEANO_USER_CHECK(is_sparse_value_dtype(td.dtype()), TypeError)
      << "CSM: data must be float32, float64, int32 or int64, got " << data.str() << " of type " << td.str();
  Var shape = int64_vector("CSM", "shape", inputs[3]);
  const auto& n = tensor::tensor_type(shape)->shape()[0];
  THEANO_USER_CHECK(!n || *n == 2, ValueError) << "CSM: shape must have 2 entries, " << shape.str() << " has " << *n;
  return Apply::create(OpPtr(this),
                       {data, int64_vector("CSM", "indices", inputs[1]), int64_vector("CSM", "indptr", inputs[2]), shape},
                       {sparse_var(format_, td.dtype())});
}

std::vector<std::vector<Var>> CSM::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const { return {{}}; }

namespace {
/// Which stored positions a sparse variable has, as far as the graph tells:
/// the (indices, indptr) variables of the CSM that made them and whether an
/// odd number of transposes lies between. The ops that keep an operand's
/// structure (SampledDotSparse, GatherSparse, MulSV, StructuredAddSV,
/// Transpose, a CSM over another matrix's csm_properties) pass its key on;
/// nullopt when unknown.
struct StructureKey {
  const Variable* indices;
  const Variable* indptr;
  bool transposed;
  friend bool operator==(const StructureKey&, const StructureKey&) = default;
};
std::optional<StructureKey> structure_key(const Var& v) {
  const Apply* a = v.owner();
  if (!a) return std::nullopt;
  const Op* op = a->op().get();
  if (dynamic_cast<const SampledDotSparse*>(op) || dynamic_cast<const GatherSparse*>(op) ||
      dynamic_cast<const MulSV*>(op) || dynamic_cast<const StructuredAddSV*>(op))
    return structure_key(a->input(0));
  if (dynamic_cast<const Transpose*>(op)) {
    auto k = structure_key(a->input(0));
    if (k) k->transposed = !k->transposed;
    return k;
  }
  if (!dynamic_cast<const CSM*>(op)) return std::nullopt;
  const Apply* props = a->input(1).owner();
  if (props && props == a->input(2).owner() && dynamic_cast<const CSMProperties*>(props->op().get()) &&
      a->input(1).get() == props->output(1).get() && a->input(2).get() == props->output(2).get())
    return structure_key(props->input(0));
  return StructureKey{a->input(1).get(), a->input(2).get(), false};
}
}  // namespace

std::vector<Var> CSM::grad(const Apply& node, const std::vector<Var>& g) const {
  // The gradient's values at this matrix's stored positions: its data when it
  // has them (the structured gradients of the sparse ops keep their
  // operand's structure: structure_key), else read from its dense form
  // (true_dot's gradient stores every position; a dense gradient is the
  // derivative at each position, repeated entries included).
  if (!g.at(0)) return {tensor::zeros_like(node.input(0)), Var(), Var(), Var()};
  return {csm_properties(values_at(node.output(0), g[0]))[0], Var(), Var(), Var()};
}

Var values_at(const Var& s, const Var& g) {
  sparse_of("values_at", "s", s);
  sparse_of("values_at", "g", g);
  const auto kg = structure_key(g), ks = structure_key(s);
  return kg && ks && *kg == *ks ? g : OpPtr(new GatherSparse())->apply1({s, dense_from_sparse(g)});
}

std::vector<std::vector<bool>> CSM::connection_pattern(const Apply&) const { return {{true}, {false}, {false}, {false}}; }

THEANO_REGISTER_OP(CSMProperties, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- CSMProperties
ApplyPtr CSMProperties::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "CSMProperties takes 1 input, got " << inputs.size();
  const SparseType& t = sparse_of("CSMProperties", "its input", inputs[0]);
  auto vec = [](DType d) { return TensorType::make(d, {std::nullopt})->make_variable(); };
  return Apply::create(OpPtr(this), {inputs[0]},
                       {vec(t.dtype()), vec(DType::Int64), vec(DType::Int64),
                        TensorType::make(DType::Int64, {2})->make_variable()});
}

std::vector<std::vector<Var>> CSMProperties::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  throw MethodNotDefined("CSMProperties: the component lengths are known after expansion");
}

std::vector<Var> CSMProperties::grad(const Apply& node, const std::vector<Var>& g) const {
  const SparseType& t = *sparse_type(node.input(0));
  if (!g.at(0)) return {Var()};
  return {csm(t.format(), g[0], node.output(1), node.output(2), node.output(3))};
}

std::vector<std::vector<bool>> CSMProperties::connection_pattern(const Apply&) const {
  return {{true, false, false, false}};
}

THEANO_REGISTER_OP(DenseFromSparse, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- DenseFromSparse
ApplyPtr DenseFromSparse::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "DenseFromSparse takes 1 input, got " << inputs.size();
  const SparseType& t = sparse_of("DenseFromSparse", "its input", inputs[0]);
  return Apply::create(OpPtr(this), {inputs[0]},
                       {TensorType::make(t.dtype(), {std::nullopt, std::nullopt})->make_variable()});
}

std::vector<std::vector<Var>> DenseFromSparse::infer_shape(const Apply& node, const std::vector<std::vector<Var>>&) const {
  return {sparse_shape(node.input(0))};
}

std::vector<Var> DenseFromSparse::grad(const Apply& node, const std::vector<Var>& g) const {
  return {OpPtr(new GatherSparse())->apply1({node.input(0), g.at(0)})};
}

THEANO_REGISTER_OP(SparseFromDense, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- SparseFromDense
ApplyPtr SparseFromDense::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "SparseFromDense takes 1 input, got " << inputs.size();
  Var d = tensor::as_tensor_variable(inputs[0]);
  const TensorType& t = dense_of("SparseFromDense", "its input", d, 2);
  return Apply::create(OpPtr(this), {d}, {sparse_var(format_, t.dtype())});
}

std::vector<std::vector<Var>> SparseFromDense::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> SparseFromDense::grad(const Apply&, const std::vector<Var>& g) const {
  return {g.at(0) ? dense_from_sparse(g[0]) : Var()};
}

THEANO_REGISTER_OP(Transpose, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- Transpose
ApplyPtr Transpose::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 1, TypeError) << "SparseTranspose takes 1 input, got " << inputs.size();
  const SparseType& t = sparse_of("SparseTranspose", "its input", inputs[0]);
  const SparseFormat other = t.format() == SparseFormat::CSR ? SparseFormat::CSC : SparseFormat::CSR;
  return Apply::create(OpPtr(this), {inputs[0]}, {sparse_var(other, t.dtype())});
}

std::vector<std::vector<Var>> Transpose::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> Transpose::grad(const Apply&, const std::vector<Var>& g) const {
  return {g.at(0) ? transpose(g[0]) : Var()};
}

THEANO_REGISTER_OP(StructuredDot, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- StructuredDot
ApplyPtr StructuredDot::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "StructuredDot takes 2 inputs (S, D), got " << inputs.size();
  const SparseType& ts = sparse_of("StructuredDot", "S", inputs[0]);
  Var d = tensor::as_tensor_variable(inputs[1]);
  const TensorType& td = dense_of("StructuredDot", "D", d, 2);
  THEANO_USER_CHECK(td.dtype() == ts.dtype(), TypeError)
      << "StructuredDot: D must have the sparse matrix's dtype " << dtype_name(ts.dtype()) << ", got " << d.str()
      << " of type " << td.str();
  return Apply::create(OpPtr(this), {inputs[0], d},
                       {TensorType::make(ts.dtype(), {std::nullopt, td.shape()[1]})->make_variable()});
}

std::vector<std::vector<Var>> StructuredDot::infer_shape(const Apply& node,
                                                         const std::vector<std::vector<Var>>& s) const {
  return {{sparse_shape(node.input(0))[0], s.at(1).at(1)}};
}

std::vector<Var> StructuredDot::grad(const Apply& node, const std::vector<Var>& g) const {
  const Var &s = node.input(0), &d = node.input(1);
  const Var& gz = g.at(0);
  return {OpPtr(new SampledDotSparse())->apply1({s, gz, d}), structured_dot(transpose(s), gz)};
}

THEANO_REGISTER_OP(SampledDotSparse, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- SampledDotSparse
ApplyPtr SampledDotSparse::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 3, TypeError) << "SampledDotSparse takes 3 inputs (S, X, Y), got "
                                                   << inputs.size();
  const SparseType& ts = sparse_of("SampledDotSparse", "S", inputs[0]);
  Var x = tensor::as_tensor_variable(inputs[1]), y = tensor::as_tensor_variable(inputs[2]);
  for (const Var* v : {&x, &y}) {
    const TensorType& t = dense_of("SampledDotSparse", v == &x ? "X" : "Y", *v, 2);
    THEANO_USER_CHECK(t.dtype() == ts.dtype(), TypeError)
        << "SampledDotSparse: " << (v == &x ? "X" : "Y") << " must have dtype " << dtype_name(ts.dtype()) << ", got "
        << v->str() << " of type " << t.str();
  }
  return Apply::create(OpPtr(this), {inputs[0], x, y}, {sparse_var(ts.format(), ts.dtype())});
}

std::vector<std::vector<Var>> SampledDotSparse::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> SampledDotSparse::grad(const Apply& node, const std::vector<Var>& g) const {
  if (!g.at(0)) return {Var(), Var(), Var()};
  return {Var(), structured_dot(g[0], node.input(2)), structured_dot(transpose(g[0]), node.input(1))};
}

std::vector<std::vector<bool>> SampledDotSparse::connection_pattern(const Apply&) const {
  return {{false}, {true}, {true}};
}

THEANO_REGISTER_OP(GatherSparse, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- GatherSparse
ApplyPtr GatherSparse::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "GatherSparse takes 2 inputs (S, M), got " << inputs.size();
  const SparseType& ts = sparse_of("GatherSparse", "S", inputs[0]);
  Var m = tensor::as_tensor_variable(inputs[1]);
  const TensorType& tm = dense_of("GatherSparse", "M", m, 2);
  THEANO_USER_CHECK(tm.dtype() == ts.dtype(), TypeError) << "GatherSparse: M must have dtype " << dtype_name(ts.dtype())
                                                         << ", got " << m.str() << " of type " << tm.str();
  return Apply::create(OpPtr(this), {inputs[0], m}, {sparse_var(ts.format(), ts.dtype())});
}

std::vector<std::vector<Var>> GatherSparse::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  return {{}};
}

std::vector<Var> GatherSparse::grad(const Apply&, const std::vector<Var>& g) const {
  return {Var(), g.at(0) ? dense_from_sparse(g[0]) : Var()};
}

std::vector<std::vector<bool>> GatherSparse::connection_pattern(const Apply&) const { return {{false}, {true}}; }

THEANO_REGISTER_OP(TrueDot, .no_perform = kExpanded, .no_cpp = kExpanded, .no_cuda = kExpanded);

// ---- TrueDot
ApplyPtr TrueDot::make_node(std::vector<Var> inputs) const {
  THEANO_USER_CHECK(inputs.size() == 2, TypeError) << "TrueDot takes 2 inputs (S, D), got " << inputs.size();
  // The same checks and output as StructuredDot.
  const ApplyPtr like = OpPtr(new StructuredDot())->make_node(inputs);
  return Apply::create(OpPtr(this), like->inputs(), {like->output(0).type()->make_variable()});
}

std::vector<std::vector<Var>> TrueDot::infer_shape(const Apply& node, const std::vector<std::vector<Var>>& s) const {
  return {{sparse_shape(node.input(0))[0], s.at(1).at(1)}};
}

std::vector<Var> TrueDot::grad(const Apply& node, const std::vector<Var>& g) const {
  const Var &s = node.input(0), &d = node.input(1);
  const Var& gz = g.at(0);
  return {sparse_from_dense(tensor::dot(gz, d.transpose({1, 0})), sparse_type(s)->format()),
          structured_dot(transpose(s), gz)};
}

Var add_gradient_terms(const std::vector<Var>& terms) {
  THEANO_USER_CHECK(!terms.empty(), ValueError) << "sparse::add_gradient_terms: no terms";
  const SparseType& t = sparse_of("add_gradient_terms", "a term", terms[0]);
  const auto key = structure_key(terms[0]);
  bool same = key.has_value();
  for (const Var& term : terms) {
    const SparseType& tt = sparse_of("add_gradient_terms", "a term", term);
    same = same && tt.format() == t.format() && structure_key(term) == key;
  }
  if (terms.size() == 1) return terms[0];
  if (same) {
    std::vector<Var> data;
    for (const Var& term : terms) data.push_back(csm_properties(term)[0]);
    const std::vector<Var> p = csm_properties(terms[0]);
    return csm(t.format(), tensor::add(data), p[1], p[2], p[3]);
  }
  std::vector<Var> dense;
  for (const Var& term : terms) dense.push_back(dense_from_sparse(term));
  return sparse_from_dense(tensor::add(dense), t.format());
}

// ---- functions
Var csm(SparseFormat format, const Var& data, const Var& indices, const Var& indptr, const Var& shape) {
  return OpPtr(new CSM(format))->apply1({data, indices, indptr, shape});
}

std::vector<Var> csm_properties(const Var& s) { return OpPtr(new CSMProperties())->operator()({s}); }
Var dense_from_sparse(const Var& s) { return OpPtr(new DenseFromSparse())->apply1({s}); }
Var sparse_from_dense(const Var& d, SparseFormat format) { return OpPtr(new SparseFromDense(format))->apply1({d}); }
Var transpose(const Var& s) { return OpPtr(new Transpose())->apply1({s}); }
Var structured_dot(const Var& s, const Var& d) { return OpPtr(new StructuredDot())->apply1({s, d}); }
Var true_dot(const Var& s, const Var& d) { return OpPtr(new TrueDot())->apply1({s, d}); }

namespace {
SparseInput make_input(SparseFormat format, const std::string& name, DType dtype) {
  SparseInput in;
  in.data = TensorType::make(dtype, {std::nullopt})->make_variable(name + "_data");
  in.indices = TensorType::make(DType::Int64, {std::nullopt})->make_variable(name + "_indices");
  in.indptr = TensorType::make(DType::Int64, {std::nullopt})->make_variable(name + "_indptr");
  in.shape = TensorType::make(DType::Int64, {2})->make_variable(name + "_shape");
  in.var = csm(format, in.data, in.indices, in.indptr, in.shape);
  in.var->set_name(name);
  return in;
}
}  // namespace

SparseInput csr_matrix(const std::string& name, DType dtype) { return make_input(SparseFormat::CSR, name, dtype); }
SparseInput csc_matrix(const std::string& name, DType dtype) { return make_input(SparseFormat::CSC, name, dtype); }

std::vector<NDArray> arguments(const SparseMatrix& m) { return {m.data(), m.indices(), m.indptr(), m.shape_array()}; }

}  // namespace theano::sparse

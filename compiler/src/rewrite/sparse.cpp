/// \file
/// The rewrites of the stage "sparse_expand" (position 0.5, tag `sparse`, in
/// optdb_layout.cpp; function() runs it first, in every mode, whenever a graph
/// has a sparse variable): each sparse
/// op (theano/sparse/ops.h) becomes component ops over csm_properties of its
/// operands (theano/sparse/components.h), wrapped in CSM where the result is
/// sparse, and `local_csm_properties_csm` cancels CSMProperties(CSM(...)), so
/// at equilibrium no sparse variable is left between the graph's inputs and
/// outputs. `sparse_dot` is the seed's rewrite of that name: the generic
/// structured_dot becomes the row-parallel CSR kernel SpMM{csr} (Theano's
/// StructuredDotCSR); a CSC operand (a transpose, e.g. in the gradient
/// S^T G) is first converted by SwapFormat, one counting sort, because the
/// CSC kernel's scatter into random output rows moves about twice the bytes
/// (W8g: see bench/README.md). true_dot, which differs only in its gradient,
/// runs the same kernel. add_s_s / mul_s_s become SparseMerge over both
/// operands' components in the first one's format (SwapFormat converts the
/// second: local_sparse_merge); mul_s_v / structured_add_s_v become
/// SparseRowVector over the matrix's components, its structure kept.
///
/// Constants fold as usual afterwards: the component ops have perform, so a
/// product of two constant matrices is folded by constant_folding.
#include "rewrites.h"
#include "theano/sparse/components.h"
#include "theano/sparse/ops.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"

namespace theano::rewrite::detail {
namespace {

using namespace theano::sparse;

SparseFormat format_of(const Var& s) { return sparse_type(s)->format(); }

/// {data, indices, indptr, shape} of a sparse operand.
std::vector<Var> parts(const Var& s) { return csm_properties(s); }

template <class Fn>
NodeRewriterPtr rule(const char* name, const char* track, const char* algebra, Fn fn) {
  return make_node_rewriter(name, {track}, algebra, [fn](FunctionGraph&, Apply& node) -> RewriteResult {
    return fn(node);
  });
}

}  // namespace

NodeRewriterPtr local_csm_properties_csm() {
  static const NodeRewriterPtr r = rule("local_csm_properties_csm", "CSMProperties",
                                        "CSMProperties(CSM(d, i, p, s)) -> (d, i, p, s)", [](Apply& node) {
                                          const Apply* inner = node.input(0).owner();
                                          if (!inner || !dynamic_cast<const CSM*>(inner->op().get()))
                                            return RewriteResult::fail("not the properties of a CSM");
                                          return RewriteResult(inner->inputs());
                                        });
  return r;
}

NodeRewriterPtr sparse_dot() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "sparse_dot", {"StructuredDot", "TrueDot"},
      "structured_dot(S, D), true_dot(S, D) -> SpMM{format of S}(data, indices, indptr, shape, D)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        std::vector<Var> in = parts(node.input(0));
        if (format_of(node.input(0)) == SparseFormat::CSC) {
          // The CSR kernel over the same matrix's CSR components (SwapFormat).
          const std::vector<Var> csr = OpPtr(new SwapFormat(SparseFormat::CSC))->operator()(in);
          return OpPtr(new SpMM(SparseFormat::CSR))->apply1({csr[0], csr[1], csr[2], in[3], node.input(1)});
        }
        in.push_back(node.input(1));
        return OpPtr(new SpMM(SparseFormat::CSR))->apply1(in);
      });
  return r;
}

NodeRewriterPtr local_dense_from_sparse() {
  static const NodeRewriterPtr r =
      rule("local_dense_from_sparse", "DenseFromSparse",
           "dense_from_sparse(S) -> ComponentsToDense{format}(data, indices, indptr, shape)", [](Apply& node) {
             return RewriteResult(OpPtr(new ComponentsToDense(format_of(node.input(0))))->apply1(parts(node.input(0))));
           });
  return r;
}

NodeRewriterPtr local_sparse_from_dense() {
  static const NodeRewriterPtr r =
      rule("local_sparse_from_dense", "SparseFromDense",
           "sparse_from_dense(M) -> CSM(DenseToComponents(M), shape(M))", [](Apply& node) {
             const SparseFormat f = static_cast<const SparseFromDense&>(*node.op()).format();
             const std::vector<Var> c = OpPtr(new DenseToComponents(f))->operator()({node.input(0)});
             return RewriteResult(csm(f, c[0], c[1], c[2], tensor::shape(node.input(0))));
           });
  return r;
}

NodeRewriterPtr local_sparse_transpose() {
  static const NodeRewriterPtr r = rule(
      "local_sparse_transpose", "SparseTranspose",
      "transpose(S) -> CSM{other format}(data, indices, indptr, [shape[1], shape[0]])", [](Apply& node) {
        const std::vector<Var> p = parts(node.input(0));
        const Var shape = tensor::make_vector({tensor::subtensor(p[3], {1}), tensor::subtensor(p[3], {0})}, DType::Int64);
        return RewriteResult(csm(format_of(node.output(0)), p[0], p[1], p[2], shape));
      });
  return r;
}

/// Op(S, dense...) -> CSM(Component{format}(indices, indptr, shape, dense...),
/// indices, indptr, shape): an op whose result has S's stored positions and
/// new values there.
template <class Component>
RewriteResult values_at_positions(Apply& node) {
  const SparseFormat f = format_of(node.input(0));
  const std::vector<Var> p = parts(node.input(0));
  std::vector<Var> in = {p[1], p[2], p[3]};
  for (int i = 1; i < node.nin(); ++i) in.push_back(node.input(i));
  return RewriteResult(csm(f, OpPtr(new Component(f))->apply1(in), p[1], p[2], p[3]));
}

NodeRewriterPtr local_sampled_dot() {
  static const NodeRewriterPtr r =
      rule("local_sampled_dot", "SampledDotSparse",
           "SampledDotSparse(S, X, Y) -> CSM(SampledDot(indices, indptr, shape, X, Y), indices, indptr, shape)",
           values_at_positions<SampledDot>);
  return r;
}

NodeRewriterPtr local_gather_sparse() {
  static const NodeRewriterPtr r =
      rule("local_gather_sparse", "GatherSparse",
           "GatherSparse(S, M) -> CSM(SparseGather(indices, indptr, shape, M), indices, indptr, shape)",
           values_at_positions<SparseGather>);
  return r;
}

namespace {
/// {data, indices, indptr, shape} of `s` in `format` (SwapFormat when s has
/// the other one).
std::vector<Var> parts_in(const Var& s, SparseFormat format) {
  const std::vector<Var> p = parts(s);
  if (format_of(s) == format) return p;
  const std::vector<Var> c = OpPtr(new SwapFormat(format_of(s)))->operator()(p);
  return {c[0], c[1], c[2], p[3]};
}
}  // namespace

NodeRewriterPtr local_sparse_merge() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sparse_merge", {"AddSS", "MulSS"},
      "add_s_s(x, y), mul_s_s(x, y) -> CSM(SparseMerge{format of x, add|mul}(x's and y's components in x's "
      "format), shape of x)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const bool mul = dynamic_cast<const MulSS*>(node.op().get()) != nullptr;
        const SparseFormat f = format_of(node.input(0));
        std::vector<Var> in = parts(node.input(0));
        const std::vector<Var> y = parts_in(node.input(1), f);
        in.insert(in.end(), y.begin(), y.end());
        const std::vector<Var> m = OpPtr(new SparseMerge(f, mul))->operator()(in);
        return RewriteResult(csm(f, m[0], m[1], m[2], in[3]));
      });
  return r;
}

NodeRewriterPtr local_sparse_row_vector() {
  static const NodeRewriterPtr r = make_node_rewriter(
      "local_sparse_row_vector", {"MulSV", "StructuredAddSV"},
      "mul_s_v(S, v), structured_add_s_v(S, v) -> CSM(SparseRowVector{format, mul|add}(data, indices, indptr, "
      "shape, v), indices, indptr, shape)",
      [](FunctionGraph&, Apply& node) -> RewriteResult {
        const bool mul = dynamic_cast<const MulSV*>(node.op().get()) != nullptr;
        const SparseFormat f = format_of(node.input(0));
        const std::vector<Var> p = parts(node.input(0));
        const Var vals = OpPtr(new SparseRowVector(f, mul))->apply1({p[0], p[1], p[2], p[3], node.input(1)});
        return RewriteResult(csm(f, vals, p[1], p[2], p[3]));
      });
  return r;
}

}  // namespace theano::rewrite::detail

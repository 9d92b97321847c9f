// einsum as a graph (einsum.h): the subscripts parsed to labels
// (parse.cpp), then per operand its diagonals (a repeated label) and the sums
// of labels no other operand nor the output has, the static-size-1 axes that
// broadcast dropped, then pairwise contractions in opt_einsum's greedy order,
// each one tensordot (no shared kept label: one Dot) or, with batch labels
// (in both operands and kept), one BatchedDot of (B, M, K) x (B, K, N)
// reshapes; dtypes BLAS lacks, elementwise and outer products (nothing
// summed) and batched inner products (M = N = 1) multiply broadcast operands
// (and sum). Last, the
// result's axes are put in the output's order. docs/einsum.md.
#include "theano/tensor/einsum.h"

#include <algorithm>
#include <limits>

#include "../reduction/kernel_util.h"
#include "einsum_detail.h"
#include "theano/runtime/error.h"
#include "theano/tensor/basic_ops.h"
#include "theano/tensor/batched_blas.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/linalg_structure.h"
#include "theano/tensor/math.h"
#include "theano/tensor/reduction.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/type.h"

namespace theano::tensor {
namespace {

using einsum_detail::label_text;

// An operand on the way: its labels, all distinct, one per axis.
struct Term {
  Var v;
  std::vector<int> labels;
};

bool has(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

int axis_of(const Term& t, int l) {
  return static_cast<int>(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin());
}

Dim static_dim(const Var& v, int axis) { return tensor_type(v)->shape()[static_cast<std::size_t>(axis)]; }

// t with the axes at `axes` summed away (dtype kept).
Term sum_axes(const Term& t, const std::vector<int>& axes) {
  if (axes.empty()) return t;
  Term r{sum(t.v, Axes(axes), false, {}, tensor_type(t.v)->dtype()), {}};
  for (std::size_t i = 0; i < t.labels.size(); ++i)
    if (!has(axes, static_cast<int>(i))) r.labels.push_back(t.labels[i]);
  return r;
}

// t with its labels in `order` (a permutation of a subset: the others must be gone).
Var arranged(const Term& t, const std::vector<int>& order, int new_axes_at = -1, int n_new = 0) {
  std::vector<int> o;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (static_cast<int>(i) == new_axes_at)
      for (int k = 0; k < n_new; ++k) o.push_back(kNewAxis);
    o.push_back(axis_of(t, order[i]));
  }
  if (new_axes_at == static_cast<int>(order.size()))
    for (int k = 0; k < n_new; ++k) o.push_back(kNewAxis);
  bool identity = static_cast<int>(o.size()) == static_cast<int>(t.labels.size());
  for (std::size_t i = 0; identity && i < o.size(); ++i) identity = o[i] == static_cast<int>(i);
  return identity ? t.v : dimshuffle(t.v, o);
}

// The size of label l: static from whichever term knows it, else a shape_i.
struct LabelSize {
  Dim known;
  Var sym;
};
LabelSize label_size(const Term& a, const Term* b, int l) {
  if (Dim d = static_dim(a.v, axis_of(a, l))) return {d, {}};
  if (b && has(b->labels, l))
    if (Dim d = static_dim(b->v, axis_of(*b, l))) return {d, {}};
  return {std::nullopt, shape_i(a.v, axis_of(a, l))};
}

// A product of label sizes: a constant when all are known.
Var size_product(const Term& a, const Term* b, const std::vector<int>& labels, int64_t* known) {
  int64_t value = 1;
  bool all = true;
  Var sym;
  for (int l : labels) {
    const LabelSize s = label_size(a, b, l);
    if (s.known) value *= *s.known;
    else all = false;
    const Var v = s.known ? constant(NDArray::scalar<int64_t>(*s.known)) : s.sym;
    sym = sym ? mul(sym, v) : v;
  }
  *known = all ? value : -1;
  return all ? constant(NDArray::scalar<int64_t>(value)) : sym;
}

Var reshape_groups(const Var& v, const std::vector<Var>& dims, const std::vector<int64_t>& known) {
  if (std::all_of(known.begin(), known.end(), [](int64_t k) { return k >= 0; })) return reshape(v, known);
  return reshape(v, make_vector(dims, DType::Int64), static_cast<int>(dims.size()));
}

// Contracts a and b keeping the labels in `keep`: labels in both and kept are
// batch labels, in both and not kept are summed. Result: batch, a's free, b's free.
Term contract(Term a, Term b, const std::vector<int>& keep) {
  // A label of one operand only that is not kept is summed first.
  std::vector<int> sa, sb;
  for (std::size_t i = 0; i < a.labels.size(); ++i)
    if (!has(b.labels, a.labels[i]) && !has(keep, a.labels[i])) sa.push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < b.labels.size(); ++i)
    if (!has(a.labels, b.labels[i]) && !has(keep, b.labels[i])) sb.push_back(static_cast<int>(i));
  a = sum_axes(a, sa);
  b = sum_axes(b, sb);
  std::vector<int> batch, contr, af, bf;
  for (int l : a.labels) {
    if (has(b.labels, l)) (has(keep, l) ? batch : contr).push_back(l);
    else af.push_back(l);
  }
  for (int l : b.labels)
    if (!has(a.labels, l)) bf.push_back(l);
  std::vector<int> out_labels = batch;
  out_labels.insert(out_labels.end(), af.begin(), af.end());
  out_labels.insert(out_labels.end(), bf.begin(), bf.end());
  const DType od = tensor_type(a.v)->dtype();  // operands were cast to one dtype
  // BLAS pays off for a product of matrices; an elementwise or outer product
  // (nothing summed) and batched inner products (no free label on either
  // side: 1 x 1 results) are a broadcast product, summed for the latter.
  const bool no_matrix = contr.empty() || (af.empty() && bf.empty() && !batch.empty());
  if ((od != DType::Float32 && od != DType::Float64) || no_matrix) {
    // (batch, af, 1.., contr) * (batch, 1.., bf, contr), summed over contr.
    std::vector<int> oa = batch, ob = batch;
    oa.insert(oa.end(), af.begin(), af.end());
    const int a_new_at = static_cast<int>(oa.size());
    oa.insert(oa.end(), contr.begin(), contr.end());
    ob.insert(ob.end(), bf.begin(), bf.end());
    ob.insert(ob.end(), contr.begin(), contr.end());
    const Var pa = arranged(a, oa, a_new_at, static_cast<int>(bf.size()));
    const Var pb = arranged(b, ob, static_cast<int>(batch.size()), static_cast<int>(af.size()));
    std::vector<int> summed;
    for (std::size_t i = 0; i < contr.size(); ++i) summed.push_back(static_cast<int>(out_labels.size() + i));
    const Var p = mul(pa, pb);
    return {summed.empty() ? p : sum(p, Axes(summed), false, {}, od), out_labels};
  }
  if (batch.empty()) {
    std::vector<int> ax, ay;
    for (int l : contr) {
      ax.push_back(axis_of(a, l));
      ay.push_back(axis_of(b, l));
    }
    return {tensordot(a.v, b.v, TensordotAxes(ax, ay)), out_labels};
  }
  // (B, M, K) x (B, K, N) -> (B, M, N) -> (batch..., af..., bf...).
  std::vector<int> oa = batch, ob = batch;
  oa.insert(oa.end(), af.begin(), af.end());
  oa.insert(oa.end(), contr.begin(), contr.end());
  ob.insert(ob.end(), contr.begin(), contr.end());
  ob.insert(ob.end(), bf.begin(), bf.end());
  int64_t kb = 0, km = 0, kk = 0, kn = 0;
  const Var B = size_product(a, &b, batch, &kb), M = size_product(a, nullptr, af, &km);
  const Var K = size_product(a, &b, contr, &kk), N = size_product(b, nullptr, bf, &kn);
  const Var a3 = reshape_groups(arranged(a, oa), {B, M, K}, {kb, km, kk});
  const Var b3 = reshape_groups(arranged(b, ob), {B, K, N}, {kb, kk, kn});
  std::vector<Var> dims;
  std::vector<int64_t> known;
  for (int l : out_labels) {
    const Term& owner = has(a.labels, l) ? a : b;
    const Term* other = &owner == &a ? &b : &a;
    int64_t k = 0;
    dims.push_back(size_product(owner, other, {l}, &k));
    known.push_back(k);
  }
  return {reshape_groups(batched_dot3(a3, b3), dims, known), out_labels};
}

// The static size used by the path's cost (unknown sizes count as this).
constexpr double kUnknownSize = 32;

double term_size(const std::vector<Term>& all, const std::vector<int>& labels) {
  double s = 1;
  for (int l : labels) {
    Dim d;
    for (const Term& u : all)
      if (!d && has(u.labels, l)) d = static_dim(u.v, axis_of(u, l));
    s *= d ? static_cast<double>(*d) : kUnknownSize;
  }
  return s;
}

struct Prepared {
  std::vector<Term> terms;
  std::vector<int> output;
};

Prepared prepare(const std::string& subscripts, const std::vector<TensorLike>& operands_in) {
  std::vector<Var> operands;
  for (const TensorLike& o : operands_in) operands.push_back(as_tensor_variable(o.var()));
  const einsum_detail::Subscripts sub = einsum_detail::parse(subscripts, operands);
  DType od = tensor_type(operands[0])->dtype();
  for (const Var& v : operands) od = promote_types(od, tensor_type(v)->dtype());
  Prepared p;
  p.output = sub.output;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    Term t{tensor_type(operands[i])->dtype() == od ? operands[i] : cast(operands[i], od), sub.inputs[i]};
    // Diagonals of repeated labels: diagonal() puts the diagonal axis last.
    for (bool again = true; again;) {
      again = false;
      for (std::size_t x = 0; x < t.labels.size() && !again; ++x)
        for (std::size_t y = x + 1; y < t.labels.size() && !again; ++y) {
          if (t.labels[x] != t.labels[y]) continue;
          const Dim dx = static_dim(t.v, static_cast<int>(x)), dy = static_dim(t.v, static_cast<int>(y));
          THEANO_USER_CHECK(!dx || !dy || *dx == *dy, ShapeError)
              << "einsum: subscripts '" << subscripts << "': operand " << i << " (" << operands[i].str()
              << ") repeats '" << label_text(t.labels[x]) << "' on axes of sizes " << *dx << " and " << *dy;
          const int l = t.labels[x];
          t.v = linalg::diagonal(t.v, 0, static_cast<int>(x), static_cast<int>(y));
          t.labels.erase(t.labels.begin() + static_cast<std::ptrdiff_t>(y));
          t.labels.erase(t.labels.begin() + static_cast<std::ptrdiff_t>(x));
          t.labels.push_back(l);
          again = true;
        }
    }
    p.terms.push_back(t);
  }
  // Static sizes of one label: equal, or 1 (broadcast: that axis is dropped
  // where another operand has the label with another size).
  for (int l = 0; l < einsum_detail::kEllipsisLabel + 64; ++l) {
    Dim big;
    bool other = false;
    for (std::size_t i = 0; i < p.terms.size(); ++i) {
      if (!has(p.terms[i].labels, l)) continue;
      const Dim d = static_dim(p.terms[i].v, axis_of(p.terms[i], l));
      if (d == Dim(1)) continue;
      other = true;
      if (!d) continue;
      THEANO_USER_CHECK(!big || *big == *d, ShapeError)
          << "einsum: subscripts '" << subscripts << "': '" << label_text(l) << "' has size " << *big
          << " in one operand and " << *d << " in operand " << i << " (" << operands[i].str() << ")";
      big = d;
    }
    if (!other) continue;
    for (Term& t : p.terms) {
      if (!has(t.labels, l) || static_dim(t.v, axis_of(t, l)) != Dim(1)) continue;
      std::vector<int> order;
      for (std::size_t k = 0; k < t.labels.size(); ++k)
        if (t.labels[k] != l) order.push_back(static_cast<int>(k));
      t.v = dimshuffle(t.v, order);
      t.labels.erase(t.labels.begin() + axis_of(t, l));
    }
  }
  return p;
}

// Labels kept when terms i and j are contracted: the output's and the other terms'.
std::vector<int> kept_labels(const Prepared& p, std::size_t i, std::size_t j) {
  std::vector<int> keep = p.output;
  for (std::size_t k = 0; k < p.terms.size(); ++k)
    if (k != i && k != j) keep.insert(keep.end(), p.terms[k].labels.begin(), p.terms[k].labels.end());
  return keep;
}

// opt_einsum's greedy choice: among pairs sharing a label (else all pairs),
// the one minimising size(result) - size(a) - size(b); on ties the one whose
// contraction multiplies fewest values (the product of all its label sizes),
// then the first.
std::pair<std::size_t, std::size_t> greedy_pair(const Prepared& p) {
  double best = std::numeric_limits<double>::infinity(), best_flops = best;
  std::pair<std::size_t, std::size_t> pick{0, 1};
  for (int pass = 0; pass < 2 && best == std::numeric_limits<double>::infinity(); ++pass)
    for (std::size_t i = 0; i < p.terms.size(); ++i)
      for (std::size_t j = i + 1; j < p.terms.size(); ++j) {
        const Term &a = p.terms[i], &b = p.terms[j];
        const bool share = std::any_of(a.labels.begin(), a.labels.end(), [&](int l) { return has(b.labels, l); });
        if (pass == 0 && !share) continue;
        const std::vector<int> keep = kept_labels(p, i, j);
        std::vector<int> res;
        for (const Term* t : {&a, &b})
          for (int l : t->labels)
            if (has(keep, l) && !has(res, l)) res.push_back(l);
        const double cost = term_size(p.terms, res) - term_size(p.terms, a.labels) -
                            term_size(p.terms, b.labels);
        std::vector<int> all = a.labels;
        for (int l : b.labels)
          if (!has(all, l)) all.push_back(l);
        const double flops = term_size(p.terms, all);
        if (cost < best || (cost == best && flops < best_flops)) {
          best = cost;
          best_flops = flops;
          pick = {i, j};
        }
      }
  return pick;
}

// The contraction: sums of labels one term alone has, then the greedy pairs
// (recorded in `path` when given); the last term's axes in the output's order.
Var contract_all(Prepared& p, std::vector<std::pair<int, int>>* path) {
  // Labels one term alone has and the output lacks are summed at once.
  for (std::size_t i = 0; i < p.terms.size(); ++i) {
    const std::vector<int> keep = kept_labels(p, i, i);
    std::vector<int> axes;
    for (std::size_t k = 0; k < p.terms[i].labels.size(); ++k)
      if (!has(keep, p.terms[i].labels[k])) axes.push_back(static_cast<int>(k));
    p.terms[i] = sum_axes(p.terms[i], axes);
  }
  while (p.terms.size() > 1) {
    const auto [i, j] = greedy_pair(p);
    if (path) path->emplace_back(static_cast<int>(i), static_cast<int>(j));
    Term r = contract(p.terms[i], p.terms[j], kept_labels(p, i, j));
    p.terms.erase(p.terms.begin() + static_cast<std::ptrdiff_t>(j));
    p.terms.erase(p.terms.begin() + static_cast<std::ptrdiff_t>(i));
    p.terms.push_back(r);
  }
  const Term& t = p.terms[0];
  for (int l : p.output)
    THEANO_INTERNAL_CHECK(has(t.labels, l)) << "einsum: output label " << label_text(l) << " was lost";
  return arranged(t, p.output);
}

}  // namespace

std::vector<std::pair<int, int>> einsum_path(const std::string& subscripts, const std::vector<TensorLike>& operands) {
  Prepared p = prepare(subscripts, operands);
  std::vector<std::pair<int, int>> path;
  contract_all(p, &path);  // the graph is dropped: the path is what einsum takes
  return path;
}

Var einsum(const std::string& subscripts, const std::vector<TensorLike>& operands) {
  Prepared p = prepare(subscripts, operands);
  return contract_all(p, nullptr);
}

}  // namespace theano::tensor

/// \file
/// ShapeFeature: per-variable symbolic shapes kept up to date through imports
/// and replacements (see shape_feature.h for the invariants).
#include "shape_feature.h"

#include "../tensor/shape/shape_util.h"
#include "theano/tensor/elemwise.h"
#include "theano/tensor/math.h"
#include "theano/tensor/scalar.h"
#include "theano/tensor/shape.h"
#include "theano/tensor/subtensor.h"
#include "theano/tensor/type.h"

namespace theano::rewrite::detail {

namespace T = theano::tensor;

namespace {

Var make_shape_i(const Var& v, int d) { return OpPtr(new T::Shape_i(d))->apply1({v}); }

/// `Shape_i{d}(v)` for a node of that exact form.
bool is_shape_i_of(const Var& s, const Var& v, int d) {
  if (!s.owner()) return false;
  const auto* op = dynamic_cast<const T::Shape_i*>(s.owner()->op().get());
  return op && op->i() == d && s.owner()->input(0) == v;
}

/// Whether `s` mentions `v` within a few levels (bounded: O(1) per call).
bool mentions(const Var& s, const Var& v, int depth) {
  if (s == v) return true;
  if (!s.owner()) return false;
  if (depth == 0) return true;  // too deep to tell: assume it does
  for (const Var& in : s.owner()->inputs())
    if (mentions(in, v, depth - 1)) return true;
  return false;
}

/// An integer cast that keeps every value (into int64).
bool is_widening_int64_cast(const Apply* node) {
  const T::ScalarOp* s = T::elemwise_scalar_op(node);
  if (!s || s->type_name() != "Cast" || node->nin() != 1) return false;
  const T::TensorType* in = T::tensor_type(node->input(0));
  const T::TensorType* out = T::tensor_type(node->output(0));
  if (!in || !out || out->dtype() != DType::Int64) return false;
  switch (in->dtype()) {
    case DType::Bool: case DType::Int8: case DType::Int16: case DType::Int32: case DType::Int64:
    case DType::UInt8: case DType::UInt16: case DType::UInt32:
      return true;
    default:
      return false;
  }
}

}  // namespace

ShapeFeature::Entry ShapeFeature::fallback_entry(const Var& v) const {
  const T::TensorType* t = T::tensor_type(v);
  Entry e{v, std::vector<Var>(static_cast<std::size_t>(t->ndim())), std::vector<bool>(static_cast<std::size_t>(t->ndim()), false)};
  const Constant* c = v.as_constant();
  for (int d = 0; d < t->ndim(); ++d) {
    const auto du = static_cast<std::size_t>(d);
    if (c) e.shape[du] = T::detail::int64_const(c->data().shape().at(du));
    else if (const T::Dim& s = t->shape()[du]) e.shape[du] = T::detail::int64_const(*s);
  }
  return e;
}

ShapeFeature::Entry& ShapeFeature::ensure(const Var& v) {
  auto it = shapes_.find(v.get());
  if (it != shapes_.end()) return it->second;
  Entry e = fallback_entry(v);
  for (std::size_t d = 0; d < e.shape.size(); ++d)
    if (!e.shape[d]) {
      e.shape[d] = make_shape_i(v, static_cast<int>(d));
      e.fallback[d] = true;
    }
  return shapes_.emplace(v.get(), std::move(e)).first->second;
}

void ShapeFeature::compute(Apply& node) {
  bool any_tensor = false;
  for (const Var& o : node.outputs()) any_tensor |= T::tensor_type(o) != nullptr;
  if (!any_tensor) return;
  std::vector<std::vector<Var>> in_shapes;
  in_shapes.reserve(static_cast<std::size_t>(node.nin()));
  for (const Var& in : node.inputs()) {
    const std::vector<Var>* s = shape_of(in);
    in_shapes.push_back(s ? *s : std::vector<Var>{});
  }
  std::vector<std::vector<Var>> inferred;
  try {
    inferred = node.op()->infer_shape(node, in_shapes);
  } catch (...) {  // callbacks must not throw
    inferred.clear();  // no infer_shape (or it refused): Shape_i fallbacks
  }
  for (int k = 0; k < node.nout(); ++k) {
    const Var o = node.output(k);
    if (!T::tensor_type(o)) continue;
    Entry e = fallback_entry(o);
    const auto ku = static_cast<std::size_t>(k);
    const bool have = ku < inferred.size() && inferred[ku].size() == e.shape.size();
    for (std::size_t d = 0; d < e.shape.size(); ++d) {
      if (e.shape[d]) continue;  // statically known
      Var s = have ? inferred[ku][d] : Var();
      const T::TensorType* st = T::tensor_type(s);
      if (s && (!st || st->ndim() != 0 || !(is_integer(st->dtype()) || st->dtype() == DType::Bool))) s = Var();
      // Shape_i of one of this node's outputs says nothing new.
      if (s && s.owner() && s.owner() != &node && dynamic_cast<const T::Shape_i*>(s.owner()->op().get())) {
        const Var& w = s.owner()->input(0);
        const int j = static_cast<const T::Shape_i&>(*s.owner()->op()).i();
        if (w.owner() == &node) s = Var();
        else if (const std::vector<Var>* ws = shape_of(w)) s = (*ws)[static_cast<std::size_t>(j)];
      }
      if (s) {
        if (auto c = T::detail::constant_int(s)) s = T::detail::int64_const(*c);
        else if (T::tensor_type(s)->dtype() != DType::Int64) s = T::cast(s, DType::Int64);
        e.shape[d] = s;
      } else {
        e.shape[d] = make_shape_i(o, static_cast<int>(d));
        e.fallback[d] = true;
      }
    }
    shapes_[o.get()] = std::move(e);
  }
}

void ShapeFeature::on_attach(FunctionGraph& fg) {
  if (ShapeFeature* other = fg.find_feature<ShapeFeature>(); other && other != this)
    throw AlreadyThere("a ShapeFeature is already attached");
  shapes_.clear();
  for (Apply* n : fg.toposort()) compute(*n);
}

void ShapeFeature::on_detach(FunctionGraph&) { shapes_.clear(); }

void ShapeFeature::on_import(FunctionGraph&, Apply& node, std::string_view) { compute(node); }

void ShapeFeature::on_change_input(FunctionGraph&, Apply*, int, const Var& old_var, const Var& new_var,
                                   std::string_view) {
  if (!T::tensor_type(new_var) || !T::tensor_type(old_var) || old_var == new_var) return;
  auto it = shapes_.find(old_var.get());
  if (it == shapes_.end()) return;
  Entry& n = ensure(new_var);
  const Entry& o = it->second;
  if (o.shape.size() != n.shape.size()) return;
  for (std::size_t d = 0; d < n.shape.size(); ++d) {
    if (!n.fallback[d] || o.fallback[d]) continue;
    // old and new have the same value: old's known dimension is new's, unless
    // it is built on new itself (a rewrite would then expand it forever).
    if (o.shape[d].is_constant() || !mentions(o.shape[d], new_var, 4)) {
      n.shape[d] = o.shape[d];
      n.fallback[d] = false;
    }
  }
}

const std::vector<Var>* ShapeFeature::shape_of(const Var& v) {
  if (!v || !T::tensor_type(v)) return nullptr;
  return &ensure(v).shape;
}

bool ShapeFeature::is_fallback(const Var& v, int d) {
  if (!T::tensor_type(v)) return false;
  return ensure(v).fallback.at(static_cast<std::size_t>(d));
}

Var ShapeFeature::canonical(const Var& s_in) {
  Var s = s_in;
  for (int step = 0; step < 8 && s && s.owner(); ++step) {
    Apply* n = s.owner();
    if (is_widening_int64_cast(n)) {
      s = n->input(0);
      continue;
    }
    if (const auto* si = dynamic_cast<const T::Shape_i*>(n->op().get())) {
      const Var& w = n->input(0);
      if (const std::vector<Var>* ws = shape_of(w)) {
        const Var& e = (*ws)[static_cast<std::size_t>(si->i())];
        if (is_shape_i_of(e, w, si->i()) || e == s) return s;
        s = e;
        continue;
      }
      return s;
    }
    if (const auto* st = dynamic_cast<const T::Subtensor*>(n->op().get())) {
      const T::IdxList& idx = st->idx_list();
      const Var& base = n->input(0);
      const bool one = idx.size() == 1 && !idx[0].is_slice && idx[0].index.is_constant() && base.owner();
      if (one && dynamic_cast<const T::MakeVector*>(base.owner()->op().get())) {
        std::int64_t c = idx[0].index.value;
        const std::int64_t nd = base.owner()->nin();
        if (c < 0) c += nd;
        if (c < 0 || c >= nd) return s;
        s = base.owner()->input(static_cast<int>(c));
        continue;
      }
      if (one && dynamic_cast<const T::Shape*>(base.owner()->op().get())) {
        const Var& w = base.owner()->input(0);
        const std::vector<Var>* ws = shape_of(w);
        std::int64_t c = idx[0].index.value;
        const auto nd = static_cast<std::int64_t>(ws ? ws->size() : 0);
        if (c < 0) c += nd;
        if (!ws || c < 0 || c >= nd) return s;
        s = (*ws)[static_cast<std::size_t>(c)];
        continue;
      }
    }
    return s;
  }
  return s;
}

bool ShapeFeature::same_scalar(const Var& a, const Var& b) {
  if (!a || !b) return false;
  const Var ca = canonical(a), cb = canonical(b);
  if (ca == cb) return true;
  auto ka = T::detail::constant_int(ca), kb = T::detail::constant_int(cb);
  if (ka && kb) return *ka == *kb;
  if (ka || kb) return false;
  if (ca.owner() && cb.owner()) {
    const auto* sa = dynamic_cast<const T::Shape_i*>(ca.owner()->op().get());
    const auto* sb = dynamic_cast<const T::Shape_i*>(cb.owner()->op().get());
    if (sa && sb) return sa->i() == sb->i() && ca.owner()->input(0) == cb.owner()->input(0);
  }
  return false;
}

bool ShapeFeature::is_dim(const Var& s, const Var& v, int d) {
  const std::vector<Var>* vs = shape_of(v);
  if (!vs || d < 0 || d >= static_cast<int>(vs->size())) return false;
  return same_scalar(s, (*vs)[static_cast<std::size_t>(d)]);
}

ShapeFeature& shape_feature(FunctionGraph& fg) {
  if (ShapeFeature* f = fg.find_feature<ShapeFeature>()) return *f;
  auto f = std::make_shared<ShapeFeature>();
  fg.attach_feature(f);
  return *f;
}

}  // namespace theano::rewrite::detail

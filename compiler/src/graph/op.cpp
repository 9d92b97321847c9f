// Op defaults: names and equality from props, and the MethodNotDefined errors of
// optional methods.
#include "theano/graph/op.h"

#include <functional>
#include <sstream>
#include <typeinfo>

#include "theano/graph/basic.h"
#include "theano/runtime/error.h"

namespace theano {

std::string to_string(const PropValue& v) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream os;
      os << d;
      return os.str();
    }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const std::vector<std::int64_t>& xs) const {
      std::string r = "(";
      for (std::size_t i = 0; i < xs.size(); ++i) r += (i ? ", " : "") + std::to_string(xs[i]);
      return r + (xs.size() == 1 ? ",)" : ")");
    }
    std::string operator()(DType d) const { return std::string(dtype_name(d)); }
  };
  return v.visit(Visitor{});
}

std::string Op::name() const {
  const Props ps = props();
  std::string r(type_name());
  if (ps.empty()) return r;
  r += "{";
  for (std::size_t i = 0; i < ps.size(); ++i) r += (i ? "," : "") + to_string(ps[i].value);
  return r + "}";
}

// The kind too: one class can have several (ArgReduce's Argmax and Argmin,
// MpiRank and MpiSize) whose props alone do not tell them apart.
bool Op::equals(const Op& other) const {
  return typeid(*this) == typeid(other) && type_name() == other.type_name() && props() == other.props();
}

std::size_t Op::hash() const {
  std::size_t h = std::hash<std::string_view>()(type_name());
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const Prop& p : props()) {
    mix(std::hash<std::string>()(p.name));
    mix(std::hash<std::string>()(to_string(p.value)));
  }
  return h;
}

std::vector<Var> Op::operator()(std::vector<Var> inputs) const { return make_node(std::move(inputs))->outputs(); }

Var Op::apply1(std::vector<Var> inputs) const { return make_node(std::move(inputs))->out(); }

void Op::perform(const Apply&, std::span<const NDArray>, std::span<NDArray>) const {
  throw MethodNotDefined("op " + name() + " has no reference implementation (perform)");
}

std::vector<std::vector<Var>> Op::infer_shape(const Apply&, const std::vector<std::vector<Var>>&) const {
  throw MethodNotDefined("op " + name() + " does not implement infer_shape");
}

std::vector<Var> Op::grad(const Apply&, const std::vector<Var>&) const {
  throw MethodNotDefined("op " + name() + " does not implement grad; its inputs cannot be differentiated");
}

std::vector<std::vector<bool>> Op::connection_pattern(const Apply& node) const {
  return std::vector<std::vector<bool>>(static_cast<std::size_t>(node.nin()),
                                        std::vector<bool>(static_cast<std::size_t>(node.nout()), true));
}

std::optional<GpuPlacement> Op::gpu_form(const Apply&) const { return std::nullopt; }

std::vector<InplaceVariant> Op::inplace_variants(const Apply&) const { return {}; }

std::optional<KernelForm> Op::kernel_form(const KernelSignature&) const { return std::nullopt; }

std::string_view kernel_dtype_suffix(DType d) {
  switch (d) {
    case DType::Float64:
      return "f64";
    case DType::Float32:
      return "f32";
    case DType::Int64:
      return "i64";
    case DType::Int32:
      return "i32";
    case DType::Int16:
      return "i16";
    case DType::Int8:
      return "i8";
    case DType::UInt64:
      return "u64";
    case DType::UInt32:
      return "u32";
    case DType::UInt16:
      return "u16";
    case DType::UInt8:
      return "u8";
    default:
      return {};
  }
}

}  // namespace theano

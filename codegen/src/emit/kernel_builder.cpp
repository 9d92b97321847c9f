// The structured CUDA kernel builder (kernel_builder.h).
#include "kernel_builder.h"

#include <theano/runtime/error.h>

#include <utility>

#include "cuda_unit.h"

namespace theano::codegen::cuda {

namespace {
std::string num(std::int64_t v) { return std::to_string(v); }
}  // namespace

Param ParamBlock::add(Entry e) {
  for (const Entry& o : entries_) THEANO_INTERNAL_CHECK(o.name != e.name) << "kernel parameter " << e.name << " twice";
  THEANO_INTERNAL_CHECK(e.count >= 0) << "kernel parameter " << e.name << " of " << e.count << " values";
  THEANO_INTERNAL_CHECK(next_ + e.count <= kMaxKernelParams)
      << "kernel parameter " << e.name << ": a block of " << next_ + e.count << " values";
  e.slot = next_;
  next_ += e.count;
  entries_.push_back(std::move(e));
  return Param{static_cast<int>(entries_.size()) - 1};
}

const ParamBlock::Entry& ParamBlock::entry(Param a) const {
  THEANO_INTERNAL_CHECK(a.index >= 0 && a.index < static_cast<int>(entries_.size())) << "no such kernel parameter";
  return entries_[static_cast<std::size_t>(a.index)];
}

Param ParamBlock::int64(const std::string& name, const std::string& host) {
  return add(Entry{Kind::Int64, name, "int64_t", 0, 1, {host}});
}

Param ParamBlock::real(const std::string& name, const std::string& host) {
  return add(Entry{Kind::Real, name, "double", 0, 1, {host}});
}

Param ParamBlock::pointer(const std::string& name, const std::string& ptr_type, const std::string& host) {
  return add(Entry{Kind::Pointer, name, ptr_type, 0, 1, {host}});
}

Param ParamBlock::array(const std::string& name, int count, const std::function<std::string(int)>& host) {
  Entry e{Kind::Array, name, "int64_t", 0, count, {}};
  for (int i = 0; i < count; ++i) e.host.push_back(host(i));
  return add(std::move(e));
}

Param ParamBlock::array_loop(const std::string& name, int count, const std::string& host_of_d) {
  Entry e{Kind::Array, name, "int64_t", 0, count, {host_of_d}};
  e.loop = true;
  return add(std::move(e));
}

std::string ParamBlock::struct_name() const { return "theano_params_" + num(next_); }

void ParamBlock::declare(CodeWriter& w) const {
  w.line("int64_t p[" + num(next_) + "];");
  for (std::size_t k = 0; k < entries_.size(); ++k) {
    const Entry& e = entries_[k];
    const Param a{static_cast<int>(k)};
    if (e.loop) {
      if (e.count > 0)
        w.line("for (int64_t d = 0; d < " + num(e.count) + "; ++d) p[" + num(e.slot) + " + d] = " + e.host[0] + ";");
      continue;
    }
    for (int i = 0; i < e.count; ++i) w.line(set(a, e.host[static_cast<std::size_t>(i)], i));
  }
}

std::string ParamBlock::host(Param a, int i) const {
  const Entry& e = entry(a);
  THEANO_INTERNAL_CHECK(i >= 0 && i < e.count) << "element " << i << " of kernel parameter " << e.name;
  return "p[" + num(e.slot + i) + "]";
}

std::string ParamBlock::set(Param a, const std::string& expr, int i) const {
  const Entry& e = entry(a);
  switch (e.kind) {
    case Kind::Real:
      return "{ const double bits_ = " + expr + "; __builtin_memcpy(&" + host(a, i) + ", &bits_, 8); }";
    case Kind::Pointer:
      return host(a, i) + " = (int64_t)(" + expr + ");";
    default:
      return host(a, i) + " = " + expr + ";";
  }
}

std::string ParamBlock::launch(int kernel, const std::string& count) const {
  return "ctx->gpu_launch(ctx->host, " + num(kernel) + ", " + count + ", p, " + num(next_) + ")";
}

const std::string& ParamBlock::name(Param a) const { return entry(a).name; }

std::string ParamBlock::read(Param a) const {
  const Entry& e = entry(a);
  const std::string v = "p.v[" + num(e.slot) + "]";
  switch (e.kind) {
    case Kind::Int64:
      return "const int64_t " + e.name + " = " + v + ";";
    case Kind::Real:
      return "const double " + e.name + " = theano_bits_double(" + v + ");";
    case Kind::Pointer:
      return e.type + " " + e.name + " = (" + e.type + ")" + v + ";";
    case Kind::Array:
      break;
  }
  THEANO_INTERNAL_CHECK(false) << "kernel parameter " << e.name << " is an array: read it with at()";
  return {};
}

std::string ParamBlock::value(Param a) const {
  const Entry& e = entry(a);
  THEANO_INTERNAL_CHECK(e.kind == Kind::Int64) << "kernel parameter " << e.name << " is not an int64";
  return "p.v[" + num(e.slot) + "]";
}

std::string ParamBlock::at(Param a, const std::string& index) const {
  const Entry& e = entry(a);
  THEANO_INTERNAL_CHECK(e.kind == Kind::Array) << "kernel parameter " << e.name << " is not an array";
  return "p.v[" + num(e.slot) + " + " + index + "]";
}

std::string ParamBlock::at(Param a, int index) const {
  const Entry& e = entry(a);
  THEANO_INTERNAL_CHECK(e.kind == Kind::Array && index >= 0 && index < e.count)
      << "element " << index << " of kernel parameter " << e.name;
  return "p.v[" + num(e.slot + index) + "]";
}

Kernel::Kernel(const ParamBlock& params, std::string name, const std::vector<Param>& reads)
    : params_(params), name_(std::move(name)) {
  w.open("extern \"C\" __global__ void " + name_ + "(const " + params_.struct_name() + " p)");
  for (Param a : reads) w.line(params_.read(a));
}

std::string Kernel::text() {
  w.close();
  return w.str();
}

void grid_stride_loop(CodeWriter& w, const std::string& var, const std::string& count) {
  w.line("const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;");
  w.open("for (int64_t " + var + " = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; " + var +
         " < " + count + "; " + var + " += step)");
}

void block_stride_loop(CodeWriter& w, const std::string& var, const std::string& count) {
  w.open("for (int64_t " + var + " = blockIdx.x; " + var + " < " + count + "; " + var + " += gridDim.x)");
}

void block_tree_reduce(CodeWriter& w, const std::string& value,
                       const std::function<std::string(const std::string&, const std::string&)>& combine) {
  w.line("sh[t] = " + value + ";");
  w.line("__syncthreads();");
  w.open("for (unsigned w = blockDim.x / 2; w > 0; w /= 2)");
  w.line("if (t < w) sh[t] = " + combine("sh[t]", "sh[t + w]") + ";");
  w.line("__syncthreads();");
  w.close();
}

}  // namespace theano::codegen::cuda

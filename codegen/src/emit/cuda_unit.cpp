// The CUDA translation unit builder (cuda_unit.h).
#include "cuda_unit.h"

#include <theano/runtime/error.h>

#include "lower/lowering.h"

namespace theano::codegen::cuda {

using lower::str;

void CudaUnit::need(const std::string& key, const std::string& code) {
  if (support_keys_.insert(key).second) support_.raw(code + "\n");
}

void CudaUnit::need_params(std::int64_t nparams) {
  const std::string p = str(nparams);
  need("params " + p, "struct theano_params_" + p + " { int64_t v[" + p + "]; };");
}

ElemwiseParams::ElemwiseParams(int nd, int arrays, const Host& host) {
  auto zero = [](auto...) { return std::string("0"); };
  n = block.int64("n", host.n.empty() ? "0" : host.n);
  shape = block.array("shape", nd, [&](int d) { return host.shape ? host.shape(d) : zero(); });
  for (int j = 0; j < arrays; ++j) {
    data.push_back(block.pointer("q" + str(j), "char*", host.data ? host.data(j) : zero()));
    strides.push_back(
        block.array("s" + str(j), nd, [&](int d) { return host.stride ? host.stride(j, d) : zero(); }));
  }
  THEANO_INTERNAL_CHECK(block.size() == elemwise_kernel_params(nd, arrays))
      << "the elementwise parameter block has " << block.size() << " values";
}

int CudaUnit::add_elemwise(const std::string& base, const std::string& label, int nd, const std::vector<DType>& in,
                           const std::vector<DType>& out, const lower::ElemwiseExprs& ex) {
  const int nin = static_cast<int>(in.size()), nout = static_cast<int>(out.size());
  const ElemwiseParams ep(nd, nin + nout);
  for (const auto& [key, code] : ex.support) need(key, code);
  auto dtype_of = [&](int j) {
    return j < nin ? in[static_cast<std::size_t>(j)] : out[static_cast<std::size_t>(j - nin)];
  };
  const int first = static_cast<int>(kernels_.size());
  for (const bool flat : {false, true}) {
    Kernel k(ep.block, base + (flat ? "_flat" : "_strided"), {ep.n});
    CodeWriter& w = k.w;
    grid_stride_loop(w, "k", "n");
    // Each array's element address: k * itemsize in the flat kernel; in the
    // strided one, k unravelled over the shape (innermost dimension first)
    // times the byte strides (0 where broadcast).
    for (int j = 0; j < nin + nout; ++j) w.line(ep.block.read(ep.data[static_cast<std::size_t>(j)]));
    if (flat) {
      for (int j = 0; j < nin + nout; ++j)
        w.line("q" + str(j) + " += k * " + str(static_cast<std::int64_t>(dtype_size(dtype_of(j)))) + ";");
    } else if (nd > 0) {
      w.line("int64_t r = k, i = 0;");
      for (int d = nd - 1; d >= 0; --d) {
        const std::string extent = ep.block.at(ep.shape, d);
        w.line("i = r % " + extent + ";" + (d > 0 ? " r /= " + extent + ";" : ""));
        for (int j = 0; j < nin + nout; ++j)
          w.line("q" + str(j) + " += i * " + ep.block.at(ep.strides[static_cast<std::size_t>(j)], d) + ";");
      }
    }
    // The loads, the Composite's inner values and the stores.
    for (int i = 0; i < nin; ++i) {
      const std::string& t = ex.arg_types[static_cast<std::size_t>(i)];
      w.line("const " + t + " a" + str(i) + " = (" + t + ")*(const " + lower::c_type(in[static_cast<std::size_t>(i)]) +
             "*)q" + str(i) + ";");
    }
    for (const std::string& local : ex.locals) w.line(local);
    for (int o = 0; o < nout; ++o)
      w.line(std::string("*(") + lower::c_type(out[static_cast<std::size_t>(o)]) + "*)q" + str(nin + o) + " = " +
             ex.stores[static_cast<std::size_t>(o)] + ";");
    w.close();
    add_kernel(k, label, 0, ex.ns);
  }
  return first;
}

int CudaUnit::add_kernel(Kernel& kernel, const std::string& label, int block, const std::string& ns) {
  const std::int64_t nparams = kernel.params().size();
  THEANO_INTERNAL_CHECK(nparams <= kMaxKernelParams) << label << ": kernel with " << nparams << " parameters";
  THEANO_INTERNAL_CHECK(block == 0 || block == kLaneBlock) << label << ": blocks of " << block << " threads";
  need_params(nparams);
  const std::string code = kernel.text();
  if (!ns.empty()) kernels_code_.line("namespace " + ns + " {");
  kernels_code_.raw(code);
  if (!ns.empty()) kernels_code_.line("}  // namespace " + ns);
  kernels_.push_back(
      KernelInfo{kernel.name(), label, nparams, block, code.find("__syncthreads") != std::string::npos});
  return static_cast<int>(kernels_.size()) - 1;
}

int CudaUnit::find_kernel(const std::string& name) const {
  for (std::size_t k = 0; k < kernels_.size(); ++k)
    if (kernels_[k].name == name) return static_cast<int>(k);
  return -1;
}

int CudaUnit::add_copy(DType dtype, int nd) {
  if (auto it = copies_.find({dtype, nd}); it != copies_.end()) return it->second;
  lower::ElemwiseExprs ex;
  ex.ns = lower::int_like(dtype) ? "theano_i" : "theano_f";
  ex.arg_types = {lower::c_type(dtype)};
  ex.stores = {"a0"};
  const std::string base = "theano_copy_" + std::string(dtype_name(dtype)) + "_" + str(nd);
  const int k = add_elemwise(base, "a copy between GPU arrays", nd, {dtype}, {dtype}, ex);
  copies_.emplace(std::make_pair(dtype, nd), k);
  return k;
}

std::string CudaUnit::source() const {
  CodeWriter w;
  w.raw(lower::cuda_prelude());
  w.line("// ---- support code");
  w.append(support_);
  w.line("// ---- kernels");
  w.append(kernels_code_);
  return w.str();
}

}  // namespace theano::codegen::cuda

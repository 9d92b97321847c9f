// The CUDA translation unit builder (cuda_unit.h).
#include "cuda_unit.h"

#include <theano/runtime/error.h>

#include "../lower/lowering.h"

namespace theano::codegen::cuda {

using lower::str;

void CudaUnit::need(const std::string& key, const std::string& code) {
  if (support_keys_.insert(key).second) support_.raw(code + "\n");
}

void CudaUnit::need_params(std::int64_t nparams) {
  const std::string p = str(nparams);
  need("params " + p, "struct theano_params_" + p + " { int64_t v[" + p + "]; };");
}

namespace {

// An elementwise kernel: {0} the compute namespace (theano_f / theano_i),
// {1} its name, {2} the parameter struct, {3} the element addresses, {4}
// the loads, the inner values and the stores. Each thread walks a grid-stride
// loop over the n elements.
constexpr const char* kElemwiseKernel = R"(namespace {0} {
extern "C" __global__ void {1}(const {2} p) {
  const int64_t n = p.v[0];
  const int64_t step = (int64_t)gridDim.x * (int64_t)blockDim.x;
  for (int64_t k = (int64_t)blockIdx.x * (int64_t)blockDim.x + (int64_t)threadIdx.x; k < n; k += step) {
{3}{4}  }
}
}  // namespace {0}
)";

}  // namespace

int CudaUnit::add_elemwise(const std::string& base, const std::string& label, int nd, const std::vector<DType>& in,
                           const std::vector<DType>& out, const lower::ElemwiseExprs& ex) {
  const int nin = static_cast<int>(in.size()), nout = static_cast<int>(out.size());
  const std::int64_t np = elemwise_kernel_params(nd, nin + nout);
  THEANO_INTERNAL_CHECK(np <= kMaxKernelParams) << "elementwise kernel with " << np << " parameters";
  need_params(np);
  for (const auto& [key, code] : ex.support) need(key, code);
  const std::string params_t = "theano_params_" + str(np);
  auto array_base = [&](int j) { return 1 + nd + static_cast<std::int64_t>(j) * (1 + nd); };
  auto dtype_of = [&](int j) {
    return j < nin ? in[static_cast<std::size_t>(j)] : out[static_cast<std::size_t>(j - nin)];
  };
  const std::string i4 = "    ";
  // The loads, the Composite's inner values and the stores (the same for both kernels).
  std::string body;
  for (int i = 0; i < nin; ++i) {
    const std::string& t = ex.arg_types[static_cast<std::size_t>(i)];
    body += i4 + "const " + t + " a" + str(i) + " = (" + t + ")*(const " +
            lower::c_type(in[static_cast<std::size_t>(i)]) + "*)q" + str(i) + ";\n";
  }
  for (const std::string& local : ex.locals) body += i4 + local + "\n";
  for (int k = 0; k < nout; ++k)
    body += i4 + "*(" + lower::c_type(out[static_cast<std::size_t>(k)]) + "*)q" + str(nin + k) + " = " +
            ex.stores[static_cast<std::size_t>(k)] + ";\n";
  const int first = static_cast<int>(kernels_.size());
  for (const bool flat : {false, true}) {
    const std::string name = base + (flat ? "_flat" : "_strided");
    // Each array's element address: k * itemsize in the flat kernel; in the
    // strided one, k unravelled over the shape (innermost dimension first)
    // times the byte strides (0 where broadcast).
    std::string addr;
    for (int j = 0; j < nin + nout; ++j)
      addr += i4 + "char* q" + str(j) + " = (char*)p.v[" + str(array_base(j)) + "];\n";
    if (flat) {
      for (int j = 0; j < nin + nout; ++j)
        addr += i4 + "q" + str(j) + " += k * " + str(static_cast<std::int64_t>(dtype_size(dtype_of(j)))) + ";\n";
    } else if (nd > 0) {
      addr += i4 + "int64_t r = k, i = 0;\n";
      for (int d = nd - 1; d >= 0; --d) {
        addr += i4 + "i = r % p.v[" + str(1 + d) + "];" + (d > 0 ? " r /= p.v[" + str(1 + d) + "];" : "") + "\n";
        for (int j = 0; j < nin + nout; ++j)
          addr += i4 + "q" + str(j) + " += i * p.v[" + str(array_base(j) + 1 + d) + "];\n";
      }
    }
    kernels_code_.raw(lower::expand(kElemwiseKernel, {ex.ns, name, params_t, addr, body}));
    kernels_.push_back(KernelInfo{name, label, np});
  }
  return first;
}

int CudaUnit::add_kernel(const std::string& name, const std::string& label, std::int64_t nparams, int block,
                         const std::string& ns, const std::string& code) {
  THEANO_INTERNAL_CHECK(nparams <= kMaxKernelParams) << label << ": kernel with " << nparams << " parameters";
  THEANO_INTERNAL_CHECK(block == 0 || block == kLaneBlock) << label << ": blocks of " << block << " threads";
  need_params(nparams);
  if (!ns.empty()) kernels_code_.line("namespace " + ns + " {");
  kernels_code_.raw(code);
  if (!ns.empty()) kernels_code_.line("}  // namespace " + ns);
  kernels_.push_back(KernelInfo{name, label, nparams, block, code.find("__syncthreads") != std::string::npos});
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

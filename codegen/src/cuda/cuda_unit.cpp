// The CUDA translation unit builder and the emulation shim (cuda_unit.h).
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

// The emulated launch of kernel {0}::{1} ({2} its parameter struct of {3}
// values): every (block, thread) of the grid in turn.
constexpr const char* kEmulatedLaunch =
    R"(extern "C" void theano_emu_{1}(const int64_t* v, int64_t grid, int64_t block) {
  {2} p;
  for (int64_t j = 0; j < {3}; ++j) p.v[j] = v[j];
  gridDim.x = (unsigned)grid;
  blockDim.x = (unsigned)block;
  for (int64_t b = 0; b < grid; ++b) {
    blockIdx.x = (unsigned)b;
    for (int64_t t = 0; t < block; ++t) {
      threadIdx.x = (unsigned)t;
      {0}::{1}(p);
    }
  }
}
)";

}  // namespace

int CudaUnit::add_elemwise(const std::string& base, const std::string& label, int nd, const std::vector<DType>& in,
                           const std::vector<DType>& out, const lower::ElemwiseExprs& ex) {
  const int nin = static_cast<int>(in.size()), nout = static_cast<int>(out.size());
  const std::int64_t np = elemwise_param_count(nd, nin + nout);
  THEANO_INTERNAL_CHECK(np <= kMaxParams) << "elementwise kernel with " << np << " parameters";
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
    emulation_.raw(lower::expand(kEmulatedLaunch, {ex.ns, name, params_t, str(np)}));
    kernels_.push_back(KernelInfo{name, label, np});
  }
  return first;
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
  w.line("#ifdef THEANO_CUDA_EMULATION");
  w.line("// ---- launch wrappers of the host-emulated device");
  w.append(emulation_);
  w.line("#endif");
  return w.str();
}

std::string_view emulation_shim() {
  return R"SHIM(// theano-cpp: host emulation of the CUDA kernel language (cuda_unit.h)
#define THEANO_CUDA_EMULATION 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
struct theano_dim3 { unsigned x, y, z; };
static theano_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
extern "C" {
double exp(double); double exp2(double); double expm1(double);
double log(double); double log2(double); double log10(double); double log1p(double);
double sin(double); double cos(double); double tan(double);
double asin(double); double acos(double); double atan(double); double atan2(double, double);
double sinh(double); double cosh(double); double tanh(double);
double asinh(double); double acosh(double); double atanh(double);
double erf(double); double erfc(double); double lgamma(double);
double floor(double); double ceil(double); double nearbyint(double); double trunc(double);
double sqrt(double); double fabs(double); double pow(double, double); double fmod(double, double);
}
)SHIM";
}

}  // namespace theano::codegen::cuda

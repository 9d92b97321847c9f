// Lowering of the extra_ops family: CumOp (cumsum, cumprod). Its kernels are
// theano/runtime/kernels/cumulative.h, the very text perform runs, embedded in
// the translation unit (and in the CUDA unit by its GPU form,
// lower/gpu_extra_ops.cpp): the node function walks the lines along the axis
// and calls the line kernel on each (see lowering.h for the node function
// protocol).
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/tensor/extra_ops.h>
#include <theano/tensor/type.h>

#include <string>

#include "../cuda_unit.h"

namespace theano::codegen::lower {

extern const char kCumulativeText[];

std::string need_cumulative_kernel(NodeLowering& L, bool on_cuda) {
  const auto& op = static_cast<const tensor::CumOp&>(L.op);
  const DType d = L.out(0).dtype();
  const char* suffix = nullptr;
  switch (d) {
    case DType::Float64: suffix = "f64"; break;
    case DType::Float32: suffix = "f32"; break;
    case DType::Int64: suffix = "i64"; break;
    case DType::Int32: suffix = "i32"; break;
    case DType::Int16: suffix = "i16"; break;
    case DType::Int8: suffix = "i8"; break;
    case DType::UInt64: suffix = "u64"; break;
    case DType::UInt32: suffix = "u32"; break;
    case DType::UInt16: suffix = "u16"; break;
    case DType::UInt8: suffix = "u8"; break;
    default: break;
  }
  // make_node admits only these dtypes (a bool input is cast to int64 there).
  THEANO_INTERNAL_CHECK(suffix != nullptr) << L.label << ": no cumulative kernel for dtype " << dtype_name(d);
  if (on_cuda) L.cuda->need("cumulative_kernels", kCumulativeText);
  else L.need("cumulative_kernels", kCumulativeText);
  return std::string(op.mode() == "add" ? "theano_cumsum_" : "theano_cumprod_") + suffix;
}

namespace {

void lower_cum_op(NodeLowering& L) {
  const int axis = static_cast<const tensor::CumOp&>(L.op).axis();
  const int nd = L.in(0).ndim();
  const std::string kernel = need_cumulative_kernel(L, false);
  CodeWriter& w = L.body;
  for (int d = 0; d < nd; ++d) w.line("o0->shape[" + str(d) + "] = x0->shape[" + str(d) + "];");
  w.line(L.alloc(0));
  w.line("if (theano_size(x0) == 0) return 0;");
  const std::string as = str(axis);
  w.line("const int64_t n = x0->shape[" + as + "], xs = x0->strides[" + as + "], os = o0->strides[" + as + "];");
  // One kernel call per line: loops over every other axis.
  std::string xoff, ooff;
  int loops = 0;
  for (int d = 0; d < nd; ++d) {
    if (d == axis) continue;
    const std::string ds = str(d);
    w.open("for (int64_t i" + ds + " = 0; i" + ds + " < x0->shape[" + ds + "]; ++i" + ds + ")");
    xoff += " + i" + ds + " * x0->strides[" + ds + "]";
    ooff += " + i" + ds + " * o0->strides[" + ds + "]";
    ++loops;
  }
  w.line(kernel + "(x0->data" + xoff + ", xs, o0->data" + ooff + ", os, n);");
  for (int k = 0; k < loops; ++k) w.close();
  w.line("return 0;");
}

}  // namespace

void add_extra_ops_lowerings(LoweringTable& t) { t.add<tensor::CumOp>(Target::Cpu, &lower_cum_op); }

}  // namespace theano::codegen::lower

// GPU lowering of the extra_ops family: CumOp (cumsum, cumprod), one thread a
// line along the axis (a grid-stride loop over the lines), each thread
// calling the line kernel of theano/runtime/kernels/cumulative.h, the text
// perform and the C++ lowering (lower/extra_ops.cpp) run, embedded in the
// CUDA unit. The lines are addressed as lane kernels address theirs
// (gpu_lanes.h: the kept axes merged, the axis walked).
#include <theano/runtime/error.h>
#include <theano/tensor/extra_ops.h>

#include "../cuda_unit.h"
#include "gpu_lanes.h"
#include "lowering.h"

namespace theano::codegen::lower {
namespace {

void lower_gpu_cum_op(NodeLowering& L) {
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU node outside a GPU function";
  L.cold = true;
  const int axis = static_cast<const tensor::CumOp&>(L.op).axis();
  const std::string kernel = need_cumulative_kernel(L, true);
  CodeWriter& w = L.body;
  const LaneLayout l = emit_axis_lanes(L, axis);
  const cuda::ParamBlock& pb = l.params;
  cuda::Kernel k(pb, L.fn + "_lines", {l.lanes, l.len});
  cuda::grid_stride_loop(k.w, "lane", "lanes");
  lane_bases(k.w, l, "lane");
  // One reduced axis: its merged stride is element 0 of each array's reduced strides.
  k.w.line(kernel + "(b0, " + pb.at(l.reduced_strides[0], 0) + ", (char*)b1, " + pb.at(l.reduced_strides[1], 0) +
           ", len);");
  k.w.close();
  const int kl = L.cuda->add_kernel(k, L.label);
  pb.declare(w);
  w.line("if (lanes == 0 || len == 0) return 0;");
  w.line("return " + pb.launch(kl, "lanes") + ";");
}

}  // namespace

void add_gpu_extra_ops_lowerings(LoweringTable& t) { t.add<tensor::CumOp>(Target::Cuda, &lower_gpu_cum_op); }

}  // namespace theano::codegen::lower

// The C++ lowering of the LAPACK-backed linear algebra ops (LapackOp,
// theano/tensor/linalg.h): one lowering for every class (Eig excepted: complex
// outputs, its perform runs), a thin call of the kernel layer perform runs
// (theano/runtime/kernels/linalg.h and the files behind it), compiled once
// into the host and called through ctx->kernels (host_kernels.h); the unit
// embeds linalg_call.h only, the call record and its small helpers: the
// record filled from the inputs, the shape rule, the outputs allocated to the
// shapes it gives, a workspace from the host allocator (it lives for the
// call), the run; a kernel code becomes the node's error with the kernel's
// words after the node's label.
#include "lowering.h"

#include <theano/runtime/error.h>
#include <theano/runtime/kernels/linalg.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/linalg_expm.h>
#include <theano/tensor/type.h>

namespace theano::codegen::lower {

// What the C++ lowering and the GPU lowering's host side embed: the call
// record with its small helpers. They call the rule, the workspace query and
// the run (linalg.h) through the host's table, which every prelude embeds.
void need_linalg_kernels(NodeLowering& L) { L.need("linalg call", kernel_text("linalg_call.h")); }
namespace {

namespace LA = tensor::linalg;

void lower_lapack(NodeLowering& L) {
  const auto* op = dynamic_cast<const LA::LapackOp*>(&L.op);
  THEANO_INTERNAL_CHECK(op != nullptr) << L.label << ": not a LAPACK-backed op";
  // The element type the kernel runs in (the pivots' op: any, its code is the same).
  const DType dt = op->la_kind() == THEANO_LA_PIV_TO_PERM ? DType::Float64 : L.in(0).dtype();
  if (dt != DType::Float64 && dt != DType::Float32)
    refuse(L.node, LoweringReason::Dtype, " (dtype " + std::string(dtype_name(dt)) + ")");
  const std::string S = dt == DType::Float64 ? "f64" : "f32";
  need_linalg_kernels(L);
  L.cold = true;  // calls into the host: the rule, the workspace query, the run
  CodeWriter& w = L.body;
  const std::string fail =
      "{ char m[512]; theano_la_cat(m, 512, " + c_string(L.label + ": ") +
      ", c.msg); return theano_fail(ctx, rc == THEANO_LA_SHAPE ? " + str(kErrShape) + " : " + str(kErrValue) +
      ", m, all, " + str(L.nin()) + "); }";
  w.line("TheanoLaCall c;");
  w.line("theano_la_init(&c, " + str(op->la_kind()) + ", " + str(L.nin()) + ", " + str(L.nout()) + ");");
  const std::vector<std::int64_t> opts = op->la_options();
  for (std::size_t i = 0; i < opts.size(); ++i) w.line("c.opt[" + str(static_cast<std::int64_t>(i)) + "] = " + str(opts[i]) + ";");
  for (int i = 0; i < L.nin(); ++i) {
    const std::string k = str(i), x = L.x(i);
    w.line("c.in[" + k + "] = " + x + "->data; c.in_nd[" + k + "] = " + x + "->ndim; c.in_shape[" + k + "] = " + x +
           "->shape; c.in_strides[" + k + "] = " + x + "->strides;");
  }
  w.line("int rc = ctx->kernels->la_rule(&c);");
  w.line("if (rc != THEANO_LA_OK) " + fail);
  for (int k = 0; k < L.nout(); ++k) {
    const std::string ks = str(k), o = L.o(k);
    w.line("for (int64_t d = 0; d < c.out_nd[" + ks + "]; ++d) " + o + "->shape[d] = c.out_shape[" + ks + "][d];");
    w.line(L.alloc(k));
    w.line("c.out[" + ks + "] = " + o + "->data;");
  }
  w.line("int64_t wbytes = 0;");
  w.line("rc = ctx->kernels->la_work_" + S + "(&c, &wbytes);");
  w.line("if (rc != THEANO_LA_OK) " + fail);
  emit_scratch_buffer(L, str(static_cast<std::int64_t>(dt)), "wbytes / " + item_of(dt) + " + 4", "LAPACK's workspace");
  w.line("c.work = scratch.data;");
  w.line("rc = ctx->kernels->la_run_" + S + "(&c);");
  w.line("if (rc != THEANO_LA_OK) " + fail);
  w.line("return 0;");
}

}  // namespace

void add_linalg_lowerings(LoweringTable& t) {
  t.add<LA::Cholesky>(Target::Cpu, &lower_lapack);
  t.add<LA::CholeskyGrad>(Target::Cpu, &lower_lapack);
  t.add<LA::SolveTriangular>(Target::Cpu, &lower_lapack);
  t.add<LA::CholeskySolve>(Target::Cpu, &lower_lapack);
  t.add<LA::Solve>(Target::Cpu, &lower_lapack);
  t.add<LA::MatrixInverse>(Target::Cpu, &lower_lapack);
  t.add<LA::Det>(Target::Cpu, &lower_lapack);
  t.add<LA::SLogDet>(Target::Cpu, &lower_lapack);
  t.add<LA::Eigh>(Target::Cpu, &lower_lapack);
  t.add<LA::SVD>(Target::Cpu, &lower_lapack);
  t.add<LA::QR>(Target::Cpu, &lower_lapack);
  t.add<LA::LUFactor>(Target::Cpu, &lower_lapack);
  t.add<LA::PivotToPermutation>(Target::Cpu, &lower_lapack);
  t.add<LA::MatrixPinv>(Target::Cpu, &lower_lapack);
  t.add<LA::Expm>(Target::Cpu, &lower_lapack);
}

}  // namespace theano::codegen::lower

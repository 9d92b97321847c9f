/// \file
/// The op -> C++ lowering interface of the CLinker (internal to codegen/).
///
/// Why a table here and not a virtual on Op: the ops live in compiler/, which
/// must not know about code generation (docs/architecture.md, "Layers"); the C++ fragment of
/// each op kind lives in codegen/src/emit/lower/<family>.cpp, registered by type in one
/// table, the way MLIR keeps lowering patterns beside the target and not in the
/// dialect (one table keyed by op class and target: cpu or cuda). Each lowering writes only its node's fragment;
/// the linker writes the function around it, plans memory and calls the nodes in toposort order.
///
/// The generated function of node t is
///
///     static int node<t>(TheanoContext* ctx, const TheanoArray* x0, ...,
///                        TheanoArray* o0, ...) {
///       const TheanoArray* all[] = {x0, ...};   // for error messages
///       o0->ndim = <static ndim>; o0->dtype = <dtype code>; o0->owner = -1;
///       <the lowering's body>
///     }
///
/// and returns 0 or an error code (`fail`). A lowering either allocates each
/// output (set `o<k>->shape[...]`, then emit `alloc(k)`, which sets data,
/// strides and owner) or makes it a view of an input (set data, shape, strides
/// and `o<k>->owner = x<i>->owner`); a view must be declared in the op's
/// view_map (or destroy_map when the input is overwritten), because the memory
/// planner keeps a viewed buffer alive while the view is.
#pragma once

#include <theano/codegen/code_writer.h>
#include <theano/codegen/errors.h>
#include <theano/graph/basic.h>
#include <theano/runtime/dtype.h>
#include <theano/runtime/scalar_cast.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "../../thunk_abi.h"

namespace theano::tensor {
class TensorType;
}
namespace theano::codegen::cuda {
class CudaUnit;
}

namespace theano::codegen::lower {

/// Error codes of generated code (THEANO_ERR_* of the thunk ABI, thunk_abi.h);
/// the thunk rethrows them as the matching theano::Error.
enum ErrorCode : int {
  kErrShape = THEANO_ERR_SHAPE,    ///< ShapeError
  kErrValue = THEANO_ERR_VALUE,    ///< ValueError (includes failed allocation)
  kErrIndex = THEANO_ERR_INDEX,    ///< IndexError
  kErrAssert = THEANO_ERR_ASSERT,  ///< AssertionError (a ValueError) from a failed Assert
  kErrHost = THEANO_ERR_HOST,      ///< an exception from a host callback (perform fallback), rethrown as it was
};

/// The C type of a dtype in generated code; nullptr for float16 and complex.
const char* c_type(DType d);
/// Integer or bool.
bool int_like(DType d);
/// The conversion of an int64 C expression to dtype `d`, as scalar_cast<T>
/// converts: integers wrap, bool is "!= 0".
std::string from_int64(DType d, const std::string& v);
/// The conversion of a double C expression to dtype `d`, as scalar_cast<T>
/// converts: numpy's float -> integer on x86-64 (the prelude's theano_f2i*,
/// runtime/kernels/scalar_convert.h), never a C cast of an out-of-range value.
std::string from_double(DType d, const std::string& v);
/// A C string literal for `s`.
std::string c_string(std::string_view s);
/// Substitutes {0}, {1}, ... in `t` with `args`.
std::string expand(const std::string& t, const std::vector<std::string>& args);
/// The TensorType of `v`; for a GPU array, its host twin (same dtype and
/// static shape). InternalError for anything else.
const tensor::TensorType& ttype(const Var& v);
/// Whether `v` is a GPU array (its data pointer is a device address).
bool on_gpu(const Var& v);
/// "3" -> std::to_string, for building code text.
inline std::string str(std::int64_t v) { return std::to_string(v); }
/// The item size of `d` as code text ("8" for float64).
inline std::string item_of(DType d) { return str(static_cast<std::int64_t>(dtype_size(d))); }
/// The embedded prelude text (ABI structs, libm and cblas prototypes, helpers).
std::string_view prelude();
/// `extern "C"` prototypes of the libm functions generated code calls (in the
/// host prelude; the CUDA emulation shim declares them too, NVRTC has them).
std::string_view libm_prototypes();
/// runtime/kernels/shape_rules.h, verbatim: in the host prelude; a CUDA unit whose
/// kernels check indices by the same rules requests it (CudaUnit::need).
std::string_view shape_rules_text();
/// The prelude of the CUDA translation unit: the same typedefs, float ->
/// integer conversions and scalar helpers, without the host-only parts.
std::string_view cuda_prelude();

/// Throws LoweringError (a MethodNotDefined): the cpp linker cannot compile
/// `node`, for `reason`; `why` is appended to the message and is the error's
/// detail(), e.g. " (dtype complex128)".
[[noreturn]] void refuse(const Apply& node, LoweringReason reason, const std::string& why);

/// What the lowering of one node gets and writes.
class NodeLowering {
 public:
  /// `fn_prefix` / `label_prefix` start the names and messages of the nodes
  /// of an inner graph (a scan's step: "node5_", "node 5 (Scan{rnn}): step: ").
  NodeLowering(const Apply& node, std::size_t index, CodeWriter& body, CodeWriter& file,
               std::vector<std::string>& support_keys, CodeWriter& support, std::vector<std::int64_t> slots,
               const std::string& fn_prefix = {}, const std::string& label_prefix = {});

  const Apply& node;
  /// The op whose code is generated: node's op, or for a GpuOp (a host op's
  /// GPU form, gpu/ops.h) its host op, so the host lowering of a view or a
  /// shape op serves both (read the op's parameters from here).
  const Op& op;
  const std::size_t index;  ///< toposort position
  const std::string fn;     ///< "node<index>": the node function's name, a prefix for helper names
  /// "node 3 (Elemwise{add}) computing 'loss' from 'x', 'y'" (the user's names
  /// of the outputs and inputs, where given): starts every error message.
  const std::string label;
  CodeWriter& body;         ///< the node function's body
  CodeWriter& file;         ///< file scope just before the node function (helpers named <fn>_*)
  /// Namespace the node function is put in ("" = global); Elemwise uses
  /// theano_i / theano_f to pick the prelude's integer or double helpers.
  std::string ns;
  /// Set by lowerings whose code does no per-element work worth optimizing
  /// (views, shape queries, checks of a few values): the node function is
  /// compiled without optimization (THEANO_UNOPTIMIZED), which saves the
  /// -O2 compile time of its body. Nodes whose inputs and outputs are all
  /// statically tiny are compiled so too (see `worth_optimizing`).
  bool cold = false;
  /// Set by lowerings whose per-element loops are all file-scope functions
  /// (`file`, compiled with -O2) that the node function only calls after
  /// its shape checks and allocation (Elemwise's and CAReduce's part
  /// functions): the node function itself is then compiled without
  /// optimization, its helpers with. The checks were about half of a unit's
  /// optimized IR (docs/jit-and-cache.md, "One translation unit per function").
  bool loops_outlined = false;
  /// The function's CUDA translation unit, where GPU lowerings add kernels.
  cuda::CudaUnit* cuda = nullptr;

  int nin() const { return node.nin(); }
  int nout() const { return node.nout(); }
  const tensor::TensorType& in(int i) const;
  const tensor::TensorType& out(int k) const;
  static std::string x(int i) { return "x" + std::to_string(i); }
  static std::string o(int k) { return "o" + std::to_string(k); }
  /// `const double*`-style pointer cast to input i's / output k's element type.
  std::string in_ctype(int i) const;
  std::string out_ctype(int k) const;

  /// A statement that fails the call: `return theano_fail(ctx, code, "<label>: msg", all, nin);`.
  std::string fail(ErrorCode code, std::string_view msg) const;
  /// Like `fail` but the message continues with a run-time integer and text:
  /// "<label>: <msg><value><tail>".
  std::string fail_int(ErrorCode code, std::string_view msg, std::string_view value_expr,
                       std::string_view tail = {}) const;
  /// Like `fail_int` with two run-time integers: "<label>: <msg><a><mid><b><tail>".
  std::string fail_int2(ErrorCode code, std::string_view msg, std::string_view a_expr, std::string_view mid,
                        std::string_view b_expr, std::string_view tail = {}) const;
  /// Like `fail_int2` with three run-time integers: "<label>: <msg><a><mid><b><mid2><c><tail>".
  std::string fail_int3(ErrorCode code, std::string_view msg, std::string_view a_expr, std::string_view mid,
                        std::string_view b_expr, std::string_view mid2, std::string_view c_expr,
                        std::string_view tail = {}) const;
  /// A statement that fails the call after a shape rule (shape_rules.h)
  /// returned `rule_expr` != 0: "<label>: <msg><rule text><value>", with the
  /// rule's error kind, as perform's throw_shape_rule words it.
  std::string fail_rule(std::string_view rule_expr, std::string_view msg, std::string_view value_expr) const;
  /// A statement that allocates output k (its shape must be set): C-contiguous
  /// strides, a fresh or a planned buffer; in GPU memory for a GPU output.
  std::string alloc(int k) const;
  /// Like alloc(k), but allocates `target` (a `TheanoArray*` expression with
  /// its ndim, dtype and shape set) in output k's planned buffer: a scan's
  /// stacked buffer of which output k is a view.
  std::string alloc_into(int k, const std::string& target) const;
  /// Emits once per translation unit, before the node functions, a support
  /// snippet (shared helpers such as Philox) identified by `key`.
  void need(std::string_view key, std::string_view code);

 private:
  std::vector<std::string>& support_keys_;
  CodeWriter& support_;
  std::vector<std::int64_t> slots_;
};

/// Emits the check of theano_broadcast_to_rule (shape_rules.h), the rule
/// perform applies too: input `i` broadcast to the `tnd`-d shape `target` (a
/// C array of int64_t). With `declared`, only the dimensions input i's type
/// says are size 1 broadcast (Theano's rule: Alloc, IncSubtensor), else any
/// size-1 dimension (numpy's: random parameters). `what` starts the message
/// ("the value", "parameter loc").
void emit_broadcast_to_check(NodeLowering& L, int i, const std::string& target, int tnd, bool declared,
                             const std::string& what);

/// Whether the node function of `L` should be optimized: not when its
/// lowering marked it cold, nor when every input and output has a static
/// shape of at most a few elements (optimizing scalar code saves
/// nanoseconds a call and costs milliseconds of compile time).
bool worth_optimizing(const NodeLowering& L);

/// The scalar code of an Elemwise node (emit/lower/elemwise_exprs.cpp): the prelude
/// namespace of its compute domain (theano_f / theano_i), the C type of each
/// `a<i>` (input i converted for the loop body), the statements computing a
/// Composite's inner values (one `t<j>` per inner node, of the node's dtype's
/// C type (double for floats), so the code stays linear in the inner graph
/// however deep or shared it is), and per output a C expression over the
/// `a<i>` and `t<j>`, already converted to the output's dtype. Emit `locals`
/// then use `stores` in one scope where the `a<i>` are defined, and request
/// every `support` snippet (L.need). Also used by reductions with a fused
/// elementwise op.
struct ElemwiseExprs {
  std::string ns;
  std::vector<std::string> arg_types;
  std::vector<std::string> locals;
  /// locals[j] as its parts: `local_types[j] t<j> = local_values[j];`.
  std::vector<std::string> local_types, local_values;
  std::vector<std::string> stores;
  /// (key, code) pairs for NodeLowering::need: an inner node computed in the
  /// other domain than the function's is a helper in that domain's namespace.
  std::vector<std::pair<std::string, std::string>> support;
  /// expr_cost of the locals and the stores.
  int cost() const;
};
ElemwiseExprs elemwise_exprs(const Apply& elemwise_node);
/// A stable name for a helper computing `text`: theano_node_<FNV-1a of the text, 16 hex digits>.
std::string helper_name(const std::string& text);

/// Declares `struct <args_t> { const TheanoArray* x0..; TheanoArray* o0..; };`,
/// the arguments of an elementwise node's parallel loop parts, and returns
/// the text that initializes one from the node's inputs and outputs.
std::string emit_loop_args(CodeWriter& f, const std::string& args_t, int nin, int nout);

/// Loop bodies of more than this many inner values are emitted blocked
/// (emit/lower/elemwise_blocked.cpp) instead of as one loop body.
constexpr std::size_t kBlockedLocals = 64;
/// Emits the loops of an Elemwise node with a large fused body (`ex` has more
/// than kBlockedLocals locals), after its outputs are allocated and `n` (the
/// element count) is known to be nonzero: each inner value is computed over
/// a block of elements by a vectorized helper shared by every node of the
/// unit with the same expression, so the code (and clang's time) grows by
/// one call per inner node, not by the node's inlined code in every loop.
void emit_elemwise_blocked(NodeLowering& L, const ElemwiseExprs& ex);

/// Emits the body of a DimShuffle view (emit/lower/elemwise.cpp): output 0 is input
/// 0 with its axes reordered (`order`, tensor::kNewAxis for a new axis),
/// dropped axes checked to be of size 1. Metadata only: also the GPU form.
void emit_dimshuffle_view(NodeLowering& L, int input_ndim, const std::vector<int>& order);
/// Emits the first part of an Alloc (emit/lower/shape.cpp): `int64_t shp[]` from
/// the shape inputs (checked), `int64_t vs[]` the value's strides broadcast to
/// it (0 where broadcast; checked by the shared rule), and output 0
/// allocated. The caller then fills o0 from x0 through `vs`.
void emit_alloc_target(NodeLowering& L);

/// ARange's and Eye's host parts (emit/lower/shape.cpp), shared by their CPU
/// loops and their GPU kernels. emit_arange: the length rule perform runs,
/// output 0 allocated (`n` elements), `a0` / `s0` (start, step) and, for a
/// float output from real inputs, its first two values `first` / `second`.
/// arange_code: the C expression of element `i` over those (and the (key,
/// code) support it needs in `*support`, to request where it is evaluated;
/// compile it without multiply-add contraction). emit_eye: `n`, `m`, `k` checked, output
/// 0 allocated (n x m), `lo` / `hi`: the rows whose diagonal element exists.
void emit_arange(NodeLowering& L);
std::string arange_code(NodeLowering& L, const std::string& i,
                        std::vector<std::pair<std::string, std::string>>* support);
void emit_eye(NodeLowering& L);

/// Emits, for an Elemwise-shaped node (the CPU Elemwise and GpuElemwise):
/// `int64_t shape[]` by theano_broadcast_rule (shape_rules.h, what perform
/// calls; failing with the node's label) and `int64_t n`, its element count.
void emit_elemwise_shape(NodeLowering& L, int nd);
/// A C condition: every input is C-contiguous with the output's shape
/// (`shape` from emit_elemwise_shape), so one flat index serves all arrays.
std::string elemwise_contiguous_condition(const NodeLowering& L, int nd);
/// The byte stride of input i's dimension d in a broadcasting loop: 0 where
/// its type says size 1 (the only broadcast theano_broadcast_rule allows).
std::string elemwise_input_stride(const NodeLowering& L, int i, int d);

/// Per-element cost of scalar C expressions in units of one arithmetic
/// operation: 1, plus 4 for every function call (libm, prelude helpers).
int expr_cost(const std::vector<std::string>& exprs);
/// The fewest elements of cost `cost` worth a loop part of their own on
/// another thread: about 4096 cheap operations on 8-byte elements, a
/// microsecond or two of work (an awake worker joins in well under a
/// microsecond; the pool does not wake a sleeping one for a small job that
/// comes alone, thread_pool.h), and proportionally more elements of a
/// narrower type (`itemsize`, the widest the loop reads or writes), which a
/// vector holds more of: a float32 element costs half a float64 one. Loops
/// shorter than twice this run on the calling thread only.
std::int64_t min_part_elements(int cost, std::size_t itemsize = 8);
/// Generated code: the minimum part, in indices that each cover `per_index`
/// elements (a C expression, at least 1), for theano_parallel.
std::string min_part_expr(int cost, const std::string& per_index, std::size_t itemsize = 8);
/// The widest element, in bytes, among the node's inputs and outputs.
std::size_t widest_item(const NodeLowering& L);

/// Emits a copy of `nd`-d elements of output 0's dtype from `src` (a char*
/// C expression) with byte strides `src_strides` (a C array; 0 to broadcast)
/// into `dst` with strides `dst_strides`, over the extents `shape` (a C
/// array): the host's copy (host_copy) on the CPU, a copy kernel
/// (CudaUnit::add_copy) launched through ctx->gpu_launch when output 0 is a
/// GPU array.
void emit_strided_copy(NodeLowering& L, int nd, const std::string& dst, const std::string& dst_strides,
                       const std::string& src, const std::string& src_strides, const std::string& shape);
/// The GPU half of emit_strided_copy, for GPU arrays of dtype `dt` whatever
/// the node's output is (HostFromGpu gathers a view into a GPU buffer).
void emit_gpu_copy(NodeLowering& L, DType dt, int nd, const std::string& dst, const std::string& dst_strides,
                   const std::string& src, const std::string& src_strides, const std::string& shape);

/// `TheanoArray <copy>;` and, where `cond` (a C condition) holds at run time,
/// a C-contiguous copy of `src` (elements of `item` bytes) in it by the
/// host's theano_scratch_copy, with `ptr` (declared by the caller) pointed at
/// it; a ValueError "could not allocate <what>" when the allocation fails.
/// Emits `TheanoArray scratch;`, a 1-d buffer of `count` (a C expression)
/// elements of dtype `dtype` (a C expression) from the host's allocator for
/// this call, failing with "could not allocate <what>".
void emit_scratch_buffer(NodeLowering& L, const std::string& dtype, const std::string& count, const std::string& what);
void emit_scratch_copy_if(NodeLowering& L, const std::string& cond, const std::string& ptr, const std::string& copy,
                          const std::string& src, const std::string& item, const std::string& what);

/// The call (a C expression) of the host's same-type strided copy,
/// `ctx->kernels->copy_strided` (theano/runtime/kernels/strided_copy.h,
/// compiled into the host), of `item`-byte elements: `src` with byte strides
/// `src_strides` (0 to broadcast) into `dst` with `dst_strides`, over the
/// `nd` extents `shape` (all C expressions).
std::string host_copy(const std::string& dst, const std::string& dst_strides, const std::string& src,
                      const std::string& src_strides, const std::string& shape, const std::string& nd,
                      std::size_t item);

/// Requests strided_copy.h's text in the unit, for
/// `theano_convert_copy<D, S>(dst, dst_strides, src, src_strides, shape, nd)`:
/// the same copy converting elements of type S to D. Only for a conversion:
/// a same-type copy is host_copy.
void need_convert_copy(NodeLowering& L);

using LowerFn = void (*)(NodeLowering&);

/// What a lowering's node function computes on: the host (the op's C++
/// lowering), or the GPU (the CUDA form of a gpu::GpuOp over the op: L.op is
/// the host op, L.node the GpuOp node with GPU inputs and outputs; a view or a
/// copy registers its C++ lowering here too, run on device addresses).
enum class Target : std::uint8_t { Cpu, Cuda };

/// The one lowering table: (op class, target) -> lowering. Each family file
/// (emit/lower/<family>.cpp, emit/lower/gpu_<family>.cpp) adds its rows; the
/// ops with a kernel form get theirs from the op registry (kernel_form.cpp).
class LoweringTable {
 public:
  struct Key {
    std::type_index op;
    Target target;
    friend bool operator==(const Key&, const Key&) = default;
  };
  /// Adds `fn` as op class `op`'s lowering for `target`; internal error if
  /// that row is already there.
  void add(std::type_index op, Target target, LowerFn fn);
  template <class OpClass>
  void add(Target target, LowerFn fn) {
    add(std::type_index(typeid(OpClass)), target, fn);
  }
  /// The row's lowering, or nullptr.
  LowerFn find(std::type_index op, Target target) const;
  /// Every row's key (the op registry test checks each class is registered).
  std::vector<Key> keys() const;

 private:
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return k.op.hash_code() * 2 + static_cast<std::size_t>(k.target); }
  };
  std::unordered_map<Key, LowerFn, KeyHash> rows_;
};

/// The lowering registered for `op`'s dynamic type and `target`, or nullptr.
LowerFn find_lowering(const Op& op, Target target = Target::Cpu);
/// The same, by op class (the op registry test walks classes, not instances).
LowerFn find_lowering(std::type_index op_type, Target target = Target::Cpu);
/// The whole table.
const LoweringTable& lowering_table();

// One registration function per family file (emit/lower/<family>.cpp).
void add_elemwise_lowerings(LoweringTable& t);
void add_shape_lowerings(LoweringTable& t);
void add_join_lowerings(LoweringTable& t);
void add_subtensor_lowerings(LoweringTable& t);
void add_reduction_lowerings(LoweringTable& t);
void add_nnet_lowerings(LoweringTable& t);
void add_conv_lowerings(LoweringTable& t);
void add_blas_lowerings(LoweringTable& t);
void add_row_stream_gemv_lowering(LoweringTable& t);  // row_stream_gemv.cpp
void add_random_lowerings(LoweringTable& t);
void add_sparse_lowerings(LoweringTable& t);
void add_control_lowerings(LoweringTable& t);
void add_distributed_lowerings(LoweringTable& t);
void add_gpu_lowerings(LoweringTable& t);
// The CUDA forms (Target::Cuda) of the host ops with a GPU form
// (Op::gpu_form): reductions, nnet, BLAS, indexing, random, arange / eye.
void add_gpu_reduction_lowerings(LoweringTable& t);
void add_gpu_blas_lowerings(LoweringTable& t);
void add_gpu_nnet_lowerings(LoweringTable& t);
void add_gpu_subtensor_lowerings(LoweringTable& t);
void add_gpu_random_lowerings(LoweringTable& t);
void add_gpu_arange_lowerings(LoweringTable& t);
void add_gpu_conv_lowerings(LoweringTable& t);
void add_gpu_linalg_lowerings(LoweringTable& t);
void add_gpu_expm_lowerings(LoweringTable& t);
/// Both targets' rows of the pooling ops (emit/lower/pool.cpp).
void add_pool_lowerings(LoweringTable& t);
void add_index_op_lowerings(LoweringTable& t);
/// Both targets' rows of every registered op class with a kernel form
/// (OpInfo::has_kernel_form): the generic lowerings of emit/lower/kernel_form.cpp.
void add_kernel_form_lowerings(LoweringTable& t);
/// The LAPACK-backed linear algebra ops' one C++ lowering (emit/lower/linalg.cpp).
void add_linalg_lowerings(LoweringTable& t);

/// Embeds blas_layout.h (theano_blas_matrix: whether BLAS reads an m x k
/// operand with byte strides (s0, s1) in place, with which row-major
/// transpose flag and leading dimension) and emit/lower/blas.cpp's overlap
/// and scratch-copy helpers. The CPU BLAS lowerings and the GPU ones
/// (cuBLAS, emit/lower/gpu_blas.cpp) share it.
void need_blas_layout(NodeLowering& L);

/// The convolution ops' shared host part (emit/lower/conv.cpp), for the C++
/// and the GPU lowering: conv.h's rule with every check and its message on
/// the node's shapes (`TheanoConvGeom g`; `ish`, `wsh` the input's and the
/// filters' shapes; `as`, `bs` inputs 0 and 1's element strides) and the
/// output's shape in o0 (not yet allocated).
void emit_conv_geometry(NodeLowering& L);
/// The BLAS ops' run-time shape checks and operand reads (emit/lower/blas.cpp),
/// one text for the CPU and the GPU lowerings. Dot: declares k, m, n (1 for
/// a vector operand), sets o0's shape and allocates it. Gemm: alpha, beta,
/// m, k, n. Gemv: alpha, beta, m, n (A is m x n). Ger: alpha, m, n.
void emit_dot_output(NodeLowering& L);
void emit_gemm_checks(NodeLowering& L);
void emit_gemv_checks(NodeLowering& L);
void emit_ger_checks(NodeLowering& L);
/// BatchedDot: batched_dot_rules.h's rule with its messages; sets o0's shape
/// and allocates it; declares nbatch, m, n, k and the matrix byte strides
/// of the operands (as0, as1, bs0, bs1) and the output (os0, os1).
void emit_batched_dot_checks(NodeLowering& L);

/// The text of a kernel file (runtime/include/theano/runtime/kernels/<file>,
/// e.g. "cumulative.h"), verbatim but for its host-only includes: every file
/// of that folder is embedded (codegen/CMakeLists.txt), so a new one needs no
/// build change. Internal error for a file that is not there.
std::string_view kernel_text(std::string_view file);

/// Embeds the LAPACK kernel layer (kernels/linalg_call.h, linalg_eig.h,
/// linalg_expm_rules.h, linalg_expm.h, linalg_gpu.h, linalg.h, in that order) in L's unit (emit/lower/linalg.cpp).
void need_linalg_kernels(NodeLowering& L);

}  // namespace theano::codegen::lower

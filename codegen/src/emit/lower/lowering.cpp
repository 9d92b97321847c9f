// Shared helpers of the op lowerings and the lowering table (see lowering.h).
#include "lowering.h"

#include <theano/gpu/ops.h>
#include <theano/gpu/type.h>
#include <theano/runtime/error.h>
#include <theano/tensor/c_template.h>
#include <theano/tensor/type.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "../cuda_unit.h"

namespace theano::codegen::lower {

const char* c_type(DType d) {
  switch (d) {
    case DType::Bool:
      return "bool";
    case DType::Int8:
      return "int8_t";
    case DType::Int16:
      return "int16_t";
    case DType::Int32:
      return "int32_t";
    case DType::Int64:
      return "int64_t";
    case DType::UInt8:
      return "uint8_t";
    case DType::UInt16:
      return "uint16_t";
    case DType::UInt32:
      return "uint32_t";
    case DType::UInt64:
      return "uint64_t";
    case DType::Float32:
      return "float";
    case DType::Float64:
      return "double";
    default:
      return nullptr;
  }
}

bool int_like(DType d) { return is_integer(d) || is_bool(d); }

std::string from_int64(DType d, const std::string& v) {
  if (d == DType::Bool) return "((" + v + ") != 0)";
  return "((" + std::string(c_type(d)) + ")(" + v + "))";
}

std::string from_double(DType d, const std::string& v) {
  if (d == DType::Bool) return "((" + v + ") != 0)";
  const std::string ct = c_type(d);
  if (is_float(d)) return "((" + ct + ")(" + v + "))";
  if (dtype_size(d) <= 2 || d == DType::Int32) return "((" + ct + ")theano_f2i32(" + v + "))";
  if (d == DType::UInt64) return "theano_f2u64(" + v + ")";
  return "((" + ct + ")theano_f2i64(" + v + "))";
}

std::string c_string(std::string_view s) {
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      r += '\\';
      r += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) {
      static const char* hex = "0123456789abcdef";
      r += "\\x";
      r += hex[(static_cast<unsigned char>(ch) >> 4) & 15];
      r += hex[static_cast<unsigned char>(ch) & 15];
      r += "\"\"";  // end the hex escape
    } else {
      r += ch;
    }
  }
  return r + "\"";
}

std::string expand(const std::string& t, const std::vector<std::string>& args) {
  return tensor::expand_c_template(t, args);
}

const tensor::TensorType& ttype(const Var& v) {
  if (const tensor::TensorType* t = tensor::tensor_type(v)) return *t;
  // A GPU array: its host twin (interned, so the reference stays valid).
  const gpu::GpuArrayType* g = gpu::gpu_type(v);
  THEANO_INTERNAL_CHECK(g != nullptr) << "the cpp linker expects tensor or GPU array variables";
  return *g->host_type();
}

bool on_gpu(const Var& v) { return gpu::gpu_type(v) != nullptr; }

namespace {
const Op& gpu_host_op(const Apply& n) {
  if (const auto* g = dynamic_cast<const gpu::GpuOp*>(n.op().get())) return g->host_op();
  return *n.op();
}
}  // namespace

void emit_strided_copy(NodeLowering& L, int nd, const std::string& dst, const std::string& dst_strides,
                       const std::string& src, const std::string& src_strides, const std::string& shape) {
  CodeWriter& w = L.body;
  const DType dt = L.out(0).dtype();
  if (!on_gpu(L.node.output(0))) {
    w.line(host_copy(dst, dst_strides, src, src_strides, shape, str(nd), dtype_size(dt)) + ";");
    return;
  }
  emit_gpu_copy(L, dt, nd, dst, dst_strides, src, src_strides, shape);
}

void emit_gpu_copy(NodeLowering& L, DType dt, int nd, const std::string& dst, const std::string& dst_strides,
                   const std::string& src, const std::string& src_strides, const std::string& shape) {
  CodeWriter& w = L.body;
  THEANO_INTERNAL_CHECK(L.cuda != nullptr) << L.label << ": a GPU copy outside a GPU function";
  const int kernel = L.cuda->add_copy(dt, nd);
  cuda::ElemwiseParams::Host values;
  values.n = "n";
  values.shape = [&](int d) { return shape + "[" + str(d) + "]"; };
  values.data = [&](int j) { return j == 0 ? src : dst; };
  values.stride = [&](int j, int d) { return (j == 0 ? src_strides : dst_strides) + "[" + str(d) + "]"; };
  const cuda::ElemwiseParams ep(nd, 2, values);
  w.open("");
  w.line("int64_t n = 1;");
  for (int d = 0; d < nd; ++d) w.line("n *= " + shape + "[" + str(d) + "];");
  ep.block.declare(w);
  w.line("if (n > 0) if (int e = " + ep.block.launch(kernel, "n") + ") return e;");
  w.close();
}

void refuse(const Apply& node, LoweringReason reason, const std::string& why) {
  throw LoweringError("the cpp linker cannot compile op " + node.op()->name() + why + "; use linker=py", reason, why);
}

namespace {
std::string make_label(const Apply& node, std::size_t index) {
  std::string l = "node " + std::to_string(index) + " (" + node.op()->name() + ")";
  std::string names;
  for (int k = 0; k < node.nout(); ++k) {
    const std::string& n = node.output(k).name();
    if (n.empty()) continue;
    names += (names.empty() ? "'" : ", '") + n + "'";
  }
  if (!names.empty()) l += " computing " + names;
  std::string from;
  for (int i = 0; i < node.nin(); ++i) {
    const std::string& n = node.input(i).name();
    if (n.empty() || node.input(i).is_constant()) continue;
    from += (from.empty() ? "'" : ", '") + n + "'";
  }
  if (!from.empty()) l += " from " + from;
  return l;
}
}  // namespace

NodeLowering::NodeLowering(const Apply& n, std::size_t i, CodeWriter& b, CodeWriter& f,
                           std::vector<std::string>& support_keys, CodeWriter& support, std::vector<std::int64_t> slots,
                           const std::string& fn_prefix, const std::string& label_prefix)
    : node(n),
      op(gpu_host_op(n)),
      index(i),
      fn(fn_prefix + "node" + std::to_string(i)),
      label(label_prefix + make_label(n, i)),
      body(b),
      file(f),
      support_keys_(support_keys),
      support_(support),
      slots_(std::move(slots)) {}

namespace {
bool statically_tiny(const Var& v) {
  constexpr std::int64_t kTiny = 16;
  const auto* t = tensor::tensor_type(v);
  if (!t) return false;
  std::int64_t n = 1;
  for (const auto& d : t->shape()) {
    if (!d) return false;
    n *= *d;
    if (n > kTiny) return false;
  }
  return true;
}
}  // namespace

bool worth_optimizing(const NodeLowering& L) {
  if (L.cold) return false;
  for (const Var& v : L.node.inputs())
    if (!statically_tiny(v)) return true;
  for (int k = 0; k < L.nout(); ++k)
    if (!statically_tiny(L.node.output(k))) return true;
  return false;
}

int expr_cost(const std::vector<std::string>& exprs) {
  int calls = 0;
  for (const std::string& e : exprs)
    for (std::size_t k = 1; k < e.size(); ++k) {
      const char c = e[k - 1];
      if (e[k] == '(' && (std::isalnum(static_cast<unsigned char>(c)) || c == '_')) ++calls;
    }
  return 1 + 4 * calls;
}

std::int64_t min_part_elements(int cost, std::size_t itemsize) {
  const auto narrower = static_cast<std::int64_t>(std::max<std::size_t>(1, 8 / std::max<std::size_t>(itemsize, 1)));
  return std::max<std::int64_t>(256, 4096 / std::max(cost, 1)) * narrower;
}

std::string min_part_expr(int cost, const std::string& per_index, std::size_t itemsize) {
  const std::string m = std::to_string(min_part_elements(cost, itemsize));
  return "((" + m + " + (" + per_index + ") - 1) / (" + per_index + "))";
}

std::size_t widest_item(const NodeLowering& L) {
  std::size_t w = 1;
  for (int i = 0; i < L.nin(); ++i) w = std::max(w, dtype_size(L.in(i).dtype()));
  for (int k = 0; k < L.nout(); ++k) w = std::max(w, dtype_size(L.out(k).dtype()));
  return w;
}

const tensor::TensorType& NodeLowering::in(int i) const { return ttype(node.input(i)); }
const tensor::TensorType& NodeLowering::out(int k) const { return ttype(node.output(k)); }
std::string NodeLowering::in_ctype(int i) const { return c_type(in(i).dtype()); }
std::string NodeLowering::out_ctype(int k) const { return c_type(out(k).dtype()); }

std::string NodeLowering::fail(ErrorCode code, std::string_view msg) const {
  return "return theano_fail(ctx, " + std::to_string(code) + ", " + c_string(label + ": " + std::string(msg)) +
         ", all, " + std::to_string(nin()) + ");";
}

std::string NodeLowering::fail_rule(std::string_view rule_expr, std::string_view msg,
                                    std::string_view value_expr) const {
  return "return theano_fail_rule(ctx, " + std::string(rule_expr) + ", " + c_string(label + ": " + std::string(msg)) +
         ", (int64_t)(" + std::string(value_expr) + "), all, " + std::to_string(nin()) + ");";
}

std::string NodeLowering::fail_int(ErrorCode code, std::string_view msg, std::string_view value_expr,
                                   std::string_view tail) const {
  return "return theano_fail_int(ctx, " + std::to_string(code) + ", " + c_string(label + ": " + std::string(msg)) +
         ", (int64_t)(" + std::string(value_expr) + "), " + c_string(tail) + ", all, " + std::to_string(nin()) + ");";
}

std::string NodeLowering::fail_int2(ErrorCode code, std::string_view msg, std::string_view a_expr, std::string_view mid,
                                    std::string_view b_expr, std::string_view tail) const {
  return "return theano_fail_int2(ctx, " + std::to_string(code) + ", " + c_string(label + ": " + std::string(msg)) +
         ", (int64_t)(" + std::string(a_expr) + "), " + c_string(mid) + ", (int64_t)(" + std::string(b_expr) + "), " +
         c_string(tail) + ", all, " + std::to_string(nin()) + ");";
}

std::string NodeLowering::fail_int3(ErrorCode code, std::string_view msg, std::string_view a_expr, std::string_view mid,
                                    std::string_view b_expr, std::string_view mid2, std::string_view c_expr,
                                    std::string_view tail) const {
  return "return theano_fail_int3(ctx, " + std::to_string(code) + ", " + c_string(label + ": " + std::string(msg)) +
         ", (int64_t)(" + std::string(a_expr) + "), " + c_string(mid) + ", (int64_t)(" + std::string(b_expr) + "), " +
         c_string(mid2) + ", (int64_t)(" + std::string(c_expr) + "), " + c_string(tail) + ", all, " +
         std::to_string(nin()) + ");";
}

std::string NodeLowering::alloc(int k) const { return alloc_into(k, o(k)); }

std::string NodeLowering::alloc_into(int k, const std::string& target) const {
  const std::int64_t slot = static_cast<std::size_t>(k) < slots_.size() ? slots_[static_cast<std::size_t>(k)] : -1;
  const auto itemsize = static_cast<std::int64_t>(dtype_size(out(k).dtype()));
  const char* fn = on_gpu(node.output(k)) ? "theano_gpu_alloc_checked" : "theano_alloc_checked";
  return "if (int e = " + std::string(fn) + "(ctx, " + target + ", " + std::to_string(slot) + ", " +
         std::to_string(itemsize) + ", " + c_string(label + ": output " + std::to_string(k) + ": ") + ", all, " +
         std::to_string(nin()) + ")) return e;";
}

void emit_broadcast_to_check(NodeLowering& L, int i, const std::string& target, int tnd, bool declared,
                             const std::string& what) {
  const tensor::TensorType& t = L.in(i);
  std::string decl = "0";
  if (declared) {
    std::string flags;
    for (const tensor::Dim& s : t.shape()) flags += (flags.empty() ? "" : ", ") + std::string(s && *s == 1 ? "1" : "0");
    L.body.open("");
    L.body.line("static const unsigned char declared_one[" + str(std::max(t.ndim(), 1)) + "] = {" +
                (flags.empty() ? std::string("0") : flags) + "};");
    decl = "declared_one";
  } else {
    L.body.open("");
  }
  L.body.line("int64_t bad = 0;");
  L.body.line("const int rule = theano_broadcast_to_rule(" + str(t.ndim()) + ", " + L.x(i) + "->shape, " + decl + ", " +
              str(tnd) + ", " + target + ", &bad);");
  L.body.line("if (rule != THEANO_RULE_OK) " + L.fail_rule("rule", what + " (input " + str(i) + ") ", "bad"));
  L.body.close();
}

void NodeLowering::need(std::string_view key, std::string_view code) {
  if (std::find(support_keys_.begin(), support_keys_.end(), key) != support_keys_.end()) return;
  support_keys_.emplace_back(key);
  support_.line("// support: " + std::string(key));
  support_.lines(code);
  support_.line("");
}


// The table of runtime/kernels/*.h texts (tools/cmake/embed_text.cmake).
struct EmbeddedKernel {
  const char* file;
  const char* text;
};
extern const EmbeddedKernel kEmbeddedKernels[];
extern const int kEmbeddedKernelCount;

void emit_scratch_buffer(NodeLowering& L, const std::string& dtype, const std::string& count, const std::string& what) {
  CodeWriter& w = L.body;
  w.line("TheanoArray scratch;");
  w.line("scratch.ndim = 1;");
  w.line("scratch.dtype = " + dtype + ";");
  w.line("scratch.owner = -1;");
  w.line("scratch.shape[0] = " + count + ";");
  w.line("if (ctx->alloc(ctx->host, &scratch, -1) != 0) " + L.fail(kErrValue, "could not allocate " + what));
}

std::string_view kernel_text(std::string_view file) {
  for (int i = 0; i < kEmbeddedKernelCount; ++i)
    if (file == kEmbeddedKernels[i].file) return kEmbeddedKernels[i].text;
  THEANO_INTERNAL_CHECK(false) << "no kernel file runtime/kernels/" << file << " is embedded";
  return {};
}

void emit_scratch_copy_if(NodeLowering& L, const std::string& cond, const std::string& ptr, const std::string& copy,
                          const std::string& src, const std::string& item, const std::string& what) {
  CodeWriter& w = L.body;
  w.line("TheanoArray " + copy + ";");
  w.open("if (" + cond + ")");
  w.line("if (theano_scratch_copy(ctx, &" + copy + ", " + src + ", " + item + ") != 0) " +
         L.fail(kErrValue, "could not allocate " + what));
  w.line(ptr + " = &" + copy + ";");
  w.close();
}

std::string host_copy(const std::string& dst, const std::string& dst_strides, const std::string& src,
                      const std::string& src_strides, const std::string& shape, const std::string& nd,
                      std::size_t item) {
  // The host's instantiations (strided_copy.h, theano_copy_strided).
  THEANO_INTERNAL_CHECK(item == 1 || item == 2 || item == 4 || item == 8 || item == 16)
      << "no host copy for " << item << "-byte elements";
  return "ctx->kernels->copy_strided(" + dst + ", " + dst_strides + ", " + src + ", " + src_strides + ", " + shape +
         ", " + nd + ", " + str(static_cast<std::int64_t>(item)) + ")";
}

void need_convert_copy(NodeLowering& L) { L.need("theano_convert_copy", kernel_text("strided_copy.h")); }

void LoweringTable::add(std::type_index op, Target target, LowerFn fn) {
  const bool fresh = rows_.emplace(Key{op, target}, fn).second;
  THEANO_INTERNAL_CHECK(fresh) << "two " << (target == Target::Cpu ? "C++" : "CUDA") << " lowerings for op class "
                               << op.name();
}

LowerFn LoweringTable::find(std::type_index op, Target target) const {
  auto it = rows_.find(Key{op, target});
  return it == rows_.end() ? nullptr : it->second;
}

std::vector<LoweringTable::Key> LoweringTable::keys() const {
  std::vector<Key> out;
  for (const auto& [k, fn] : rows_) out.push_back(k);
  return out;
}

LowerFn find_lowering(const Op& op, Target target) { return find_lowering(std::type_index(typeid(op)), target); }

const LoweringTable& lowering_table() {
  static const LoweringTable table = [] {
    LoweringTable t;
    add_elemwise_lowerings(t);
    add_shape_lowerings(t);
    add_join_lowerings(t);
    add_subtensor_lowerings(t);
    add_reduction_lowerings(t);
    add_nnet_lowerings(t);
    add_conv_lowerings(t);
    add_blas_lowerings(t);
    add_row_stream_gemv_lowering(t);
    add_random_lowerings(t);
    add_sparse_lowerings(t);
    add_control_lowerings(t);
    add_distributed_lowerings(t);
    add_gpu_lowerings(t);
    add_gpu_reduction_lowerings(t);
    add_gpu_blas_lowerings(t);
    add_gpu_nnet_lowerings(t);
    add_gpu_subtensor_lowerings(t);
    add_gpu_random_lowerings(t);
    add_gpu_arange_lowerings(t);
    add_gpu_conv_lowerings(t);
    add_gpu_linalg_lowerings(t);
    add_gpu_expm_lowerings(t);
    add_kernel_form_lowerings(t);
    add_pool_lowerings(t);
    add_index_op_lowerings(t);
    add_linalg_lowerings(t);
    return t;
  }();
  return table;
}

LowerFn find_lowering(std::type_index op_type, Target target) { return lowering_table().find(op_type, target); }

}  // namespace theano::codegen::lower

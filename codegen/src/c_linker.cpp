// CLinker: whole-graph C++ code generation for elementwise graphs (see
// c_linker.h). Source generation, compilation/loading and the host Thunk.
#include <theano/codegen/c_linker.h>

#include <theano/codegen/code_writer.h>
#include <theano/codegen/jit_loader.h>
#include <theano/fgraph/function_graph.h>
#include <theano/graph/basic.h>
#include <theano/runtime/error.h>
#include <theano/tensor/elemwise.h>
#include <theano/tensor/scalar.h>
#include <theano/tensor/type.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

namespace theano::codegen {
namespace {

using tensor::Dim;
using tensor::TensorType;

constexpr int kMaxNdim = 16;

// Host mirror of the prelude's structs (layout must match the prelude text).
struct TheanoArray {
  char* data;
  std::int64_t ndim;
  std::int64_t dtype;
  std::int64_t owner;
  std::int64_t shape[kMaxNdim];
  std::int64_t strides[kMaxNdim];
};
struct TheanoContext {
  const TheanoArray* inputs;
  TheanoArray* outputs;
  const TheanoArray* constants;
  void* host;
  int (*alloc)(void* host, TheanoArray* a);
  char* error;
  std::int64_t error_size;
};

constexpr std::string_view kPrelude = R"PRELUDE(// theano-cpp generated code: prelude (thunk ABI, libm prototypes, helpers)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
#define THEANO_MAX_NDIM 16
struct TheanoArray {
  char* data;
  int64_t ndim;
  int64_t dtype;
  int64_t owner;
  int64_t shape[THEANO_MAX_NDIM];
  int64_t strides[THEANO_MAX_NDIM];  // bytes
};
struct TheanoContext {
  const TheanoArray* inputs;
  TheanoArray* outputs;
  const TheanoArray* constants;
  void* host;
  int (*alloc)(void* host, TheanoArray* a);  // in: ndim, dtype, shape; out: data, strides, owner
  char* error;
  int64_t error_size;
};
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
static void theano_put(TheanoContext* c, int64_t* p, const char* s) {
  while (*s && *p + 1 < c->error_size) c->error[(*p)++] = *s++;
  c->error[*p] = 0;
}
static void theano_put_int(TheanoContext* c, int64_t* p, int64_t v) {
  char rev[24];
  char s[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do { rev[n++] = (char)('0' + (int)(u % 10)); u /= 10; } while (u != 0);
  int k = 0;
  if (v < 0) s[k++] = '-';
  while (n > 0) s[k++] = rev[--n];
  s[k] = 0;
  theano_put(c, p, s);
}
static void theano_put_shape(TheanoContext* c, int64_t* p, const TheanoArray* a) {
  theano_put(c, p, "(");
  for (int64_t d = 0; d < a->ndim; ++d) {
    if (d) theano_put(c, p, ", ");
    theano_put_int(c, p, a->shape[d]);
  }
  if (a->ndim == 1) theano_put(c, p, ",");
  theano_put(c, p, ")");
}
// Writes `msg` and the input shapes into the error buffer; returns `code`.
static int theano_fail(TheanoContext* c, int code, const char* msg, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "; input shapes: ");
  for (int i = 0; i < n; ++i) {
    if (i) theano_put(c, &p, ", ");
    theano_put_shape(c, &p, in[i]);
  }
  return code;
}
// Helpers for the double compute domain (the scalar table's C expressions).
namespace theano_f {
static inline double theano_floor_div(double a, double b) { return floor(a / b); }
static inline double theano_mod(double a, double b) {
  double r = fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline double theano_sign(double x) { return x != x ? x : (double)((x > 0) - (x < 0)); }
static inline double theano_maximum(double a, double b) { return (a != a || a >= b) ? a : b; }
static inline double theano_minimum(double a, double b) { return (a != a || a <= b) ? a : b; }
static inline double theano_clip(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline double theano_sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + exp(-x));
  double e = exp(x);
  return e / (1.0 + e);
}
static inline double theano_softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
static inline bool isnan(double x) { return x != x; }
static inline bool isinf(double x) { return x == __builtin_inf() || x == -__builtin_inf(); }
static inline double theano_digamma(double x) {
  if (x != x || x == -__builtin_inf()) return __builtin_nan("");
  if (x <= 0 && floor(x) == x) return __builtin_nan("");
  const double pi = 3.14159265358979323846;
  double r = 0;
  if (x < 0) {
    r = -pi / tan(pi * x);
    x = 1 - x;
  }
  while (x < 6) {
    r -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
}  // namespace theano_f
// Helpers for the int64 compute domain (NumPy integer semantics; -fwrapv).
namespace theano_i {
static inline int64_t theano_floor_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)((uint64_t)0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
static inline int64_t theano_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static inline int64_t pow(int64_t base, int64_t e) {
  uint64_t result = 1, b = (uint64_t)base;
  while (e > 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return (int64_t)result;
}
static inline int64_t fabs(int64_t x) { return x < 0 ? (int64_t)((uint64_t)0 - (uint64_t)x) : x; }
static inline int64_t theano_sign(int64_t x) { return (x > 0) - (x < 0); }
static inline int64_t theano_maximum(int64_t a, int64_t b) { return a < b ? b : a; }
static inline int64_t theano_minimum(int64_t a, int64_t b) { return b < a ? b : a; }
static inline int64_t theano_clip(int64_t x, int64_t lo, int64_t hi) { return x < lo ? lo : (x > hi ? hi : x); }
static inline bool isnan(int64_t) { return false; }
static inline bool isinf(int64_t) { return false; }
}  // namespace theano_i
// ---- end of prelude
)PRELUDE";

const char* c_type(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int32_t";
    case DType::Int64: return "int64_t";
    case DType::UInt8: return "uint8_t";
    case DType::UInt16: return "uint16_t";
    case DType::UInt32: return "uint32_t";
    case DType::UInt64: return "uint64_t";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    default: return nullptr;
  }
}

bool int_like(DType d) { return is_integer(d) || is_bool(d); }

/// A C string literal for `s`.
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

/// Substitutes {0}, {1}, ... in `t` with `args`.
std::string expand(const std::string& t, const std::vector<std::string>& args) {
  std::string out;
  for (std::size_t p = 0; p < t.size(); ++p) {
    if (t[p] == '{') {
      const std::size_t close = t.find('}', p);
      THEANO_INTERNAL_CHECK(close != std::string::npos) << "bad C expression template '" << t << "'";
      const auto idx = static_cast<std::size_t>(std::stoi(t.substr(p + 1, close - p - 1)));
      THEANO_INTERNAL_CHECK(idx < args.size()) << "C expression '" << t << "' uses {" << idx << "}";
      out += args[idx];
      p = close;
    } else {
      out += t[p];
    }
  }
  return out;
}

const TensorType& ttype(const Var& v) {
  const TensorType* t = tensor::tensor_type(v);
  THEANO_INTERNAL_CHECK(t != nullptr) << "the cpp linker expects tensor variables";
  return *t;
}

[[noreturn]] void refuse(const Apply& node, const std::string& why) {
  throw MethodNotDefined("the cpp linker cannot compile op " + node.op()->name() + " yet" + why +
                         "; use linker=py");
}

void check_type(const Apply& node, const Var& v) {
  const TensorType* t = tensor::tensor_type(v);
  if (!t) refuse(node, " (a non-tensor variable)");
  if (!c_type(t->dtype())) refuse(node, std::string(" (dtype ") + std::string(dtype_name(t->dtype())) + ")");
  if (t->ndim() > kMaxNdim) refuse(node, " (more than 16 dimensions)");
}

/// The compute domain of an Elemwise node, following Elemwise::perform.
enum class Domain { Int, IntViaDouble, Double };

Domain domain_of(const Apply& node, const tensor::ScalarOp& op) {
  bool all_int = int_like(ttype(node.output(0)).dtype());
  for (const Var& in : node.inputs()) all_int = all_int && int_like(ttype(in).dtype());
  if (!all_int) return Domain::Double;
  std::vector<std::int64_t> probe(static_cast<std::size_t>(std::max(node.nin(), 2)), 1);
  try {
    if (!op.eval_int(probe.data())) return Domain::IntViaDouble;
  } catch (const Error&) {
  }
  return Domain::Int;
}

struct Generator {
  const FunctionGraph& fg;
  std::unordered_map<const Variable*, std::string> names;  // variable -> `const TheanoArray*` expression
  std::vector<const Constant*> constants;
  CodeWriter functions;  // per-node functions
  std::vector<NodeCode> blocks;

  std::string name_of(const Var& v) {
    auto it = names.find(v.get());
    if (it != names.end()) return it->second;
    const Constant* c = v.as_constant();
    THEANO_INTERNAL_CHECK(c != nullptr) << "variable " << v.str() << " has no producer in the graph";
    const std::string n = "&ctx->constants[" + std::to_string(constants.size()) + "]";
    constants.push_back(c);
    names[v.get()] = n;
    return n;
  }

  void elemwise(std::size_t t, const Apply& node, const tensor::Elemwise& op) {
    const tensor::ScalarOp& sop = *op.scalar_op();
    const std::string expr_t = sop.c_expr();
    const TensorType& out_t = ttype(node.output(0));
    const int nd = out_t.ndim();
    const int nin = node.nin();
    const DType out_dt = out_t.dtype();
    const Domain dom = domain_of(node, sop);
    const std::string ct = dom == Domain::Int ? "int64_t" : "double";
    const std::string fn = "node" + std::to_string(t);
    const std::string label = "node " + std::to_string(t) + " (" + node.op()->name() + ")";

    // The scalar expression over a0, a1, ... (n-ary ops fold left, as perform does).
    std::vector<std::string> args;
    for (int i = 0; i < nin; ++i) args.push_back("a" + std::to_string(i));
    std::string expr;
    if (sop.name() == "invert" && out_dt == DType::Bool && dom == Domain::Int) {
      expr = "(!" + args[0] + ")";
    } else if (sop.nin() < 0 && nin > 2) {
      expr = args[0];
      for (int i = 1; i < nin; ++i) expr = expand(expr_t, {expr, args[static_cast<std::size_t>(i)]});
    } else {
      expr = expand(expr_t, args);
    }
    std::string store = std::string("(") + c_type(out_dt) + ")" +
                        (dom == Domain::IntViaDouble ? "(int64_t)" : "") + "(" + expr + ")";

    CodeWriter& w = functions;
    w.line("namespace " + std::string(dom == Domain::Int ? "theano_i" : "theano_f") + " {");
    std::string sig = "static int " + fn + "(TheanoContext* ctx";
    for (int i = 0; i < nin; ++i) sig += ", const TheanoArray* x" + std::to_string(i);
    sig += ", TheanoArray* out)";
    w.open(sig, fn);
    w.line("const TheanoArray* all[" + std::to_string(std::max(nin, 1)) + "] = {" +
           [&] {
             std::string s;
             for (int i = 0; i < nin; ++i) s += (i ? ", x" : "x") + std::to_string(i);
             return nin ? s : std::string("0");
           }() +
           "};");
    w.line("int64_t shape[" + std::to_string(std::max(nd, 1)) + "];");
    // Shape rule: a dimension broadcasts only where the input's type says size 1.
    for (int d = 0; d < nd; ++d) {
      const std::string ds = std::to_string(d);
      int decided = -1;
      for (int i = 0; i < nin; ++i) {
        const std::string xi = "x" + std::to_string(i);
        const Dim& s = ttype(node.input(i)).shape()[static_cast<std::size_t>(d)];
        if (s && *s == 1) {
          w.line("if (" + xi + "->shape[" + ds + "] != 1) return theano_fail(ctx, 1, " +
                 c_string(label + ": input " + std::to_string(i) + " is declared broadcastable (size 1) in dimension " +
                          ds + " but has another size") +
                 ", all, " + std::to_string(nin) + ");");
          continue;
        }
        if (decided < 0) {
          w.line("shape[" + ds + "] = " + xi + "->shape[" + ds + "];");
          decided = i;
          continue;
        }
        w.line("if (" + xi + "->shape[" + ds + "] != shape[" + ds + "]) return theano_fail(ctx, 1, " +
               c_string(label + ": shape mismatch at dimension " + ds + " between input " + std::to_string(decided) +
                        " and input " + std::to_string(i) +
                        " (only dimensions whose type says size 1 broadcast)") +
               ", all, " + std::to_string(nin) + ");");
      }
      if (decided < 0) w.line("shape[" + ds + "] = 1;");
    }
    // Output allocation through the host.
    w.line("out->ndim = " + std::to_string(nd) + ";");
    w.line("out->dtype = " + std::to_string(static_cast<int>(out_dt)) + ";");
    w.line("int64_t n = 1;");
    for (int d = 0; d < nd; ++d) {
      const std::string ds = std::to_string(d);
      w.line("out->shape[" + ds + "] = shape[" + ds + "];");
      w.line("n *= shape[" + ds + "];");
    }
    w.line("if (ctx->alloc(ctx->host, out) != 0) return theano_fail(ctx, 2, " +
           c_string(label + ": could not allocate the output") + ", all, " + std::to_string(nin) + ");");
    w.line("if (n == 0) return 0;");
    // Contiguous fast path: every input C-contiguous with the output's shape.
    std::string contiguous = "1";
    for (int i = 0; i < nin; ++i) {
      const std::string xi = "x" + std::to_string(i);
      const std::string isz = std::to_string(dtype_size(ttype(node.input(i)).dtype()));
      std::string expect = isz;
      for (int d = nd - 1; d >= 0; --d) {
        const std::string ds = std::to_string(d);
        contiguous += " && (shape[" + ds + "] == 1 || (" + xi + "->shape[" + ds + "] == shape[" + ds + "] && " + xi +
                      "->strides[" + ds + "] == " + expect + "))";
        expect += " * shape[" + ds + "]";
      }
    }
    const std::string ot = c_type(out_dt);
    w.open("if (" + contiguous + ")");
    for (int i = 0; i < nin; ++i) {
      const std::string is = std::to_string(i);
      w.line(std::string("const ") + c_type(ttype(node.input(i)).dtype()) + "* __restrict p" + is + " = (const " +
             c_type(ttype(node.input(i)).dtype()) + "*)x" + is + "->data;");
    }
    w.line(ot + "* __restrict po = (" + ot + "*)out->data;");
    w.open("for (int64_t k = 0; k < n; ++k)");
    for (int i = 0; i < nin; ++i) {
      const std::string is = std::to_string(i);
      w.line(ct + " a" + is + " = (" + ct + ")p" + is + "[k];");
    }
    w.line("po[k] = " + store + ";");
    w.close();
    w.line("return 0;");
    w.close();
    // Strided / broadcast path: nested loops with byte strides (0 where broadcast).
    for (int i = 0; i < nin; ++i) {
      const std::string is = std::to_string(i);
      for (int d = 0; d < nd; ++d) {
        const std::string ds = std::to_string(d);
        const Dim& s = ttype(node.input(i)).shape()[static_cast<std::size_t>(d)];
        w.line("const int64_t s" + is + "_" + ds + " = " +
               ((s && *s == 1) ? std::string("0") : "x" + is + "->strides[" + ds + "]") + ";");
      }
    }
    for (int d = 0; d < nd; ++d) {
      const std::string ds = std::to_string(d);
      w.line("const int64_t so_" + ds + " = out->strides[" + ds + "];");
    }
    for (int d = 0; d < nd; ++d) {
      const std::string ds = std::to_string(d);
      w.open("for (int64_t i" + ds + " = 0; i" + ds + " < shape[" + ds + "]; ++i" + ds + ")");
    }
    auto offset = [&](const std::string& prefix) {
      std::string o;
      for (int d = 0; d < nd; ++d) o += " + i" + std::to_string(d) + " * " + prefix + std::to_string(d);
      return o;
    };
    for (int i = 0; i < nin; ++i) {
      const std::string is = std::to_string(i);
      const char* it = c_type(ttype(node.input(i)).dtype());
      w.line(ct + " a" + is + " = (" + ct + ")*(const " + it + "*)(x" + is + "->data" + offset("s" + is + "_") + ");");
    }
    w.line("*(" + ot + "*)(out->data" + offset("so_") + ") = " + store + ";");
    for (int d = 0; d < nd; ++d) w.close();
    w.line("return 0;");
    w.close();
    w.line("}  // namespace");
    w.line("");

    NodeCode nc;
    nc.name = label;
    const std::string out = "n" + std::to_string(t) + "_0";
    nc.init.line("TheanoArray " + out + ";");
    std::string call = "if (int e = " + std::string(dom == Domain::Int ? "theano_i::" : "theano_f::") + fn + "(ctx";
    for (int i = 0; i < nin; ++i) call += ", " + name_of(node.input(i));
    call += ", &" + out + ")) return e;";
    nc.compute.line(call);
    names[node.output(0).get()] = "&" + out;
    blocks.push_back(std::move(nc));
  }

  void dimshuffle(std::size_t t, const Apply& node, const tensor::DimShuffle& op) {
    const std::string fn = "node" + std::to_string(t);
    const std::string label = "node " + std::to_string(t) + " (" + node.op()->name() + ")";
    const int ind = op.input_ndim();
    const std::vector<int>& order = op.new_order();
    CodeWriter& w = functions;
    w.open("static int " + fn + "(TheanoContext* ctx, const TheanoArray* x0, TheanoArray* out)", fn);
    w.line("const TheanoArray* all[1] = {x0};");
    for (int a = 0; a < ind; ++a) {
      if (std::find(order.begin(), order.end(), a) != order.end()) continue;
      w.line("if (x0->shape[" + std::to_string(a) + "] != 1) return theano_fail(ctx, 1, " +
             c_string(label + ": dimension " + std::to_string(a) + " must have size 1 to be dropped") + ", all, 1);");
    }
    w.line("out->data = x0->data;");
    w.line("out->dtype = x0->dtype;");
    w.line("out->owner = x0->owner;");
    w.line("out->ndim = " + std::to_string(order.size()) + ";");
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::string is = std::to_string(i);
      if (order[i] == tensor::kNewAxis) {
        w.line("out->shape[" + is + "] = 1;");
        w.line("out->strides[" + is + "] = 0;");
      } else {
        const std::string as = std::to_string(order[i]);
        w.line("out->shape[" + is + "] = x0->shape[" + as + "];");
        w.line("out->strides[" + is + "] = x0->strides[" + as + "];");
      }
    }
    w.line("return 0;");
    w.close();
    w.line("");
    NodeCode nc;
    nc.name = label;
    const std::string out = "n" + std::to_string(t) + "_0";
    nc.init.line("TheanoArray " + out + ";");
    nc.compute.line("if (int e = " + fn + "(ctx, " + name_of(node.input(0)) + ", &" + out + ")) return e;");
    names[node.output(0).get()] = "&" + out;
    blocks.push_back(std::move(nc));
  }

  std::string run() {
    for (std::size_t i = 0; i < fg.inputs().size(); ++i)
      names[fg.inputs()[i].get()] = "&ctx->inputs[" + std::to_string(i) + "]";
    const std::vector<Apply*> order = fg.toposort();
    for (std::size_t t = 0; t < order.size(); ++t) {
      const Apply& node = *order[t];
      for (const Var& v : node.inputs()) check_type(node, v);
      for (int k = 0; k < node.nout(); ++k) check_type(node, node.output(k));
      if (const auto* e = dynamic_cast<const tensor::Elemwise*>(node.op().get())) {
        elemwise(t, node, *e);
      } else if (const auto* d = dynamic_cast<const tensor::DimShuffle*>(node.op().get())) {
        dimshuffle(t, node, *d);
      } else {
        refuse(node, "");
      }
    }
    CodeWriter src;
    src.raw(kPrelude);
    src.line("");
    src.line("// ---- per-node functions");
    src.append(functions);
    src.line("// ---- entry");
    src.open("extern \"C\" int theano_entry(TheanoContext* ctx)", "theano_entry");
    assemble(src, blocks);
    for (std::size_t o = 0; o < fg.outputs().size(); ++o) {
      const Var& v = fg.outputs()[o];
      src.line("ctx->outputs[" + std::to_string(o) + "] = *" + name_of(v) + ";");
    }
    src.line("return 0;");
    src.close();
    return src.str();
  }
};

// ---- host side ------------------------------------------------------------------

TheanoArray describe(const NDArray& a, std::int64_t owner) {
  TheanoArray d{};
  d.data = static_cast<char*>(const_cast<void*>(a.data()));
  d.ndim = a.ndim();
  d.dtype = static_cast<std::int64_t>(a.dtype());
  d.owner = owner;
  for (int i = 0; i < a.ndim(); ++i) {
    d.shape[i] = a.shape()[static_cast<std::size_t>(i)];
    d.strides[i] = a.strides()[static_cast<std::size_t>(i)];
  }
  return d;
}

struct CallState {
  std::vector<NDArray> table;  // inputs, constants, then allocations
};

int host_alloc(void* host, TheanoArray* a) noexcept {
  try {
    auto* st = static_cast<CallState*>(host);
    std::vector<std::int64_t> shape(a->shape, a->shape + a->ndim);
    NDArray arr = NDArray::empty(shape, static_cast<DType>(a->dtype));
    a->data = static_cast<char*>(arr.data());
    for (int i = 0; i < a->ndim; ++i) a->strides[i] = arr.strides()[static_cast<std::size_t>(i)];
    a->owner = static_cast<std::int64_t>(st->table.size());
    st->table.push_back(std::move(arr));
    return 0;
  } catch (...) {
    return 1;
  }
}

class CThunk final : public Thunk {
 public:
  CThunk(std::shared_ptr<const FunctionGraph> fg, LoadedModule module, std::vector<NDArray> constants)
      : fg_(std::move(fg)), module_(std::move(module)), constants_(std::move(constants)) {
    entry_ = module_.function<int (*)(TheanoContext*)>("theano_entry");
    for (const Var& v : fg_->inputs()) in_types_.push_back(&ttype(v));
    const std::int64_t base = static_cast<std::int64_t>(fg_->inputs().size());
    for (std::size_t j = 0; j < constants_.size(); ++j)
      const_desc_.push_back(describe(constants_[j], base + static_cast<std::int64_t>(j)));
  }

  void run(std::span<const NDArray> inputs, std::span<NDArray> outputs) const override {
    THEANO_USER_CHECK(inputs.size() == in_types_.size(), ValueError)
        << "the compiled function takes " << in_types_.size() << " inputs, got " << inputs.size();
    THEANO_USER_CHECK(outputs.size() == fg_->outputs().size(), ValueError)
        << "the compiled function has " << fg_->outputs().size() << " outputs, got room for " << outputs.size();
    CallState st;
    st.table.reserve(inputs.size() + constants_.size() + 8);
    std::vector<TheanoArray> in_desc(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const TensorType& t = *in_types_[i];
      THEANO_USER_CHECK(inputs[i].defined() && inputs[i].dtype() == t.dtype() && inputs[i].ndim() == t.ndim(),
                        TypeError)
          << "input " << i << " (" << fg_->inputs()[i].str() << ") must be a " << t.str() << " value";
      in_desc[i] = describe(inputs[i], static_cast<std::int64_t>(i));
      st.table.push_back(inputs[i]);
    }
    for (const NDArray& c : constants_) st.table.push_back(c);
    std::vector<TheanoArray> out_desc(outputs.size());
    char error[2048];
    error[0] = 0;
    TheanoContext ctx{in_desc.data(), out_desc.data(), const_desc_.data(), &st, &host_alloc, error, sizeof error};
    const int rc = entry_(&ctx);
    if (rc != 0) {
      std::string msg(error);
      if (rc == 1) throw ShapeError(msg);
      if (rc == 2) throw ValueError(msg);
      throw InternalError("generated code returned error code " + std::to_string(rc) + ": " + msg);
    }
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const TheanoArray& d = out_desc[o];
      THEANO_INTERNAL_CHECK(d.owner >= 0 && static_cast<std::size_t>(d.owner) < st.table.size())
          << "generated code returned output " << o << " with no owner";
      const NDArray& base = st.table[static_cast<std::size_t>(d.owner)];
      std::vector<std::int64_t> shape(d.shape, d.shape + d.ndim), strides(d.strides, d.strides + d.ndim);
      if (d.data == static_cast<const char*>(base.data()) && shape == base.shape() && strides == base.strides() &&
          static_cast<DType>(d.dtype) == base.dtype())
        outputs[o] = base;
      else
        outputs[o] = NDArray::from_strided(base.owner(), d.data, static_cast<DType>(d.dtype), shape, strides);
    }
  }

 private:
  std::shared_ptr<const FunctionGraph> fg_;
  LoadedModule module_;
  std::vector<NDArray> constants_;
  std::vector<TheanoArray> const_desc_;
  std::vector<const TensorType*> in_types_;
  int (*entry_)(TheanoContext*) = nullptr;
};

}  // namespace

CLinker::CLinker(CompileOptions options, std::string name) : options_(std::move(options)), name_(std::move(name)) {
  options_.cxxflags.push_back("-fwrapv");
}

std::string_view CLinker::prelude() { return kPrelude; }

std::string CLinker::generate_source(const FunctionGraph& fgraph) {
  Generator g{fgraph, {}, {}, {}, {}};
  return g.run();
}

std::unique_ptr<Thunk> CLinker::make_thunk(std::shared_ptr<const FunctionGraph> fgraph, const LinkOptions&) const {
  THEANO_INTERNAL_CHECK(fgraph != nullptr) << "CLinker::make_thunk: null FunctionGraph";
  Generator g{*fgraph, {}, {}, {}, {}};
  const std::string source = g.run();
  std::vector<NDArray> constants;
  for (const Constant* c : g.constants) constants.push_back(c->data());
  const CompiledObject obj = ClangCompiler(options_).compile(source, "theano_graph.cpp");
  LoadedModule module = JitLoader::instance().load(obj.bytes, "cpp");
  return std::make_unique<CThunk>(std::move(fgraph), std::move(module), std::move(constants));
}

void register_linkers() {
  static std::once_flag once;
  std::call_once(once, [] {
    register_linker("cpp", [] { return std::make_unique<CLinker>(CompileOptions{}, "cpp"); });
    register_linker("c", [] { return std::make_unique<CLinker>(CompileOptions{}, "c"); });
  });
}

namespace {
// Static registrar: runs when this object file is linked in (see c_linker.h).
[[maybe_unused]] const bool registered = (register_linkers(), true);
}  // namespace

}  // namespace theano::codegen

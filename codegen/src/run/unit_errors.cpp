/// \file
/// The error reports and checked allocations of generated code, compiled once
/// here instead of in every unit (docs/jit-and-cache.md, "Host kernels"). The
/// prelude's theano_fail* and theano_alloc_checked, and a scan's error
/// helpers, forward to these through TheanoContext::kernels; each writes its
/// message into the context's error buffer (at most error_size - 1
/// characters and a 0) and returns the error code the node returns.
///
/// Why: in a one-addition unit their -O2 compile was most of Clang's time
/// (58 ms -> 15-19 ms once they moved here).
#include "unit_errors.h"

namespace theano::codegen::detail {
namespace {

void theano_put(TheanoContext* c, int64_t* p, const char* s) {
  while (*s && *p + 1 < c->error_size) c->error[(*p)++] = *s++;
  c->error[*p] = 0;
}
void theano_put_int(TheanoContext* c, int64_t* p, int64_t v) {
  char rev[24];
  char s[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    rev[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u != 0);
  int k = 0;
  if (v < 0) s[k++] = '-';
  while (n > 0) s[k++] = rev[--n];
  s[k] = 0;
  theano_put(c, p, s);
}
void theano_put_shape(TheanoContext* c, int64_t* p, const TheanoArray* a) {
  theano_put(c, p, "(");
  for (int64_t d = 0; d < a->ndim; ++d) {
    if (d) theano_put(c, p, ", ");
    theano_put_int(c, p, a->shape[d]);
  }
  if (a->ndim == 1) theano_put(c, p, ",");
  theano_put(c, p, ")");
}
// "; input shapes: (2,), (3,)": the tail of every theano_fail* message.
void theano_put_input_shapes(TheanoContext* c, int64_t* p, const TheanoArray* const* in, int n) {
  theano_put(c, p, "; input shapes: ");
  for (int i = 0; i < n; ++i) {
    if (i) theano_put(c, p, ", ");
    theano_put_shape(c, p, in[i]);
  }
}
// A failed allocation of a valid size (MemoryError on the host), worded as
// out_of_memory_message (ndarray.h): "<msg>out of memory: cannot allocate
// <bytes> bytes for an array of shape (..); input shapes: ...".
int theano_fail_alloc(TheanoContext* c, const char* msg, int64_t bytes, const TheanoArray* a,
                      const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return THEANO_ERR_MEMORY;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "out of memory: cannot allocate ");
  theano_put_int(c, &p, bytes);
  theano_put(c, &p, " bytes for an array of shape ");
  theano_put_shape(c, &p, a);
  theano_put_input_shapes(c, &p, in, n);
  return THEANO_ERR_MEMORY;
}

}  // namespace

// Writes `msg` and the input shapes into the error buffer; returns `code`.
int theano_fail(TheanoContext* c, int code, const char* msg, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// A failed theano_broadcast_rule, as Elemwise::perform words it:
// "<msg>at dimension D, input I has size N: <rule text>" ("input O has size A
// but input I has size B" for a mismatch).
int theano_fail_broadcast(TheanoContext* c, int rule, const char* msg, int64_t input, int64_t dim, int64_t other,
                          const TheanoArray* const* in, int n) {
  const int code = theano_rule_error_kind(rule);
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, "at dimension ");
  theano_put_int(c, &p, dim);
  if (rule == THEANO_RULE_BCAST_MISMATCH) {
    theano_put(c, &p, ", input ");
    theano_put_int(c, &p, other);
    theano_put(c, &p, " has size ");
    theano_put_int(c, &p, in[other]->shape[dim]);
    theano_put(c, &p, " but input ");
  } else {
    theano_put(c, &p, ", input ");
  }
  theano_put_int(c, &p, input);
  theano_put(c, &p, " has size ");
  theano_put_int(c, &p, in[input]->shape[dim]);
  theano_put(c, &p, ": ");
  theano_put(c, &p, theano_rule_text(rule));
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// theano_fail with `k` (1 to 3) run-time values in the message:
// "<msg><a><mid><b><mid2><v><tail>", the texts after the last value left out.
int theano_fail_ints(TheanoContext* c, int code, int k, const char* msg, int64_t a, const char* mid, int64_t b,
                     const char* mid2, int64_t v, const char* tail, const TheanoArray* const* in, int n) {
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, a);
  if (k > 1) {
    theano_put(c, &p, mid);
    theano_put_int(c, &p, b);
  }
  if (k > 2) {
    theano_put(c, &p, mid2);
    theano_put_int(c, &p, v);
  }
  theano_put(c, &p, tail);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// A failed shape rule (shape_rules.h): "<msg><rule text>[<value>]" with the
// rule's error kind, as throw_shape_rule words it on the host.
int theano_fail_rule(TheanoContext* c, int rule, const char* msg, int64_t value, const TheanoArray* const* in, int n) {
  const int code = theano_rule_error_kind(rule);
  if (c->error_size <= 0) return code;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put(c, &p, theano_rule_text(rule));
  if (theano_rule_has_value(rule)) theano_put_int(c, &p, value);
  theano_put_input_shapes(c, &p, in, n);
  return code;
}
// Allocates output `a` (ndim, dtype and shape set) through the host once its
// size passed the shared rule (shape_rules.h, as NDArray::empty checks it): a
// bad size fails with `msg`, the rule's text and the offending value.
int theano_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize, const char* msg,
                         const TheanoArray* const* in, int n) {
  int64_t size = 0, bad = 0;
  const int rule = theano_shape_size(a->shape, a->ndim, itemsize, &size, &bad);
  if (rule != THEANO_RULE_OK) return theano_fail_rule(c, rule, msg, bad, in, n);
  const int e = c->alloc(c->host, a, slot);
  if (e == THEANO_ERR_HOST) return e;  // the host kept the error (a slot the plan does not have)
  if (e != 0) return theano_fail_alloc(c, msg, size * itemsize, a, in, n);
  return 0;
}
// theano_alloc_checked for a GPU output: the same size rule, GPU memory.
int theano_gpu_alloc_checked(TheanoContext* c, TheanoArray* a, int64_t slot, int64_t itemsize, const char* msg,
                             const TheanoArray* const* in, int n) {
  int64_t size = 0, bad = 0;
  const int rule = theano_shape_size(a->shape, a->ndim, itemsize, &size, &bad);
  if (rule != THEANO_RULE_OK) return theano_fail_rule(c, rule, msg, bad, in, n);
  return c->gpu_alloc(c->host, a, slot);
}
// "<msg><t>: output <k> has shape <got><middle><want><tail>"
int theano_scan_fail_shape(TheanoContext* c, const char* msg, int64_t t, int64_t k, const TheanoArray* got,
                           const char* middle, const TheanoArray* want, const char* tail) {
  if (c->error_size <= 0) return THEANO_ERR_VALUE;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, t);
  theano_put(c, &p, ": output ");
  theano_put_int(c, &p, k);
  theano_put(c, &p, " has shape ");
  theano_put_shape(c, &p, got);
  theano_put(c, &p, middle);
  theano_put_shape(c, &p, want);
  theano_put(c, &p, tail);
  return THEANO_ERR_VALUE;
}
// "<msg><rows> rows, but <steps> steps with taps [<lo>..<hi>] read <need>"
int theano_scan_fail_rows(TheanoContext* c, const char* msg, int64_t rows, int64_t steps, int64_t lo, int64_t hi,
                          int64_t need) {
  if (c->error_size <= 0) return THEANO_ERR_VALUE;
  int64_t p = 0;
  theano_put(c, &p, msg);
  theano_put_int(c, &p, rows);
  theano_put(c, &p, " rows, but ");
  theano_put_int(c, &p, steps);
  theano_put(c, &p, " steps with taps [");
  theano_put_int(c, &p, lo);
  theano_put(c, &p, "..");
  theano_put_int(c, &p, hi);
  theano_put(c, &p, "] read ");
  theano_put_int(c, &p, need);
  return THEANO_ERR_VALUE;
}
// An error inside step t: the step's message, then " (<what> step <t>)".
int theano_scan_step_error(TheanoContext* c, int e, const char* what, int64_t t) {
  if (e == THEANO_ERR_HOST || c->error_size <= 0) return e;
  int64_t p = 0;
  while (p + 1 < c->error_size && c->error[p]) ++p;
  theano_put(c, &p, " (");
  theano_put(c, &p, what);
  theano_put(c, &p, " step ");
  theano_put_int(c, &p, t);
  theano_put(c, &p, ")");
  return e;
}

}  // namespace theano::codegen::detail

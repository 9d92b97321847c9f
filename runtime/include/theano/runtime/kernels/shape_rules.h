/* \file
 * Checked size arithmetic and the run-time shape rules of the shape-making ops,
 * written ONCE, as plain C, for two readers: the host (NDArray, every op's
 * `perform`, the thunk's allocator) includes this header, and the code
 * generator embeds this very file's text in the prelude of every generated
 * translation unit (codegen/CMakeLists.txt), so an op's lowering calls the same
 * function its perform does. Two copies of a shape check once disagreed and
 * made a view larger than its buffer; with one text they cannot drift.
 *
 * Why C and builtins: the prelude includes no standard header (it must compile
 * fast and the same everywhere), and __builtin_*_overflow is exact in both
 * compilers, free of signed-overflow UB and cheap.
 *
 * Every rule returns THEANO_RULE_OK (0) or one THEANO_RULE_* code and, through
 * `*bad`, the value to report (an entry's index or value; see each rule).
 * theano_rule_text() is the message and theano_rule_error_kind() the error
 * kind (ShapeError, IndexError or ValueError) for both readers.
 */
#ifndef THEANO_RUNTIME_SHAPE_RULES_H
#define THEANO_RUNTIME_SHAPE_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* The most dimensions an array may have anywhere (TensorType, NDArray, DLPack,
 * .npy, the thunk ABI's fixed shape/strides arrays). */
#define THEANO_MAX_NDIM 16
#define THEANO_RULE_STR_(x) #x
#define THEANO_RULE_STR(x) THEANO_RULE_STR_(x)

#define THEANO_RULE_OK 0
#define THEANO_RULE_NEGATIVE 1      /* *bad: the negative size */
#define THEANO_RULE_OVERFLOW 2      /* *bad: the entry at which the product or sum left int64 */
#define THEANO_RULE_TWO_UNKNOWN 3   /* reshape: a second -1; *bad: its entry */
#define THEANO_RULE_MISMATCH 4      /* reshape: the sizes multiply to *bad, not the array's size;
                                       split: the sizes sum to *bad, not the axis' length */
#define THEANO_RULE_NOT_DIVISIBLE 5 /* reshape with -1: the other entries multiply to *bad */
#define THEANO_RULE_TOO_MANY_DIMS 6 /* *bad: the number of dimensions asked for */
#define THEANO_RULE_INVALID 7       /* reshape: a size below -1; *bad: that size */
#define THEANO_RULE_ZERO_STEP 8     /* arange: step 0 */
#define THEANO_RULE_NOT_FINITE 9    /* arange: an infinite or NaN length */
#define THEANO_RULE_TOO_LONG 10     /* arange: more elements than int64 holds */
#define THEANO_RULE_STEP_RANGE 11   /* slice: step INT64_MIN (its negation does not exist) */
#define THEANO_RULE_INDEX 12        /* index: out of bounds; *bad: the index */
#define THEANO_RULE_BCAST_DECLARED 13 /* elemwise: an input whose type says size 1 has a size other than 1 */
#define THEANO_RULE_BCAST_MISMATCH 14 /* elemwise: two sizes differ where neither type says size 1 */
#define THEANO_RULE_BCAST_TO 15     /* broadcast_to: *bad: the value's dimension that does not fit */
/* Compressed sparse components (theano_csm_rule; sparse_matrix.h). */
#define THEANO_RULE_CSM_INDPTR_LEN 16   /* *bad: indptr's length (must be major + 1) */
#define THEANO_RULE_CSM_INDPTR_START 17 /* *bad: indptr[0] (must be 0) */
#define THEANO_RULE_CSM_INDPTR_ORDER 18 /* *bad: the entry of indptr below the one before it */
#define THEANO_RULE_CSM_NNZ 19          /* *bad: indptr's last entry (must be data's length) */
#define THEANO_RULE_CSM_LENGTHS 20      /* *bad: indices' length (must be data's length) */
#define THEANO_RULE_CSM_INDEX 21        /* *bad: a stored index outside [0, minor) */

/* a*b and a+b into *r; THEANO_RULE_OVERFLOW when the exact result is not an int64. */
/* Generated host code calls the larger rules out of line: one copy per unit,
 * optimized once, instead of one inlined copy in every node function (a
 * tenth of a big unit's compile time; docs/jit-and-cache.md). The host
 * prelude defines it; elsewhere (perform, NVRTC units) it is empty. */
#ifndef THEANO_RULE_OUTLINED
#define THEANO_RULE_OUTLINED
#endif

static inline int theano_checked_mul(int64_t a, int64_t b, int64_t* r) {
  return __builtin_mul_overflow(a, b, r) ? THEANO_RULE_OVERFLOW : THEANO_RULE_OK;
}
static inline int theano_checked_add(int64_t a, int64_t b, int64_t* r) {
  return __builtin_add_overflow(a, b, r) ? THEANO_RULE_OVERFLOW : THEANO_RULE_OK;
}

/* The element count of `shape` (nd entries, each >= 0), checked so that the
 * array's byte size and every C-contiguous byte stride fit in int64: the
 * product of the non-zero entries times `itemsize` must fit (as NumPy's
 * "array is too big"), also when another entry is 0. */
static inline THEANO_RULE_OUTLINED int theano_shape_size(const int64_t* shape, int64_t nd, int64_t itemsize, int64_t* size,
                                    int64_t* bad) {
  int64_t nz = itemsize > 0 ? itemsize : 1, n = 1;
  int zero = 0;
  if (nd > THEANO_MAX_NDIM) {
    *bad = nd;
    return THEANO_RULE_TOO_MANY_DIMS;
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (shape[d] < 0) {
      *bad = shape[d];
      return THEANO_RULE_NEGATIVE;
    }
    if (shape[d] == 0) {
      zero = 1;
      continue;
    }
    if (theano_checked_mul(nz, shape[d], &nz) != THEANO_RULE_OK ||
        theano_checked_mul(n, shape[d], &n) != THEANO_RULE_OK) {
      *bad = d;
      return THEANO_RULE_OVERFLOW;
    }
  }
  *size = zero ? 0 : n;
  return THEANO_RULE_OK;
}

/* numpy.reshape's rule: `req` (nd entries, each >= -1, at most one -1) for an
 * array of `size` elements of `itemsize` bytes; writes the resolved shape to
 * `out` (may be `req`). */
static inline THEANO_RULE_OUTLINED int theano_reshape_rule(int64_t size, const int64_t* req, int64_t nd, int64_t itemsize, int64_t* out,
                                      int64_t* bad) {
  int64_t unknown = -1, known = 1, nz = itemsize > 0 ? itemsize : 1, d;
  int zero = 0;
  if (nd > THEANO_MAX_NDIM) {
    *bad = nd;
    return THEANO_RULE_TOO_MANY_DIMS;
  }
  for (d = 0; d < nd; ++d) {
    const int64_t v = req[d];
    if (v < -1) {
      *bad = v;
      return THEANO_RULE_INVALID;
    }
    if (v == -1) {
      if (unknown >= 0) {
        *bad = d;
        return THEANO_RULE_TWO_UNKNOWN;
      }
      unknown = d;
      continue;
    }
    if (v == 0) {
      zero = 1;
      continue;
    }
    if (theano_checked_mul(known, v, &known) != THEANO_RULE_OK || theano_checked_mul(nz, v, &nz) != THEANO_RULE_OK) {
      *bad = d;
      return THEANO_RULE_OVERFLOW;
    }
  }
  if (zero) known = 0;
  for (d = 0; d < nd; ++d) out[d] = req[d];
  if (unknown >= 0) {
    if (known == 0 || size % known != 0) {
      *bad = known;
      return THEANO_RULE_NOT_DIVISIBLE;
    }
    out[unknown] = size / known;
  } else if (known != size) {
    *bad = known;
    return THEANO_RULE_MISMATCH;
  }
  return THEANO_RULE_OK;
}

/* Split's rule: `n` sizes, each >= 0, summing exactly to `length`. */
static inline int theano_split_rule(int64_t length, const int64_t* sizes, int64_t n, int64_t* bad) {
  int64_t total = 0, i;
  for (i = 0; i < n; ++i)
    if (sizes[i] < 0) {
      *bad = sizes[i];
      return THEANO_RULE_NEGATIVE;
    }
  for (i = 0; i < n; ++i)
    if (theano_checked_add(total, sizes[i], &total) != THEANO_RULE_OK) {
      *bad = i;
      return THEANO_RULE_OVERFLOW;
    }
  if (total != length) {
    *bad = total;
    return THEANO_RULE_MISMATCH;
  }
  return THEANO_RULE_OK;
}

/* Join's length along its axis: the sum of `n` lengths (each >= 0). */
static inline int theano_join_length(const int64_t* lengths, int64_t n, int64_t* total, int64_t* bad) {
  int64_t t = 0, i;
  for (i = 0; i < n; ++i)
    if (theano_checked_add(t, lengths[i], &t) != THEANO_RULE_OK) {
      *bad = i;
      return THEANO_RULE_OVERFLOW;
    }
  *total = t;
  return THEANO_RULE_OK;
}

/* numpy's element count of arange(a, b, s) over integers: ceil((b - a) / s) in
 * unsigned arithmetic (b - a and |s| always fit in uint64, so extreme bounds
 * such as INT64_MIN with step -1 neither overflow nor trap). */
static inline int theano_arange_length_int(int64_t a, int64_t b, int64_t s, int64_t* n) {
  uint64_t diff, step, len;
  if (s == 0) return THEANO_RULE_ZERO_STEP;
  if ((s > 0 && b <= a) || (s < 0 && b >= a)) {
    *n = 0;
    return THEANO_RULE_OK;
  }
  diff = s > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
  step = s > 0 ? (uint64_t)s : (uint64_t)0 - (uint64_t)s;
  len = diff / step + (diff % step != 0 ? 1 : 0);
  if (len > (uint64_t)9223372036854775807LL) return THEANO_RULE_TOO_LONG;
  *n = (int64_t)len;
  return THEANO_RULE_OK;
}

/* The same over reals: ceil((b - a) / s), finite and below 2^63 (finiteness
 * read from the bits, so it holds under -ffast-math too). */
static inline int theano_arange_length_real(double a, double b, double s, int64_t* n) {
  double len;
  uint64_t bits;
  if (s == 0) return THEANO_RULE_ZERO_STEP;
  len = __builtin_ceil((b - a) / s);
  __builtin_memcpy(&bits, &len, sizeof bits);
  if (((bits >> 52) & 0x7ff) == 0x7ff) return THEANO_RULE_NOT_FINITE;
  if (len >= 9223372036854775807.0) return THEANO_RULE_TOO_LONG;
  *n = len > 0 ? (int64_t)len : 0;
  return THEANO_RULE_OK;
}

/* Python's slice on an axis of length n (CPython's PySlice_AdjustIndices):
 * start and stop (absent when has_* is 0) clamp into range, step must be
 * non-zero and not INT64_MIN. Writes the first index and the length (the
 * view's stride: theano_slice_stride). */
static inline int theano_slice_rule(int64_t n, int has_start, int64_t start, int has_stop, int64_t stop,
                                    int64_t step, int64_t* begin, int64_t* len) {
  int64_t b, e;
  if (step == 0) return THEANO_RULE_ZERO_STEP;
  if (step == -9223372036854775807LL - 1) return THEANO_RULE_STEP_RANGE;
  if (step > 0) {
    b = has_start ? start : 0;
    e = has_stop ? stop : n;
    b = b < 0 ? (b + n < 0 ? 0 : b + n) : (b > n ? n : b);
    e = e < 0 ? (e + n < 0 ? 0 : e + n) : (e > n ? n : e);
  } else {
    b = has_start ? start : n - 1;
    e = has_stop ? stop : -1;
    if (has_start) b = b < 0 ? (b + n < -1 ? -1 : b + n) : (b > n - 1 ? n - 1 : b);
    if (has_stop) e = e < 0 ? (e + n < -1 ? -1 : e + n) : (e > n - 1 ? n - 1 : e);
  }
  *len = 0;
  if (step > 0 && e > b) *len = (e - b - 1) / step + 1;
  if (step < 0 && b > e) *len = (b - e - 1) / (-step) + 1;
  *begin = b;
  return THEANO_RULE_OK;
}

/* The stride of a slice's axis: stride * step, or the axis' stride when that
 * product leaves int64 (possible only for a huge step, which leaves at most
 * one element, so no second element is ever reached through it). */
static inline int64_t theano_slice_stride(int64_t stride, int64_t step) {
  int64_t st;
  return theano_checked_mul(stride, step, &st) == THEANO_RULE_OK ? st : stride;
}

/* The rows [*lo, *hi) of an n x m eye whose diagonal element (i, i + k) lies
 * in [0, m), computed without overflow for any k (eye(2^40, 0) visits no row,
 * and k near the int64 limits does not overflow i + k). */
static inline void theano_eye_rows(int64_t n, int64_t m, int64_t k, int64_t* lo, int64_t* hi) {
  *lo = k >= 0 ? 0 : (k < -n ? n : -k);
  *hi = k >= m ? 0 : k >= 0 ? (n < m - k ? n : m - k) : (n + k <= m ? n : m - k);
}

/* An integer index into an axis of length n: -n <= i < n, negative counting
 * from the end. Writes the index in [0, n). */
static inline int theano_index_rule(int64_t n, int64_t i, int64_t* at) {
  if (i < -n || i >= n) return THEANO_RULE_INDEX;
  *at = i < 0 ? i + n : i;
  return THEANO_RULE_OK;
}

/* Whether an array of nd dimensions (shape, byte strides) is C-contiguous for
 * `item`-byte elements, size-1 dimensions ignored: generated code's
 * theano_c_contiguous (the prelude) and the host's scratch copies and GPU
 * transfers (codegen/src/run/scratch_copies.cpp, host_callbacks.cpp). */
static inline int theano_c_contiguous_rule(const int64_t* shape, const int64_t* strides, int64_t nd, int64_t item) {
  int64_t expect = item, d;
  for (d = nd - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    if (strides[d] != expect) return 0;
    expect *= shape[d];
  }
  return 1;
}

/* Elementwise broadcasting, Theano's rule: a dimension broadcasts only where
 * the input's type says size 1. `shapes[i]` is input i's shape (nd entries),
 * `declared_one[i * nd + d]` whether its type says size 1 in dimension d.
 * Writes the output shape to `out` (1 where every input is declared 1). On
 * failure, `*input` and `*dim` name the offending input and dimension and,
 * for THEANO_RULE_BCAST_MISMATCH, `*other` the earlier input whose size it
 * differs from. Dimensions are checked in order, inputs in order within one.
 * Both readers word the error "<node>: at dimension D, input I has size N: "
 * (or "..., input O has size A but input I has size B: ") followed by the
 * rule text. */
static inline THEANO_RULE_OUTLINED int theano_broadcast_rule(int64_t nin, int64_t nd, const int64_t* const* shapes,
                                        const unsigned char* declared_one, int64_t* out, int64_t* input,
                                        int64_t* dim, int64_t* other) {
  int64_t d, i;
  for (d = 0; d < nd; ++d) {
    int64_t decided = -1;
    out[d] = 1;
    for (i = 0; i < nin; ++i) {
      const int64_t n = shapes[i][d];
      if (declared_one[i * nd + d]) {
        if (n == 1) continue;
        *input = i;
        *dim = d;
        return THEANO_RULE_BCAST_DECLARED;
      }
      if (decided < 0) {
        out[d] = n;
        decided = i;
      } else if (n != out[d]) {
        *input = i;
        *dim = d;
        *other = decided;
        return THEANO_RULE_BCAST_MISMATCH;
      }
    }
  }
  return THEANO_RULE_OK;
}

/* A value of shape `vshape` (vnd dimensions) broadcast to `shape` (nd
 * dimensions), right-aligned: the value's dimension j must have the target's
 * size, or be 1 where `declared_one` is null (numpy's rule: NDArray's
 * broadcast_to, random parameters) or says the value's type has size 1 in
 * dimension j (Theano's rule: Alloc's value, IncSubtensor's value). *bad: the
 * value's dimension that does not fit (vnd when it has more dimensions than
 * the target). */
static inline THEANO_RULE_OUTLINED int theano_broadcast_to_rule(int64_t vnd, const int64_t* vshape, const unsigned char* declared_one,
                                           int64_t nd, const int64_t* shape, int64_t* bad) {
  int64_t j;
  if (vnd > nd) {
    *bad = vnd;
    return THEANO_RULE_BCAST_TO;
  }
  for (j = 0; j < vnd; ++j) {
    if (vshape[j] == shape[nd - vnd + j]) continue;
    if (vshape[j] == 1 && (!declared_one || declared_one[j])) continue;
    *bad = j;
    return THEANO_RULE_BCAST_TO;
  }
  return THEANO_RULE_OK;
}

/* The components of a compressed sparse matrix (CSR: `major` rows of `minor`
 * columns; CSC: `major` columns of `minor` rows), SciPy's invariants: indptr
 * has major + 1 entries, starts at 0, never decreases and ends at nnz, the
 * length of data and of indices; every index lies in [0, minor). Indices need
 * not be sorted within a row and may repeat (repeats add up, as in SciPy).
 * Checked in that order; *bad is the value to report (see each code). */
static inline int theano_csm_rule(int64_t major, int64_t minor, const int64_t* indptr, int64_t n_indptr,
                                  const int64_t* indices, int64_t n_indices, int64_t n_data, int64_t* bad) {
  int64_t i, major1;
  if (major < 0 || minor < 0) {
    *bad = major < 0 ? major : minor;
    return THEANO_RULE_NEGATIVE;
  }
  if (theano_checked_add(major, 1, &major1) != THEANO_RULE_OK || n_indptr != major1) {
    *bad = n_indptr;
    return THEANO_RULE_CSM_INDPTR_LEN;
  }
  if (indptr[0] != 0) {
    *bad = indptr[0];
    return THEANO_RULE_CSM_INDPTR_START;
  }
  for (i = 1; i < n_indptr; ++i)
    if (indptr[i] < indptr[i - 1]) {
      *bad = i;
      return THEANO_RULE_CSM_INDPTR_ORDER;
    }
  if (indptr[major] != n_data) {
    *bad = indptr[major];
    return THEANO_RULE_CSM_NNZ;
  }
  if (n_indices != n_data) {
    *bad = n_indices;
    return THEANO_RULE_CSM_LENGTHS;
  }
  for (i = 0; i < n_indices; ++i)
    if (indices[i] < 0 || indices[i] >= minor) {
      *bad = indices[i];
      return THEANO_RULE_CSM_INDEX;
    }
  return THEANO_RULE_OK;
}

/* The message of a rule result, completed by the reported value where the
 * text ends in a space or '=' (see theano_rule_has_value). */
static inline const char* theano_rule_text(int rule) {
  switch (rule) {
    case THEANO_RULE_NEGATIVE: return "negative dimensions are not allowed, got ";
    case THEANO_RULE_OVERFLOW: return "the sizes' product or sum does not fit in int64 (array too big), at entry ";
    case THEANO_RULE_TWO_UNKNOWN: return "can only specify one unknown dimension (-1); another -1 at entry ";
    case THEANO_RULE_MISMATCH: return "the requested sizes come to ";
    case THEANO_RULE_NOT_DIVISIBLE: return "the entries other than -1 multiply to ";
    case THEANO_RULE_TOO_MANY_DIMS: return "more than " THEANO_RULE_STR(THEANO_MAX_NDIM) " dimensions requested (the limit), got ";
    case THEANO_RULE_INVALID: return "invalid size ";
    case THEANO_RULE_ZERO_STEP: return "step must not be zero";
    case THEANO_RULE_NOT_FINITE: return "the range has no finite length";
    case THEANO_RULE_TOO_LONG: return "the range has more elements than int64 holds";
    case THEANO_RULE_STEP_RANGE: return "slice step -9223372036854775808 is out of range";
    case THEANO_RULE_INDEX: return "index out of bounds: ";
    case THEANO_RULE_BCAST_DECLARED: return "a dimension declared broadcastable (size 1 in its type) must have size 1";
    case THEANO_RULE_BCAST_MISMATCH:
      return "only dimensions whose type says size 1 broadcast (use specify_shape or a 1-sized type to broadcast)";
    case THEANO_RULE_BCAST_TO: return "cannot be broadcast to the target shape at its dimension ";
    case THEANO_RULE_CSM_INDPTR_LEN: return "indptr must have one entry more than the compressed dimension, its length is ";
    case THEANO_RULE_CSM_INDPTR_START: return "indptr must start at 0, it starts at ";
    case THEANO_RULE_CSM_INDPTR_ORDER: return "indptr must not decrease, it does at entry ";
    case THEANO_RULE_CSM_NNZ: return "indptr's last entry must be the number of stored values (data's length), it is ";
    case THEANO_RULE_CSM_LENGTHS: return "indices must have as many entries as data, it has ";
    case THEANO_RULE_CSM_INDEX: return "a stored index lies outside the matrix: ";
    default: return "invalid shape";
  }
}
/* Whether the rule's message takes the reported value. */
static inline int theano_rule_has_value(int rule) {
  return (rule >= THEANO_RULE_NEGATIVE && rule <= THEANO_RULE_INVALID) || rule == THEANO_RULE_INDEX ||
         rule == THEANO_RULE_BCAST_TO || (rule >= THEANO_RULE_CSM_INDPTR_LEN && rule <= THEANO_RULE_CSM_INDEX);
}
/* The error a failed rule raises: THEANO_RULE_SHAPE_ERROR (ShapeError) for
 * sizes that do not fit the array, THEANO_RULE_INDEX_ERROR (IndexError) for an
 * index out of bounds, else THEANO_RULE_VALUE_ERROR (ValueError). The values
 * are the thunk ABI's error codes (thunk_abi.h checks that they agree). */
#define THEANO_RULE_SHAPE_ERROR 1
#define THEANO_RULE_VALUE_ERROR 2
#define THEANO_RULE_INDEX_ERROR 3
static inline int theano_rule_error_kind(int rule) {
  if (rule == THEANO_RULE_MISMATCH || rule == THEANO_RULE_NOT_DIVISIBLE || rule == THEANO_RULE_BCAST_DECLARED ||
      rule == THEANO_RULE_BCAST_MISMATCH || rule == THEANO_RULE_BCAST_TO)
    return THEANO_RULE_SHAPE_ERROR;
  if (rule == THEANO_RULE_INDEX) return THEANO_RULE_INDEX_ERROR;
  return THEANO_RULE_VALUE_ERROR;
}

/* Scan: the taps of a sequence, lo..hi, or of a recurrent output, lo..0
 * (its buffer keeps K = -lo earlier rows before the row a step writes), span
 * *span = hi - lo rows beyond a step's first; THEANO_RULE_OVERFLOW when the
 * span + 1 rows one step touches are more than int64 holds (the row offsets
 * t + tap - lo and K + t would wrap). scan() refuses such taps, perform and
 * the generated loop check again. */
static inline int theano_scan_span_rule(int64_t lo, int64_t hi, int64_t* span) {
  int64_t rows = 0;
  if (__builtin_sub_overflow(hi, lo, span) || *span < 0 || theano_checked_add(*span, 1, &rows) != THEANO_RULE_OK)
    return THEANO_RULE_OVERFLOW;
  return THEANO_RULE_OK;
}

/* Scan: a sequence of `rows` rows read by `steps` steps whose taps span
 * `span` (max tap - min tap) needs *need = steps + span rows; a ValueError
 * (THEANO_RULE_VALUE_ERROR) when it has fewer or the sum overflows. */
static inline int theano_scan_rows_rule(int64_t rows, int64_t steps, int64_t span, int64_t* need) {
  if (theano_checked_add(steps, span, need) != THEANO_RULE_OK) return THEANO_RULE_VALUE_ERROR;
  return rows >= *need ? THEANO_RULE_OK : THEANO_RULE_VALUE_ERROR;
}

#if defined(__cplusplus) && !defined(THEANO_GENERATED_CODE)
#include <cstdint>
#include <string>
namespace theano {
/// Throws the error of a failed rule: ShapeError or ValueError with "<context>:
/// <rule text><value>" (context names the op, the variable and the shapes).
[[noreturn]] void throw_shape_rule(int rule, const std::string& context, std::int64_t value);
}  // namespace theano
#endif

#endif /* THEANO_RUNTIME_SHAPE_RULES_H */

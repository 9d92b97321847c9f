/* \file
 * The shape rules of RowStreamGemv (theano/tensor/blas.h), with their
 * messages, written ONCE for perform (compiler/src/tensor/blas/
 * row_stream_gemv.cpp) and the lowering (codegen/src/emit/lower/
 * row_stream_gemv.cpp: embedded in the units that use it). X has m rows and
 * n columns; w and y have n entries; each vector of fn has m, or 1 when
 * its type is broadcastable. All are ShapeErrors.
 *
 * Messages (after "RowStreamGemv: "), each assembled from the pieces below
 * in order with the run-time values between them:
 *   w: X has N columns but w has length L
 *   y: y has length L but dot(X^T, fn(...)) has length N
 *   e: input I (a vector of fn) has length L but X has M rows
 */
#ifndef THEANO_RUNTIME_ROW_STREAM_GEMV_RULES_H
#define THEANO_RUNTIME_ROW_STREAM_GEMV_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* w's and y's length against X's n columns. */
static inline int theano_rsg_length_ok(int64_t n, int64_t length) { return length == n; }
/* A vector of fn against X's m rows: m entries, or 1 when its type declares
 * it broadcastable (Elemwise's rule: only declared dimensions broadcast). */
static inline int theano_rsg_rows_ok(int64_t m, int64_t length, int declared_one) {
  return length == m || (declared_one && length == 1);
}

#define THEANO_RSG_W_TEXT1 "X has "                                 /* N */
#define THEANO_RSG_W_TEXT2 " columns but w has length "             /* L */
#define THEANO_RSG_W_TEXT3 ""
#define THEANO_RSG_Y_TEXT1 "y has length "                          /* L */
#define THEANO_RSG_Y_TEXT2 " but dot(X^T, fn(...)) has length "     /* N */
#define THEANO_RSG_Y_TEXT3 ""
#define THEANO_RSG_E_TEXT1 "input "                                 /* I */
#define THEANO_RSG_E_TEXT2 " (a vector of fn) has length "          /* L */
#define THEANO_RSG_E_TEXT3 " but X has "                            /* M */
#define THEANO_RSG_E_TEXT4 " rows"

#endif /* THEANO_RUNTIME_ROW_STREAM_GEMV_RULES_H */

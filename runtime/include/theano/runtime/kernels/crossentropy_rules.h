/* \file
 * The label rules of CrossentropyCategorical1Hot and its gradient, with their
 * messages, written ONCE for perform (compiler/src/tensor/nnet/crossentropy.cpp)
 * and the lowerings (codegen/src/emit/lower/nnet.cpp, gpu_nnet.cpp: embedded
 * in the units, and the CUDA source, that use them): one label per row of
 * coding_dist, each in [0, k) for k classes (coding_dist's columns); g_y, the
 * gradient's, has one entry per row too.
 *
 * Messages (after "<op>: "), each assembled from the pieces below in order
 * with the run-time values between them:
 *   rows:  coding_dist has shape (R, K) but labels have shape (N,) (one label per row is expected)
 *   label: label L of row I is out of range for K classes
 *   g_y:   g_y has shape (G,) but coding_dist has shape (R, K)
 */
#ifndef THEANO_RUNTIME_CROSSENTROPY_RULES_H
#define THEANO_RUNTIME_CROSSENTROPY_RULES_H

#ifndef THEANO_GENERATED_CODE
#include <stdint.h>
#endif

/* ShapeError when false: labels (or g_y) of length n for coding_dist's `rows`. */
static inline int theano_xent_rows_ok(int64_t rows, int64_t n) { return n == rows; }
/* IndexError when false: a label for k classes. */
static inline int theano_xent_label_ok(int64_t label, int64_t k) { return label >= 0 && label < k; }

#define THEANO_XENT_ROWS_TEXT1 "coding_dist has shape ("           /* R */
#define THEANO_XENT_ROWS_TEXT2 ", "                                /* K */
#define THEANO_XENT_ROWS_TEXT3 ") but labels have shape ("         /* N */
#define THEANO_XENT_ONE_LABEL_PER_ROW " (one label per row is expected)"
#define THEANO_XENT_ROWS_TEXT4 ",)" THEANO_XENT_ONE_LABEL_PER_ROW
#define THEANO_XENT_LABEL_TEXT1 "label "                           /* L */
#define THEANO_XENT_LABEL_TEXT2 " of row "                         /* I */
#define THEANO_XENT_LABEL_TEXT3 " is out of range for "            /* K */
#define THEANO_XENT_LABEL_TEXT4 " classes"
#define THEANO_XENT_GY_TEXT1 "g_y has shape ("                     /* G */
#define THEANO_XENT_GY_TEXT2 ",) but coding_dist has shape ("      /* R */
#define THEANO_XENT_GY_TEXT3 ", "                                  /* K */
#define THEANO_XENT_GY_TEXT4 ")"

#endif /* THEANO_RUNTIME_CROSSENTROPY_RULES_H */

/// \file
/// Contiguous scratch copies for generated code (scratch_copies.h): the
/// allocation through the context's allocator (slot -1: freed with the
/// call's other temporaries) and the copy by strided_copy.h's same-type copy.
#include "scratch_copies.h"

#include <theano/runtime/kernels/shape_rules.h>
#include <theano/runtime/kernels/strided_copy.h>

namespace theano::codegen::detail {

namespace {

bool in_layout(const TheanoArray* a, unsigned char mode, int64_t item) {
  switch (mode) {
    case 1: return theano_c_contiguous_rule(a->shape, a->strides, a->ndim, item) != 0;
    case 2: return a->ndim == 0 || a->shape[a->ndim - 1] == 1 || a->strides[a->ndim - 1] == item;
    default: return true;
  }
}

}  // namespace

int theano_scratch_copy(TheanoContext* c, TheanoArray* tmp, const TheanoArray* src, int64_t item) {
  tmp->ndim = src->ndim;
  tmp->dtype = src->dtype;
  tmp->owner = -1;
  for (int64_t d = 0; d < src->ndim; ++d) tmp->shape[d] = src->shape[d];
  if (c->alloc(c->host, tmp, -1) != 0) return 1;
  return theano_copy_strided(tmp->data, tmp->strides, src->data, src->strides, src->shape, src->ndim, item);
}

int theano_scratch_inputs(TheanoContext* c, const TheanoArray** in, TheanoArray* tmp, int n,
                          const unsigned char* modes, const int64_t* items) {
  for (int i = 0; i < n; ++i) {
    if (in_layout(in[i], modes[i], items[i])) continue;
    if (theano_scratch_copy(c, &tmp[i], in[i], items[i]) != 0) return i + 1;
    in[i] = &tmp[i];
  }
  return 0;
}

}  // namespace theano::codegen::detail

// BlasUpdateOp (tensor/blas.h): the overwriting form and the GPU form that
// Gemm, Gemv and Ger share, once for the three.
#include "blas_kernels.h"
#include "theano/tensor/blas.h"

namespace theano::tensor {

// GPU form (cuBLAS): the arrays (Gemm's z, x, y; Gemv's y, A, x; Ger's A, x,
// y); alpha and beta stay host scalars.
template <class Self>
std::optional<GpuPlacement> BlasUpdateOp<Self>::gpu_form(const Apply& node) const {
  return blas_detail::blas_gpu_form(node, GpuPlacement::only(node.nin(), {0, 2, 3}));
}

// Gemm{no_inplace}(z, ...) -> Gemm{inplace}(z, ...), and so for Gemv and Ger.
template <class Self>
std::vector<InplaceVariant> BlasUpdateOp<Self>::inplace_variants(const Apply&) const {
  if (static_cast<const Self&>(*this).overwrites()) return {};
  return {{InplaceStage::Blas, 0, OpPtr(new Self(true))}};
}

template <class Self>
ViewMap BlasUpdateOp<Self>::destroy_map() const {
  return static_cast<const Self&>(*this).overwrites() ? ViewMap{{0, {0}}} : ViewMap{};
}

template class BlasUpdateOp<Gemm>;
template class BlasUpdateOp<Gemv>;
template class BlasUpdateOp<Ger>;

}  // namespace theano::tensor

// Chapter 11
#pragma once
/// \file
/// \brief Matrix multiplication, batched over leading axes (Chapter 11).

#include <expected>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

/// Batched matrix product over the last two axes: `a [..., n, k] · b [..., k, m] ->
/// [..., n, m]`.
///
/// Both operands need rank ≥ 2. Their leading (batch) axes broadcast with numpy rules,
/// so
/// `[B,T,d_in] · [d_in,d_out] -> [B,T,d_out]` (a linear layer) and
/// `[B,h,T,d_h] · [B,h,d_h,T] -> [B,h,T,T]` (attention scores) both work.
/// Each output element is `Σ_p a[i,p]·b[p,j]`, added from 0.0 in increasing `p`: the
/// result is bitwise equal to the naive triple loop (the loop order is i, p, j for
/// cache locality). \return TensorErrorCode::rank_too_small,
/// TensorErrorCode::inner_dimension_mismatch or
///         TensorErrorCode::broadcast_mismatch (of the batch axes), all with op
///         `"matmul"`.
[[nodiscard]] std::expected<Tensor, TensorError> matmul(const Tensor& a,
                                                        const Tensor& b);

}  // namespace llmfs::tensor

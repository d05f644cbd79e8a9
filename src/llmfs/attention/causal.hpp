// Chapter 28
#pragma once
/// \file
/// \brief The causal mask and causal self-attention (Chapter 28).

#include <cstddef>
#include <expected>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::attention {

/// Every stage of causal self-attention for `Q, K [..., T, d_k]`, `V [..., T, d_v]`.
struct CausalAttention {
  autograd::TensorValue scores;  ///< `Q·Kᵀ/√d_k` before masking, `[..., T, T]`
  autograd::TensorValue
      masked_scores;  ///< scores plus the causal mask (−∞ above the diagonal)
  autograd::TensorValue weights;  ///< row softmax; exactly 0.0 above the diagonal
  autograd::TensorValue output;   ///< `weights·V`, `[..., T, d_v]`
};

/// The additive causal mask `[T, T]`: 0 where key `j ≤` query `i` (on and below the
/// diagonal), −∞ where `j > i`, so that exp(−∞) = 0 removes every future key exactly.
/// `tokens == 0` gives the empty `[0, 0]` mask.
/// \return AttentionErrorCode::size_overflow if `T·T` overflows `std::size_t`.
[[nodiscard]] std::expected<tensor::Tensor, AttentionError> causal_mask(
    std::size_t tokens);

/// Causal self-attention: `softmax(Q·Kᵀ/√d_k + M)·V` with M = causal_mask(T), so query
/// `i` sees keys `0..i` only. Shapes: `Q [..., T, d_k]`, `K [..., T, d_k]`, `V [..., T,
/// d_v]` with equal leading axes (a batch, or batch and heads) -> output `[..., T,
/// d_v]`. Weights above the diagonal are exactly 0.0, so row `i` of the output depends
/// only on tokens `0..i`. Source: Vaswani et al. (2017) §3.2.3 (decoder masking);
/// Chapter 28. \return the errors of scaled_dot_product_attention(),
/// AttentionErrorCode::token_mismatch
///         when Q and K have different token counts, AttentionErrorCode::empty_tokens
///         when T = 0 (checked before any tape operation), or
///         AttentionErrorCode::autograd.
[[nodiscard]] std::expected<CausalAttention, AttentionError> causal_self_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value);

}  // namespace llmfs::attention

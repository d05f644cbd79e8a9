// Chapter 42
#pragma once
/// \file
/// \brief Chapter 28's causal attention as one tape op over the lower triangle only:
/// the same operations on the same numbers in the same order, so every bit of the
/// output, the weights and the gradients is the composition's (Chapter 42).

#include <expected>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/tape.hpp>

namespace llmfs::attention {

/// causal_self_attention() fused into one tape op that never touches the masked
/// triangle: per query row `i` it scores keys `j ≤ i` only (row panels of the
/// library's blocked product), adds the mask's 0.0, takes the softmax over those keys
/// and writes exactly 0.0 above the diagonal, and mixes `j ≤ i` of V; the backward
/// closure does the same with `dA = dO·Vᵀ`, the softmax's backward, the scale's, and
/// `dQ = dS·K`, `dK = dSᵀ·Q`, `dV = Aᵀ·dO`. Every sum starts from +0.0 and adds its
/// terms in the library's order; a skipped term is a masked weight's exact ±0.0, which
/// never changes a sum that started from +0.0, so the output, the weights and the
/// gradients of Q, K and V equal causal_self_attention()'s bit for bit (for finite
/// inputs and upstream gradients). The weights `[..., T, T]` are a constant on the tape
/// (the op's fourth parent, what its backward reads): gradient does not flow through
/// CausalAttention::weights; scores and masked_scores are empty handles. Lanes (the
/// leading axes) run on tensor::matmul_defaults().threads threads, each whole on one.
/// Has the signature of CausalAttentionFn (`block_size` is not used).
/// \return the shape errors of causal_self_attention() (same codes, checked in the
///         same order), AttentionErrorCode::size_overflow for a `[T, T]` that does not
///         fit, or AttentionErrorCode::autograd (released or mixed tapes; a NaN or +∞
///         score, which the softmax rejects as
///         tensor::TensorErrorCode::non_finite_input).
[[nodiscard]] std::expected<CausalAttention, AttentionError> fused_causal_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t block_size);

/// The kernel to give MultiHeadAttention (or DecoderConfig::attention) so that each
/// head runs fused_causal_attention(): chapter 30's stored weights, bit for bit,
/// faster.
inline constexpr AttentionKernel fused_kernel{"fused", 0, &fused_causal_attention};

}  // namespace llmfs::attention

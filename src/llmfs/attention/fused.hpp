// Chapter 42
#pragma once
/// \file
/// \brief Chapter 28's causal attention as one tape op over the lower triangle only,
/// per head or for every head of chapter 30's layer at once: the same operations on
/// the same numbers in the same order, so every bit of the output, the weights and the
/// gradients is the composition's (Chapter 42).

#include <cstddef>
#include <expected>
#include <optional>

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

/// Every head of chapter 30's layer as one tape op on the projections `[B,T,d_model]`,
/// with no split, rotated or merged tensor: Q and K are rotated in one pass each in
/// storage order (RotaryEmbedding::rotate's arithmetic) into storage of the op's own,
/// kept for the backward pass; each lane `(b, head)` runs fused_causal_attention()'s
/// lane on its head's columns of the rotated Q and K and of V in place (rows d_model
/// apart) and writes its output rows straight into its columns of the `[B,T,d_model]`
/// result. The backward pass reads dO and writes dV in the heads' columns, collects dQ
/// and dK of the rotated rows the same way, and turns them back by the opposite angle.
/// Output, weights `[B,h,T,T]` (a constant on the tape, as in fused_causal_attention())
/// and the gradients of Q, K and V equal what split_heads(), RotaryEmbedding::rotate(),
/// stored_weights_attention() and merge_heads() give, bit for bit. Lanes run on
/// tensor::matmul_defaults().threads threads. Has the signature of LayerAttentionFn.
/// \return before the tape moves: MultiHeadErrorCode::zero_heads,
///         MultiHeadErrorCode::input_rank (not `[B,T,d_model]`),
///         MultiHeadErrorCode::input_width (Q, K, V of different shapes, or a RoPE
///         width other than d_h), MultiHeadErrorCode::zero_model_width,
///         MultiHeadErrorCode::width_not_divisible, MultiHeadErrorCode::empty_tokens,
///         MultiHeadErrorCode::offset_overflow, MultiHeadErrorCode::position_range;
///         then fused_causal_attention()'s errors at MultiHeadStage::causal_attention.
[[nodiscard]] std::expected<CausalAttention, MultiHeadError> fused_multi_head_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t heads,
    const std::optional<RotaryEmbedding>& rope, std::size_t position_offset);

/// The kernel to give MultiHeadAttention (or DecoderConfig::attention) so that its
/// heads run fused: fused_multi_head_attention() for the whole layer (`layer`), and
/// fused_causal_attention() per head (`run`). Chapter 30's stored weights, bit for bit,
/// faster.
inline constexpr AttentionKernel fused_kernel{"fused", 0, &fused_causal_attention,
                                              &fused_multi_head_attention};

}  // namespace llmfs::attention

// Chapter 41
#pragma once
/// \file
/// \brief Causal attention that never stores its weights: the online softmax
/// (Milakov and Gimelshein 2018) over blocks of keys (Rabe and Staats 2021; Dao et al.
/// 2022, FlashAttention), a forward pass that keeps one log-sum-exp per row, and a
/// backward pass that recomputes each block of weights from it (Chapter 41).

#include <cstddef>
#include <expected>
#include <limits>
#include <span>
#include <vector>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::attention {

// region: running-statistics
/// The two numbers a softmax row carries from one block of keys to the next: the
/// largest score seen so far, m, and the sum ℓ of `exp(s_j − m)` over the keys seen.
struct RunningStatistics {
  double max = -std::numeric_limits<double>::infinity();  ///< m (−∞ before any key)
  double sum = 0.0;                                       ///< ℓ
};

/// What one block of keys did to a row's statistics (one step of the online softmax).
struct OnlineSoftmaxStep {
  std::size_t first_key = 0;  ///< index of the block's first key
  std::size_t keys = 0;       ///< keys in the block
  double block_max = 0.0;     ///< the largest score inside the block
  double rescale = 0.0;       ///< `α = exp(m_old − m_new)`, applied to ℓ and to O
  RunningStatistics after;    ///< m and ℓ once the block is folded in
};
// endregion: running-statistics

/// The online softmax of one row of scores, `block_size` keys at a time: one step per
/// block, in order. The last step's `after` gives the row's normaliser: `softmax_j =
/// exp(s_j − m)/ℓ` and `log Σ_j exp(s_j) = m + log ℓ`. Source: Milakov and Gimelshein
/// (2018), Algorithm 3; Chapter 41. \return AttentionErrorCode::zero_block_size, or
/// AttentionErrorCode::empty_tokens for an empty row.
[[nodiscard]] std::expected<std::vector<OnlineSoftmaxStep>, AttentionError>
online_softmax(std::span<const double> scores, std::size_t block_size);

// region: streaming-api
/// What the streaming forward pass keeps: the output and one number per row.
struct StreamingForward {
  tensor::Tensor output;       ///< `softmax(Q·Kᵀ/√d_k + M)·V`, `[..., T, d_v]`
  tensor::Tensor log_sum_exp;  ///< `L_i = m_i + log ℓ_i` per query row, `[..., T]`
};

/// The gradients of the streaming backward pass, one per input.
struct StreamingGradients {
  tensor::Tensor query;  ///< ∂loss/∂Q, `[..., T, d_k]`
  tensor::Tensor key;    ///< ∂loss/∂K, `[..., T, d_k]`
  tensor::Tensor value;  ///< ∂loss/∂V, `[..., T, d_v]`
};

/// Causal attention without the `[T, T]` tables: for each block of `block_size`
/// queries, every block of keys up to the diagonal is scored, folded into the running
/// statistics, and mixed into the output; memory beyond the inputs and the output is
/// `O(block_size²)` per thread plus `T` numbers per lane. `Q, K [..., T, d_k]`, `V
/// [..., T, d_v]`, equal leading axes (the lanes, e.g. `[B, h]`); lanes run on
/// tensor::matmul_defaults().threads threads (a lane is computed whole by one thread,
/// so the bits do not depend on the count). Equals causal_self_attention() up to
/// rounding. \return the shape errors of causal_self_attention(),
/// AttentionErrorCode::zero_block_size, or AttentionErrorCode::autograd.
[[nodiscard]] std::expected<StreamingForward, AttentionError>
streaming_attention_forward(const tensor::Tensor& query, const tensor::Tensor& key,
                            const tensor::Tensor& value, std::size_t block_size);

/// The backward pass of streaming_attention_forward() from its output, its
/// log-sum-exp and the upstream gradient `dO [..., T, d_v]`: each block of weights
/// `P_ij = exp(s_ij − L_i)` is recomputed, never read, with `D_i = Σ_c dO_ic·O_ic`
/// (Dao et al. 2022, Algorithm 4; Dao 2023). Precondition: the arguments are a forward
/// call's and its result's (the tape op guarantees it). \return
/// AttentionErrorCode::autograd if a block product fails.
[[nodiscard]] std::expected<StreamingGradients, AttentionError>
streaming_attention_backward(const tensor::Tensor& query, const tensor::Tensor& key,
                             const tensor::Tensor& value,
                             const StreamingForward& forward,
                             const tensor::Tensor& upstream, std::size_t block_size);
// endregion: streaming-api

// region: streaming-op-api
/// streaming_attention_forward() as one tape op with its own backward (which calls
/// streaming_attention_backward()): the node keeps the output; the closure keeps the
/// `[..., T]` log-sum-exp. Only CausalAttention::output is set; scores, masked_scores
/// and weights are empty handles, because they are never formed. Has the signature of
/// CausalAttentionFn. \return the errors of streaming_attention_forward(), or
/// AttentionErrorCode::autograd (released or mixed tapes).
[[nodiscard]] std::expected<CausalAttention, AttentionError> streaming_causal_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t block_size);

/// The kernel to give MultiHeadAttention (or DecoderConfig::attention) so that each
/// head runs streaming_causal_attention() with `block_size` keys per block.
/// \return AttentionErrorCode::zero_block_size.
[[nodiscard]] std::expected<AttentionKernel, AttentionError> streaming_kernel(
    std::size_t block_size);
// endregion: streaming-op-api

}  // namespace llmfs::attention

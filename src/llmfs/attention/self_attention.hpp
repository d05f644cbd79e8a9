// Chapter 27
#pragma once
/// \file
/// \brief One scaled dot-product attention head (Vaswani et al. 2017 §3.2.1; Chapter
/// 27), and the error type shared with causal attention (Chapter 28).

#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>

namespace llmfs::attention {

/// What went wrong in a single attention head.
enum class AttentionErrorCode {
  input_rank,      ///< Q, K or V has fewer than two axes, or their ranks differ
  batch_mismatch,  ///< the leading (batch) axes of Q, K and V differ
  key_width,       ///< Q and K have different widths d_k
  zero_key_width,  ///< d_k is 0, so the scale 1/√d_k is undefined
  token_mismatch,  ///< K and V (or, for causal attention, Q and K) have different token
                   ///< counts
  empty_tokens,    ///< the token axis is empty: a query row would have no key to attend
                   ///< to
  size_overflow,   ///< the `[T, T]` mask's element count overflows `std::size_t`
  zero_block_size,  ///< a blocked kernel was given 0 keys per block (Chapter 41)
  autograd,         ///< a tape operation failed; `cause` holds its AutogradError
};

/// The fixed description of a code, e.g. `"empty token axis"`.
[[nodiscard]] std::string_view describe(AttentionErrorCode code) noexcept;

/// One typed attention error: the kind, the stage (`"self-attention"`, `"causal
/// attention"`, or the step inside it such as `"causal attention softmax"`), a detail
/// sentence, and for AttentionErrorCode::autograd the tape error it wraps.
using AttentionError = StageError<AttentionErrorCode, AttentionErrorCode::autograd,
                                  autograd::AutogradError>;

/// Every stage of one scaled dot-product head, for `Q [..., T_q, d_k]`, `K [..., T_k,
/// d_k]`, `V [..., T_k, d_v]`.
struct SelfAttention {
  autograd::TensorValue scores;  ///< `Q·Kᵀ/√d_k`, `[..., T_q, T_k]`
  autograd::TensorValue
      weights;  ///< row softmax of the scores over keys, `[..., T_q, T_k]`
  autograd::TensorValue output;  ///< `weights·V`, `[..., T_q, d_v]`
};

/// The scaled scores `Q·Kᵀ/√d_k`: `Q [..., T_q, d_k]`, `K [..., T_k, d_k]` -> `[...,
/// T_q, T_k]`. Leading axes must be equal (every one of them is an independent head or
/// batch row). \return AttentionErrorCode::input_rank,
/// AttentionErrorCode::batch_mismatch,
///         AttentionErrorCode::key_width, AttentionErrorCode::zero_key_width, or
///         AttentionErrorCode::autograd (e.g. a released input).
[[nodiscard]] std::expected<autograd::TensorValue, AttentionError> scaled_scores(
    const autograd::TensorValue& query, const autograd::TensorValue& key);

/// One head of scaled dot-product attention, `softmax(Q·Kᵀ/√d_k)·V`, with every stage
/// kept. Shapes: `Q [..., T_q, d_k]`, `K [..., T_k, d_k]`, `V [..., T_k, d_v]`, equal
/// leading axes; self-attention passes projections of the same rows, so `T_q = T_k =
/// T`. Source: Vaswani et al. (2017), *Attention Is All You Need*, §3.2.1; Chapter 27.
/// \return the errors of scaled_scores(), AttentionErrorCode::token_mismatch (K and V),
///         AttentionErrorCode::empty_tokens (T_q or T_k is 0), or
///         AttentionErrorCode::autograd.
[[nodiscard]] std::expected<SelfAttention, AttentionError> scaled_dot_product_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value);

}  // namespace llmfs::attention

// Chapter 27
#include <cmath>
#include <vector>

#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::attention {

std::string_view describe(AttentionErrorCode code) noexcept {
  switch (code) {
    case AttentionErrorCode::input_rank:
      return "inputs need equal ranks of at least two [..., T, d]";
    case AttentionErrorCode::batch_mismatch: return "leading axes differ";
    case AttentionErrorCode::key_width: return "query and key widths differ";
    case AttentionErrorCode::zero_key_width: return "zero key width";
    case AttentionErrorCode::token_mismatch: return "token counts differ";
    case AttentionErrorCode::empty_tokens: return "empty token axis";
    case AttentionErrorCode::size_overflow: return "mask size overflows";
    case AttentionErrorCode::zero_block_size: return "block size must be nonzero";
    case AttentionErrorCode::autograd: return "tape operation failed";
  }
  return "unknown attention error";
}

// region: scaled-dot-product
std::expected<autograd::TensorValue, AttentionError> scaled_scores(
    const autograd::TensorValue& query, const autograd::TensorValue& key) {
  // Q: [..., T_q, d_k], K: [..., T_k, d_k] -> [..., T_q, T_k]
  constexpr std::string_view stage = "attention scores";
  LLMFS_TRY(detail::check_pair(stage, query.shape(), key.shape()));
  const std::size_t rank = key.shape().rank();
  const std::size_t d_k = key.shape()[rank - 1];

  // Compare every query with every key
  auto key_t = LLMFS_TRY_AT(stage, autograd::transpose(key, rank - 2, rank - 1));
  auto dots = LLMFS_TRY_AT(stage, autograd::matmul(query, key_t));

  // Scale by 1/√d_k so the softmax does not saturate as d_k grows
  auto scores = LLMFS_TRY_AT(
      stage, autograd::scale(dots, 1.0 / std::sqrt(static_cast<double>(d_k))));
  return scores;
}

std::expected<SelfAttention, AttentionError> scaled_dot_product_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value) {
  // Q: [..., T_q, d_k], K: [..., T_k, d_k], V: [..., T_k, d_v] -> [..., T_q, d_v]
  constexpr std::string_view stage = "self-attention";
  LLMFS_TRY(detail::check_value(stage, query.shape(), key.shape(), value.shape()));
  auto scores = LLMFS_TRY(scaled_scores(query, key));

  // Turn each query's scores into weights over the keys
  auto weights = LLMFS_TRY_AT(stage, autograd::softmax_last_axis(scores));

  // Mix the value rows with those weights
  auto output = LLMFS_TRY_AT(stage, autograd::matmul(weights, value));
  return SelfAttention{std::move(scores), std::move(weights), std::move(output)};
}
// endregion: scaled-dot-product

}  // namespace llmfs::attention

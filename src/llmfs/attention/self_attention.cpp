// Chapter 27
#include <cmath>
#include <vector>

#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/ops.hpp>

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
    case AttentionErrorCode::autograd: return "tape operation failed";
  }
  return "unknown attention error";
}

// region: scaled-dot-product
std::expected<autograd::TensorValue, AttentionError> scaled_scores(
    const autograd::TensorValue& query, const autograd::TensorValue& key) {
  // Q: [..., T_q, d_k], K: [..., T_k, d_k] -> [..., T_q, T_k]
  constexpr std::string_view stage = "attention scores";
  if (auto invalid = detail::check_pair(stage, query.shape(), key.shape())) {
    return std::unexpected(std::move(*invalid));
  }
  const std::size_t rank = key.shape().rank();
  const std::size_t d_k = key.shape()[rank - 1];

  // Compare every query with every key
  auto key_t = autograd::transpose(key, rank - 2, rank - 1);  // [..., d_k, T_k]
  if (!key_t) return std::unexpected(detail::wrap(stage, std::move(key_t.error())));
  auto dots = autograd::matmul(query, *key_t);
  if (!dots) return std::unexpected(detail::wrap(stage, std::move(dots.error())));

  // Scale by 1/√d_k so the softmax does not saturate as d_k grows
  auto scores = autograd::scale(*dots, 1.0 / std::sqrt(static_cast<double>(d_k)));
  if (!scores) return std::unexpected(detail::wrap(stage, std::move(scores.error())));
  return std::move(*scores);
}

std::expected<SelfAttention, AttentionError> scaled_dot_product_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value) {
  // Q: [..., T_q, d_k], K: [..., T_k, d_k], V: [..., T_k, d_v] -> [..., T_q, d_v]
  constexpr std::string_view stage = "self-attention";
  if (auto invalid =
          detail::check_value(stage, query.shape(), key.shape(), value.shape())) {
    return std::unexpected(std::move(*invalid));
  }
  auto scores = scaled_scores(query, key);
  if (!scores) return std::unexpected(std::move(scores.error()));

  // Turn each query's scores into weights over the keys
  auto weights = autograd::softmax_last_axis(*scores);
  if (!weights) return std::unexpected(detail::wrap(stage, std::move(weights.error())));

  // Mix the value rows with those weights
  auto output = autograd::matmul(*weights, value);
  if (!output) return std::unexpected(detail::wrap(stage, std::move(output.error())));
  return SelfAttention{std::move(*scores), std::move(*weights), std::move(*output)};
}
// endregion: scaled-dot-product

}  // namespace llmfs::attention

auto fmt::formatter<llmfs::attention::AttentionError>::format(
    const llmfs::attention::AttentionError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return llmfs::autograd::format_stage_error(ctx, error.stage,
                                             llmfs::attention::describe(error.code),
                                             error.detail, error.cause);
}

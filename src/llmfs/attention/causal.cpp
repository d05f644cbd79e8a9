// Chapter 28
#include <limits>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/detail/causal_checks.hpp>
#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::attention {

namespace detail {

// region: causal-checks
// check_pair(), equal token counts of Q and K (causal attention is self-attention),
// then check_value().
[[nodiscard]] std::expected<void, AttentionError> check_causal(
    std::string_view stage, const tensor::Shape& query, const tensor::Shape& key,
    const tensor::Shape& value) {
  LLMFS_TRY(detail::check_pair(stage, query, key));
  if (key[key.rank() - 2] != query[query.rank() - 2]) {
    return reject(AttentionErrorCode::token_mismatch, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  return detail::check_value(stage, query, key, value);
}

// The [T, T] mask's element count must fit (size_overflow otherwise).
[[nodiscard]] std::expected<void, AttentionError> check_mask_size(std::size_t tokens) {
  const auto count = tensor::Shape{tokens, tokens}.element_count();
  if (!count || *count > tensor::max_element_count()) {
    return reject(AttentionErrorCode::size_overflow, "causal mask",
                  fmt::format("{} tokens overflow [T,T]", tokens));
  }
  return {};
}
// endregion: causal-checks

}  // namespace detail

using detail::check_causal;
using detail::check_mask_size;

// region: causal-mask
std::expected<tensor::Tensor, AttentionError> causal_mask(std::size_t tokens) {
  // -> M: [T, T], M[i][j] = 0 if j <= i, −∞ if j > i
  LLMFS_TRY(check_mask_size(tokens));
  tensor::Tensor mask = tensor::Tensor::zeros(tensor::Shape{tokens, tokens});
  auto values = mask.mutable_values();
  for (std::size_t i = 0; i < tokens; ++i) {
    for (std::size_t j = i + 1; j < tokens; ++j) {
      values[i * tokens + j] = -std::numeric_limits<double>::infinity();
    }
  }
  return mask;
}
// endregion: causal-mask

// region: causal-attention
std::expected<CausalAttention, AttentionError> causal_self_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value) {
  // Q, K: [..., T, d_k], V: [..., T, d_v] -> [..., T, d_v]
  constexpr std::string_view stage = "causal attention";
  LLMFS_TRY(check_causal(stage, query.shape(), key.shape(), value.shape()));
  const std::size_t tokens = query.shape()[query.shape().rank() - 2];

  // Score every query against every key, scaled by 1/√d_k
  auto scores = LLMFS_TRY(scaled_scores(query, key));

  // Block future keys: add 0 on and below the diagonal, −∞ above it
  auto mask = LLMFS_TRY(causal_mask(tokens));
  auto mask_value = query.tape().constant(std::move(mask));
  auto masked = LLMFS_TRY_AT(stage, autograd::add(scores, mask_value));

  // Normalize each row over the keys it may see; exp(−∞) makes the rest exactly 0
  auto weights = LLMFS_TRY_AT(stage, autograd::softmax_last_axis(masked));

  // Mix the visible value rows
  auto output = LLMFS_TRY_AT(stage, autograd::matmul(weights, value));
  return CausalAttention{std::move(scores), std::move(masked), std::move(weights),
                         std::move(output)};
}
// endregion: causal-attention

}  // namespace llmfs::attention

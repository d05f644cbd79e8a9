// Chapter 28
#include <limits>
#include <string>

#include <fmt/format.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/autograd/ops.hpp>

namespace llmfs::attention {

// region: causal-mask
std::expected<tensor::Tensor, AttentionError> causal_mask(std::size_t tokens) {
  // -> M: [T, T], M[i][j] = 0 if j <= i, −∞ if j > i
  const tensor::Shape shape{tokens, tokens};
  const auto count = shape.element_count();
  if (!count || *count > tensor::max_element_count()) {
    return std::unexpected(
        AttentionError{AttentionErrorCode::size_overflow,
                       "causal mask",
                       fmt::format("{} tokens overflow [T,T]", tokens),
                       {}});
  }
  tensor::Tensor mask = tensor::Tensor::zeros(shape);
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
  if (auto invalid = detail::check_pair(stage, query.shape(), key.shape())) {
    return std::unexpected(std::move(*invalid));
  }
  const std::size_t rank = query.shape().rank();
  const std::size_t tokens = query.shape()[rank - 2];
  if (key.shape()[rank - 2] != tokens) {
    return std::unexpected(
        AttentionError{AttentionErrorCode::token_mismatch,
                       std::string(stage),
                       fmt::format("query {}, key {}", query.shape(), key.shape()),
                       {}});
  }
  if (auto invalid =
          detail::check_value(stage, query.shape(), key.shape(), value.shape())) {
    return std::unexpected(std::move(*invalid));
  }

  // Score every query against every key, scaled by 1/√d_k
  auto scores = scaled_scores(query, key);
  if (!scores) return std::unexpected(std::move(scores.error()));

  // Block future keys: add 0 on and below the diagonal, −∞ above it
  auto mask = causal_mask(tokens);
  if (!mask) return std::unexpected(std::move(mask.error()));
  auto mask_value = query.tape().constant(std::move(*mask));
  auto masked =
      autograd::add(*scores, mask_value);  // [T,T] broadcasts over [..., T, T]
  if (!masked) return std::unexpected(detail::wrap(stage, std::move(masked.error())));

  // Normalize each row over the keys it may see; exp(−∞) makes the rest exactly 0
  auto weights = autograd::softmax_last_axis(*masked);
  if (!weights) return std::unexpected(detail::wrap(stage, std::move(weights.error())));

  // Mix the visible value rows
  auto output = autograd::matmul(*weights, value);
  if (!output) return std::unexpected(detail::wrap(stage, std::move(output.error())));
  return CausalAttention{std::move(*scores), std::move(*masked), std::move(*weights),
                         std::move(*output)};
}
// endregion: causal-attention

}  // namespace llmfs::attention

// Chapter 28
#pragma once
/// \file
/// \brief The shape checks of causal self-attention, shared with the kernels that
/// compute it another way (internal; Chapter 28).

#include <cstddef>
#include <expected>
#include <string_view>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/tensor/shape.hpp>

namespace llmfs::attention::detail {

/// check_pair(), equal token counts of Q and K, then check_value(): nothing if
/// `Q [..., T, d_k]`, `K [..., T, d_k]`, `V [..., T, d_v]` fit causal attention.
[[nodiscard]] std::expected<void, AttentionError> check_causal(
    std::string_view stage, const tensor::Shape& query, const tensor::Shape& key,
    const tensor::Shape& value);

/// Nothing if a `[T, T]` table's element count fits, else
/// AttentionErrorCode::size_overflow.
[[nodiscard]] std::expected<void, AttentionError> check_mask_size(std::size_t tokens);

}  // namespace llmfs::attention::detail

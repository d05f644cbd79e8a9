// Chapter 27
#pragma once
/// \file
/// \brief Shape checks shared by the single-head attention functions (internal;
/// Chapter 27).

#include <cstddef>
#include <expected>
#include <string_view>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/tensor/shape.hpp>

namespace llmfs::attention::detail {

/// Checks `Q [..., T_q, d_k]` against `K [..., T_k, d_k]`; success if they fit.
[[nodiscard]] std::expected<void, AttentionError> check_pair(std::string_view stage,
                                                             const tensor::Shape& query,
                                                             const tensor::Shape& key);

/// check_pair(), then `V [..., T_k, d_v]` and non-empty token axes; nothing if they
/// fit.
[[nodiscard]] std::expected<void, AttentionError> check_value(
    std::string_view stage, const tensor::Shape& query, const tensor::Shape& key,
    const tensor::Shape& value);

}  // namespace llmfs::attention::detail

// Chapter 27
#pragma once
/// \file
/// \brief Shape checks shared by the single-head attention functions (internal;
/// Chapter 27).

#include <optional>
#include <string_view>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/tensor/shape.hpp>

namespace llmfs::attention::detail {

/// Checks `Q [..., T_q, d_k]` against `K [..., T_k, d_k]`; nothing if they fit.
[[nodiscard]] std::optional<AttentionError> check_pair(std::string_view stage,
                                                       const tensor::Shape& query,
                                                       const tensor::Shape& key);

/// check_pair(), then `V [..., T_k, d_v]` and non-empty token axes; nothing if they
/// fit.
[[nodiscard]] std::optional<AttentionError> check_value(std::string_view stage,
                                                        const tensor::Shape& query,
                                                        const tensor::Shape& key,
                                                        const tensor::Shape& value);

/// Wraps a tape error with the attention stage that failed.
[[nodiscard]] AttentionError wrap(std::string_view stage,
                                  autograd::AutogradError cause);

}  // namespace llmfs::attention::detail

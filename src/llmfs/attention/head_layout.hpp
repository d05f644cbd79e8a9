// Chapter 30
#pragma once
/// \file
/// \brief The head layout of multi-head attention: one `[B,T,d_model]` tensor seen as h
/// heads of width d_h = d_model/h, `[B,h,T,d_h]`, and back. Both directions are a taped
/// reshape and a transpose, so nothing is copied by hand and gradients pass unchanged
/// (Vaswani et al. 2017 §3.2.2; Chapter 30).

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>

namespace llmfs::attention {

/// What went wrong while splitting `[B,T,d]` into heads or merging them back.
enum class HeadLayoutErrorCode {
  split_rank,            ///< split input is not rank 3 `[B, T, d_model]`
  merge_rank,            ///< merge input is not rank 4 `[B, h, T, d_h]`
  zero_heads,            ///< the head count is 0
  zero_head_width,       ///< the width to split (or the head width to merge) is 0
  width_not_divisible,   ///< the model width is not a multiple of the head count
  model_width_overflow,  ///< `h · d_h` overflows `std::size_t`
  autograd,              ///< the taped reshape or transpose failed; `cause` says why
};

/// The fixed description of a code, e.g. `"width not divisible by head count"`.
[[nodiscard]] std::string_view describe(HeadLayoutErrorCode code) noexcept;

/// One typed head-layout error. The stage names the step: `"head split"`, `"head split
/// reshape"`, `"head split transpose"`, `"head merge"`, `"head merge transpose"` or
/// `"head merge reshape"`.
using HeadLayoutError = StageError<HeadLayoutErrorCode, HeadLayoutErrorCode::autograd,
                                   autograd::AutogradError>;

/// Splits the feature axis into heads: `[B,T,d_model] -> reshape [B,T,h,d_h] ->
/// transpose(1,2) [B,h,T,d_h]`, `d_h = d_model/h`. Both steps are taped, so gradients
/// flow back unchanged. \return HeadLayoutErrorCode::split_rank,
/// HeadLayoutErrorCode::zero_heads,
///         HeadLayoutErrorCode::zero_head_width,
///         HeadLayoutErrorCode::width_not_divisible (checked in that order), or
///         HeadLayoutErrorCode::autograd (e.g. a released input).
[[nodiscard]] std::expected<autograd::TensorValue, HeadLayoutError> split_heads(
    const autograd::TensorValue& input, std::size_t heads);

/// The inverse of split_heads(): `[B,h,T,d_h] -> transpose(1,2) [B,T,h,d_h] -> reshape
/// [B,T,h·d_h]`. Concatenates the head outputs of each token; nothing is summed or
/// averaged. \return HeadLayoutErrorCode::merge_rank, HeadLayoutErrorCode::zero_heads,
///         HeadLayoutErrorCode::zero_head_width,
///         HeadLayoutErrorCode::model_width_overflow, or HeadLayoutErrorCode::autograd.
[[nodiscard]] std::expected<autograd::TensorValue, HeadLayoutError> merge_heads(
    const autograd::TensorValue& input);

}  // namespace llmfs::attention

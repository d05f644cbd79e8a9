// Chapter 12
#pragma once
/// \file
/// \brief Numerically stable softmax, log-softmax and log-sum-exp over the last axis
/// (Chapter 12).

#include <cstddef>
#include <expected>
#include <span>
#include <string_view>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

// region: softmax-api
/// Softmax of every row of the last axis: `y_j = exp(x_j - m) / Σ_k exp(x_k - m)` with
/// `m = max_k x_k`, so the largest exponent is exp(0) = 1 and nothing overflows
/// (logits 1000 and 1001 give 1/(1+e) and e/(1+e)). Shape: `[..., n] -> [..., n]`.
///
/// Masked logits: an entry of −∞ gives exactly 0.0 (exp(−∞) = 0), which is how the
/// causal mask blocks future keys (Chapter 28). Policy for a row whose entries are ALL
/// −∞ (no allowed key): it is an error, TensorErrorCode::fully_masked_row, naming the
/// first such row, rather than a silent NaN row (0/0) or an invented uniform
/// distribution. A NaN or +∞ logit is TensorErrorCode::non_finite_input. Rows of
/// length 0 and tensors with no rows give an empty result of the same shape.
/// Source: Bridle (1990), the softmax; Chapter 12.
/// \return TensorErrorCode::rank_too_small for rank 0, and the two row errors above
///         (op `"softmax_last_axis"`); the input is validated before anything is
///         computed.
[[nodiscard]] std::expected<Tensor, TensorError> softmax_last_axis(
    const Tensor& logits);

/// Log-softmax of every row of the last axis: `y_j = (x_j - m) - log Σ_k exp(x_k - m)`,
/// the logarithm of softmax_last_axis() computed without forming the probabilities, so
/// it stays finite where a probability underflows to 0 (logits [0, -800] give [0,
/// -800], not [0, -∞]). A −∞ logit gives −∞. Shape: `[..., n] -> [..., n]`.
/// \return the errors of softmax_last_axis(), with op `"log_softmax_last_axis"`; a
///         fully masked row is refused for the same reason (−∞ − (−∞) is NaN).
[[nodiscard]] std::expected<Tensor, TensorError> log_softmax_last_axis(
    const Tensor& logits);

/// Log-sum-exp of every row of the last axis: `m + log Σ_k exp(x_k - m)`, the log of
/// softmax's denominator without overflow. Shape: `[..., n] -> [...]` (the last axis is
/// summed away; a rank-1 input gives a rank-0 tensor). A row of length 0 or a row of
/// only −∞ gives −∞ exactly (log 0): unlike softmax, the value is defined there.
/// \return TensorErrorCode::rank_too_small for rank 0,
///         TensorErrorCode::non_finite_input for a NaN or +∞ logit (op
///         `"logsumexp_last_axis"`).
[[nodiscard]] std::expected<Tensor, TensorError> logsumexp_last_axis(
    const Tensor& logits);
// endregion: softmax-api

// region: softmax-row-check-api
/// The check the three functions above make of each row of the last axis before they
/// compute anything, exported so that a kernel computing the same softmax its own way
/// (Chapter 42's fused attention) refuses a row with the same error. `row` is the row's
/// logits; `op`, `shape` (the whole input's) and `row_index` (the row's index among the
/// rows of the last axis, counted from 0) only name it in the error. A row of length 0
/// passes. Source: Chapter 12.
/// \return TensorErrorCode::non_finite_input for the first NaN or +∞ entry j
///         ("row R entry J is X"); else, unless `allow_masked_row`,
///         TensorErrorCode::fully_masked_row when no entry is above −∞ ("row R is
///         entirely -inf"); both with op `op` and shapes `{shape}`.
[[nodiscard]] std::expected<void, TensorError> check_logit_row(
    std::string_view op, const Shape& shape, std::size_t row_index,
    std::span<const double> row, bool allow_masked_row);
// endregion: softmax-row-check-api

}  // namespace llmfs::tensor

// Chapter 12
#pragma once
/// \file
/// \brief Numerically stable softmax over the last axis (Chapter 12).

#include <expected>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

/// Softmax of every row of the last axis: `y_j = exp(x_j - m) / Σ_k exp(x_k - m)` with
/// `m = max_k x_k`, so the largest exponent is exp(0) = 1 and nothing overflows
/// (logits 1000 and 1001 give 1/(1+e) and e/(1+e)).
///
/// Masked logits: an entry of −∞ gives exactly 0.0 (exp(−∞) = 0), which is how the
/// causal mask blocks future keys. Policy for a row whose entries are ALL −∞ (no
/// allowed key): it is an error, TensorErrorCode::fully_masked_row, naming the first
/// such row, rather than a silent NaN row or an invented uniform distribution. A NaN or
/// +∞ logit is TensorErrorCode::non_finite_input. Rows of length 0 and tensors with no
/// rows give an empty result of the same shape. \return TensorErrorCode::rank_too_small
/// for rank 0, and the two row errors above
///         (op `"softmax_last_axis"`); the input is validated before anything is
///         computed.
[[nodiscard]] std::expected<Tensor, TensorError> softmax_last_axis(
    const Tensor& logits);

}  // namespace llmfs::tensor

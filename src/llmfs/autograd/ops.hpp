// Chapter 15
#pragma once
/// \file
/// \brief Differentiable tensor operations recorded on a tape (Chapters 15–16).
///
/// Each op validates its inputs (live tape, same tape, shapes) before recording
/// anything, runs the tensor operation, and records a node whose backward closure ADDS
/// into the parents' gradients. Tensor shape errors come back as
/// AutogradErrorCode::tensor with the op as stage.

#include <cstddef>
#include <expected>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::autograd {

/// `a + b` with broadcasting. Backward: `ga += sum_to(g, shape a)`, `gb += sum_to(g,
/// shape b)`. \return AutogradErrorCode::released_input,
/// AutogradErrorCode::different_tapes, or
///         AutogradErrorCode::tensor wrapping TensorErrorCode::broadcast_mismatch (op
///         `"add"`).
[[nodiscard]] std::expected<TensorValue, AutogradError> add(const TensorValue& a,
                                                            const TensorValue& b);
/// `a - b` with broadcasting. Backward: `ga += sum_to(g)`, `gb += sum_to(-g)`.
/// \return AutogradErrorCode::released_input, AutogradErrorCode::different_tapes, or
///         AutogradErrorCode::tensor wrapping TensorErrorCode::broadcast_mismatch.
[[nodiscard]] std::expected<TensorValue, AutogradError> subtract(const TensorValue& a,
                                                                 const TensorValue& b);
/// `a ⊙ b` with broadcasting. Backward: `ga += sum_to(g ⊙ b)`, `gb += sum_to(g ⊙ a)`.
/// \return AutogradErrorCode::released_input, AutogradErrorCode::different_tapes, or
///         AutogradErrorCode::tensor wrapping TensorErrorCode::broadcast_mismatch.
[[nodiscard]] std::expected<TensorValue, AutogradError> multiply(const TensorValue& a,
                                                                 const TensorValue& b);
/// `factor · a`. Backward: `ga += factor · g`.
/// \return AutogradErrorCode::released_input (no shape can be wrong).
[[nodiscard]] std::expected<TensorValue, AutogradError> scale(const TensorValue& a,
                                                              double factor);
/// Batched `a [..., n, k] · b [..., k, m]` (see tensor::matmul). Backward:
/// `ga += sum_to(g · bᵀ)`, `gb += sum_to(aᵀ · g)` (transposes of the last two axes).
/// \return AutogradErrorCode::released_input, AutogradErrorCode::different_tapes, or
///         AutogradErrorCode::tensor wrapping TensorErrorCode::rank_too_small,
///         TensorErrorCode::inner_dimension_mismatch or
///         TensorErrorCode::broadcast_mismatch.
[[nodiscard]] std::expected<TensorValue, AutogradError> matmul(const TensorValue& a,
                                                               const TensorValue& b);
/// Same elements under a new shape. Backward: `ga += reshape(g, shape a)`.
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::size_mismatch or TensorErrorCode::element_count_overflow.
[[nodiscard]] std::expected<TensorValue, AutogradError> reshape(const TensorValue& a,
                                                                tensor::Shape shape);
/// Swap two axes (a contiguous copy). Backward: `ga += transpose(g, axis_a, axis_b)`.
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::axis_out_of_range.
[[nodiscard]] std::expected<TensorValue, AutogradError> transpose(const TensorValue& a,
                                                                  std::size_t axis_a,
                                                                  std::size_t axis_b);
/// Columns `[begin, end)` of the last axis, `[..., n] -> [..., end−begin]` (see
/// tensor::slice_last_axis). Backward writes g into those columns of a zero gradient:
/// `ga[..., begin + j] += g[..., j]`, nothing elsewhere.
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::rank_too_small or TensorErrorCode::index_out_of_range.
[[nodiscard]] std::expected<TensorValue, AutogradError> slice_last_axis(
    const TensorValue& a, std::size_t begin, std::size_t end);
/// Sum of all elements, rank 0. Backward: `ga += g` broadcast to the shape of a.
/// \return AutogradErrorCode::released_input (no shape can be wrong).
[[nodiscard]] std::expected<TensorValue, AutogradError> sum(const TensorValue& a);
// region: softmax-op-declaration
/// Row softmax over the last axis (see tensor::softmax_last_axis for the fully masked
/// row policy). Backward per row: `gx_j += y_j · (g_j − Σ_k g_k y_k)`; masked entries
/// (y = 0) receive exactly 0.
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::rank_too_small, TensorErrorCode::non_finite_input or
///         TensorErrorCode::fully_masked_row.
[[nodiscard]] std::expected<TensorValue, AutogradError> softmax_last_axis(
    const TensorValue& a);
// endregion: softmax-op-declaration

}  // namespace llmfs::autograd

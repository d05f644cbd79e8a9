// Chapter 10
#pragma once
/// \file
/// \brief Elementwise arithmetic with numpy broadcasting, sums and reductions over an
/// axis, and sum_to, the adjoint of broadcasting (Chapter 10).

#include <cstddef>
#include <expected>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

/// The numpy broadcast of two shapes: align on the right; each pair of axis lengths
/// must be equal or one of them 1; missing leading axes count as 1. `[2,1,4]` and
/// `[3,1]` give `[2,3,4]`. \param a the first operand's shape. \param b the second
/// operand's shape. \param op the operation name reported in the error. \return
/// TensorErrorCode::broadcast_mismatch naming both shapes and the first bad axis.
[[nodiscard]] std::expected<Shape, TensorError> broadcast_shapes(
    const Shape& a, const Shape& b, std::string_view op = "broadcast");

/// Elementwise `a + b` with broadcasting; result shape broadcast_shapes(a, b).
/// \return TensorErrorCode::broadcast_mismatch (op `"add"`).
[[nodiscard]] std::expected<Tensor, TensorError> add(const Tensor& a, const Tensor& b);
/// Elementwise `a - b` with broadcasting.
/// \return TensorErrorCode::broadcast_mismatch (op `"subtract"`).
[[nodiscard]] std::expected<Tensor, TensorError> subtract(const Tensor& a,
                                                          const Tensor& b);
/// Elementwise (Hadamard) `a ⊙ b` with broadcasting.
/// \return TensorErrorCode::broadcast_mismatch (op `"multiply"`).
[[nodiscard]] std::expected<Tensor, TensorError> multiply(const Tensor& a,
                                                          const Tensor& b);
/// Every element times the scalar `factor`; same shape. Never fails (kept as `expected`
/// so that every op composes the same way).
/// \return no error: every input has a result (the error type is never produced).
[[nodiscard]] std::expected<Tensor, TensorError> scale(const Tensor& input,
                                                       double factor);

/// The sum of all elements as a rank-0 tensor (0.0 for an empty tensor), added in
/// row-major order from 0.0. Never fails.
/// \return no error: every input has a result (the error type is never produced).
[[nodiscard]] std::expected<Tensor, TensorError> sum(const Tensor& input);

// region: reductions-api
/// The sum over one axis, kept with length 1 (numpy `sum(axis, keepdims=True)`):
/// `[2,3] -> [2,1]` for axis 1, so the result broadcasts back against the input. Each
/// output element adds its terms from 0.0 in increasing index along the axis. An empty
/// axis sums to 0.0. \return TensorErrorCode::axis_out_of_range (op `"reduce_sum"`) if
/// `axis >= input.rank()`.
[[nodiscard]] std::expected<Tensor, TensorError> reduce_sum(const Tensor& input,
                                                            std::size_t axis);
/// The mean over one axis, kept with length 1: reduce_sum divided by the axis length.
/// \return TensorErrorCode::axis_out_of_range, or TensorErrorCode::empty_reduction if
///         the axis has length 0 (a mean of nothing is undefined); op `"reduce_mean"`.
[[nodiscard]] std::expected<Tensor, TensorError> reduce_mean(const Tensor& input,
                                                             std::size_t axis);
/// The maximum over one axis, kept with length 1. A NaN anywhere along the axis makes
/// that output NaN (as numpy's `max`). \return TensorErrorCode::axis_out_of_range, or
/// TensorErrorCode::empty_reduction if the axis has length 0 (the maximum of nothing
/// does not exist); op `"reduce_max"`.
[[nodiscard]] std::expected<Tensor, TensorError> reduce_max(const Tensor& input,
                                                            std::size_t axis);
// endregion: reductions-api

/// Reduces a broadcast result back to `target` by summing over the axes that
/// broadcasting expanded: the adjoint of broadcasting, used by backward passes
/// (Chapter 15). `[2,3,4] -> [3,1]` sums axis 0 and axis 2. Elements are added in
/// row-major order of the input. \return TensorErrorCode::reduce_mismatch (op
/// `"sum_to"`) if `target` does not broadcast to the input's shape.
[[nodiscard]] std::expected<Tensor, TensorError> sum_to(const Tensor& input,
                                                        const Shape& target);

}  // namespace llmfs::tensor

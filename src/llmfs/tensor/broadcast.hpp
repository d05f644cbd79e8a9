// Chapter 10
#pragma once
/// \file
/// \brief Elementwise arithmetic with numpy broadcasting, and sums (Chapter 10).

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

/// Reduces a broadcast result back to `target` by summing over the axes that
/// broadcasting expanded: the adjoint of broadcasting, used by backward passes.
/// `[2,3,4] -> [3,1]` sums axis 0 and axis 2. Elements are added in row-major order of
/// the input. \return TensorErrorCode::reduce_mismatch (op `"sum_to"`) if `target` does
/// not broadcast
///         to the input's shape.
[[nodiscard]] std::expected<Tensor, TensorError> sum_to(const Tensor& input,
                                                        const Shape& target);

}  // namespace llmfs::tensor

// Chapter 9
#pragma once
/// \file
/// \brief Reshape and axis transpose: changing how the same elements are indexed
/// (Chapter 9).

#include <cstddef>
#include <expected>

#include <llmfs/tensor/strided.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

// region: reshape-declaration
/// The same elements in the same row-major order under a new shape.
/// `[2,6] -> [2,3,2]` keeps element order; only the indexing changes. The input is
/// const, so its storage is copied as it stands (one contiguous copy, no reordering).
/// \return TensorErrorCode::size_mismatch if the element counts differ,
///         TensorErrorCode::element_count_overflow if the new shape's count overflows.
[[nodiscard]] std::expected<Tensor, TensorError> reshape(const Tensor& input,
                                                         Shape shape);

/// Reshape of a tensor the caller gives up: the storage vector is moved into the
/// result, so no element is copied — a change of metadata only (same errors; on an
/// error the input is left unchanged).
[[nodiscard]] std::expected<Tensor, TensorError> reshape(Tensor&& input, Shape shape);
// endregion: reshape-declaration

// region: transpose-declaration
/// The view a transpose describes, without moving any element: `shape` with lengths `a`
/// and `b` swapped, and the row-major strides of `shape` swapped the same way.
/// Precondition: `a` and `b` are below the rank (transpose() checks).
[[nodiscard]] StridedView transposed_view(const Shape& shape, std::size_t a,
                                          std::size_t b);
// endregion: transpose-declaration

// region: transpose-materialise-declaration
/// Swaps two axes and materialises the result as a new contiguous tensor:
/// `out[..i..j..] = in[..j..i..]`, e.g. `[B,T,h,d_h] --transpose(1,2)--> [B,h,T,d_h]`.
/// Swapping an axis with itself copies the tensor unchanged.
/// \return TensorErrorCode::axis_out_of_range if either axis is not below the rank.
[[nodiscard]] std::expected<Tensor, TensorError> transpose(const Tensor& input,
                                                           std::size_t axis_a,
                                                           std::size_t axis_b);
// endregion: transpose-materialise-declaration

/// Columns `[begin, end)` of the last axis as a new contiguous tensor: `[..., n] ->
/// [..., end−begin]`, `out[..., j] = in[..., begin + j]`. Cuts PyTorch's combined Q/K/V
/// product into its blocks. \return TensorErrorCode::rank_too_small for a rank-0 input,
///         TensorErrorCode::index_out_of_range if `begin > end` or `end > n`
///         (op `"slice_last_axis"`).
[[nodiscard]] std::expected<Tensor, TensorError> slice_last_axis(const Tensor& input,
                                                                 std::size_t begin,
                                                                 std::size_t end);

}  // namespace llmfs::tensor

// Chapter 9
#pragma once
/// \file
/// \brief The one strided-index helper every layout and broadcasting operation uses
/// (Chapter 9).

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <llmfs/tensor/shape.hpp>

namespace llmfs::tensor {

// region: strided-view
/// A description of existing row-major storage under another indexing: element
/// `(i0, …, ik)` of the view is storage element `Σ_a i_a · strides[a]` (Chapter 9). A
/// view owns no elements; Tensor is always contiguous, so the library builds a view
/// only to read a tensor through it and materialise the result (transpose()).
struct StridedView {
  Shape shape;                       ///< the axis lengths of the view
  std::vector<std::size_t> strides;  ///< one stride per axis of `shape`, in elements
};

/// True when the view addresses its elements in row-major order without gaps, i.e. it
/// is a contiguous tensor of its shape: every axis of length above 1 has stride
/// `Π_{b>a} shape[b]` (a length-1 axis is only ever indexed by 0, so its stride is
/// irrelevant), and an empty view is contiguous. Such a view needs no copy to be read
/// as a Tensor; any other needs a gather.
[[nodiscard]] bool is_row_major(const StridedView& view) noexcept;
// endregion: strided-view

/// Strides that read a tensor of shape `input` as if it had shape `output` under numpy
/// broadcasting: axes are aligned on the right, and an input axis of length 1 (or a
/// missing leading axis) gets stride 0 so the same element is reused. Precondition:
/// `input` broadcasts to `output` (checked by the callers, which return typed errors).
[[nodiscard]] std::vector<std::size_t> broadcast_strides(const Shape& input,
                                                         const Shape& output);

// region: for-each-strided
/// Visits every multi-index of `extent` in row-major order and calls `visit(offsets)`,
/// where `offsets[k] = Σ_a index_a · strides[k][a]` is the linear offset of operand k.
///
/// This is the only place where multi-index arithmetic happens: transpose passes
/// permuted strides, broadcasting passes zero strides, reductions pass the strides of
/// the target. Offsets are updated incrementally (an odometer), not recomputed per
/// element. Precondition: every `strides[k]` has `extent.rank()` entries.
template <std::size_t N, typename Visit>
void for_each_strided(const Shape& extent,
                      const std::array<std::span<const std::size_t>, N>& strides,
                      Visit&& visit) {
  const std::size_t rank = extent.rank();
  for (std::size_t axis = 0; axis < rank; ++axis) {
    if (extent[axis] == 0) return;  // an empty axis: nothing to visit
  }
  std::vector<std::size_t> index(rank, 0);
  std::array<std::size_t, N> offsets{};
  while (true) {
    visit(static_cast<const std::array<std::size_t, N>&>(offsets));
    // Advance the odometer: bump the innermost axis, carrying outward.
    std::size_t axis = rank;
    while (axis > 0) {
      --axis;
      ++index[axis];
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] += strides[k][axis];
      if (index[axis] < extent[axis]) break;
      for (std::size_t k = 0; k < N; ++k)
        offsets[k] -= strides[k][axis] * extent[axis];
      index[axis] = 0;
      if (axis == 0) return;
    }
    if (rank == 0) return;  // a scalar extent has exactly one index
  }
}
// endregion: for-each-strided

}  // namespace llmfs::tensor

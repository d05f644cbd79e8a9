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

/// Strides that read a tensor of shape `input` as if it had shape `output` under numpy
/// broadcasting: axes are aligned on the right, and an input axis of length 1 (or a
/// missing leading axis) gets stride 0 so the same element is reused. Precondition:
/// `input` broadcasts to `output` (checked by the callers, which return typed errors).
[[nodiscard]] std::vector<std::size_t> broadcast_strides(const Shape& input,
                                                         const Shape& output);

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

}  // namespace llmfs::tensor

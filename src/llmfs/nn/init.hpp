// Chapter 17
#pragma once
/// \file
/// \brief Deterministic parameter initialization from SplitMix64 (Chapter 17).

#include <cstddef>
#include <expected>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::nn {

/// The initialization bound `1/√fan_in` for a layer that sums `fan_in` inputs per
/// output. Precondition: `fan_in > 0` (uniform_fan_in() checks it).
[[nodiscard]] double fan_in_bound(std::size_t fan_in) noexcept;

/// A tensor of `shape` whose elements are drawn uniformly from `[−b, b)` with
/// `b = 1/√fan_in`, one draw per element in row-major order: `b · (2u − 1)` with
/// `u = rng.next_unit()`. Keeps the variance of `X·W` near that of `X` (LeCun et al.
/// 1998, the rule PyTorch's `nn.Linear` also uses). Everything is validated before any
/// draw, so a rejected call leaves `rng` unchanged. \return NnErrorCode::zero_width for
/// `fan_in == 0`, NnErrorCode::size_overflow if the
///         shape's element count overflows (stage `"initialization"`).
[[nodiscard]] std::expected<tensor::Tensor, NnError> uniform_fan_in(
    const tensor::Shape& shape, std::size_t fan_in, SplitMix64& rng);

}  // namespace llmfs::nn

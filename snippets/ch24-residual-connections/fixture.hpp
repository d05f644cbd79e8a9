// Chapter 24
#pragma once
// Chapter 24's frozen fixtures, shared by the demo and tests/chapters/ch24_*_test.cpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ch24 {

// region: fixture
/// One token of width d = 2: x = (1, 2), shape [1, 2].
inline const std::vector<double> kInput = {1, 2};
/// The branch f(x) = x·W with W = ½·(swap): f(1, 2) = (1, ½). Every block shares it.
inline const std::vector<double> kWeight = {0, 0.5, 0.5, 0};
/// Three blocks; the loss is the sum of the top's outputs.
inline constexpr std::size_t kDepth = 3;
// endregion: fixture

// region: deep-fixture
/// The measured stacks: rows × width inputs, each block SiLU(x·W + b) with W, b drawn
/// by Linear::create (bound 1/√width) from one seed, so both stacks get the same
/// weights. Depth 0 is the loss alone: ‖∂L/∂x‖ = ‖R‖ = √64 = 8.
inline constexpr std::size_t kRows = 4;
inline constexpr std::size_t kWidth = 16;
inline constexpr std::uint64_t kSeed = 24;
inline constexpr std::array<std::size_t, 8> kDepths = {0, 1, 2, 4, 8, 16, 32, 64};
// endregion: deep-fixture

}  // namespace ch24

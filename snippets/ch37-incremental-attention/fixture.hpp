// Chapter 37
#pragma once
// Chapter 37's frozen fixtures, defined once for its program and its tests
// (tests/chapters/ch37_*). The Predict layer: d_model = 2, one head (d_h = 2), every
// matrix the identity, RoPE capacity 4 (pair 0 turns by exactly p radians at position
// p, whatever the base); four tokens, two prefilled, then one at a time. The demo
// layer: a random layer drawn by MultiHeadAttention::create on a random batch.

#include <cstddef>
#include <cstdint>

#include <llmfs/tensor/tensor.hpp>

namespace ch37 {

// region: predict-fixture
/// The Predict layer: W_Q = W_K = W_V = W_O = I₂, one head, T_max = 4.
inline constexpr std::size_t kFixtureWidth = 2;
inline constexpr std::size_t kFixtureCapacity = 4;
inline constexpr std::size_t kFixturePrompt = 2;  ///< prefilled at once

/// The four tokens' rows x₀..x₃ = (1,0), (0,1), (1,1), (2,0), as `[1,4,2]`.
inline llmfs::tensor::Tensor fixture_input() {
  return llmfs::tensor::Tensor::from({1, 4, 2}, {1, 0, 0, 1, 1, 1, 2, 0}).value();
}
// endregion: predict-fixture

/// The demo layer: d_model = 8, h = 2 (d_h = 4), T_max = 10, B = 2; a prompt of 4
/// tokens, then 6 decode steps.
inline constexpr std::size_t kDemoWidth = 8;
inline constexpr std::size_t kDemoHeads = 2;
inline constexpr std::size_t kDemoCapacity = 10;
inline constexpr std::size_t kDemoBatch = 2;
inline constexpr std::size_t kDemoPrompt = 4;
inline constexpr double kDemoBase = 10000.0;
inline constexpr std::uint64_t kDemoSeed = 37;

}  // namespace ch37

// Chapter 30
#pragma once
// Chapter 30's frozen fixture, defined once for its program and its tests
// (tests/chapters/ch30_* and tests/attention/multi_head*): B=1, T=3, d_model=4, h=2
// (d_h=2), W_Q = W_K = W_V = I, W_O swaps the two head blocks, RoPE with capacity 6 and
// base 100, offset 0, and the upstream gradient U of the loss L = Σ MHA(X) ⊙ U.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include <llmfs/tensor/tensor.hpp>

namespace ch30 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kHeadWidth = kModelWidth / kHeads;
inline constexpr std::size_t kMaxPositions = 6;
inline constexpr double kRopeBase = 100.0;
inline constexpr std::size_t kOffset = 0;
inline constexpr const char* kParameterPrefix = "attention";
/// The prefix check replaces the last input row with this one.
inline constexpr std::array<double, 4> kPerturbedLastRow = {3.0, -2.0, -1.0, 4.0};
/// Central differences: step δ and the largest accepted error ε_g.
inline constexpr double kGradientStep = 1e-6;
inline constexpr double kGradientTolerance = 8e-6;

/// The input X [1,3,4]: rows [1,0,1,0], [cos 1,−sin 1,0,1], [cos 2,−sin 2,1,1].
inline llmfs::tensor::Tensor fixture_input() {
  return llmfs::tensor::Tensor::from({kBatch, kTokens, kModelWidth},
                                     {1.0, 0.0, 1.0, 0.0,                       //
                                      std::cos(1.0), -std::sin(1.0), 0.0, 1.0,  //
                                      std::cos(2.0), -std::sin(2.0), 1.0, 1.0})
      .value();
}

/// X with its last row replaced by kPerturbedLastRow.
inline llmfs::tensor::Tensor perturbed_input() {
  llmfs::tensor::Tensor x = fixture_input();
  std::ranges::copy(kPerturbedLastRow, x.mutable_values().end() - kModelWidth);
  return x;
}

/// The 4×4 identity: W_Q = W_K = W_V.
inline llmfs::tensor::Tensor identity() {
  return llmfs::tensor::Tensor::from({kModelWidth, kModelWidth},
                                     {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})
      .value();
}

/// W_O stored [in, out]: row r receives concatenated coordinate r; it swaps the blocks.
inline llmfs::tensor::Tensor block_swap() {
  return llmfs::tensor::Tensor::from({kModelWidth, kModelWidth},
                                     {0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0})
      .value();
}

/// U = ∂L/∂MHA(X), [1,3,4].
inline llmfs::tensor::Tensor fixture_upstream() {
  return llmfs::tensor::Tensor::from(
             {kBatch, kTokens, kModelWidth},
             {1.0, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9})
      .value();
}

}  // namespace ch30

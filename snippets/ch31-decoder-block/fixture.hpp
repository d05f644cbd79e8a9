// Chapter 31
#pragma once
// Chapter 31's frozen fixture, defined once for its program and its tests
// (tests/chapters/ch31_*): B=1, T=3, d_model=4, h=2 (d_h=2), d_ff=4, every projection
// matrix the identity (W_Q, W_K, W_V, W_O, W₁, W₃, W₂), both gains 1, RMSNorm ε = 10⁻⁶,
// RoPE capacity 4 and base 100.

#include <cstddef>

#include <llmfs/tensor/tensor.hpp>

namespace ch31 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kHiddenWidth = 4;
inline constexpr std::size_t kMaxPositions = 4;
inline constexpr double kRopeBase = 100.0;
inline constexpr double kEpsilon = 1e-6;
inline constexpr const char* kPrefix = "block";
/// The input scale of the Predict's second question.
inline constexpr double kScale = 10.0;

// region: fixture-input
/// X [1,3,4]: token 0 is [3,3,3,3] (RMS 3), tokens 1 and 2 are mixed rows.
inline llmfs::tensor::Tensor fixture_input() {
  return llmfs::tensor::Tensor::from({kBatch, kTokens, kModelWidth},
                                     {3.0, 3.0, 3.0, 3.0,    //
                                      1.0, -1.0, 2.0, 0.0,   //
                                      0.0, 2.0, -2.0, 1.0})  //
      .value();
}
// endregion: fixture-input

/// X with its last row replaced: the causality check.
inline llmfs::tensor::Tensor perturbed_input() {
  llmfs::tensor::Tensor x = fixture_input();
  auto values = x.mutable_values();
  values[8] = 5.0;
  values[9] = -3.0;
  values[10] = 1.0;
  values[11] = 2.0;
  return x;
}

}  // namespace ch31

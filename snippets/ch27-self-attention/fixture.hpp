// Chapter 27
#pragma once
// Chapter 27's frozen fixture, shared by its program and its tests: B=1, T=3,
// d_model=d_k=d_v=2 and identity projections, so that Q = K = V = X.

#include <cstddef>
#include <vector>

namespace ch27 {

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kWidth = 2;
/// X [1,3,2]: the token rows [1,0], [0,1], [1,1].
inline const std::vector<double> kInput = {1, 0, 0, 1, 1, 1};
/// W_Q = W_K = W_V = I [2,2].
inline const std::vector<double> kIdentity = {1, 0, 0, 1};
/// ∂loss/∂output [1,3,2], the seed of the backward pass.
inline const std::vector<double> kUpstream = {1.0, -0.5, 0.25, 0.75, -0.3, 0.8};
/// The saturation fixture's key width (exercise 5 repeats it at 64).
inline constexpr std::size_t kSaturationWidth = 16;
/// Exercise 3: every key row of the fixture plus c = [5,-3].
inline const std::vector<double> kShiftedKeys = {6, -3, 5, -2, 6, -2};
/// Exercise 4: the input with tokens 0 and 2 swapped.
inline const std::vector<double> kSwappedInput = {1, 1, 0, 1, 1, 0};

}  // namespace ch27

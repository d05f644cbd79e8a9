// Chapter 26
#pragma once
// Chapter 26's frozen fixture, shared by the demo and tests/chapters/ch26_*_test.cpp.

#include <vector>

namespace ch26 {

// region: fixture
/// Two tokens of width d_model = 2: X [T=2, d=2].
inline const std::vector<double> kInput = {1, 2,  //
                                           3, -1};
/// The three weights, each [d, d] stored [in, out]; none is symmetric, so a transposed
/// or swapped weight changes the numbers.
inline const std::vector<double> kQuery = {1, 0,  //
                                           2, -1};
inline const std::vector<double> kKey = {0, 3,  //
                                         1, 1};
inline const std::vector<double> kValue = {2, 1,  //
                                           0, -2};
/// Upstream gradients ∂L/∂Q, ∂L/∂K, ∂L/∂V [2, 2]: L = Σ Q⊙G_Q + K⊙G_K + V⊙G_V.
inline const std::vector<double> kUpstreamQuery = {1, 0,  //
                                                   0, 1};
inline const std::vector<double> kUpstreamKey = {0, 1,  //
                                                 1, 0};
inline const std::vector<double> kUpstreamValue = {1, 1,  //
                                                   0, -1};
// endregion: fixture

}  // namespace ch26

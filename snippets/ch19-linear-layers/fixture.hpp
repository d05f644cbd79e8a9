// Chapter 19
#pragma once
// Chapter 19's frozen fixtures, shared by the demo and tests/chapters/ch19_*_test.cpp.

#include <vector>

namespace ch19 {

// region: fixture
/// Two tokens of width in = 3: X [T=2, in=3].
inline const std::vector<double> kInput = {1, 2, 0,  //
                                           0, 1, -1};
/// The weight W [in=3, out=2], stored [in, out]: row i says where input feature i goes.
inline const std::vector<double> kWeight = {1, -1,  //
                                            2, 0,   //
                                            0, 3};
/// The bias b [out=2].
inline const std::vector<double> kBias = {0.5, -0.5};
/// The upstream gradient G = ∂L/∂Y [2, 2]; the loss is L = Σ Y ⊙ G.
inline const std::vector<double> kUpstream = {1, 0,  //
                                              2, -1};
// endregion: fixture

// region: square-fixture
/// The trap: a square weight [2, 2] stored [in, out], and its PyTorch layout [out, in].
inline const std::vector<double> kSquareInput = {1, 2,  //
                                                 0, 1};
inline const std::vector<double> kSquareWeight = {1, 2,  //
                                                  3, 4};
inline const std::vector<double> kSquareTorchWeight = {1, 3,  //
                                                       2, 4};
// endregion: square-fixture

}  // namespace ch19

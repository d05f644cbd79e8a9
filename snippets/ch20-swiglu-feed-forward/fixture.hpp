// Chapter 20
#pragma once
// Chapter 20's frozen fixture, shared by the demo and tests/chapters/ch20_*_test.cpp:
// two tokens, d_model = 2, d_ff = 3, every SiLU argument 0 or ±ln 3.

#include <cmath>
#include <vector>

namespace ch20 {

// region: fixture
/// ln 3: σ(ln 3) = 3/4 and σ(−ln 3) = 1/4, so SiLU(±ln 3) = ±(3/4 or 1/4)·ln 3.
inline const double kLn3 = std::log(3.0);
/// X [T=2, d_model=2]: the two unit rows, so X·W reads W's rows.
inline const std::vector<double> kInput = {1, 0,  //
                                           0, 1};
/// The gate W₁ [d_model=2, d_ff=3].
inline const std::vector<double> kGate = {0,    kLn3, -kLn3,  //
                                          kLn3, 0,    0};
/// The up projection W₃ [d_model=2, d_ff=3].
inline const std::vector<double> kUp = {1, 2, 4,  //
                                        2, 1, 1};
/// The down projection W₂ [d_ff=3, d_model=2].
inline const std::vector<double> kDown = {1, 0,  //
                                          0, 1,  //
                                          1, 1};
// endregion: fixture

}  // namespace ch20

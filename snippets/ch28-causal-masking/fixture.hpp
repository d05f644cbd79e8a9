// Chapter 28
#pragma once
// Chapter 28's fixture, shared by its program and its tests: Chapter 27's three tokens
// and identity projections, plus the inputs of the prefix check and of the exercises.

#include <array>
#include <vector>

#include "../ch27-self-attention/fixture.hpp"

namespace ch28 {

using namespace ch27;  // the three tokens, identity projections and upstream

/// The prefix check replaces the last token by this row.
inline constexpr std::array<double, kWidth> kReplacement = {3.0, -2.0};
/// Exercise 3: the input with token 1 changed to [-2,5].
inline const std::vector<double> kToken1Changed = {1, 0, -2, 5, 1, 1};
/// Exercise 5's finite stand-in for −∞.
inline constexpr double kFiniteMask = -10.0;

}  // namespace ch28

// Chapter 22
#pragma once
// Chapter 22's frozen fixture, shared by the demo and tests/chapters/ch22_*_test.cpp:
// two parameters in two named groups with constant gradients, and the one-parameter
// problem on which the variants of the update are compared.

#include <vector>

#include <llmfs/training/adamw.hpp>

namespace ch22 {

// region: fixture
/// η = 0.1, β₁ = 0.9, β₂ = 0.999 and ε = 0, so that m̂/√v̂ is exactly ±1 for a
/// constant gradient.
inline constexpr llmfs::training::AdamWHyper kHyper{0.1, 0.9, 0.999, 0.0};
/// A weight [1, 2] decayed with λ = 0.1 and a norm gain [1] that is not.
inline const std::vector<llmfs::training::ParameterGroup> kGroups = {
    {"decay", 0.1, {{"linear.weight", llmfs::tensor::Shape{1, 2}}}},
    {"no_decay", 0.0, {{"norm.gain", llmfs::tensor::Shape{1}}}}};
/// Their starting values and their (constant) gradients.
inline const std::vector<double> kWeight = {1.0, -2.0}, kGain = {1.0};
inline const std::vector<double> kWeightGradient = {0.5, -0.25}, kGainGradient = {3.0};
/// The variants' problem: one parameter θ₀ = 1, loss (θ − 2)²/2, so g = θ − 2;
/// η = 0.1, λ = 0.1, ε = 0, three steps.
inline constexpr double kTheta0 = 1.0, kTarget = 2.0, kLambda = 0.1;
// endregion: fixture

}  // namespace ch22

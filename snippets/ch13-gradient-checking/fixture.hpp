// Chapter 13
#pragma once
// Chapter 13's frozen fixture, shared by the demo and tests/chapters/ch13_*_test.cpp:
// the function of the prediction, the steps of the error table, and the points where a
// careless check goes wrong.

#include <array>
#include <limits>

namespace ch13 {

// region: fixture
/// The prediction: f(a, b) = a²·b at a = 3, b = 2, two one-element inputs. By hand,
/// ∂f/∂a = 2ab = 12 and ∂f/∂b = a² = 9.
inline constexpr double kA = 3.0;
inline constexpr double kB = 2.0;
inline constexpr std::array<double, 2> kGradient{12.0, 9.0};
/// The same gradient with one mistake: ∂f/∂b written as 2ab/3 = 8.
inline constexpr std::array<double, 2> kWrongGradient{12.0, 8.0};
/// The same quadratic at a = 3.1: still no truncation error in a, but the probes round
/// differently, so ∂f/∂a misses 2ab = 12.4 by a rounding error.
inline constexpr double kShiftedA = 3.1;

/// The error table: exp at x = 1, steps δ = 10⁻¹ … 10⁻¹³ (h = δ, since |x| ≤ 1).
inline constexpr double kTableX = 1.0;
inline constexpr std::array<double, 13> kSteps{
    1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13};

/// Scales: f(x) = x at 10⁸ and at 10³⁰⁰, exp at 30.
inline constexpr double kLargeX = 1e8;
inline constexpr double kHugeX = 1e300;
inline constexpr double kExpX = 30.0;
/// A fixed step, the way a checker without scaling would probe: h = 10⁻⁶ for every x.
inline constexpr double kFixedStep = 1e-6;

/// Typed errors: a step of zero, a step too small to move x = 1, and the largest
/// double, whose probe x + h overflows.
inline constexpr double kZeroStep = 0.0;
inline constexpr double kTinyStep = 1e-17;
inline constexpr double kLargestDouble = std::numeric_limits<double>::max();
// endregion: fixture

/// Exercise 1: the forward difference of exp at 1, at these steps.
inline constexpr std::array<double, 2> kForwardSteps{1e-5, 1e-8};
/// Exercise 2: x³ at x = 1 with a large step, δ = 0.1.
inline constexpr double kCubicX = 1.0;
inline constexpr double kCubicStep = 0.1;
/// Exercise 3: ReLU a tenth of a step to the right of its kink.
inline constexpr double kNearKinkX = 1e-7;

}  // namespace ch13

// Chapter 12
#pragma once
// Chapter 12's frozen fixture, shared by the demo and tests/chapters/ch12_*_test.cpp:
// the rows of the prediction, the seeded random rows of the measured bounds, and the
// exercises' inputs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace ch12 {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// region: fixture
/// The prediction's rows. `small` is derived by hand; `large` is `small` + 999, so
/// the stable softmax must return the same bits; `tiny` is two equal very negative
/// logits; `masked` blocks its middle entry with −∞; `underflow` has one probability
/// too small for a double; `fully_masked` has no allowed entry at all.
inline constexpr std::array<double, 3> kSmall{1.0, 2.0, 3.0};
inline constexpr std::array<double, 3> kLarge{1000.0, 1001.0, 1002.0};
inline constexpr std::array<double, 2> kTiny{-10000.0, -10000.0};
inline constexpr std::array<double, 3> kMasked{0.0, -kInf, 0.0};
inline constexpr std::array<double, 2> kUnderflow{0.0, -800.0};
inline constexpr std::array<double, 2> kFullyMasked{-kInf, -kInf};

/// The measured bounds: this many seeded random rows of 1 to kMaxWidth logits, uniform
/// in [−kSpread, kSpread), and the shift added to each for the shift-invariance check.
inline constexpr std::size_t kRandomRows = 2000;
inline constexpr std::size_t kMaxWidth = 64;
inline constexpr double kSpread = 40.0;
inline constexpr std::uint64_t kSeed = 12;
// endregion: fixture

/// Exercise 1: logits [0, ln 2, ln 3].
/// Exercise 2: the integers k scanned for where naive softmax([k, k]) breaks.
inline constexpr int kScanLow = -800;
inline constexpr int kScanHigh = 800;
/// Exercise 3: the cross-entropy of the target class 1 for the logits kUnderflow.
inline constexpr std::size_t kTarget = 1;

}  // namespace ch12

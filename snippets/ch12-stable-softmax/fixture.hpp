// Chapter 12
#pragma once
// Chapter 12's frozen fixture, shared by the demo and tests/chapters/ch12_*_test.cpp:
// the rows of the prediction and the seeded random rows of the measured bounds.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include <llmfs/core/splitmix64.hpp>

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

// region: random-rows
/// One seeded random row: logits that are multiples of 2⁻²⁰ in [−kSpread, kSpread),
/// about one in eight masked with −∞ (never the last, so never all), and an integer
/// shift c with |c| ≤ 2²⁰, so that x + c is exact.
struct RandomRow {
  std::vector<double> logits;  ///< x
  double shift = 0.0;          ///< c
};

/// `count` rows drawn with SplitMix64 from `seed`, 1 to kMaxWidth logits each.
inline std::vector<RandomRow> random_rows(std::uint64_t seed, std::size_t count) {
  constexpr double kGrid = 1048576.0;  // 2²⁰: logits are k / 2²⁰, exact in a double
  llmfs::SplitMix64 rng(seed);
  std::vector<RandomRow> rows(count);
  for (RandomRow& row : rows) {
    const std::size_t width = 1 + rng.next_u64() % kMaxWidth;
    for (std::size_t j = 0; j < width; ++j) {
      const auto k = static_cast<std::int64_t>(
          rng.next_u64() % static_cast<std::uint64_t>(2 * kSpread * kGrid));
      const bool mask = rng.next_u64() % 8 == 0 && j + 1 < width;
      row.logits.push_back(mask ? -kInf : static_cast<double>(k) / kGrid - kSpread);
    }
    row.shift = static_cast<double>(
        static_cast<std::int64_t>(rng.next_u64() % (1u << 21)) - (1 << 20));
  }
  return rows;
}
// endregion: random-rows

}  // namespace ch12

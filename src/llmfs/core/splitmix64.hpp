// Chapter 6
#pragma once
/// \file
/// \brief SplitMix64: the small deterministic generator behind every random choice in
/// the course, from sampling the bigram baseline (Chapter 6) to parameter
/// initialization (Chapter 17).

#include <cstdint>

namespace llmfs {

// region: splitmix64
/// Steele, Lea and Flood's SplitMix64 generator (2014), as in Vigna's reference
/// `splitmix64.c`.
///
/// The state is one 64-bit word. Each draw adds the golden-ratio increment
/// `0x9E3779B97F4A7C15` to the state and mixes a copy with two xor-shift-multiply steps
/// and a final xor-shift. Seed 0 gives `0xE220A8397B1DCDAF` first. Copying a generator
/// copies its state, which is how constructors draw on a trial copy and commit only on
/// success.
class SplitMix64 {
 public:
  /// A generator whose state is `seed`.
  explicit constexpr SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

  /// The next 64-bit output; advances the state by one step.
  constexpr std::uint64_t next_u64() noexcept {
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  /// A double uniform on `[0, 1)`: the top 53 bits of next_u64() times 2⁻⁵³ (exact, one
  /// draw).
  constexpr double next_unit() noexcept {
    return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  }

  /// The current state word (the seed before any draw).
  [[nodiscard]] constexpr std::uint64_t state() const noexcept { return state_; }

  /// Two generators are equal when their states are equal (they will draw the same
  /// numbers).
  friend constexpr bool operator==(const SplitMix64&, const SplitMix64&) = default;

 private:
  std::uint64_t state_;
};
// endregion: splitmix64

}  // namespace llmfs

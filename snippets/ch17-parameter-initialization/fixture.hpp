// Chapter 17
#pragma once
// Chapter 17's frozen fixture, shared by the demo and tests/chapters/ch17_*_test.cpp.

#include <array>
#include <cstddef>
#include <cstdint>

namespace ch17 {

// region: fixture
/// Vigna's splitmix64.c seeded with 1234567 prints these five outputs first.
inline constexpr std::uint64_t kSeed = 1234567;
inline constexpr std::array<std::uint64_t, 5> kPublished = {
    6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
    4593380528125082431ULL, 16408922859458223821ULL};
/// A weight [3, 2] with fan-in 3: LeCun uniform has bound √3·√(1/3) = 1.
inline constexpr std::size_t kFanIn = 3, kFanOut = 2;
/// The stack: rows of input, the width of every layer, the number of layers.
inline constexpr std::size_t kRows = 256, kWidth = 128, kDepth = 8;
/// The scales measured: LeCun's σ = 1/√128 times 1, 2 and ½.
inline constexpr std::array<double, 3> kGains = {1.0, 2.0, 0.5};
// endregion: fixture

}  // namespace ch17

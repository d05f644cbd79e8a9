// Chapter 8
#pragma once
// Chapter 8's frozen fixture, shared by the demo and tests/chapters/ch08_*_test.cpp:
// the [2,3,4] tensor, the indices the reader predicts, and the shapes that must be
// refused.

#include <array>
#include <cstddef>

namespace ch08 {

// region: fixture
/// The prediction's tensor: shape [2,3,4] (two blocks of three rows of four), holding
/// 0, 1, …, 23 in storage order, so every element's value is its own offset.
inline constexpr std::array<std::size_t, 3> kDims{2, 3, 4};
/// The indices whose offsets the reader predicts: by hand 0·12 + 1·4 + 2·1 = 6,
/// 1·12 + 0·4 + 1·1 = 13 and 1·12 + 2·4 + 3·1 = 23.
inline constexpr std::array<std::array<std::size_t, 3>, 3> kPicks{
    {{0, 1, 2}, {1, 0, 1}, {1, 2, 3}}};

/// Refused: 2³² · 2³² = 2⁶⁴ elements, one more than std::size_t can count.
inline constexpr std::size_t kHalfWord = std::size_t{1} << 32;
/// Refused: entry 3 on axis 1, whose length is 3 (entries run 0, 1, 2).
inline constexpr std::array<std::size_t, 3> kPastAxis{1, 3, 0};
/// Refused: a rank-2 index for a rank-3 tensor.
inline constexpr std::array<std::size_t, 2> kShortIndex{1, 2};
// endregion: fixture

/// Exercise 1: strides of [5,1,7], and the offset of (4,0,6) in it.
inline constexpr std::array<std::size_t, 3> kExerciseDims{5, 1, 7};
inline constexpr std::array<std::size_t, 3> kExerciseIndex{4, 0, 6};
/// Exercise 2: which index of the fixture holds offset 17?
inline constexpr std::size_t kExerciseOffset = 17;

}  // namespace ch08

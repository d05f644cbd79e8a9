// Chapter 9
#pragma once
// Chapter 9's frozen fixture, shared by the demo and tests/chapters/ch09_*_test.cpp:
// the [2,3,4] tensor of chapter 8 again, the reshapes and transposes the reader
// predicts, and the requests that must be refused.

#include <array>
#include <cstddef>
#include <vector>

namespace ch09 {

// region: fixture
/// The tensor: shape [2,3,4] holding 0, 1, …, 23 in storage order (value = offset).
inline constexpr std::array<std::size_t, 3> kDims{2, 3, 4};
/// Reshapes of its 24 elements: [6,4], [4,6], [24] and [2,12].
inline const std::vector<std::vector<std::size_t>> kReshapes{
    {6, 4}, {4, 6}, {24}, {2, 12}};
/// The transposes the reader predicts: axes (0,2) and (1,2).
inline constexpr std::array<std::array<std::size_t, 2>, 2> kTransposes{
    {{0, 2}, {1, 2}}};
/// One element of the (0,2) view: by hand 3·1 + 1·4 + 0·12 = 7 in storage.
inline constexpr std::array<std::size_t, 3> kViewIndex{3, 1, 0};
/// A shape whose transpose (0,1) keeps its axes longer than 1 in their order (only the
/// unit axis moves): no copy is needed.
inline constexpr std::array<std::size_t, 3> kUnitDims{2, 1, 4};
// endregion: fixture

/// Exercise 1: the storage offset that index (2,2,1) of the (0,2) view reads.
inline constexpr std::array<std::size_t, 3> kExerciseIndex{2, 2, 1};
/// Exercise 2: which transposes of [2,3,1] are still row-major? Its (0,2) swaps a unit
/// axis, yet needs a copy: the axes of lengths 2 and 3 change places.
inline constexpr std::array<std::size_t, 3> kExerciseDims{2, 3, 1};

}  // namespace ch09

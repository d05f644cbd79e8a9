// Chapter 10
#pragma once
// Chapter 10's frozen fixture, shared by the demo and tests/chapters/ch10_*_test.cpp: a
// 2×3 matrix, a row and a column to broadcast against it, and the shapes that go wrong.

#include <array>
#include <cstddef>

namespace ch10 {

// region: fixture
/// x, shape [2,3]: the rows are (1, 2, 3) and (4, 5, 6).
inline constexpr std::array<double, 6> kMatrix{1, 2, 3, 4, 5, 6};
/// A row, shape [3]: broadcast against x it is added to every row.
inline constexpr std::array<double, 3> kRow{10, 20, 30};
/// A column, shape [2,1]: broadcast against x it is added to every column.
inline constexpr std::array<double, 2> kColumn{100, 200};
/// A vector of length 2, shape [2]: aligned on the right it meets x's 3 columns.
inline constexpr std::array<double, 2> kBadRow{7, 8};
// endregion: fixture

/// Exercise 1: the broadcast of [5,1,4] and [3,1].
inline constexpr std::array<std::size_t, 3> kExerciseLeft{5, 1, 4};
inline constexpr std::array<std::size_t, 2> kExerciseRight{3, 1};

}  // namespace ch10

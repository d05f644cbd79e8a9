// Chapter 11
#pragma once
// Chapter 11's frozen fixture, shared by the demo and tests/chapters/ch11_*_test.cpp: a
// 2×3 and a 3×2 matrix, a second left matrix that picks rows, and the sizes of the
// random comparison.

#include <array>
#include <cstddef>

namespace ch11 {

// region: fixture
/// a, shape [2,3]: rows (1, 2, 3) and (4, 5, 6).
inline constexpr std::array<double, 6> kLeft{1, 2, 3, 4, 5, 6};
/// b, shape [3,2]: rows (7, 8), (9, 10), (11, 12).
inline constexpr std::array<double, 6> kRight{7, 8, 9, 10, 11, 12};
/// A second left matrix, [2,3], that selects the first two rows of b.
inline constexpr std::array<double, 6> kSelector{1, 0, 0, 0, 1, 0};
/// The random comparison of the naive triple loop with the library: [n,k]·[k,m].
inline constexpr std::size_t kRandomN = 37, kRandomK = 53, kRandomM = 29;
/// The diagram's walk: b of [kWalkK, kWalkM] doubles, two 64-byte cache lines per row.
inline constexpr std::size_t kWalkK = 8, kWalkM = 16;
// endregion: fixture

}  // namespace ch11

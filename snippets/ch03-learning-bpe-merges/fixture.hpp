// Chapter 3
#pragma once
// Chapter 3's frozen fixture, shared by the demo and tests/chapters/ch03_*_test.cpp:
// the two documents the reader trains by hand, the rule cases, the slice of the real
// corpus, and the exercises' inputs.

#include <array>
#include <cstddef>
#include <string_view>

namespace ch03 {

// region: fixture
/// The prediction's corpus: two documents, ten chunks, small enough to count by hand.
inline constexpr std::array<std::string_view, 2> kFixture{"the cat sat on the mat\n",
                                                          "the hat\n"};

/// The course's vocabulary: 256 bytes + 3,838 merges + BOS + EOS.
inline constexpr std::size_t kCourseVocab = 4096;
// endregion: fixture

/// A run of one byte beside a repeated pair: the counting rule decides the first merge.
inline constexpr std::string_view kRunCase = "bbbb abab";
/// Three pairs with equal counts: the tie-break decides.
inline constexpr std::string_view kTieCase = "ba ab ba ab";
/// Vocabulary sizes the trainer refuses (below 258) and the smallest it accepts.
inline constexpr std::array<std::size_t, 3> kVocabCases{255, 257, 258};

/// The bounded slice of the King James text that both trainers learn in the demo.
inline constexpr std::size_t kSliceDocuments = 10;
inline constexpr std::size_t kSliceVocab = 258 + 100;
/// How many of the slice's merges the report prints.
inline constexpr std::size_t kSliceShown = 12;

/// Exercise 1: a run of five equal bytes.
inline constexpr std::string_view kFiveRun = "aaaaa";
/// Exercise 3: the fixture with room for two merges only.
inline constexpr std::size_t kTwoMergeVocab = 260;

}  // namespace ch03

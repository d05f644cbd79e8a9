// Chapter 5
#pragma once
// Chapter 5's frozen fixture, shared by the demo and tests/chapters/ch05_*_test.cpp:
// the document the reader windows by hand, the window configurations, and one bad input
// per windowing error. The corpus is chapter 2's fixture_corpus.txt with its partition.

#include <array>
#include <string_view>

#include <llmfs/text/windows.hpp>

namespace ch05 {

using llmfs::text::Specials;
using llmfs::text::TokenId;
using llmfs::text::WindowConfig;

// region: fixture
/// The prediction's document: "Greetings 2" of the fixture corpus, 13 bytes of text.
inline constexpr std::string_view kPredictText = "1 good night\n";
/// Its windows: T = 4 tokens of context, a new window every S = 3 tokens.
inline constexpr WindowConfig kPredictConfig{4, 3};

/// Byte-level ids (a tokenizer with zero merges, Chapter 4's layout with M = 0): bytes
/// 0–255, BOS = 256, EOS = 257, V = 258.
inline constexpr Specials kByteSpecials{256, 257, 258};

/// The configurations measured on the fixture: bigram contexts (Chapter 6), the
/// prediction's windows, and windows of 8 every 4 tokens.
inline constexpr std::array<WindowConfig, 3> kFixtureConfigs{{{1, 1}, {4, 3}, {8, 4}}};
/// The configurations measured on the King James text: bigram contexts,
/// half-overlapping windows of 64, and windows of 256 that tile each document (S = T +
/// 1).
inline constexpr std::array<WindowConfig, 3> kCorpusConfigs{
    {{1, 1}, {64, 32}, {256, 257}}};

/// One bad input per windowing error.
inline constexpr std::array<WindowConfig, 3> kBadConfigs{{{0, 1}, {4, 0}, {4, 6}}};
inline constexpr std::array<TokenId, 3> kUnknownId{104, 105, 300};  // 300 ≥ V = 258
inline constexpr std::array<TokenId, 3> kInnerEos{104, 257, 105};   // EOS inside text
inline constexpr Specials kSameSpecials{256, 256, 258};             // BOS = EOS
// endregion: fixture

/// Exercise 1: n = 15 (the prediction's sequence) and T = 4 for S = 1 … 5.
inline constexpr std::size_t kExerciseLength = 15;
inline constexpr std::size_t kExerciseContext = 4;

}  // namespace ch05

// Chapter 7
#pragma once
// Chapter 7's frozen fixture, shared by the demo and tests/chapters/ch07_*_test.cpp:
// chapter 6's three-letter documents under two tokenizers, the letters (V = 5) and the
// letters plus one merged token `an` (V = 6), so that the same text is predicted in a
// different number of tokens.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "../ch06-a-bigram-baseline/fixture.hpp"

namespace ch07 {

using ch06::TokenId;
using ch06::TokenSequence;

// region: fixture
/// Tokenizer 1 is chapter 6's: a = 0, b = 1, n = 2, BOS = 3, EOS = 4 (V = 5).
/// Tokenizer 2 adds the merge a n -> `an` = 3, so BOS = 4, EOS = 5 (V = 6):
/// "banana" becomes b an an a, "nab" stays n a b, "ban" becomes b an.
inline constexpr std::size_t kMergedVocab = 6;
inline constexpr TokenId kMergedAn = 3;
inline constexpr TokenId kMergedBos = 4;
inline constexpr TokenId kMergedEos = 5;
// endregion: fixture

/// The pseudo-counts compared on the King James validation partition.
inline constexpr std::array<double, 4> kAlphas{1.0, 0.1, 0.01, 0.001};

/// Exercise 4: a model's reported loss per token and its tokenizer's bytes per token.
inline constexpr double kExerciseNatsPerToken = 1.2;
inline constexpr double kExerciseBytesPerToken = 3.5;

// region: merged-tokenizer
/// Tokenizer 2: letters, with each `an` (left to right) replaced by the merged token.
inline TokenSequence encode_merged(std::string_view text) {
  TokenSequence tokens;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool an = text.substr(i, 2) == "an";
    tokens.push_back(an ? kMergedAn : ch06::encode_letters(text.substr(i, 1))[0]);
    i += an ? 1 : 0;
  }
  return tokens;
}

/// A token's name under tokenizer 2: `an`, BOS, EOS, or its letter.
inline std::string merged_name(TokenId id) {
  if (id == kMergedAn) return "an";
  if (id == kMergedBos) return "BOS";
  if (id == kMergedEos) return "EOS";
  return ch06::token_name(id);
}
// endregion: merged-tokenizer

}  // namespace ch07

// Chapter 6
#pragma once
// Chapter 6's frozen fixture, shared by the demo and tests/chapters/ch06_*_test.cpp: a
// three-letter alphabet, two training documents and one validation document small
// enough to count by hand, and the seeds of the samples.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/models/bigram.hpp>

namespace ch06 {

using llmfs::models::TokenId;
using llmfs::models::TokenSequence;

// region: fixture
/// The toy tokenizer: one token per letter, a = 0, b = 1, n = 2; then BOS = 3 and
/// EOS = 4, the course's layout (specials after the ordinary tokens). V = 5.
inline constexpr std::string_view kAlphabet = "abn";
inline constexpr std::size_t kFixtureVocab = 5;
inline constexpr int kFixtureBos = 3;
inline constexpr int kFixtureEos = 4;
/// The training partition: two documents; pairs never cross from one to the other.
inline constexpr std::array<std::string_view, 2> kTrain{"banana", "nab"};
/// The validation partition: one document the model never counted.
inline constexpr std::array<std::string_view, 1> kValidation{"ban"};
/// Add-one (Laplace) smoothing: every pair gets one pseudo-count.
inline constexpr double kFixtureAlpha = 1.0;
// endregion: fixture

/// Samples: the seed of the generator, how many documents, and the cap on each.
inline constexpr std::uint64_t kSampleSeed = 6;
inline constexpr std::size_t kFixtureSamples = 5;
inline constexpr std::size_t kCorpusSamples = 2;
inline constexpr std::size_t kMaxSampleTokens = 12;
inline constexpr std::size_t kMaxCorpusSampleTokens = 60;

/// Exercise 2: the same counts with a smaller pseudo-count.
inline constexpr double kExerciseAlpha = 0.5;
/// Exercise 3: the course's vocabulary size, for the memory of a dense table.
inline constexpr std::size_t kCourseVocab = 4096;

// region: toy-tokenizer
/// The fixture's text -> token ids: each letter's index in kAlphabet (the fixture's
/// words use only those letters).
inline TokenSequence encode_letters(std::string_view text) {
  TokenSequence tokens;
  for (char letter : text)
    tokens.push_back(static_cast<TokenId>(kAlphabet.find(letter)));
  return tokens;
}

/// A token's name: its letter, or BOS / EOS.
inline std::string token_name(TokenId id) {
  if (id == kFixtureBos) return "BOS";
  if (id == kFixtureEos) return "EOS";
  return std::string(1, kAlphabet[static_cast<std::size_t>(id)]);
}
// endregion: toy-tokenizer

/// Each text through `encode` (encode_letters here, chapter 7's merged tokenizer too):
/// one token sequence per document.
template <class Encode>
std::vector<TokenSequence> encode_all(std::span<const std::string_view> texts,
                                      Encode encode) {
  std::vector<TokenSequence> documents;
  for (std::string_view text : texts)
    documents.push_back(encode(text));
  return documents;
}

}  // namespace ch06

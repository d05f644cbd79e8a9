// Chapter 18
#pragma once
// Chapter 18's frozen fixture, shared by the demo and tests/chapters/ch18_*_test.cpp.

#include <cstddef>
#include <string_view>

namespace ch18 {

// region: fixture
/// Five bytes, framed BOS … EOS by the byte-level tokenizer (no merges: V = 258).
inline constexpr std::string_view kText = "hi hi";
/// One window of T = 6 context tokens: BOS h i ␠ h i (its next tokens end with EOS).
inline constexpr std::size_t kContext = 6;
/// The table [V = 258, d_model = 2]: row r is (r, −r), readable by hand.
inline constexpr std::size_t kWidth = 2;
/// The cost and scale example: V = 4,096, d_model = 128.
inline constexpr std::size_t kVocab = 4096, kModelWidth = 128;
// endregion: fixture

}  // namespace ch18

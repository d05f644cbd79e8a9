// Chapter 1
#pragma once
// Chapter 1's frozen fixture, shared by the demo and tests/chapters/ch01_*_test.cpp:
// the words the reader encodes by hand, one malformed byte string per error class, and
// the exercises' inputs.

#include <array>
#include <string_view>

namespace ch01 {

using namespace std::string_view_literals;

// region: fixture
/// The three words of the prediction, as Unicode code points (char32_t literals).
inline constexpr std::array<std::u32string_view, 3> kWords{U"héllo", U"€", U"🙂"};

/// A named byte string for the decoder (bytes written as `\xHH` escapes).
struct ByteCase {
  std::string_view name;   ///< the report key's suffix
  std::string_view bytes;  ///< the bytes, as a string of chars
};

/// One malformed string per error class; most start with a valid prefix, so the error's
/// byte offset is not always 0.
inline constexpr std::array<ByteCase, 6> kMalformed{{
    {"truncated", "caf\xE2\x82"sv},          // € without its last byte
    {"overlong", "a\xC0\xAF"sv},             // '/' (U+002F) spent in two bytes
    {"surrogate", "\xED\xA0\x80"sv},         // U+D800, half of a UTF-16 pair
    {"out_of_range", "\xF4\x90\x80\x80"sv},  // U+110000, one past the last code point
    {"stray_continuation", "h\xA9llo"sv},    // héllo with é's first byte lost
    {"invalid_byte", "\xFF"sv},              // a byte UTF-8 never uses
}};

/// Code point sequences the encoder must refuse: a surrogate and a value too large.
inline constexpr std::array<std::u32string_view, 2> kUnencodable{U"a\xD800",
                                                                 U"\x110000"};
// endregion: fixture

/// The misconception: é as e followed by U+0301 COMBINING ACUTE ACCENT, one character
/// on screen, two code points, three bytes.
inline constexpr std::u32string_view kCombining = U"e\u0301";

/// Exercise 1: the first and last code point of each length.
inline constexpr std::array<char32_t, 8> kBoundaries{0x7F,   0x80,    0x7FF,    0x800,
                                                     0xFFFF, 0x10000, 0x10FFFF, 0xE9};
/// Exercise 2: valid or not, and where does it break?
inline constexpr std::array<ByteCase, 6> kWhichValid{{
    {"C3_28", "\xC3\x28"sv},
    {"E2_82_AC", "\xE2\x82\xAC"sv},
    {"F0_9F_99", "\xF0\x9F\x99"sv},
    {"ED_9F_BF", "\xED\x9F\xBF"sv},
    {"C1_BF", "\xC1\xBF"sv},
    {"F4_8F_BF_BF", "\xF4\x8F\xBF\xBF"sv},
}};
/// Exercise 3: what a decoder that skips the checks makes of the overlong slash.
inline constexpr std::string_view kOverlongSlash = "\xC0\xAF"sv;
/// Exercise 4: text in a script the King James text never uses.
inline constexpr std::u32string_view kUnseenScript = U"日本";

}  // namespace ch01

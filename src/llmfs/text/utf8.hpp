// Chapter 1
#pragma once
/// \file
/// \brief UTF-8 written by hand: Unicode code points to bytes and back, with a typed
/// error for every malformed sequence (RFC 3629; Unicode §3.9, Table 3-7; Chapter 1).
///
/// Units: a byte is an `std::uint8_t` (0–255); a code point is a `char32_t` holding a
/// Unicode scalar value, U+0000–U+10FFFF without the surrogates U+D800–U+DFFF.

#include <array>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace llmfs::text {

/// A sequence of bytes (the model's alphabet: 256 symbols).
using Bytes = std::vector<std::uint8_t>;
/// A sequence of Unicode scalar values.
using CodePoints = std::vector<char32_t>;

// region: utf8-layout
/// One row of the UTF-8 layout: the code points that take `length` bytes, the fixed
/// high bits (`marker`, `marker_bits` of them) of the first byte, and how many payload
/// bits the sequence carries.
struct Utf8Row {
  std::size_t length;        ///< bytes in the sequence, 1–4
  char32_t first;            ///< the smallest code point encoded with `length` bytes
  char32_t last;             ///< the largest one
  std::uint8_t marker;       ///< the first byte's fixed high bits, e.g. 0b110 for 2
  std::size_t marker_bits;   ///< how many high bits `marker` occupies
  std::size_t payload_bits;  ///< code point bits carried by the whole sequence
};

/// The four rows of RFC 3629 §3: every continuation byte is `10xxxxxx` (6 payload
/// bits).
inline constexpr std::array<Utf8Row, 4> kUtf8Layout{{
    {1, 0x0000, 0x007F, 0b0, 1, 7},
    {2, 0x0080, 0x07FF, 0b110, 3, 11},
    {3, 0x0800, 0xFFFF, 0b1110, 4, 16},
    {4, 0x10000, 0x10FFFF, 0b11110, 5, 21},
}};
// endregion: utf8-layout

// region: utf8-errors
/// What is wrong with a byte sequence or a code point.
enum class Utf8ErrorCode {
  truncated,     ///< a lead byte is not followed by enough continuation bytes
  overlong,      ///< a longer sequence than the code point needs (C0, C1, E0 80–9F,
                 ///< F0 80–8F)
  surrogate,     ///< U+D800–U+DFFF: UTF-16's halves, not characters (ED A0–BF)
  out_of_range,  ///< above U+10FFFF (F4 90–BF, F5–F7)
  stray_continuation,  ///< a continuation byte 80–BF where a sequence must start
  invalid_byte,        ///< F8–FF: a byte that never occurs in UTF-8
};

/// The fixed description of a code, e.g. `"truncated sequence"`.
[[nodiscard]] std::string_view describe(Utf8ErrorCode code) noexcept;

/// Which direction failed.
enum class Utf8Stage { decode, encode };

/// `"utf-8 decode"` or `"utf-8 encode"`.
[[nodiscard]] std::string_view describe(Utf8Stage stage) noexcept;

/// A typed UTF-8 error. UTF-8 is the bottom of the text stack, so it never wraps a
/// lower error; a caller that reads a file wraps this one with its file and document
/// (a StageError, Chapter 0). Formats as `utf-8 decode: truncated sequence at byte 3
/// (first byte 0xE2)` or `utf-8 encode: surrogate code point at index 0 (U+D800)`.
struct Utf8Error {
  Utf8ErrorCode code{};  ///< what is wrong
  Utf8Stage stage{};     ///< decoding bytes or encoding code points
  std::size_t offset{};  ///< decode: byte offset where the bad sequence starts;
                         ///< encode: index of the bad code point
  char32_t value{};      ///< decode: the byte at `offset`; encode: the code point

  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const Utf8Error&, const Utf8Error&) = default;
};
// endregion: utf8-errors

/// The number of bytes UTF-8 uses for `code_point` (1–4), from kUtf8Layout; 0 for a
/// surrogate or a value above U+10FFFF.
[[nodiscard]] std::size_t encoded_length(char32_t code_point) noexcept;

/// The sequence length announced by a first byte (1–4), or 0 when `byte` cannot start a
/// sequence (80–BF continuation, C0/C1, F5–FF).
[[nodiscard]] std::size_t sequence_length(std::uint8_t byte) noexcept;

/// True for a continuation byte `10xxxxxx` (80–BF).
[[nodiscard]] constexpr bool is_continuation(std::uint8_t byte) noexcept {
  return (byte & 0xC0) == 0x80;
}

/// Code points `[N]` to their UTF-8 bytes `[M]`, N ≤ M ≤ 4N.
/// \return Utf8ErrorCode::surrogate or Utf8ErrorCode::out_of_range naming the index of
///         the first code point that is not a Unicode scalar value.
[[nodiscard]] std::expected<Bytes, Utf8Error> encode_utf8(
    std::span<const char32_t> code_points);

/// UTF-8 bytes `[M]` to code points `[N]`. Accepts exactly the well-formed sequences of
/// Unicode Table 3-7 and stops at the first malformed one.
/// \return a Utf8Error whose offset is the first byte of the first malformed sequence:
///         Utf8ErrorCode::stray_continuation, invalid_byte, overlong, surrogate,
///         out_of_range (told apart by the first two bytes) or truncated.
[[nodiscard]] std::expected<CodePoints, Utf8Error> decode_utf8(
    std::span<const std::uint8_t> bytes);

/// The bytes of a `std::string_view` (a view of UTF-8 text as `[M]` bytes).
[[nodiscard]] Bytes bytes_of(std::string_view text);

/// The `std::string` holding `bytes` (for printing encoded text).
[[nodiscard]] std::string string_of(std::span<const std::uint8_t> bytes);

}  // namespace llmfs::text

/// Formats a Utf8Error as `stage: description at byte N (first byte 0xHH)` (decode) or
/// `stage: description at index N (U+HHHH)` (encode).
template <>
struct fmt::formatter<llmfs::text::Utf8Error> : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::text::Utf8Error& error, fmt::format_context& ctx) const
      -> decltype(ctx.out()) {
    const auto stage = describe(error.stage);
    const auto what = describe(error.code);
    const auto value = static_cast<std::uint32_t>(error.value);
    if (error.stage == llmfs::text::Utf8Stage::decode)
      return fmt::format_to(ctx.out(), "{}: {} at byte {} (first byte 0x{:02X})", stage,
                            what, error.offset, value);
    return fmt::format_to(ctx.out(), "{}: {} at index {} (U+{:04X})", stage, what,
                          error.offset, value);
  }
};

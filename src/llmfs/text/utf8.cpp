// Chapter 1
#include <optional>

#include <llmfs/core/try.hpp>
#include <llmfs/text/utf8.hpp>

namespace llmfs::text {

std::string_view describe(Utf8ErrorCode code) noexcept {
  switch (code) {
    case Utf8ErrorCode::truncated: return "truncated sequence";
    case Utf8ErrorCode::overlong: return "overlong encoding";
    case Utf8ErrorCode::surrogate: return "surrogate code point";
    case Utf8ErrorCode::out_of_range: return "code point above U+10FFFF";
    case Utf8ErrorCode::stray_continuation: return "stray continuation byte";
    case Utf8ErrorCode::invalid_byte: return "byte never used in UTF-8";
  }
  return "unknown UTF-8 error";
}

std::string_view describe(Utf8Stage stage) noexcept {
  return stage == Utf8Stage::decode ? "utf-8 decode" : "utf-8 encode";
}

namespace {

/// The failed result of a decode or encode step.
[[nodiscard]] std::unexpected<Utf8Error> fail(Utf8ErrorCode code, Utf8Stage stage,
                                              std::size_t offset, char32_t value) {
  return std::unexpected(Utf8Error{code, stage, offset, value});
}

}  // namespace

// region: encoded-length
// A scalar value's row of kUtf8Layout: the first row whose range reaches it.
std::size_t encoded_length(char32_t code_point) noexcept {
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return 0;
  for (const Utf8Row& row : kUtf8Layout) {
    if (code_point <= row.last) return row.length;
  }
  return 0;
}
// endregion: encoded-length

namespace {

// region: encode-checks
// Only Unicode scalar values have a UTF-8 form: no surrogate, nothing above U+10FFFF.
[[nodiscard]] std::expected<void, Utf8Error> check_scalar(char32_t code_point,
                                                          std::size_t index) {
  if (code_point >= 0xD800 && code_point <= 0xDFFF)
    return fail(Utf8ErrorCode::surrogate, Utf8Stage::encode, index, code_point);
  if (code_point > 0x10FFFF)
    return fail(Utf8ErrorCode::out_of_range, Utf8Stage::encode, index, code_point);
  return {};
}
// endregion: encode-checks

// region: encode-code-point
// One scalar value -> 1–4 bytes. The first byte holds the row's marker in its high
// bits and the top of the payload below it; each continuation byte is 10xxxxxx and
// carries the next 6 payload bits, most significant first.
void append_utf8(char32_t code_point, Bytes& out) {
  const Utf8Row& row = kUtf8Layout[encoded_length(code_point) - 1];
  const std::size_t continuations = row.length - 1;
  const auto lead = static_cast<std::uint8_t>((row.marker << (8 - row.marker_bits)) |
                                              (code_point >> (6 * continuations)));
  out.push_back(lead);
  for (std::size_t k = continuations; k-- > 0;) {
    out.push_back(static_cast<std::uint8_t>(0x80 | ((code_point >> (6 * k)) & 0x3F)));
  }
}
// endregion: encode-code-point

}  // namespace

// region: encode
// [N] code points -> [M] bytes, checking each code point before writing it.
std::expected<Bytes, Utf8Error> encode_utf8(std::span<const char32_t> code_points) {
  Bytes out;
  out.reserve(code_points.size());
  for (std::size_t index = 0; index < code_points.size(); ++index) {
    LLMFS_TRY(check_scalar(code_points[index], index));
    append_utf8(code_points[index], out);
  }
  return out;
}
// endregion: encode

// region: sequence-length
// The length a first byte announces, read from its high bits: 0xxxxxxx, 110xxxxx,
// 1110xxxx, 11110xxx. C0 and C1 could only start overlong forms and F5–FF only values
// above U+10FFFF (or nothing), so they start no sequence.
std::size_t sequence_length(std::uint8_t byte) noexcept {
  if (byte < 0x80) return 1;
  if (byte < 0xC2) return 0;  // 80–BF continuation, C0–C1 overlong
  if (byte < 0xE0) return 2;
  if (byte < 0xF0) return 3;
  if (byte < 0xF5) return 4;
  return 0;
}
// endregion: sequence-length

namespace {

// region: first-byte-checks
// Why a byte cannot start a sequence (when sequence_length() said 0).
[[nodiscard]] std::expected<std::size_t, Utf8Error> check_first_byte(
    std::span<const std::uint8_t> bytes, std::size_t offset) {
  const std::uint8_t byte = bytes[offset];
  const std::size_t length = sequence_length(byte);
  if (length != 0) return length;
  Utf8ErrorCode code = Utf8ErrorCode::invalid_byte;  // F8–FF
  if (is_continuation(byte)) code = Utf8ErrorCode::stray_continuation;
  if (byte == 0xC0 || byte == 0xC1) code = Utf8ErrorCode::overlong;
  if (byte >= 0xF5 && byte <= 0xF7) code = Utf8ErrorCode::out_of_range;
  return fail(code, Utf8Stage::decode, offset, byte);
}
// endregion: first-byte-checks

// region: continuation-checks
// Four lead bytes reveal a forbidden value already in the second byte (Unicode Table
// 3-7): E0 and F0 must not start a shortest-form violation, ED must not reach the
// surrogates, F4 must not pass U+10FFFF.
[[nodiscard]] std::optional<Utf8ErrorCode> second_byte_error(std::uint8_t lead,
                                                             std::uint8_t second) {
  if (lead == 0xE0 && second < 0xA0) return Utf8ErrorCode::overlong;
  if (lead == 0xF0 && second < 0x90) return Utf8ErrorCode::overlong;
  if (lead == 0xED && second >= 0xA0) return Utf8ErrorCode::surrogate;
  if (lead == 0xF4 && second >= 0x90) return Utf8ErrorCode::out_of_range;
  return std::nullopt;
}

// Every byte after the first must be 10xxxxxx, and must be present.
[[nodiscard]] std::expected<void, Utf8Error> check_continuations(
    std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t length) {
  const std::uint8_t lead = bytes[offset];
  for (std::size_t k = 1; k < length; ++k) {
    if (offset + k >= bytes.size() || !is_continuation(bytes[offset + k]))
      return fail(Utf8ErrorCode::truncated, Utf8Stage::decode, offset, lead);
    if (k > 1) continue;
    if (const auto code = second_byte_error(lead, bytes[offset + 1]))
      return fail(*code, Utf8Stage::decode, offset, lead);
  }
  return {};
}
// endregion: continuation-checks

/// One decoded sequence: its code point and how many bytes it used.
struct Decoded {
  char32_t code_point;  ///< the scalar value
  std::size_t length;   ///< its bytes, 1–4
};

// region: decode-sequence
// The sequence starting at `offset` -> one code point: the first byte's payload (below
// its marker bits), then 6 bits from each continuation byte.
[[nodiscard]] std::expected<Decoded, Utf8Error> decode_sequence(
    std::span<const std::uint8_t> bytes, std::size_t offset) {
  const std::size_t length = LLMFS_TRY(check_first_byte(bytes, offset));
  LLMFS_TRY(check_continuations(bytes, offset, length));
  const Utf8Row& row = kUtf8Layout[length - 1];
  char32_t code_point = bytes[offset] & (0xFFu >> row.marker_bits);
  for (std::size_t k = 1; k < length; ++k) {
    code_point = (code_point << 6) | (bytes[offset + k] & 0x3Fu);
  }
  return Decoded{code_point, length};
}
// endregion: decode-sequence

}  // namespace

// region: decode
// [M] bytes -> [N] code points, one sequence at a time. The first malformed sequence
// ends the decode: the caller gets its error and no partial text.
std::expected<CodePoints, Utf8Error> decode_utf8(std::span<const std::uint8_t> bytes) {
  CodePoints out;
  for (std::size_t offset = 0; offset < bytes.size();) {
    const Decoded one = LLMFS_TRY(decode_sequence(bytes, offset));
    out.push_back(one.code_point);
    offset += one.length;
  }
  return out;
}
// endregion: decode

Bytes bytes_of(std::string_view text) {
  return Bytes(text.begin(), text.end());
}

std::string string_of(std::span<const std::uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace llmfs::text

// Chapter 1: UTF-8 by hand. Hand-derived fixtures beside each assertion, one test per
// malformed class with its exact offset and message, seeded property tests against a
// naive reference written here, and Python's codec through committed reference data.
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/utf8.hpp>

namespace {

using llmfs::text::Bytes;
using llmfs::text::CodePoints;
using llmfs::text::decode_utf8;
using llmfs::text::encode_utf8;
using llmfs::text::Utf8Error;
using llmfs::text::Utf8ErrorCode;
using llmfs::text::Utf8Stage;

Bytes encode_ok(const CodePoints& points) {
  auto bytes = encode_utf8(points);
  EXPECT_TRUE(bytes.has_value()) << fmt::format("{}", bytes.error());
  return bytes.value_or(Bytes{});
}

Utf8Error decode_error(const Bytes& bytes) {
  auto points = decode_utf8(bytes);
  EXPECT_FALSE(points.has_value());
  return points ? Utf8Error{} : points.error();
}

// --- Hand fixtures -----------------------------------------------------------------

TEST(Utf8Encode, HelloWithAcuteIsSixBytes) {
  // h=0x68, é=U+00E9=000 1110 1001 -> 110 00011, 10 101001 = C3 A9; l l o ASCII.
  EXPECT_EQ(encode_ok({U'h', 0xE9, U'l', U'l', U'o'}),
            (Bytes{104, 195, 169, 108, 108, 111}));
}

TEST(Utf8Encode, EuroSignIsThreeBytes) {
  // U+20AC = 0010 000010 101100 -> 1110 0010, 10 000010, 10 101100 = E2 82 AC.
  EXPECT_EQ(encode_ok({0x20AC}), (Bytes{0xE2, 0x82, 0xAC}));
}

TEST(Utf8Encode, SlightlySmilingFaceIsFourBytes) {
  // U+1F642 = 000 011111 011001 000010 -> F0 9F 99 82.
  EXPECT_EQ(encode_ok({0x1F642}), (Bytes{0xF0, 0x9F, 0x99, 0x82}));
}

TEST(Utf8Encode, RangeBoundariesChangeTheLength) {
  EXPECT_EQ(encode_ok({0x7F}), (Bytes{0x7F}));
  EXPECT_EQ(encode_ok({0x80}), (Bytes{0xC2, 0x80}));
  EXPECT_EQ(encode_ok({0x7FF}), (Bytes{0xDF, 0xBF}));
  EXPECT_EQ(encode_ok({0x800}), (Bytes{0xE0, 0xA0, 0x80}));
  EXPECT_EQ(encode_ok({0xD7FF}), (Bytes{0xED, 0x9F, 0xBF}));
  EXPECT_EQ(encode_ok({0xE000}), (Bytes{0xEE, 0x80, 0x80}));
  EXPECT_EQ(encode_ok({0xFFFF}), (Bytes{0xEF, 0xBF, 0xBF}));
  EXPECT_EQ(encode_ok({0x10000}), (Bytes{0xF0, 0x90, 0x80, 0x80}));
  EXPECT_EQ(encode_ok({0x10FFFF}), (Bytes{0xF4, 0x8F, 0xBF, 0xBF}));
}

TEST(Utf8Encode, EmptyInputGivesNoBytes) {
  EXPECT_EQ(encode_ok({}), Bytes{});
  EXPECT_EQ(decode_utf8(Bytes{}).value(), CodePoints{});
}

TEST(Utf8Decode, FixtureBytesGiveBackTheirCodePoints) {
  EXPECT_EQ(decode_utf8(Bytes{104, 195, 169, 108, 108, 111}).value(),
            (CodePoints{U'h', 0xE9, U'l', U'l', U'o'}));
  EXPECT_EQ(decode_utf8(Bytes{0xE2, 0x82, 0xAC}).value(), CodePoints{0x20AC});
  EXPECT_EQ(decode_utf8(Bytes{0xF0, 0x9F, 0x99, 0x82}).value(), CodePoints{0x1F642});
}

TEST(Utf8Layout, LengthsFollowTheFourRows) {
  EXPECT_EQ(llmfs::text::encoded_length(0x41), 1u);
  EXPECT_EQ(llmfs::text::encoded_length(0xE9), 2u);
  EXPECT_EQ(llmfs::text::encoded_length(0x20AC), 3u);
  EXPECT_EQ(llmfs::text::encoded_length(0x1F642), 4u);
  EXPECT_EQ(llmfs::text::encoded_length(0xD800), 0u);
  EXPECT_EQ(llmfs::text::encoded_length(0x110000), 0u);
  EXPECT_EQ(llmfs::text::sequence_length(0xC2), 2u);
  EXPECT_EQ(llmfs::text::sequence_length(0xC1), 0u);
  EXPECT_EQ(llmfs::text::sequence_length(0xF4), 4u);
  EXPECT_EQ(llmfs::text::sequence_length(0xF5), 0u);
}

// --- Every malformed class: code, offset, message ----------------------------------

TEST(Utf8Decode, TruncatedAtEndOfInput) {
  // "caf" then the first two of the euro sign's three bytes.
  const Utf8Error error = decode_error({'c', 'a', 'f', 0xE2, 0x82});
  EXPECT_EQ(error, (Utf8Error{Utf8ErrorCode::truncated, Utf8Stage::decode, 3, 0xE2}));
  EXPECT_EQ(fmt::format("{}", error),
            "utf-8 decode: truncated sequence at byte 3 (first byte 0xE2)");
}

TEST(Utf8Decode, TruncatedByANonContinuationByte) {
  // é's lead C3 followed by 'l' instead of a continuation byte.
  EXPECT_EQ(decode_error({'h', 0xC3, 'l'}),
            (Utf8Error{Utf8ErrorCode::truncated, Utf8Stage::decode, 1, 0xC3}));
}

TEST(Utf8Decode, OverlongFormsAreRejected) {
  // C0 AF would be '/' in two bytes; E0 80 AF in three; F0 80 80 AF in four.
  const Utf8Error two = decode_error({'a', 0xC0, 0xAF});
  EXPECT_EQ(two, (Utf8Error{Utf8ErrorCode::overlong, Utf8Stage::decode, 1, 0xC0}));
  EXPECT_EQ(fmt::format("{}", two),
            "utf-8 decode: overlong encoding at byte 1 (first byte 0xC0)");
  EXPECT_EQ(decode_error({0xE0, 0x80, 0xAF}).code, Utf8ErrorCode::overlong);
  EXPECT_EQ(decode_error({0xF0, 0x80, 0x80, 0xAF}).code, Utf8ErrorCode::overlong);
  EXPECT_EQ(decode_error({0xC1, 0xBF}).code, Utf8ErrorCode::overlong);
}

TEST(Utf8Decode, SurrogatesAreRejected) {
  // ED A0 80 would be U+D800, the first high surrogate; ED BF BF would be U+DFFF.
  const Utf8Error error = decode_error({0xED, 0xA0, 0x80});
  EXPECT_EQ(error, (Utf8Error{Utf8ErrorCode::surrogate, Utf8Stage::decode, 0, 0xED}));
  EXPECT_EQ(fmt::format("{}", error),
            "utf-8 decode: surrogate code point at byte 0 (first byte 0xED)");
  EXPECT_EQ(decode_error({0xED, 0xBF, 0xBF}).code, Utf8ErrorCode::surrogate);
}

TEST(Utf8Decode, ValuesAboveTheLastCodePointAreRejected) {
  // F4 90 80 80 would be U+110000; F5 could only start larger values.
  const Utf8Error error = decode_error({0xF4, 0x90, 0x80, 0x80});
  EXPECT_EQ(error,
            (Utf8Error{Utf8ErrorCode::out_of_range, Utf8Stage::decode, 0, 0xF4}));
  EXPECT_EQ(fmt::format("{}", error),
            "utf-8 decode: code point above U+10FFFF at byte 0 (first byte 0xF4)");
  EXPECT_EQ(decode_error({'x', 0xF5, 0x80, 0x80, 0x80}),
            (Utf8Error{Utf8ErrorCode::out_of_range, Utf8Stage::decode, 1, 0xF5}));
}

TEST(Utf8Decode, StrayContinuationByte) {
  // "héllo" with é's lead byte lost: A9 arrives where a sequence must start.
  const Utf8Error error = decode_error({'h', 0xA9, 'l', 'l', 'o'});
  EXPECT_EQ(error,
            (Utf8Error{Utf8ErrorCode::stray_continuation, Utf8Stage::decode, 1, 0xA9}));
  EXPECT_EQ(fmt::format("{}", error),
            "utf-8 decode: stray continuation byte at byte 1 (first byte 0xA9)");
}

TEST(Utf8Decode, BytesNeverUsedInUtf8) {
  for (int byte = 0xF8; byte <= 0xFF; ++byte) {
    EXPECT_EQ(decode_error({static_cast<std::uint8_t>(byte)}).code,
              Utf8ErrorCode::invalid_byte)
        << byte;
  }
  EXPECT_EQ(fmt::format("{}", decode_error({0xFF})),
            "utf-8 decode: byte never used in UTF-8 at byte 0 (first byte 0xFF)");
}

TEST(Utf8Encode, SurrogateAndOutOfRangeAreRejectedWithTheirIndex) {
  const auto surrogate = encode_utf8(CodePoints{U'a', 0xD800});
  ASSERT_FALSE(surrogate.has_value());
  EXPECT_EQ(surrogate.error(),
            (Utf8Error{Utf8ErrorCode::surrogate, Utf8Stage::encode, 1, 0xD800}));
  EXPECT_EQ(fmt::format("{}", surrogate.error()),
            "utf-8 encode: surrogate code point at index 1 (U+D800)");
  const auto high = encode_utf8(CodePoints{0x110000});
  ASSERT_FALSE(high.has_value());
  EXPECT_EQ(fmt::format("{}", high.error()),
            "utf-8 encode: code point above U+10FFFF at index 0 (U+110000)");
  EXPECT_EQ(encode_utf8(CodePoints{0xDFFF}).error().code, Utf8ErrorCode::surrogate);
}

// --- Property tests against a naive reference --------------------------------------

/// SplitMix64, so the cases are the same on every machine.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>(next() % n);
  }
};

/// The naive encoder: a byte count forced by the caller, the bits laid out by the
/// textbook formulas one length at a time. With `length` longer than needed it writes
/// the overlong form; it never checks anything.
Bytes naive_encode(std::uint32_t cp, int length) {
  switch (length) {
    case 1: return {static_cast<std::uint8_t>(cp)};
    case 2:
      return {static_cast<std::uint8_t>(0xC0 + cp / 64),
              static_cast<std::uint8_t>(0x80 + cp % 64)};
    case 3:
      return {static_cast<std::uint8_t>(0xE0 + cp / 4096),
              static_cast<std::uint8_t>(0x80 + cp / 64 % 64),
              static_cast<std::uint8_t>(0x80 + cp % 64)};
    default:
      return {static_cast<std::uint8_t>(0xF0 + cp / 262144),
              static_cast<std::uint8_t>(0x80 + cp / 4096 % 64),
              static_cast<std::uint8_t>(0x80 + cp / 64 % 64),
              static_cast<std::uint8_t>(0x80 + cp % 64)};
  }
}

/// The shortest length for a scalar value, by comparison with powers of two.
int naive_length(std::uint32_t cp) {
  return cp < (1u << 7) ? 1 : cp < (1u << 11) ? 2 : cp < (1u << 16) ? 3 : 4;
}

bool naive_scalar(std::uint32_t cp) {
  return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

/// The naive decoder: at each position, the sequence of length n is accepted exactly
/// when it is the shortest encoding of a scalar value (re-encode and compare). Returns
/// the code points, or the offset of the first position where no length works.
struct NaiveResult {
  CodePoints points;
  std::optional<std::size_t> error_offset;
};
NaiveResult naive_decode(const Bytes& bytes) {
  NaiveResult result;
  std::size_t i = 0;
  while (i < bytes.size()) {
    bool found = false;
    for (int n = 1; n <= 4 && !found; ++n) {
      if (i + static_cast<std::size_t>(n) > bytes.size()) break;
      // Read n bytes as payload with the widest plausible masks, then re-encode.
      std::uint32_t cp = bytes[i] & (n == 1 ? 0x7F : 0x3F >> (n - 1));
      for (int k = 1; k < n; ++k)
        cp = cp * 64 + (bytes[i + k] & 0x3F);
      if (!naive_scalar(cp) || naive_length(cp) != n) continue;
      const Bytes again = naive_encode(cp, n);
      if (!std::equal(again.begin(), again.end(), bytes.begin() + i)) continue;
      result.points.push_back(cp);
      i += n;
      found = true;
    }
    if (!found) {
      result.error_offset = i;
      return result;
    }
  }
  return result;
}

std::uint32_t random_scalar(Rng& rng) {
  const std::uint32_t lengths[] = {0x80, 0x800, 0x10000, 0x110000};
  for (;;) {
    const std::uint32_t cp = rng.below(lengths[rng.below(4)]);
    if (naive_scalar(cp)) return cp;
  }
}

TEST(Utf8Property, RandomCodePointsRoundTripAndMatchTheNaiveEncoder) {
  Rng rng{1};
  for (int trial = 0; trial < 2000; ++trial) {
    CodePoints points(rng.below(12));
    Bytes naive;
    for (char32_t& cp : points) {
      cp = random_scalar(rng);
      const Bytes one = naive_encode(cp, naive_length(cp));
      naive.insert(naive.end(), one.begin(), one.end());
    }
    const Bytes bytes = encode_ok(points);
    ASSERT_EQ(bytes, naive) << trial;
    ASSERT_EQ(decode_utf8(bytes).value(), points) << trial;
  }
}

TEST(Utf8Property, EveryScalarValueRoundTrips) {
  for (std::uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (!naive_scalar(cp)) continue;
    const CodePoints one{cp};
    const auto bytes = encode_utf8(one);
    ASSERT_TRUE(bytes.has_value()) << cp;
    ASSERT_EQ(bytes->size(), static_cast<std::size_t>(naive_length(cp))) << cp;
    ASSERT_EQ(decode_utf8(*bytes).value(), one) << cp;
  }
}

TEST(Utf8Property, RandomBytesAgreeWithTheNaiveDecoder) {
  Rng rng{2};
  int errors = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Bytes bytes(1 + rng.below(8));
    for (std::uint8_t& b : bytes) {
      // Half the bytes from the top of the range, where every malformation lives.
      b = static_cast<std::uint8_t>(rng.below(2) ? 0x80 + rng.below(0x80)
                                                 : rng.below(256));
    }
    const NaiveResult naive = naive_decode(bytes);
    const auto decoded = decode_utf8(bytes);
    if (naive.error_offset) {
      ++errors;
      ASSERT_FALSE(decoded.has_value()) << trial;
      ASSERT_EQ(decoded.error().offset, *naive.error_offset) << trial;
      ASSERT_EQ(decoded.error().value, bytes[*naive.error_offset]) << trial;
    } else {
      ASSERT_TRUE(decoded.has_value()) << trial;
      ASSERT_EQ(*decoded, naive.points) << trial;
    }
  }
  EXPECT_GT(errors, 1000);  // the cases exercise the error paths, not only valid text
}

/// A random ASCII prefix, so the malformed sequence starts at a random offset.
Bytes ascii_prefix(Rng& rng) {
  Bytes prefix(rng.below(5));
  for (std::uint8_t& b : prefix)
    b = static_cast<std::uint8_t>('a' + rng.below(26));
  return prefix;
}

void expect_class(const Bytes& prefix, const Bytes& bad, Utf8ErrorCode code) {
  Bytes bytes = prefix;
  bytes.insert(bytes.end(), bad.begin(), bad.end());
  const auto decoded = decode_utf8(bytes);
  ASSERT_FALSE(decoded.has_value());
  ASSERT_EQ(decoded.error(),
            (Utf8Error{code, Utf8Stage::decode, prefix.size(), bad.front()}))
      << fmt::format("{} -> {}", fmt::join(bytes, ","), decoded.error());
}

TEST(Utf8Property, EveryMalformedClassIsNamedAtItsOffset) {
  Rng rng{3};
  for (int trial = 0; trial < 3000; ++trial) {
    const Bytes prefix = ascii_prefix(rng);
    // truncated: a multi-byte encoding cut short
    std::uint32_t cp = random_scalar(rng);
    while (naive_length(cp) == 1)
      cp = random_scalar(rng);
    Bytes cut = naive_encode(cp, naive_length(cp));
    cut.resize(1 + rng.below(static_cast<std::uint32_t>(cut.size() - 1)));
    expect_class(prefix, cut, Utf8ErrorCode::truncated);
    // overlong: a scalar value written one to three bytes longer than it needs
    std::uint32_t small = rng.below(0x10000);
    if (!naive_scalar(small)) small -= 0x800;  // a surrogate becomes D000–D7FF
    const int shortest = naive_length(small);
    const int longer = shortest + 1 + static_cast<int>(rng.below(4 - shortest));
    expect_class(prefix, naive_encode(small, longer), Utf8ErrorCode::overlong);
    // surrogate: U+D800–U+DFFF written in three bytes
    expect_class(prefix, naive_encode(0xD800 + rng.below(0x800), 3),
                 Utf8ErrorCode::surrogate);
    // out of range: U+110000–U+1FFFFF written in four bytes
    expect_class(prefix, naive_encode(0x110000 + rng.below(0xF0000), 4),
                 Utf8ErrorCode::out_of_range);
    // stray continuation byte
    expect_class(prefix, {static_cast<std::uint8_t>(0x80 + rng.below(0x40))},
                 Utf8ErrorCode::stray_continuation);
    // a byte UTF-8 never uses
    expect_class(prefix, {static_cast<std::uint8_t>(0xF8 + rng.below(8))},
                 Utf8ErrorCode::invalid_byte);
  }
}

TEST(Utf8Property, EncodingRejectsEveryNonScalarValueAtItsIndex) {
  Rng rng{4};
  for (int trial = 0; trial < 2000; ++trial) {
    CodePoints points(rng.below(6));
    for (char32_t& cp : points)
      cp = random_scalar(rng);
    const std::size_t index = points.size();
    const bool surrogate = rng.below(2) == 0;
    const char32_t bad =
        surrogate ? 0xD800 + rng.below(0x800) : 0x110000 + rng.below(1u << 20);
    points.push_back(bad);
    points.push_back(U'z');
    const auto bytes = encode_utf8(points);
    ASSERT_FALSE(bytes.has_value());
    ASSERT_EQ(bytes.error(), (Utf8Error{surrogate ? Utf8ErrorCode::surrogate
                                                  : Utf8ErrorCode::out_of_range,
                                        Utf8Stage::encode, index, bad}));
  }
}

// --- Python's codec, through the committed reference data --------------------------

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> parts;
  std::stringstream stream(line);
  for (std::string part; std::getline(stream, part, sep);)
    parts.push_back(part);
  return parts;
}

std::string field(const std::vector<std::string>& parts, const std::string& key) {
  for (const std::string& part : parts) {
    if (part.rfind(key + "=", 0) == 0) return part.substr(key.size() + 1);
  }
  ADD_FAILURE() << "no field " << key;
  return {};
}

Bytes parse_bytes(const std::string& hex) {
  Bytes bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(
        static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

CodePoints parse_points(const std::string& text) {
  CodePoints points;
  if (text.empty()) return points;
  for (const std::string& hex : split(text, ','))
    points.push_back(static_cast<char32_t>(std::stoul(hex, nullptr, 16)));
  return points;
}

/// Python's reason and end for our error: which of its three messages, and where the
/// maximal valid prefix of the bad sequence ends (Unicode §3.9, "maximal subpart").
std::pair<std::string, std::size_t> python_view(const Utf8Error& error,
                                                const Bytes& bytes) {
  const std::size_t start = error.offset;
  const std::uint8_t lead = bytes[start];
  if (llmfs::text::sequence_length(lead) == 0) return {"invalid start byte", start + 1};
  if (error.code != Utf8ErrorCode::truncated)
    return {"invalid continuation byte", start + 1};
  std::size_t end = start + 1;
  while (end < bytes.size() && llmfs::text::is_continuation(bytes[end]))
    ++end;
  if (end == bytes.size()) return {"unexpected end of data", end};
  return {"invalid continuation byte", end};
}

TEST(Utf8Reference, AgreesWithPythonsCodecOnEveryCommittedCase) {
  std::ifstream file(LLMFS_SOURCE_DIR "/tests/reference/data/text/ch01_utf8.txt");
  ASSERT_TRUE(file) << "tests/reference/data/text/ch01_utf8.txt is missing";
  int encodes = 0, valid = 0, invalid = 0;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto parts = split(line, '|');
    const Bytes bytes = parse_bytes(field(parts, "bytes"));
    if (parts[0] == "ENCODE") {
      ++encodes;
      ASSERT_EQ(encode_ok(parse_points(field(parts, "code_points"))), bytes) << line;
      continue;
    }
    const auto decoded = decode_utf8(bytes);
    if (field(parts, "result") == "ok") {
      ++valid;
      ASSERT_TRUE(decoded.has_value()) << line;
      ASSERT_EQ(*decoded, parse_points(field(parts, "code_points"))) << line;
      continue;
    }
    ++invalid;
    ASSERT_FALSE(decoded.has_value()) << line;
    ASSERT_EQ(decoded.error().offset, std::stoul(field(parts, "start"))) << line;
    const auto [reason, end] = python_view(decoded.error(), bytes);
    ASSERT_EQ(reason, field(parts, "reason")) << line;
    ASSERT_EQ(end, std::stoul(field(parts, "end"))) << line;
  }
  EXPECT_EQ(encodes, 400);
  EXPECT_EQ(valid + invalid, 1200);
  EXPECT_GT(invalid, 500);
}

}  // namespace

// Chapter 1: the chapter's claims. Every expected value is derived by hand beside its
// assertion (the bit layout of RFC 3629 §3), never taken from the code under test.
#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using ch01::Bytes;
using ch01::CodePoints;

const ch01::Evidence& evidence() {
  static const ch01::Evidence e = [] {
    auto gathered = ch01::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch01::Evidence{});
  }();
  return e;
}

TEST(Ch01Prediction, HelloIsFiveCodePointsInSixBytes) {
  // h e-acute l l o: é = U+00E9 = 00011 101001 -> 110|00011 = 195, 10|101001 = 169.
  const ch01::Word& w = evidence().words.at(0);
  EXPECT_EQ(w.code_points, (CodePoints{0x68, 0xE9, 0x6C, 0x6C, 0x6F}));
  EXPECT_EQ(w.bytes, (Bytes{104, 195, 169, 108, 108, 111}));
}

TEST(Ch01Prediction, EuroIsOneCodePointInThreeBytes) {
  // U+20AC = 0010 000010 101100 -> 1110|0010 = 226, 10|000010 = 130, 10|101100 = 172.
  const ch01::Word& w = evidence().words.at(1);
  EXPECT_EQ(w.code_points, CodePoints{0x20AC});
  EXPECT_EQ(w.bytes, (Bytes{226, 130, 172}));
}

TEST(Ch01Prediction, SmileIsOneCodePointInFourBytes) {
  // U+1F642 = 000 011111 011001 000010 -> 240, 159, 153, 130.
  const ch01::Word& w = evidence().words.at(2);
  EXPECT_EQ(w.code_points, CodePoints{0x1F642});
  EXPECT_EQ(w.bytes, (Bytes{240, 159, 153, 130}));
}

TEST(Ch01Misconception, OneVisibleCharacterCanBeTwoCodePointsAndThreeBytes) {
  // e = 0x65; U+0301 = 01100 000001 -> 110|01100 = 204, 10|000001 = 129.
  const ch01::Word& w = evidence().combining;
  EXPECT_EQ(w.code_points, (CodePoints{0x65, 0x301}));
  EXPECT_EQ(w.bytes, (Bytes{101, 204, 129}));
}

TEST(Ch01Malformed, EachClassIsNamedWithItsOffset) {
  const auto& m = evidence().malformed;
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0].answer,
            "error:utf-8 decode: truncated sequence at byte 3 (first byte 0xE2)");
  EXPECT_EQ(m[1].answer,
            "error:utf-8 decode: overlong encoding at byte 1 (first byte 0xC0)");
  EXPECT_EQ(m[2].answer,
            "error:utf-8 decode: surrogate code point at byte 0 (first byte 0xED)");
  EXPECT_EQ(
      m[3].answer,
      "error:utf-8 decode: code point above U+10FFFF at byte 0 (first byte 0xF4)");
  EXPECT_EQ(m[4].answer,
            "error:utf-8 decode: stray continuation byte at byte 1 (first byte 0xA9)");
  EXPECT_EQ(m[5].answer,
            "error:utf-8 decode: byte never used in UTF-8 at byte 0 (first byte 0xFF)");
  const auto& u = evidence().unencodable;
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].answer,
            "error:utf-8 encode: surrogate code point at index 1 (U+D800)");
  EXPECT_EQ(u[1].answer,
            "error:utf-8 encode: code point above U+10FFFF at index 0 (U+110000)");
}

TEST(Ch01Corpus, TinyCorpusCountsMatchAHandCount) {
  // 4 headings; é (2 bytes), € (3), 🙂 (4) are the only non-ASCII characters:
  // 9 non-ASCII bytes, and 2 + 3 + 4 - 3 = 6 more bytes than code points.
  const ch01::CorpusFacts& t = evidence().tiny;
  EXPECT_EQ(t.name, "tiny_corpus.txt");
  EXPECT_EQ(t.documents, 4u);
  EXPECT_EQ(t.non_ascii_bytes, 9u);
  EXPECT_EQ(t.bytes - t.code_points, 6u);
  EXPECT_EQ(t.bytes, 136u);
}

TEST(Ch01Corpus, KingJamesTextIsPureAsciiWithOneDocumentPerChapter) {
  // 1,189 chapters in the Protestant canon (929 Old Testament + 260 New Testament);
  // ASCII text: one code point per byte.
  const ch01::CorpusFacts& k = evidence().kjv;
  EXPECT_EQ(k.documents, 929u + 260u);
  EXPECT_EQ(k.non_ascii_bytes, 0u);
  EXPECT_EQ(k.code_points, k.bytes);
  EXPECT_EQ(k.bytes, 4236035u);  // tools/corpus.sha256 pins this file
  EXPECT_LT(k.byte_values.back(), 128);
}

TEST(Ch01Exercise, BoundaryCodePointsTakeTheLengthsOfTheirRows) {
  // 7F is the last 1-byte value; 80 the first 2-byte one (110|00010 10|000000); 7FF the
  // last (110|11111 10|111111); 800 the first 3-byte one; FFFF the last; 10000 the
  // first 4-byte one; 10FFFF the last of all (11110|100 10|001111 10|111111 10|111111).
  const auto& b = evidence().exercises.boundaries;
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(b[0].bytes, Bytes{0x7F});
  EXPECT_EQ(b[1].bytes, (Bytes{0xC2, 0x80}));
  EXPECT_EQ(b[2].bytes, (Bytes{0xDF, 0xBF}));
  EXPECT_EQ(b[3].bytes, (Bytes{0xE0, 0xA0, 0x80}));
  EXPECT_EQ(b[4].bytes, (Bytes{0xEF, 0xBF, 0xBF}));
  EXPECT_EQ(b[5].bytes, (Bytes{0xF0, 0x90, 0x80, 0x80}));
  EXPECT_EQ(b[6].bytes, (Bytes{0xF4, 0x8F, 0xBF, 0xBF}));
  EXPECT_EQ(b[7].bytes, (Bytes{0xC3, 0xA9}));
}

TEST(Ch01Exercise, WhichByteStringsAreValid) {
  // C3 28: '(' is not 10xxxxxx; F0 9F 99: one byte short; C1 BF: overlong '?'
  // (0x7F); ED 9F BF = U+D7FF, the last value before the surrogates; F4 8F BF BF =
  // U+10FFFF.
  const auto& v = evidence().exercises.which_valid;
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(v[0].answer,
            "error:utf-8 decode: truncated sequence at byte 0 (first byte 0xC3)");
  EXPECT_EQ(v[1].answer, "ok:[U+20AC]");
  EXPECT_EQ(v[2].answer,
            "error:utf-8 decode: truncated sequence at byte 0 (first byte 0xF0)");
  EXPECT_EQ(v[3].answer, "ok:[U+D7FF]");
  EXPECT_EQ(v[4].answer,
            "error:utf-8 decode: overlong encoding at byte 0 (first byte 0xC1)");
  EXPECT_EQ(v[5].answer, "ok:[U+10FFFF]");
}

TEST(Ch01Exercise, UncheckedDecoderTurnsOverlongC0AfIntoSlash) {
  // 110|00000 10|101111 -> 00000 101111 = 0x2F = '/'.
  EXPECT_EQ(evidence().exercises.naive_slash, U'/');
  EXPECT_EQ(evidence().exercises.overlong_slash.answer,
            "error:utf-8 decode: overlong encoding at byte 0 (first byte 0xC0)");
}

TEST(Ch01Exercise, UnseenScriptIsStillSixByteIds) {
  // 日 = U+65E5 -> E6 97 A5; 本 = U+672C -> E6 9C AC: all six at or above 0x80, and the
  // King James text has no such byte.
  const auto& x = evidence().exercises;
  EXPECT_EQ(x.unseen.bytes, (Bytes{230, 151, 165, 230, 156, 172}));
  EXPECT_EQ(x.unseen_bytes_in_kjv, 0u);
}

}  // namespace

// Chapter 4: the streaming decoder. Every split point of a text with one-, three- and
// four-byte characters, a held partial character, a bad sequence that fails at once and
// leaves the state unchanged, and an unfinished character at the end.
#include <span>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/stream_decoder.hpp>

#include "tokenizer_support.hpp"

namespace ch04_stream_decoder_test {
namespace {

using ch04_tokenizer_support::Ids;
using ch04_tokenizer_support::make;
using llmfs::text::StreamingDecoder;
using llmfs::text::Tokenizer;
using llmfs::text::TokenizerErrorCode;

// Feeds `ids` in two pushes split at every point, then one at a time; the pieces must
// always be whole UTF-8 and join to `text`.
void expect_streams(const Tokenizer& t, const Ids& ids, const std::string& text) {
  for (std::size_t cut = 0; cut <= ids.size(); ++cut) {
    StreamingDecoder stream(t);
    const auto first = stream.push(std::span(ids).first(cut));
    const auto second = stream.push(std::span(ids).subspan(cut));
    ASSERT_TRUE(first && second) << "cut " << cut;
    EXPECT_TRUE(llmfs::text::decode_utf8(llmfs::text::bytes_of(*first)).has_value());
    EXPECT_EQ(*first + *second, text) << "cut " << cut;
    EXPECT_EQ(stream.held_bytes(), 0u);
    EXPECT_TRUE(stream.finish().has_value());
  }
  StreamingDecoder stream(t);
  std::string joined;
  for (TokenId id : ids) {
    const auto piece = stream.push(Ids{id});
    ASSERT_TRUE(piece.has_value());
    joined += *piece;
  }
  EXPECT_EQ(joined, text);
}

TEST(TokenizerStreaming, EverySplitPointOfHelloEuroSmile) {
  const std::string text =
      "h\xC3\xA9llo \xE2\x82\xAC\xF0\x9F\x99\x82";  // héllo €🙂
  const Tokenizer bytes = make({});
  const Ids ids = bytes.encode(text);
  ASSERT_EQ(ids.size(), 14u);  // 1 + 2 + 3 + 1 + 3 + 4 bytes
  expect_streams(bytes, ids, text);
  // Merges that straddle character boundaries: (A9, l) and (82, AC) join the tail of
  // é to l and the last two bytes of €.
  const Tokenizer merged = make({{{0xA9, 'l'}, {0x82, 0xAC}, {0xF0, 0x9F}}});
  const Ids merged_ids = merged.encode(text);
  EXPECT_EQ(merged_ids,
            (Ids{'h', 0xC3, 256, 'l', 'o', ' ', 0xE2, 257, 258, 0x99, 0x82}));
  expect_streams(merged, merged_ids, text);
}

TEST(TokenizerStreaming, HoldsAPartialCharacterUntilItCompletes) {
  const Tokenizer t = make({});
  StreamingDecoder stream(t);
  EXPECT_EQ(stream.push(Ids{'a', 0xE2}).value_or("?"), "a");  // € begins
  EXPECT_EQ(stream.held_bytes(), 1u);
  EXPECT_EQ(stream.push(Ids{0x82}).value_or("?"), "");
  EXPECT_EQ(stream.held_bytes(), 2u);
  EXPECT_EQ(stream.push(Ids{0xAC, 'b'}).value_or("?"),
            "\xE2\x82\xAC"
            "b");
  EXPECT_EQ(stream.held_bytes(), 0u);
}

TEST(TokenizerStreaming, ABadSequenceFailsAtOnceAndLeavesTheStateUnchanged) {
  const Tokenizer t = make({});
  StreamingDecoder stream(t);
  ASSERT_EQ(stream.push(Ids{0xE0}).value_or("?"), "");  // could still be E0 A0 80
  const auto overlong = stream.push(Ids{0x80});         // E0 80 never can
  ASSERT_FALSE(overlong.has_value());
  EXPECT_EQ(
      fmt::format("{}", overlong.error()),
      "streaming decode: not UTF-8 text: utf-8 decode: overlong encoding at byte 0 "
      "(first byte 0xE0)");
  EXPECT_EQ(stream.held_bytes(), 1u);  // still E0, as before the failed push
  EXPECT_EQ(stream.push(Ids{0xA0, 0x80}).value_or("?"), "\xE0\xA0\x80");
  const auto special = stream.push(Ids{t.eos()});
  ASSERT_FALSE(special.has_value());
  EXPECT_EQ(special.error().code, TokenizerErrorCode::special_token);
}

TEST(TokenizerStreaming, FinishReportsAnUnfinishedCharacter) {
  const Tokenizer t = make({});
  StreamingDecoder stream(t);
  ASSERT_EQ(stream.push(Ids{'x', 0xF0, 0x9F}).value_or("?"), "x");
  const auto end = stream.finish();
  ASSERT_FALSE(end.has_value());
  EXPECT_EQ(fmt::format("{}", end.error()),
            "streaming decode, at the end: not UTF-8 text: utf-8 decode: truncated "
            "sequence at byte 0 (first byte 0xF0)");
  EXPECT_EQ(stream.held_bytes(), 0u);
  EXPECT_TRUE(stream.finish().has_value());
}

}  // namespace
}  // namespace ch04_stream_decoder_test

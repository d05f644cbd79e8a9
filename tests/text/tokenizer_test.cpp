// Chapter 4: applying byte-level BPE. Hand-derived encodings beside each assertion, the
// id layout, every decode error with its message, seeded property tests against the
// naive encoder and a training replay written here, and an independent Python encoder
// through committed data. The streaming decoder and the merges file have their own
// tests (stream_decoder_test.cpp, merges_file_test.cpp).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <llmfs/text/chunks.hpp>
#include <llmfs/text/tokenizer.hpp>

#include "tokenizer_support.hpp"

namespace ch04_tokenizer_test {
namespace {

using ch04_tokenizer_support::Ids;
using ch04_tokenizer_support::low_table;
using ch04_tokenizer_support::make;
using llmfs::text::MergeTable;
using llmfs::text::TokenId;
using llmfs::text::Tokenizer;
using llmfs::text::TokenizerErrorCode;
using llmfs::text::TokenPair;

std::string text_of(const Tokenizer& t, const Ids& ids) {
  auto text = t.decode(ids);
  EXPECT_TRUE(text.has_value()) << fmt::format("{}", text.error());
  return text.value_or("<error>");
}

// --- Hand fixtures -----------------------------------------------------------------

TEST(TokenizerEncode, HandTableOnLowLowerLowestNewer) {
  const Tokenizer t = make(low_table());
  // "low": lo (r0) then low (r1).
  EXPECT_EQ(t.encode("low"), Ids{257});
  // " lower": lo, low, er (r2 before " low" r5), " low", " lower" (r7).
  EXPECT_EQ(t.encode(" lower"), Ids{263});
  // " lowest": lo, low, es (r3), est (r4), " low" (r5); (" low", est) is no merge.
  EXPECT_EQ(t.encode(" lowest"), (Ids{261, 260}));
  // " newer": (e,r) r2 outranks (w,e) r6, and once er exists (w,e) is gone.
  EXPECT_EQ(t.encode(" newer"), (Ids{' ', 'n', 'e', 'w', 258}));
  EXPECT_EQ(t.encode("low lower lowest newer"),
            (Ids{257, 263, 261, 260, ' ', 'n', 'e', 'w', 258}));
}

TEST(TokenizerEncode, LowestRankWinsOverLeftToRight) {
  // "abc" with (b,c) at rank 0 and (a,b) at rank 1: rank order gives a|bc, a greedy
  // left-to-right scan would give ab|c.
  const Tokenizer t = make({{{'b', 'c'}, {'a', 'b'}}});
  EXPECT_EQ(t.encode("abc"), (Ids{'a', 256}));
  EXPECT_EQ(t.encode_naive("abc"), (Ids{'a', 256}));
}

TEST(TokenizerEncode, RunsOfOneByteMergeLeftToRightWithoutOverlap) {
  // (a,a) -> 256: "aaa" is aa|a, "aaaa" aa|aa; with (256,256) -> 257, "aaaa" is one.
  const Tokenizer t = make({{{'a', 'a'}}});
  EXPECT_EQ(t.encode("aaa"), (Ids{256, 'a'}));
  EXPECT_EQ(t.encode("aaaa"), (Ids{256, 256}));
  const Tokenizer u = make({{{'a', 'a'}, {256, 256}}});
  EXPECT_EQ(u.encode("aaaaa"), (Ids{257, 'a'}));
}

TEST(TokenizerEncode, MergesNeverCrossAChunk) {
  // (o,' ') would join "lo" and " w" across the cut before the space: never applied.
  const Tokenizer t = make({{{'o', ' '}, {' ', 'w'}}});
  EXPECT_EQ(t.encode("o w"), (Ids{'o', 257}));
  EXPECT_EQ(t.encode("a\nb"), (Ids{'a', '\n', 'b'}));
}

TEST(TokenizerLayout, SpecialsFollowTheMerges) {
  const Tokenizer t = make(low_table());  // M = 8
  EXPECT_EQ(t.bos(), 256 + 8);
  EXPECT_EQ(t.eos(), 257 + 8);
  EXPECT_EQ(t.vocab_size(), 258u + 8u);
  EXPECT_EQ(t.token_bytes(263), " lower");
  EXPECT_EQ(t.token_bytes('A'), "A");
  EXPECT_EQ(t.token_bytes(t.bos()), "");
  EXPECT_EQ(t.rank_of({'e', 'r'}), 2);
  EXPECT_EQ(t.rank_of({'r', 'e'}), -1);
}

TEST(TokenizerLayout, ZeroMergesIsAByteLevelTokenizer) {
  // A corpus with no repeated pair trains no merge: ids are bytes, BOS 256, EOS 257.
  const Tokenizer t = make({});
  EXPECT_EQ(t.bos(), 256);
  EXPECT_EQ(t.eos(), 257);
  EXPECT_EQ(t.vocab_size(), 258u);
  EXPECT_EQ(t.encode("h\xC3\xA9"), (Ids{104, 195, 169}));
  EXPECT_EQ(text_of(t, Ids{104, 195, 169}), "h\xC3\xA9");
}

TEST(TokenizerEncode, EmptyTextAndTheNulByte) {
  const Tokenizer t = make(low_table());
  EXPECT_TRUE(t.encode("").empty());
  EXPECT_EQ(text_of(t, {}), "");
  const std::string nul(1, '\0');
  EXPECT_EQ(t.encode(nul), Ids{0});
  EXPECT_EQ(text_of(t, Ids{0}), nul);
  EXPECT_EQ(t.encode(std::string("lo\0lo", 5)), (Ids{256, 0, 256}));
}

// --- Errors --------------------------------------------------------------------------

TEST(TokenizerCreate, RejectsAMergeOfALaterToken) {
  // Rank 1 makes 257, so it may use 0..256; 257 is itself.
  const auto made = Tokenizer::create({{{'a', 'b'}, {256, 257}}});
  ASSERT_FALSE(made.has_value());
  EXPECT_EQ(made.error().code, TokenizerErrorCode::later_token);
  EXPECT_EQ(
      fmt::format("{}", made.error()),
      "merge rank 1: merge uses a token not made yet (pair (256, 257) makes token "
      "257)");
  const auto negative = Tokenizer::create({{{-1, 'a'}}});
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().code, TokenizerErrorCode::later_token);
}

TEST(TokenizerCreate, RejectsARepeatedPair) {
  const auto made = Tokenizer::create({{{'a', 'b'}, {'c', 'd'}, {'a', 'b'}}});
  ASSERT_FALSE(made.has_value());
  EXPECT_EQ(fmt::format("{}", made.error()),
            "merge rank 2: pair merged twice (pair (97, 98) is already rank 0)");
}

TEST(TokenizerDecode, UnknownAndSpecialIdsAreNamedByIndex) {
  const Tokenizer t = make(low_table());  // V = 266
  const auto unknown = t.decode(Ids{'a', 266});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(fmt::format("{}", unknown.error()),
            "decode token 1: token id out of range (id 266 with V = 266)");
  const auto negative = t.decode(Ids{-3});
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().code, TokenizerErrorCode::unknown_id);
  const auto bos = t.decode(Ids{264, 'a'});
  ASSERT_FALSE(bos.has_value());
  EXPECT_EQ(fmt::format("{}", bos.error()),
            "decode token 0: special token has no bytes (id 264 is BOS)");
  const auto eos = t.decode_bytes(Ids{'a', 265});
  ASSERT_FALSE(eos.has_value());
  EXPECT_EQ(eos.error().code, TokenizerErrorCode::special_token);
}

TEST(TokenizerDecode, ASplitCharacterIsATypedErrorNotAReplacement) {
  // é = C3 A9 (195, 169). Decoding only its first byte is truncated UTF-8 at byte 1,
  // in token 1; decode_bytes gives the raw bytes for a caller who wants them.
  const Tokenizer t = make({});
  const auto split = t.decode(Ids{'h', 195});
  ASSERT_FALSE(split.has_value());
  EXPECT_EQ(split.error().code, TokenizerErrorCode::invalid_utf8);
  EXPECT_EQ(
      fmt::format("{}", split.error()),
      "decode token 1: not UTF-8 text: utf-8 decode: truncated sequence at byte 1 "
      "(first byte 0xC3)");
  EXPECT_EQ(t.decode_bytes(Ids{'h', 195}).value_or(""), "h\xC3");
  // A stray continuation byte (169 without 195) is named at its own token.
  const auto stray = t.decode(Ids{'a', 'b', 169});
  ASSERT_FALSE(stray.has_value());
  EXPECT_EQ(fmt::format("{}", stray.error()),
            "decode token 2: not UTF-8 text: utf-8 decode: stray continuation byte at "
            "byte 2 (first byte 0xA9)");
}

// --- Property tests: the fast encoder against the naive one and a training replay
// -----

// A naive trainer written here (Chapter 3's rule: most frequent non-overlapping pair,
// ties to the smallest pair), returning its merges and every chunk's final tokens.
struct Ch04Training {
  MergeTable table;
  std::vector<Ids> chunks;  // the segmentation training ended with
};

Ids ch04_merge_all(const Ids& symbols, TokenPair pair, TokenId made) {
  Ids out;
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    if (i + 1 < symbols.size() && symbols[i] == pair.left &&
        symbols[i + 1] == pair.right) {
      out.push_back(made);
      ++i;
    } else {
      out.push_back(symbols[i]);
    }
  }
  return out;
}

Ch04Training ch04_train(const std::string& text, std::size_t merges) {
  Ch04Training training;
  for (std::string_view chunk : llmfs::text::split_chunks(text))
    training.chunks.emplace_back(chunk.begin(), chunk.end());
  for (Ids& c : training.chunks)
    for (TokenId& id : c)
      id = static_cast<unsigned char>(id);
  for (std::size_t r = 0; r < merges; ++r) {
    std::map<TokenPair, int> counts;
    for (const Ids& c : training.chunks)
      for (std::size_t i = 0; i + 1 < c.size(); ++i) {
        ++counts[{c[i], c[i + 1]}];
        if (c[i] == c[i + 1] && i + 2 < c.size() && c[i + 2] == c[i])
          ++i;  // no overlap
      }
    TokenPair best{};
    int best_count = 1;
    for (const auto& [pair, count] : counts)
      if (count > best_count) best = pair, best_count = count;
    if (best_count < 2) break;
    const TokenId made = MergeTable::token_of_rank(r);
    for (Ids& c : training.chunks)
      c = ch04_merge_all(c, best, made);
    training.table.merges.push_back(best);
  }
  return training;
}

std::string ch04_random_text(std::mt19937_64& rng, std::size_t length) {
  // A small alphabet so pairs repeat, with spaces, newlines and two-byte é.
  static constexpr std::string_view kAlphabet = "aabbbcd  \n";
  std::string text;
  while (text.size() < length) {
    const std::size_t pick = rng() % (kAlphabet.size() + 1);
    text += pick == kAlphabet.size() ? std::string("\xC3\xA9")
                                     : std::string(1, kAlphabet[pick]);
  }
  return text;
}

TEST(TokenizerProperty, FastAndNaiveEncodersAgreeAndReplayTraining) {
  std::mt19937_64 rng(20261204);
  for (int seed = 0; seed < 300; ++seed) {
    const std::string training_text = ch04_random_text(rng, 20 + rng() % 100);
    const Ch04Training training = ch04_train(training_text, 1 + rng() % 24);
    const Tokenizer t = make(training.table);
    // On the training text, encoding reproduces the segmentation training ended with.
    Ids replayed;
    for (const Ids& c : training.chunks)
      replayed.insert(replayed.end(), c.begin(), c.end());
    ASSERT_EQ(t.encode(training_text), replayed) << "seed " << seed;
    // On fresh text, the heap encoder agrees with the naive one and round-trips.
    const std::string fresh = ch04_random_text(rng, rng() % 80);
    const Ids ids = t.encode(fresh);
    ASSERT_EQ(ids, t.encode_naive(fresh)) << "seed " << seed;
    ASSERT_EQ(text_of(t, ids), fresh) << "seed " << seed;
  }
}

TEST(TokenizerProperty, RandomBytesRoundTripThroughDecodeBytes) {
  std::mt19937_64 rng(4);
  const Tokenizer t = make({{{0, 0}, {255, 'a'}, {256, 257}, {' ', 0xC3}}});
  for (int round = 0; round < 300; ++round) {
    std::string bytes(rng() % 40, '\0');
    for (char& b : bytes)
      b = static_cast<char>(rng() % 4 == 0 ? 0 : rng() % 256);
    const Ids ids = t.encode(bytes);
    ASSERT_EQ(ids, t.encode_naive(bytes));
    ASSERT_EQ(t.decode_bytes(ids).value_or("<error>"), bytes);
    for (TokenId id : ids)
      ASSERT_LT(id, t.bos());
  }
}

// --- An independent encoder: tests/reference/make_tokenizer_reference.py -------------

TEST(TokenizerReference, PythonEncoderAgreesOnEveryCase) {
  std::ifstream file(LLMFS_SOURCE_DIR "/tests/reference/data/text/ch04_tokenizer.txt");
  ASSERT_TRUE(file) << "tests/reference/data/text/ch04_tokenizer.txt is missing";
  MergeTable table;
  std::vector<std::pair<std::string, Ids>> cases;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::map<std::string, std::string> fields;
    std::stringstream parts(line);
    std::string kind, part;
    std::getline(parts, kind, '|');
    while (std::getline(parts, part, '|'))
      fields[part.substr(0, part.find('='))] = part.substr(part.find('=') + 1);
    if (kind == "MERGE") {
      ASSERT_EQ(std::stoul(fields["rank"]), table.merges.size());
      table.merges.push_back({std::stoi(fields["left"]), std::stoi(fields["right"])});
      continue;
    }
    ASSERT_EQ(kind, "CASE");
    std::string bytes;
    for (std::size_t i = 0; i + 1 < fields["bytes"].size(); i += 2)
      bytes += static_cast<char>(std::stoi(fields["bytes"].substr(i, 2), nullptr, 16));
    Ids ids;
    std::stringstream list(fields["ids"]);
    for (std::string id; std::getline(list, id, ',');)
      ids.push_back(std::stoi(id));
    cases.emplace_back(bytes, ids);
  }
  ASSERT_GE(table.merges.size(), 8u);
  ASSERT_GE(cases.size(), 100u);
  const Tokenizer t = make(table);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(t.encode(cases[i].first), cases[i].second) << "case " << i;
    EXPECT_EQ(t.decode_bytes(cases[i].second).value_or("<error>"), cases[i].first);
  }
}

}  // namespace
}  // namespace ch04_tokenizer_test

// Chapter 4: applying byte-level BPE. Hand-derived encodings beside each assertion, the
// id layout, every decode and merges-file error with its message, the streaming decoder
// at every split point, seeded property tests against the naive encoder and a training
// replay written here, and an independent Python encoder through committed data.
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

#include "support/temp_dir.hpp"

namespace ch04_tokenizer_test {
namespace {

using llmfs::text::MergeTable;
using llmfs::text::StreamingDecoder;
using llmfs::text::TokenId;
using llmfs::text::Tokenizer;
using llmfs::text::TokenizerErrorCode;
using llmfs::text::TokenPair;
using Ids = std::vector<TokenId>;

Tokenizer make(MergeTable table) {
  auto made = Tokenizer::create(std::move(table));
  EXPECT_TRUE(made.has_value()) << fmt::format("{}", made.error());
  return made ? *std::move(made) : *Tokenizer::create({});
}

// The chapter's hand table (chapters/04-applying-the-bpe-tokenizer.md, Derive).
MergeTable low_table() {
  return {{{'l', 'o'},    // 256 lo
           {256, 'w'},    // 257 low
           {'e', 'r'},    // 258 er
           {'e', 's'},    // 259 es
           {259, 't'},    // 260 est
           {' ', 257},    // 261 " low"
           {'w', 'e'},    // 262 we
           {261, 258}}};  // 263 " lower"
}

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

// --- The streaming decoder
// -------------------------------------------------------------

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

// --- The merges file
// -------------------------------------------------------------------

std::string low_file() {
  return llmfs::text::format_merges(low_table());
}

llmfs::text::TokenizerError parse_error(const std::string& text) {
  const auto parsed = llmfs::text::parse_merges(text, "t.merges");
  EXPECT_FALSE(parsed.has_value());
  return parsed ? llmfs::text::TokenizerError{} : parsed.error();
}

TEST(MergesFile, FormatIsTheHeaderThenOneLinePerMerge) {
  const std::string text = llmfs::text::format_merges({{{'l', 'o'}, {256, 'w'}}});
  // FNV-1a 64 of "256 108 111\n257 256 119\n", computed by tests/reference's script.
  EXPECT_EQ(text, "llmfs-bpe-merges version=1 merges=2 fnv1a64=" +
                      fmt::format("{:016x}",
                                  llmfs::text::fnv1a64("256 108 111\n257 256 119\n")) +
                      "\n256 108 111\n257 256 119\n");
  // FNV-1a 64 test vectors (Fowler, Noll, Vo): "" and "a".
  EXPECT_EQ(llmfs::text::fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(llmfs::text::fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  const auto back = llmfs::text::parse_merges(low_file(), "t.merges");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, low_table());
  EXPECT_EQ(llmfs::text::parse_merges(llmfs::text::format_merges({}), "e")
                .value_or(low_table()),
            MergeTable{});
}

TEST(MergesFile, WriteIsAtomicAndReadsBack) {
  const auto dir = llmfs::test::make_temp_dir("llmfs-ch04-merges");
  const auto path = dir / "low.merges";
  ASSERT_TRUE(llmfs::text::write_merges(path, low_table()).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir / "low.merges.tmp"));
  const auto read = llmfs::text::read_merges(path);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, low_table());
  // A write into a folder that does not exist fails, naming the file, and leaves
  // nothing.
  const auto bad = llmfs::text::write_merges(dir / "no" / "x.merges", low_table());
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, TokenizerErrorCode::write_failed);
  const auto missing = llmfs::text::read_merges(dir / "absent.merges");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(fmt::format("{}", missing.error()),
            fmt::format("merges file {}: cannot open merges file",
                        (dir / "absent.merges").string()));
  std::filesystem::remove_all(dir);
}

TEST(MergesFile, BadHeaderAndWrongVersion) {
  EXPECT_EQ(
      fmt::format("{}", parse_error("")),
      "merges file t.merges line 1: bad header (expected 'llmfs-bpe-merges version= "
      "merges= fnv1a64=', found '')");
  EXPECT_EQ(parse_error("llmfs-bpe-merges version=x merges=2 fnv1a64=0\n").code,
            TokenizerErrorCode::bad_header);
  EXPECT_EQ(parse_error("llmfs-bpe-merges version=1 merges=2 fnv1a64=00\n").code,
            TokenizerErrorCode::bad_header);
  std::string v2 = low_file();
  v2.replace(v2.find("version=1"), 9, "version=2");
  EXPECT_EQ(
      fmt::format("{}", parse_error(v2)),
      "merges file t.merges line 1: unknown format version (version 2, this reader "
      "knows 1)");
}

TEST(MergesFile, MalformedLinesAndLaterTokens) {
  std::string text = low_file();
  text.replace(text.find("257 256 119"), 11, "257 256 w");
  EXPECT_EQ(
      fmt::format("{}", parse_error(text)),
      "merges file t.merges line 3: malformed merge line (expected 'id left right', "
      "found '257 256 w')");
  text = low_file();
  text.replace(text.find("257 256 119"), 11, "300 256 119");
  EXPECT_EQ(
      fmt::format("{}", parse_error(text)),
      "merges file t.merges line 3: malformed merge line (id 300 where rank 1 makes "
      "257)");
  text = low_file();
  text.replace(text.find("257 256 119"), 11, "257 258 119");
  EXPECT_EQ(
      fmt::format("{}", parse_error(text)),
      "merges file t.merges line 3: merge uses a token not made yet (pair (258, 119) "
      "makes token 257)");
  EXPECT_EQ(fmt::format("{}", parse_error(low_file() + "264 1 2\n")),
            "merges file t.merges line 10: malformed merge line (more lines than the "
            "header's 8 merges)");
}

TEST(MergesFile, TruncationAndChecksum) {
  const std::string text = low_file();
  // Cut after line 5 (the header and four merges): line 6 is missing.
  std::size_t cut = 0;
  for (int line = 0; line < 5; ++line)
    cut = text.find('\n', cut) + 1;
  EXPECT_EQ(fmt::format("{}", parse_error(text.substr(0, cut))),
            "merges file t.merges line 6: file is truncated (file ends before its last "
            "newline; header says 8 merges)");
  EXPECT_EQ(parse_error(text.substr(0, text.size() - 1)).code,
            TokenizerErrorCode::truncated);  // the last newline lost
  EXPECT_EQ(parse_error(text.substr(0, text.find('\n'))).code,
            TokenizerErrorCode::truncated);  // the header alone, without its newline
  std::string edited = text;
  edited.replace(edited.find("258 101 114"), 11,
                 "258 101 115");  // er -> es, still valid
  const auto error = parse_error(edited);
  EXPECT_EQ(error.code, TokenizerErrorCode::checksum);
  EXPECT_TRUE(
      fmt::format("{}", error)
          .starts_with(
              "merges file t.merges line 1: checksum mismatch (header fnv1a64="));
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

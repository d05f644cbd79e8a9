// Chapter 4: our encoder against SentencePiece's BPE encoder where their rules coincide
// (tests/reference/make_sentencepiece_reference.py states the settings and why they
// coincide). The committed data holds Genesis 1, SentencePiece's K learned pieces and
// its segmentation of fixtures, the training verses and unseen verses; we train chapter
// 3's train_bpe on the same documents with K merges, check that the merges are
// SentencePiece's pieces, encode every string and compare the token strings one by one.
// No Python is needed; reference.ch04_sentencepiece_current checks that the data is
// current.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/bpe_train.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace ch04_sentencepiece_test {
namespace {

using llmfs::text::Tokenizer;

// One `HEX` field to its bytes.
std::string ch04_spm_bytes(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return bytes;
}

// `HEX,HEX,...` to byte strings; an empty field is no strings at all.
std::vector<std::string> ch04_spm_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream list(text);
  for (std::string hex; std::getline(list, hex, ',');)
    out.push_back(ch04_spm_bytes(hex));
  return out;
}

struct Ch04SpmCase {
  std::string kind;  // fixture, training or unseen
  std::string text;
  std::vector<std::string> pieces;  // SentencePiece's; for a PART, ours first
  std::vector<std::string> sentencepiece;
};

struct Ch04SpmData {
  std::vector<std::string> documents;
  std::vector<std::string> pieces;  // SentencePiece's learned pieces, in rank order
  std::vector<Ch04SpmCase> cases;
  std::vector<Ch04SpmCase> parts;
};

const Ch04SpmData& ch04_spm_data() {
  static const Ch04SpmData data = [] {
    Ch04SpmData d;
    std::ifstream file(LLMFS_SOURCE_DIR
                       "/tests/reference/data/text/ch04_sentencepiece.txt");
    EXPECT_TRUE(file.good()) << "tests/reference/data/text/ch04_sentencepiece.txt";
    for (std::string line; std::getline(file, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::map<std::string, std::string> f;
      std::stringstream parts(line);
      std::string kind, part;
      std::getline(parts, kind, '|');
      while (std::getline(parts, part, '|'))
        f[part.substr(0, part.find('='))] = part.substr(part.find('=') + 1);
      if (kind == "DOCUMENT") {
        d.documents.push_back(ch04_spm_bytes(f["text"]));
      } else if (kind == "PIECE") {
        EXPECT_EQ(std::stoul(f["rank"]), d.pieces.size());
        d.pieces.push_back(ch04_spm_bytes(f["piece"]));
      } else if (kind == "CASE") {
        d.cases.push_back(
            {f["kind"], ch04_spm_bytes(f["text"]), ch04_spm_list(f["pieces"]), {}});
      } else {
        EXPECT_EQ(kind, "PART");
        d.parts.push_back({"part", ch04_spm_bytes(f["text"]), ch04_spm_list(f["ours"]),
                           ch04_spm_list(f["sentencepiece"])});
      }
    }
    return d;
  }();
  return data;
}

// Chapter 3's trainer on the same documents, K merges, as a Tokenizer.
Tokenizer ch04_spm_tokenizer() {
  const Ch04SpmData& d = ch04_spm_data();
  const std::vector<std::string_view> docs(d.documents.begin(), d.documents.end());
  const auto trained = llmfs::text::train_bpe(docs, 258 + d.pieces.size());
  EXPECT_TRUE(trained.has_value());
  auto made = Tokenizer::create(trained ? trained->table : llmfs::text::MergeTable{});
  EXPECT_TRUE(made.has_value());
  return *std::move(made);
}

// Our tokens of `text` as byte strings.
std::vector<std::string> ch04_spm_pieces(const Tokenizer& t, std::string_view text) {
  std::vector<std::string> out;
  for (const auto id : t.encode(text))
    out.emplace_back(t.token_bytes(id));
  return out;
}

TEST(TokenizerSentencePiece, TrainingOnGenesis1GivesSentencePiecesPieces) {
  const Ch04SpmData& d = ch04_spm_data();
  ASSERT_EQ(d.documents.size(), 31u);  // Genesis 1, one verse a document
  ASSERT_EQ(d.pieces.size(), 16u);     // the merges before chapter 3's first tie
  const Tokenizer t = ch04_spm_tokenizer();
  ASSERT_EQ(t.vocab_size(), 258u + 16u);
  for (std::size_t r = 0; r < d.pieces.size(); ++r)
    EXPECT_EQ(t.token_bytes(static_cast<llmfs::text::TokenId>(256 + r)), d.pieces[r])
        << "rank " << r;
  EXPECT_EQ(d.pieces.front(), "th");
  EXPECT_EQ(d.pieces.back(), "And");
}

TEST(TokenizerSentencePiece, EveryStringSegmentsAsSentencePieceSegmentsIt) {
  const Ch04SpmData& d = ch04_spm_data();
  std::map<std::string, std::size_t> kinds;
  for (const Ch04SpmCase& c : d.cases)
    ++kinds[c.kind];
  ASSERT_EQ(d.cases.size(), 67u);
  EXPECT_EQ(kinds["fixture"], 17u);
  EXPECT_EQ(kinds["training"], 31u);
  EXPECT_EQ(kinds["unseen"], 19u);
  const Tokenizer t = ch04_spm_tokenizer();
  std::size_t tokens = 0;
  for (const Ch04SpmCase& c : d.cases) {
    EXPECT_EQ(ch04_spm_pieces(t, c.text), c.pieces) << c.kind << ": " << c.text;
    tokens += c.pieces.size();
  }
  EXPECT_GT(tokens, 2000u);  // not a handful of one-byte tokens
  // Genesis 1:1 by hand: In, " the", " ", b, e, g, in, n, ing, ...: "beginning" merges
  // "in" twice (leftmost first), then in+g is "ing" at rank 13.
  ASSERT_EQ(d.cases.at(17).kind, "training");
  EXPECT_EQ(
      std::vector<std::string>(d.cases[17].pieces.begin(),
                               d.cases[17].pieces.begin() + 9),
      (std::vector<std::string>{"I", "n", " the", " ", "b", "e", "g", "in", "n"}));
}

TEST(TokenizerSentencePiece, ASpaceMarkerInTheTextIsWhereTheyPart) {
  // SentencePiece reads U+2581 in the input as its space marker; our encoder sees the
  // three bytes E2 96 81, so "a▁the" is a, E2, 96, 81, th, e for us and a, " the"
  // there.
  const Ch04SpmData& d = ch04_spm_data();
  ASSERT_EQ(d.parts.size(), 1u);
  const Tokenizer t = ch04_spm_tokenizer();
  const Ch04SpmCase& part = d.parts[0];
  EXPECT_EQ(part.text, "a\xE2\x96\x81the");
  EXPECT_EQ(ch04_spm_pieces(t, part.text), part.pieces);
  EXPECT_EQ(part.pieces,
            (std::vector<std::string>{"a", "\xE2", "\x96", "\x81", "th", "e"}));
  EXPECT_EQ(part.sentencepiece, (std::vector<std::string>{"a", " the"}));
}

}  // namespace
}  // namespace ch04_sentencepiece_test

// Chapter 3: both trainers against the independent Python trainer
// (tests/reference/make_bpe_reference.py, written from the chapter's rules) and against
// SentencePiece's BPE trainer where the rules coincide. The data file is committed, so
// this test needs no Python; reference.ch03_bpe_current checks that it is current.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/text/bpe_train.hpp>

namespace {

using llmfs::text::BpeStop;
using llmfs::text::BpeTraining;
using llmfs::text::TokenPair;

std::vector<std::string> ch03_split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, sep);)
    parts.push_back(part);
  if (!text.empty() && text.back() == sep) parts.emplace_back();
  return parts;
}

// `key=value|key=value` fields of one record (the first field is its kind).
std::map<std::string, std::string> ch03_fields(const std::string& line) {
  std::map<std::string, std::string> fields;
  for (const std::string& part : ch03_split(line, '|')) {
    const auto eq = part.find('=');
    if (eq != std::string::npos) fields[part.substr(0, eq)] = part.substr(eq + 1);
  }
  return fields;
}

// Comma-separated hex byte strings; an empty field is no strings at all.
std::vector<std::string> ch03_hex_list(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  for (const std::string& hex : ch03_split(text, ',')) {
    std::string bytes;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
      bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    out.push_back(bytes);
  }
  return out;
}

struct Ch03Case {
  std::string name;
  std::size_t vocab_size = 0;
  std::vector<std::string> documents;
  BpeTraining expected;
};

struct Ch03Spm {
  std::vector<std::string> documents;
  std::size_t tie_free = 0;
  std::vector<std::string> pieces;
};

struct Ch03SpmTie {
  std::vector<std::string> documents;
  std::string ours;           // the Python trainer's first token
  std::string sentencepiece;  // SentencePiece's first piece, U+2581 written as a space
};

struct Ch03Reference {
  std::vector<Ch03Case> cases;
  std::vector<Ch03Spm> spm;
  std::vector<Ch03SpmTie> spm_tie;
  std::vector<Ch03SpmTie> spm_run;
};

const Ch03Reference& ch03_reference() {
  static const Ch03Reference data = [] {
    Ch03Reference r;
    std::ifstream file(LLMFS_SOURCE_DIR "/tests/reference/data/text/ch03_bpe.txt");
    EXPECT_TRUE(file.good());
    for (std::string line; std::getline(file, line);) {
      if (line.empty() || line[0] == '#') continue;
      auto f = ch03_fields(line);
      const std::string kind = line.substr(0, line.find('|'));
      if (kind == "CASE") {
        r.cases.push_back({f["name"],
                           std::stoul(f["vocab_size"]),
                           ch03_hex_list(f["documents"]),
                           {}});
      } else if (kind == "MERGE") {
        BpeTraining& t = r.cases.back().expected;
        EXPECT_EQ(std::stoul(f["rank"]), t.table.merges.size());
        t.table.merges.push_back({std::stoi(f["left"]), std::stoi(f["right"])});
        t.counts.push_back(std::stoll(f["count"]));
      } else if (kind == "STOP") {
        r.cases.back().expected.stop = f["reason"] == "vocab_size_reached"
                                           ? BpeStop::vocab_size_reached
                                           : BpeStop::no_repeated_pair;
      } else if (kind == "SPM") {
        r.spm.push_back({ch03_hex_list(f["documents"]), std::stoul(f["tie_free"]),
                         ch03_hex_list(f["pieces"])});
      } else if (kind == "SPM_TIE" || kind == "SPM_RUN") {
        (kind == "SPM_TIE" ? r.spm_tie : r.spm_run)
            .push_back({ch03_hex_list(f["documents"]), ch03_hex_list(f["ours"]).at(0),
                        ch03_hex_list(f["sentencepiece"]).at(0)});
      }
    }
    return r;
  }();
  return data;
}

TEST(BpeReference, BothTrainersLearnThePythonReferenceMerges) {
  const auto& cases = ch03_reference().cases;
  ASSERT_EQ(cases.size(), 47u);  // fixture, 6 rule cases, 40 random corpora
  std::size_t merges = 0;
  for (const Ch03Case& c : cases) {
    const std::vector<std::string_view> docs(c.documents.begin(), c.documents.end());
    const auto fast = llmfs::text::train_bpe(docs, c.vocab_size);
    const auto naive = llmfs::text::train_bpe_naive(docs, c.vocab_size);
    ASSERT_TRUE(fast && naive) << c.name;
    EXPECT_EQ(*fast, c.expected) << c.name;
    EXPECT_EQ(*naive, c.expected) << c.name;
    merges += c.expected.table.merges.size();
  }
  EXPECT_GT(merges, 200u);  // the cases are not trivially empty
}

TEST(BpeReference, TheFixtureCaseIsTheChaptersHandDerivation) {
  const Ch03Case& fixture = ch03_reference().cases.at(0);
  EXPECT_EQ(fixture.name, "fixture");
  EXPECT_EQ(fixture.expected.table.merges,
            (std::vector<TokenPair>{{'a', 't'}, {'h', 'e'}, {'t', 257}}));
}

TEST(BpeReference, SentencePieceLearnsTheSamePiecesBeforeTheFirstTie) {
  const auto& spm = ch03_reference().spm;
  ASSERT_EQ(spm.size(), 1u);
  const std::vector<std::string_view> docs(spm[0].documents.begin(),
                                           spm[0].documents.end());
  ASSERT_EQ(spm[0].documents.size(), 31u);  // Genesis 1, one verse a document
  ASSERT_GE(spm[0].tie_free, 10u);
  const auto t = llmfs::text::train_bpe(docs, 258 + spm[0].tie_free);
  ASSERT_TRUE(t.has_value());
  const auto bytes = llmfs::text::token_bytes(t->table);
  const std::vector<std::string> ours(bytes.begin() + 256, bytes.end());
  EXPECT_EQ(ours, spm[0].pieces);
  EXPECT_EQ(spm[0].pieces.front(), "th");
}

TEST(BpeReference, OnATieSentencePieceAndTheChapterPartByTheirTieBreak) {
  // ba ␣ab ␣ba ␣ab: (␣,a), (a,b), (b,a) all count 2. The chapter takes the smallest
  // ids, (32,97) = "␣a"; SentencePiece orders its piece strings, where the space is
  // U+2581 (above every ASCII letter), and takes "ab". Same counts, different
  // tie-break.
  const auto& tie = ch03_reference().spm_tie;
  ASSERT_EQ(tie.size(), 1u);
  const std::vector<std::string_view> docs(tie[0].documents.begin(),
                                           tie[0].documents.end());
  const auto t = llmfs::text::train_bpe(docs, 259);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(llmfs::text::token_bytes(t->table).at(256), tie[0].ours);
  EXPECT_EQ(tie[0].ours, " a");
  EXPECT_EQ(tie[0].sentencepiece, "ab");
}

TEST(BpeReference, SentencePieceCountsARunAsTheChapterDoes) {
  // aaaaaa | xy␣xy␣xy␣xy: (a,a) counts ⌊6/2⌋ = 3 and (x,y) 4, so xy goes first for
  // both; counting every adjacent a a would give 5 and merge aa first.
  const auto& run = ch03_reference().spm_run;
  ASSERT_EQ(run.size(), 1u);
  const std::vector<std::string_view> docs(run[0].documents.begin(),
                                           run[0].documents.end());
  const auto t = llmfs::text::train_bpe(docs, 259);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->counts, (std::vector<std::int64_t>{4}));
  EXPECT_EQ(llmfs::text::token_bytes(t->table).at(256), "xy");
  EXPECT_EQ(run[0].sentencepiece, "xy");
  EXPECT_EQ(run[0].ours, "xy");
}

}  // namespace

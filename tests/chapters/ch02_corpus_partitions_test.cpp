// Chapter 2: the chapter's claims. Fixture values are derived by hand beside each
// assertion (byte counts) or come from Python's hashlib (buckets); the King James
// numbers come from the independent reference
// tests/reference/data/text/ch02_partitions.txt
// (tests/reference/make_partition_reference.py), never from the code under test.
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using llmfs::text::Split;

const ch02::Evidence& ch02_evidence() {
  static const ch02::Evidence e = [] {
    auto gathered = ch02::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch02::Evidence{});
  }();
  return e;
}

std::string ch02_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(stream)),
                     std::istreambuf_iterator<char>());
}

// The reference's `key=value` lines.
const std::map<std::string, std::string>& ch02_reference() {
  static const std::map<std::string, std::string> values = [] {
    std::map<std::string, std::string> kv;
    std::istringstream lines(
        ch02_file(std::string(LLMFS_SOURCE_DIR) +
                  "/tests/reference/data/text/ch02_partitions.txt"));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty() && line[0] != '#')
        kv[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
    return kv;
  }();
  return values;
}

TEST(Ch02Fixture, DocumentBytesByHand) {
  // "# Greetings 1\n" = 14; "1 héllo, world\n" = 15 characters, é two bytes: 16;
  // "2 hello again\n" = 14: 44. "# Greetings 2\n1 good night\n" = 14 + 13 = 27;
  // "# Prices 1\n1 tea costs 2 €\n" = 11 + 18 (€ three bytes) = 29; "# Faces 1\n" 10 +
  // "1 🙂 means glad\n" 18 (🙂 four bytes) = 28; "# Bytes 1\n" 10 + 25 = 35;
  // "# Greetings 7\n1 farewell\n" = 14 + 11 = 25.
  const auto& rows = ch02_evidence().fixture_rows;
  ASSERT_EQ(rows.size(), 6u);
  const std::size_t bytes[] = {44, 27, 29, 28, 35, 25};
  for (std::size_t d = 0; d < 6; ++d)
    EXPECT_EQ(rows[d].bytes, bytes[d]) << rows[d].title;
}

TEST(Ch02Fixture, BucketsMatchPythonHashlib) {
  // int.from_bytes(hashlib.sha256(title).digest()[:8], "big") % 100 for each title.
  const auto& rows = ch02_evidence().fixture_rows;
  ASSERT_EQ(rows.size(), 6u);
  const std::uint64_t buckets[] = {21, 89, 6, 92, 78, 98};
  for (std::size_t d = 0; d < 6; ++d)
    EXPECT_EQ(rows[d].bucket, buckets[d]) << rows[d].title;
  EXPECT_EQ(rows[3].hash_prefix, "b35cca2cd78b004c");  // sha256("Faces 1")
  EXPECT_EQ(rows[3].split, Split::validation);
  EXPECT_EQ(rows[5].split, Split::test);
}

TEST(Ch02Fixture, PartitionIsCompleteAndDisjoint) {
  // Train: Greetings 1, Greetings 2, Prices 1, Bytes 1 = 44 + 27 + 29 + 35 = 135 bytes;
  // validation: Faces 1 (28); test: Greetings 7 (25); 135 + 28 + 25 = 188.
  const ch02::PartitionProof& p = ch02_evidence().fixture;
  EXPECT_EQ(p.documents, 6u);
  EXPECT_EQ(p.listed_once, 6u);
  EXPECT_EQ(p.overlaps, 0u);
  EXPECT_EQ(p.unlisted, 0u);
  ASSERT_EQ(p.splits.size(), 3u);
  EXPECT_EQ(p.splits[0].documents, 4u);
  EXPECT_EQ(p.splits[0].bytes, 135u);
  EXPECT_EQ(p.splits[1].bytes, 28u);
  EXPECT_EQ(p.splits[2].bytes, 25u);
  EXPECT_EQ(p.bytes, 188u);
}

TEST(Ch02Errors, EachBrokenCorpusIsNamedWithItsByteAndDocument) {
  const auto& c = ch02_evidence().corpus_errors;
  ASSERT_EQ(c.size(), 8u);
  // "# A 1\n1 ok\n" is bytes 0-10, "# B 1\n" 11-16, "1 caf" 17-21: E2 at byte 22.
  EXPECT_EQ(c[0].answer,
            "error:read corpus: invalid UTF-8 (file case.txt, byte 22, document 1 \"B "
            "1\"): utf-8 decode: truncated sequence at byte 22 (first byte 0xE2)");
  EXPECT_EQ(c[1].answer, "error:read corpus: no documents (file case.txt, byte 0)");
  EXPECT_EQ(c[2].answer,
            "error:read corpus: text before the first heading (file case.txt, byte 0)");
  // "# A 1\n1 x\n" is 10 bytes: the empty heading starts at byte 10.
  EXPECT_EQ(c[3].answer,
            "error:read corpus: empty title (file case.txt, byte 10, document 1)");
  EXPECT_EQ(c[4].answer,
            "error:read corpus: empty document (file case.txt, byte 0, document 0 \"A "
            "1\")");
  EXPECT_EQ(
      c[5].answer,
      "error:read corpus: duplicate title (file case.txt, byte 20, document 2 \"A "
      "1\", first used by document 0)");
  EXPECT_EQ(c[6].answer,
            "error:read corpus: missing final newline (file case.txt, byte 9, document "
            "0 \"A 1\")");
  EXPECT_EQ(c[7].answer,
            "error:read corpus: cannot read the file (file no-such-corpus.txt: no such "
            "file)");
}

TEST(Ch02Errors, EachBrokenManifestIsNamedWithItsLine) {
  const auto& m = ch02_evidence().manifest_errors;
  ASSERT_EQ(m.size(), 8u);
  EXPECT_EQ(m[0].answer,
            "error:read partitions: no corpus_sha256 line (manifest case.tsv, line 2: "
            "the first line must be corpus_sha256)");
  EXPECT_TRUE(m[1].answer.starts_with(
      "error:read partitions: made for another corpus (manifest case.tsv, line 1: "));
  EXPECT_EQ(
      m[2].answer,
      "error:read partitions: malformed line (manifest case.tsv, line 2: expected "
      "two fields separated by a tab)");
  EXPECT_EQ(
      m[3].answer,
      "error:read partitions: unknown split (manifest case.tsv, line 2: \"dev\")");
  EXPECT_EQ(
      m[4].answer,
      "error:read partitions: document not in the corpus (manifest case.tsv, line "
      "2: \"Greetings 3\")");
  EXPECT_EQ(m[5].answer,
            "error:read partitions: document listed twice (manifest case.tsv, line 4: "
            "\"Greetings 1\" first listed on line 2)");
  EXPECT_EQ(m[6].answer,
            "error:read partitions: document not listed (manifest case.tsv, after line "
            "2: document 1 \"Greetings 2\")");
  EXPECT_EQ(m[7].answer,
            "error:read partitions: cannot read the manifest (manifest "
            "no-such-partitions.tsv: no such file)");
}

TEST(Ch02KingJames, HashIsThePinAndTheReferences) {
  const ch02::Evidence& e = ch02_evidence();
  EXPECT_EQ(e.kjv_sha256, ch02_reference().at("corpus_sha256"));
  EXPECT_EQ(e.pinned_sha256, ch02_reference().at("corpus_sha256"));
}

TEST(Ch02KingJames, CommittedManifestIsCompleteDisjointAndMatchesThePythonReference) {
  const ch02::PartitionProof& p = ch02_evidence().kjv;
  EXPECT_EQ(p.documents, 929u + 260u);  // chapters of the Old and New Testaments
  EXPECT_EQ(p.listed_once, p.documents);
  EXPECT_EQ(p.overlaps, 0u);
  EXPECT_EQ(p.unlisted, 0u);
  EXPECT_TRUE(p.ascending);
  EXPECT_TRUE(p.matches_rule);
  EXPECT_EQ(fmt::format("{} bytes={}", p.documents, p.bytes),
            ch02_reference().at("documents"));
  ASSERT_EQ(p.splits.size(), 3u);
  for (const ch02::SplitFacts& s : p.splits)
    EXPECT_EQ(fmt::format("documents:{} bytes:{}", s.documents, s.bytes),
              ch02_reference().at(fmt::format("split.{}", describe(s.split))));
}

TEST(Ch02KingJames, CommittedManifestIsWhatTheRuleWrites) {
  // The manifest in tools/ is byte for byte what format_manifest() writes for the
  // rule's partition of the corpus, and its validation and test titles are Python's.
  const auto corpus = llmfs::text::read_corpus(LLMFS_CORPUS_PATH);
  ASSERT_TRUE(corpus.has_value()) << fmt::format("{}", corpus.error());
  const auto assigned = llmfs::text::assign_partitions(*corpus);
  ASSERT_TRUE(assigned.has_value()) << fmt::format("{}", assigned.error());
  const llmfs::text::Partitions& rule = *assigned;
  EXPECT_EQ(ch02_file(LLMFS_PARTITIONS_PATH),
            llmfs::text::format_manifest(*corpus, rule));
  for (Split split : {Split::validation, Split::test}) {
    std::string titles;
    for (std::size_t d : llmfs::text::indices(rule, split))
      titles += (titles.empty() ? "" : "|") + corpus->documents[d].title;
    EXPECT_EQ(titles, ch02_reference().at(fmt::format("titles.{}", describe(split))));
  }
}

TEST(Ch02Exercise, HandBucketOfFaces1) {
  // b35cca2cd78b004c = 12924427324590063692 (Python int(..., 16)); its last two decimal
  // digits are 92, so the bucket is 92: validation (90-94).
  const ch02::Exercises& x = ch02_evidence().exercises;
  EXPECT_EQ(x.hand_integer, 12924427324590063692u);
  EXPECT_EQ(x.hand.bucket, 92u);
  EXPECT_EQ(x.hand.split, Split::validation);
}

TEST(Ch02Exercise, ExpectedSplitSizes) {
  // D = 1189: train 0.9 D = 1070.1, sd √(1189·0.9·0.1) = √107.01 = 10.34; validation
  // and test 0.05 D = 59.45, sd √(1189·0.05·0.95) = √56.48 = 7.52.
  const auto& s = ch02_evidence().exercises.expected;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0].expected, 1070.1, 1e-9);
  EXPECT_NEAR(s[0].deviation, 10.3446, 1e-4);
  EXPECT_NEAR(s[1].expected, 59.45, 1e-9);
  EXPECT_NEAR(s[2].deviation, 7.5152, 1e-4);
}

TEST(Ch02Exercise, HashedTestSpreadsOverManyBooksTheTailOverEleven) {
  // The last 59 chapters (round(0.05·1189) = 59): Revelation 22, Jude 1, 3 John 1,
  // 2 John 1, 1 John 5, 2 Peter 3, 1 Peter 5, James 5, Hebrews 13, Philemon 1, Titus
  // 2-3: 22+1+1+1+5+3+5+5+13+1+2 = 59 chapters from 11 books.
  const ch02::Exercises& x = ch02_evidence().exercises;
  EXPECT_EQ(x.tail_documents, 59u);
  EXPECT_EQ(x.books_tail_test, 11u);
  EXPECT_EQ(fmt::format("{}", x.books_hash_test), ch02_reference().at("books.test"));
}

TEST(Ch02Exercise, AppendingMovesNoDocument) {
  // A document's split depends on its title alone; "Greetings 3" hashes to 74
  // (hashlib).
  const ch02::Exercises& x = ch02_evidence().exercises;
  EXPECT_EQ(x.moved_after_append, 0u);
  EXPECT_EQ(x.appended.bucket, 74u);
  EXPECT_EQ(x.appended.split, Split::train);
}

TEST(Ch02Exercise, RenamingChangesTheCorpusHash) {
  // The manifest's first non-comment line is line 6 (five comment lines before it).
  EXPECT_TRUE(ch02_evidence().exercises.renamed.answer.starts_with(
      "error:read partitions: made for another corpus (manifest fixture.tsv, line "
      "6: "));
}

TEST(Ch02Misconception, LineSplitLeaksNeighboursDocumentSplitDoesNot) {
  const ch02::Leakage& l = ch02_evidence().leakage;
  EXPECT_EQ(fmt::format("test_lines:{} neighbour_in_train:{}", l.line_split_test_lines,
                        l.line_split_neighbour),
            ch02_reference().at("leak.line_split"));
  EXPECT_EQ(fmt::format("test_lines:{} verbatim_in_train:{}", l.test_lines,
                        l.test_lines_verbatim),
            ch02_reference().at("leak.document_split"));
  EXPECT_EQ(l.test_lines_neighbour, 0u);
}

}  // namespace

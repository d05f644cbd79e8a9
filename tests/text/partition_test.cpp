// Chapter 2: partitions. The hash against FIPS 180-4's test vector and Python's
// hashlib, the bucket boundaries by hand, every manifest error with its line, atomic
// writing, and seeded random corpora against a per-title reference: disjoint, complete,
// and unchanged when the documents are reordered.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/partition.hpp>

#include "support/temp_dir.hpp"

#include <sys/stat.h>

namespace {

using llmfs::text::Corpus;
using llmfs::text::PartitionError;
using llmfs::text::PartitionErrorCode;
using llmfs::text::Partitions;
using llmfs::text::Split;

// Three documents whose titles hash to buckets 21 (train), 92 (validation) and 98
// (test); the buckets come from Python's hashlib (see the title_bucket test).
Corpus ch02_three_documents() {
  return Corpus{
      {{"Greetings 1", "1 hi\n"}, {"Faces 1", "1 glad\n"}, {"Greetings 7", "1 bye\n"}}};
}

std::string ch02_partition_message(const PartitionError& error) {
  return fmt::format("{}", error);
}

PartitionError ch02_manifest_error(std::string_view text) {
  const auto parsed =
      llmfs::text::parse_partitions(text, "m.tsv", ch02_three_documents());
  EXPECT_FALSE(parsed.has_value());
  return parsed ? PartitionError{} : parsed.error();
}

// The rule's bucket and partitions; the rule cannot fail on any input (only libcrypto
// itself can), so a failure here fails the test.
std::uint64_t ch02_bucket(std::string_view title) {
  const auto bucket = llmfs::text::title_bucket(title);
  EXPECT_TRUE(bucket.has_value()) << ch02_partition_message(bucket.error());
  return bucket.value_or(llmfs::text::kBuckets);
}

Partitions ch02_assign(const Corpus& corpus) {
  const auto partitions = llmfs::text::assign_partitions(corpus);
  EXPECT_TRUE(partitions.has_value()) << ch02_partition_message(partitions.error());
  return partitions.value_or(Partitions{});
}

std::string ch02_hash_line() {
  return "corpus_sha256\t" + llmfs::text::corpus_sha256(ch02_three_documents()) + "\n";
}

TEST(PartitionHash, Sha256MatchesTheFips180TestVectors) {
  // FIPS 180-4 / NIST examples: SHA-256("abc") and SHA-256("").
  EXPECT_EQ(llmfs::text::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(llmfs::text::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(PartitionRule, TitleBucketsMatchPythonHashlib) {
  // hashlib.sha256(b"Faces 1").hexdigest()[:16] = b35cca2cd78b004c
  //   = 12924427324590063692, mod 100 = 92;
  // "Greetings 7": 841d717dc11a9f6a = 9519889972255694698 -> 98;
  // "Greetings 2": 33a0985e10fe478d = 3720140821987477389 -> 89.
  EXPECT_EQ(ch02_bucket("Faces 1"), 92u);
  EXPECT_EQ(ch02_bucket("Greetings 7"), 98u);
  EXPECT_EQ(ch02_bucket("Greetings 2"), 89u);
}

TEST(PartitionRule, EveryTitleHashesEvenEmptyAndLong) {
  // EVP_Digest fails only if libcrypto cannot allocate or load SHA-256, never for
  // input bytes, so hash_failed cannot be provoked here; what can be checked is that
  // odd inputs hash. hashlib: sha256(b"") begins e3b0c44298fc1c14 =
  // 16406829232824261652 -> 52; sha256(b"\x00\xff" * 5000) begins 7c133cb2bc11221c =
  // 8940556423617651228 -> 28.
  EXPECT_EQ(ch02_bucket(""), 52u);
  std::string long_title;
  for (int k = 0; k < 5000; ++k)
    long_title += std::string("\x00\xff", 2);
  EXPECT_EQ(ch02_bucket(long_title), 28u);
  EXPECT_EQ(llmfs::text::describe(PartitionErrorCode::hash_failed), "SHA-256 failed");
}

TEST(PartitionRule, BucketBoundaries) {
  EXPECT_EQ(llmfs::text::split_of_bucket(0), Split::train);
  EXPECT_EQ(llmfs::text::split_of_bucket(89), Split::train);
  EXPECT_EQ(llmfs::text::split_of_bucket(90), Split::validation);
  EXPECT_EQ(llmfs::text::split_of_bucket(94), Split::validation);
  EXPECT_EQ(llmfs::text::split_of_bucket(95), Split::test);
  EXPECT_EQ(llmfs::text::split_of_bucket(99), Split::test);
}

TEST(PartitionRule, ThreeDocumentsOneInEachSplit) {
  const Partitions p = ch02_assign(ch02_three_documents());
  EXPECT_EQ(p, (Partitions{{0}, {1}, {2}}));
  const Corpus test = llmfs::text::documents_of(ch02_three_documents(), p, Split::test);
  ASSERT_EQ(test.documents.size(), 1u);
  EXPECT_EQ(test.documents[0].title, "Greetings 7");
}

TEST(PartitionManifest, FormatThenParseGivesThePartitionsBack) {
  const Corpus corpus = ch02_three_documents();
  const Partitions p = ch02_assign(corpus);
  const std::string text = llmfs::text::format_manifest(corpus, p);
  EXPECT_NE(text.find(ch02_hash_line()), std::string::npos);
  EXPECT_NE(text.find("Greetings 1\ttrain\nFaces 1\tvalidation\nGreetings 7\ttest\n"),
            std::string::npos);
  const auto back = llmfs::text::parse_partitions(text, "m.tsv", corpus);
  ASSERT_TRUE(back.has_value()) << ch02_partition_message(back.error());
  EXPECT_EQ(*back, p);
}

TEST(PartitionManifest, ListingOrderDoesNotMatter) {
  const auto p = llmfs::text::parse_partitions(
      "# comment\n" + ch02_hash_line() +
          "rule\tby hand\nGreetings 7\ttrain\nFaces 1\ttrain\nGreetings 1\ttest\n",
      "m.tsv", ch02_three_documents());
  ASSERT_TRUE(p.has_value()) << ch02_partition_message(p.error());
  EXPECT_EQ(*p, (Partitions{{1, 2}, {}, {0}}));
}

TEST(PartitionManifestErrors, MissingHash) {
  const PartitionError e =
      ch02_manifest_error("# only a comment\nGreetings 1\ttrain\n");
  EXPECT_EQ(e.code, PartitionErrorCode::missing_hash);
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: no corpus_sha256 line (manifest m.tsv, line 2: the first "
            "line must be corpus_sha256)");
  EXPECT_EQ(ch02_partition_message(ch02_manifest_error("# nothing\n")),
            "read partitions: no corpus_sha256 line (manifest m.tsv, line 1: end of "
            "file)");
}

TEST(PartitionManifestErrors, AnotherCorpusHash) {
  const std::string other(64, '0');
  const PartitionError e = ch02_manifest_error("corpus_sha256\t" + other + "\n");
  EXPECT_EQ(e.code, PartitionErrorCode::corpus_mismatch);
  EXPECT_EQ(
      ch02_partition_message(e),
      fmt::format("read partitions: made for another corpus (manifest m.tsv, line "
                  "1: manifest has {}, corpus has {})",
                  other, llmfs::text::corpus_sha256(ch02_three_documents())));
}

TEST(PartitionManifestErrors, MalformedLine) {
  const PartitionError e =
      ch02_manifest_error(ch02_hash_line() + "Greetings 1 train\n");
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: malformed line (manifest m.tsv, line 2: expected two "
            "fields separated by a tab)");
}

TEST(PartitionManifestErrors, UnknownSplit) {
  const PartitionError e = ch02_manifest_error(ch02_hash_line() + "Faces 1\tdev\n");
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: unknown split (manifest m.tsv, line 2: \"dev\")");
}

TEST(PartitionManifestErrors, UnknownDocument) {
  const PartitionError e = ch02_manifest_error(ch02_hash_line() + "Faces 2\ttest\n");
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: document not in the corpus (manifest m.tsv, line 2: "
            "\"Faces 2\")");
}

TEST(PartitionManifestErrors, DuplicateEntryNamesBothLines) {
  const PartitionError e = ch02_manifest_error(ch02_hash_line() +
                                               "Faces 1\ttest\nGreetings 1\ttrain\n"
                                               "Faces 1\ttrain\n");
  EXPECT_EQ(e.code, PartitionErrorCode::duplicate_entry);
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: document listed twice (manifest m.tsv, line 4: \"Faces "
            "1\" first listed on line 2)");
}

TEST(PartitionManifestErrors, MissingDocumentAfterTheLastLine) {
  const PartitionError e =
      ch02_manifest_error(ch02_hash_line() + "Faces 1\ttest\nGreetings 1\ttrain\n");
  EXPECT_EQ(ch02_partition_message(e),
            "read partitions: document not listed (manifest m.tsv, after line 3: "
            "document 2 \"Greetings 7\")");
}

// --- The manifest grammar's boundaries: a title is anything a corpus heading holds --

Corpus ch02_awkward_titles() {
  return Corpus{{{"Psalm\t23", "1 a\n"},  // a tab: the line splits at its last tab
                 {"# hash", "1 b\n"},     // looks like a comment
                 {"rule", "1 c\n"},       // looks like the rule line
                 {"a\ttab\ttwice", "1 d\n"}}};
}

// A reader that split a line at its first tab would read `Psalm` and a split
// `23\ttrain`; one that skipped every `#` line, or every `rule` line, would lose a
// document.
TEST(PartitionManifestGrammar, TitlesWithTabsHashesOrRuleReadBack) {
  const Corpus corpus = ch02_awkward_titles();
  const Partitions p{{0, 2}, {1}, {3}};
  const std::string text = llmfs::text::format_manifest(corpus, p);
  EXPECT_NE(text.find("\nPsalm\t23\ttrain\n# hash\tvalidation\nrule\ttrain\n"),
            std::string::npos);
  const auto back = llmfs::text::parse_partitions(text, "m.tsv", corpus);
  ASSERT_TRUE(back.has_value()) << ch02_partition_message(back.error());
  EXPECT_EQ(*back, p);
  // `rule` as the first listed document of a manifest without a rule line.
  const auto no_rule = llmfs::text::parse_partitions(
      "corpus_sha256\t" + llmfs::text::corpus_sha256(corpus) +
          "\nrule\ttest\nPsalm\t23\ttrain\n# hash\ttrain\na\ttab\ttwice\ttrain\n",
      "m.tsv", corpus);
  ASSERT_FALSE(no_rule.has_value());  // `rule\ttest` is taken as the rule line
  EXPECT_EQ(ch02_partition_message(no_rule.error()),
            "read partitions: document not listed (manifest m.tsv, after line 5: "
            "document 2 \"rule\")");
}

// --- Property: any corpus's manifest is read back as the partitions it was made from
// --

TEST(PartitionManifestProperty, AnyManifestRoundTripsThroughTextAndFile) {
  const std::vector<std::string> pieces{
      "a", "B", " ", "\t", "#", "# ", "rule", "é", "1", "\t#", "corpus_sha256"};
  const auto dir = llmfs::test::make_temp_dir("llmfs-ch02-manifest-property");
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    Corpus corpus;
    std::set<std::string> titles;
    const std::size_t documents = 1 + rng() % 12;
    while (corpus.documents.size() < documents) {
      std::string title;
      for (std::size_t k = 1 + rng() % 4; k > 0; --k)
        title += pieces[rng() % pieces.size()];
      if (titles.insert(title).second)
        corpus.documents.push_back({title, fmt::format("{} text\n", rng() % 100)});
    }
    std::vector<Split> split_of;
    for (std::size_t d = 0; d < documents; ++d)
      split_of.push_back(llmfs::text::kSplits[rng() % 3]);
    const Partitions p = llmfs::text::collect_partitions(split_of);
    const std::string text = llmfs::text::format_manifest(corpus, p);
    const auto back = llmfs::text::parse_partitions(text, "p.tsv", corpus);
    ASSERT_TRUE(back.has_value())
        << "seed " << seed << ": " << ch02_partition_message(back.error());
    ASSERT_EQ(*back, p) << "seed " << seed;
    if (seed % 20 != 0) continue;  // and through the files, every 20th seed
    ASSERT_TRUE(llmfs::text::write_manifest(dir / "p.tsv", corpus, p).has_value());
    std::ofstream(dir / "c.txt", std::ios::binary) << llmfs::text::corpus_text(corpus);
    const auto both =
        llmfs::text::read_partitioned_corpus(dir / "c.txt", dir / "p.tsv");
    ASSERT_TRUE(both.has_value())
        << "seed " << seed << ": " << ch02_partition_message(both.error());
    EXPECT_EQ(both->corpus, corpus);
    EXPECT_EQ(both->partitions, p);
  }
  std::filesystem::remove_all(dir);
}

class PartitionFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = llmfs::test::make_temp_dir("llmfs-ch02-partition"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(PartitionFiles, WriteThenReadLeavesNoTemporaryFile) {
  const Corpus corpus = ch02_three_documents();
  const Partitions p = ch02_assign(corpus);
  const auto path = dir_ / "partitions.tsv";
  std::ofstream(path) << "old manifest\n";
  ASSERT_TRUE(llmfs::text::write_manifest(path, corpus, p).has_value());
  const auto back = llmfs::text::read_partitions(path, corpus);
  ASSERT_TRUE(back.has_value()) << ch02_partition_message(back.error());
  EXPECT_EQ(*back, p);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(PartitionFiles, AnUnwritablePlaceFailsAndWritesNothing) {
  const auto path = dir_ / "no-such-folder" / "partitions.tsv";
  const auto written = llmfs::text::write_manifest(path, ch02_three_documents(),
                                                   Partitions{{0}, {1}, {2}});
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().code, PartitionErrorCode::unwritable);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "no-such-folder"));
}

TEST_F(PartitionFiles, AMissingManifestIsUnreadable) {
  const auto path = dir_ / "missing.tsv";
  const auto p = llmfs::text::read_partitions(path, ch02_three_documents());
  ASSERT_FALSE(p.has_value());
  EXPECT_EQ(
      ch02_partition_message(p.error()),
      fmt::format("read partitions: cannot read the manifest (manifest {}: no such "
                  "file)",
                  path.string()));
}

TEST_F(PartitionFiles, AFolderOrAFifoAsTheManifestIsATypedError) {
  const auto corpus = dir_ / "corpus.txt";
  std::ofstream(corpus, std::ios::binary) << "# A\na\n";
  const auto folder = llmfs::text::read_partitioned_corpus(corpus, dir_);
  ASSERT_FALSE(folder.has_value());
  EXPECT_EQ(ch02_partition_message(folder.error()),
            fmt::format("read partitions: cannot read the manifest (manifest {}: is a "
                        "folder, not a file)",
                        dir_.string()));
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const auto fifo = llmfs::text::read_partitioned_corpus(corpus, dir_ / "fifo");
  ASSERT_FALSE(fifo.has_value());
  EXPECT_EQ(fifo.error().code, PartitionErrorCode::unreadable);
  const auto corpus_folder = llmfs::text::read_partitioned_corpus(dir_, dir_ / "m.tsv");
  ASSERT_FALSE(corpus_folder.has_value());
  EXPECT_EQ(corpus_folder.error().code, PartitionErrorCode::corpus);
  EXPECT_EQ(corpus_folder.error().cause->code,
            llmfs::text::CorpusErrorCode::unreadable);
}

TEST_F(PartitionFiles, WritingOverAFolderFailsAndLeavesItAndNoTemporary) {
  std::filesystem::create_directory(dir_ / "taken");
  std::ofstream(dir_ / "taken" / "inside") << "kept";
  const auto written = llmfs::text::write_manifest(
      dir_ / "taken", ch02_three_documents(), Partitions{{0}, {1}, {2}});
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().code, PartitionErrorCode::unwritable);
  EXPECT_TRUE(
      ch02_partition_message(written.error())
          .starts_with(fmt::format("write partitions: cannot write the manifest "
                                   "(manifest {}: cannot rename over the target",
                                   (dir_ / "taken").string())));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(PartitionFiles, ACorpusFailureIsWrappedAsTheCause) {
  const auto corpus = dir_ / "corpus.txt";
  std::ofstream(corpus, std::ios::binary) << "# A\n";
  const auto both = llmfs::text::read_partitioned_corpus(corpus, dir_ / "m.tsv");
  ASSERT_FALSE(both.has_value());
  EXPECT_EQ(both.error().code, PartitionErrorCode::corpus);
  EXPECT_EQ(ch02_partition_message(both.error()),
            fmt::format("read partitions: the corpus failed: read corpus: empty "
                        "document (file {}, byte 0, document 0 \"A\")",
                        corpus.string()));
}

// The naive reference: each title's split from its bucket, looked up by title.
std::map<std::string, Split> ch02_reference_splits(const Corpus& corpus) {
  std::map<std::string, Split> splits;
  for (const auto& document : corpus.documents) {
    const std::uint64_t b = ch02_bucket(document.title);
    splits[document.title] = b < 90   ? Split::train
                             : b < 95 ? Split::validation
                                      : Split::test;
  }
  return splits;
}

TEST(PartitionProperty, RandomCorporaAreDisjointCompleteAndStableUnderReordering) {
  // 200 seeded corpora of 1-40 documents with random titles, each also shuffled.
  std::mt19937_64 rng(20261203);
  for (int round = 0; round < 200; ++round) {
    Corpus corpus;
    const std::uint64_t documents = 1 + rng() % 40;
    for (std::uint64_t d = 0; d < documents; ++d)
      corpus.documents.push_back({fmt::format("T{} {}", rng() % 100000, d), "1 x\n"});
    const Partitions p = ch02_assign(corpus);
    std::vector<int> times(documents, 0);
    const auto reference = ch02_reference_splits(corpus);
    for (Split split : llmfs::text::kSplits) {
      const auto& list = llmfs::text::indices(p, split);
      EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
      for (std::size_t d : list) {
        ++times.at(d);
        EXPECT_EQ(reference.at(corpus.documents[d].title), split);
      }
    }
    EXPECT_EQ(std::count(times.begin(), times.end(), 1),
              static_cast<std::ptrdiff_t>(documents))
        << "every document in exactly one split, round " << round;
    Corpus shuffled = corpus;
    std::shuffle(shuffled.documents.begin(), shuffled.documents.end(), rng);
    const Partitions q = ch02_assign(shuffled);
    for (Split split : llmfs::text::kSplits)
      for (std::size_t d : llmfs::text::indices(q, split))
        EXPECT_EQ(reference.at(shuffled.documents[d].title), split);
    const auto back = llmfs::text::parse_partitions(
        llmfs::text::format_manifest(shuffled, q), "random.tsv", shuffled);
    ASSERT_TRUE(back.has_value()) << ch02_partition_message(back.error());
    EXPECT_EQ(*back, q);
  }
}

}  // namespace

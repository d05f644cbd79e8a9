// Chapter 2: the corpus reader. Hand-made inputs beside each assertion, one test per
// error code with its exact message (file, byte offset, document), and seeded random
// corpora that must survive a write-and-read round trip.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/corpus.hpp>

#include "support/temp_dir.hpp"

#include <sys/stat.h>

namespace {

using llmfs::text::Corpus;
using llmfs::text::CorpusError;
using llmfs::text::CorpusErrorCode;
using llmfs::text::Document;
using llmfs::text::parse_corpus;

CorpusError ch02_corpus_error(std::string_view bytes) {
  const auto corpus = parse_corpus(bytes, "case.txt");
  EXPECT_FALSE(corpus.has_value());
  return corpus ? CorpusError{} : corpus.error();
}

std::string ch02_message(const CorpusError& error) {
  return fmt::format("{}", error);
}

TEST(CorpusRead, TwoDocumentsKeepTheirLinesExactly) {
  const auto corpus = parse_corpus("# A 1\n1 x\n2 y\n# B 1\n1 z\n", "two.txt");
  ASSERT_TRUE(corpus.has_value()) << ch02_message(corpus.error());
  ASSERT_EQ(corpus->documents.size(), 2u);
  EXPECT_EQ(corpus->documents[0], (Document{"A 1", "1 x\n2 y\n"}));
  EXPECT_EQ(corpus->documents[1], (Document{"B 1", "1 z\n"}));
  // "# A 1\n" is 6 bytes, its text 8; "# B 1\n" 6, its text 4.
  EXPECT_EQ(llmfs::text::document_bytes(corpus->documents[0]), 14u);
  EXPECT_EQ(llmfs::text::document_bytes(corpus->documents[1]), 10u);
}

TEST(CorpusRead, AHashWithoutSpaceIsText) {
  // Only "# " opens a document; "#x" is an ordinary line of the open one.
  const auto corpus = parse_corpus("# A\n#x\n", "hash.txt");
  ASSERT_TRUE(corpus.has_value());
  EXPECT_EQ(corpus->documents.at(0).text, "#x\n");
}

TEST(CorpusErrors, InvalidUtf8NamesByteDocumentAndWrapsTheDecoderError) {
  // "# A\n" is bytes 0-3, "1 ok\n" 4-8, "# B\n" 9-12; E2 82 starts at 15 and is cut.
  const CorpusError e = ch02_corpus_error("# A\n1 ok\n# B\n1 \xE2\x82\n");
  EXPECT_EQ(e.code, CorpusErrorCode::invalid_utf8);
  ASSERT_TRUE(e.cause.has_value());
  EXPECT_EQ(e.cause->offset, 15u);
  EXPECT_EQ(ch02_message(e),
            "read corpus: invalid UTF-8 (file case.txt, byte 15, document 1 \"B\"): "
            "utf-8 decode: truncated sequence at byte 15 (first byte 0xE2)");
}

TEST(CorpusErrors, InvalidUtf8InTheFirstHeadingNamesNoDocument) {
  const CorpusError e = ch02_corpus_error("# \xFF\n1 x\n");
  EXPECT_EQ(ch02_message(e),
            "read corpus: invalid UTF-8 (file case.txt, byte 2): utf-8 decode: byte "
            "never used in UTF-8 at byte 2 (first byte 0xFF)");
}

TEST(CorpusErrors, TextBeforeTheFirstHeading) {
  const CorpusError e = ch02_corpus_error("preface\n# A\n1 x\n");
  EXPECT_EQ(e.code, CorpusErrorCode::text_before_heading);
  EXPECT_EQ(ch02_message(e),
            "read corpus: text before the first heading (file case.txt, byte 0)");
}

TEST(CorpusErrors, EmptyDocumentBetweenTwoHeadings) {
  // "# A\n1 x\n" is 8 bytes; "# B\n" starts at 8 and is followed by another heading.
  const CorpusError e = ch02_corpus_error("# A\n1 x\n# B\n# C\n1 y\n");
  EXPECT_EQ(e.code, CorpusErrorCode::empty_document);
  EXPECT_EQ(ch02_message(e),
            "read corpus: empty document (file case.txt, byte 8, document 1 \"B\")");
}

TEST(CorpusErrors, EmptyDocumentAtTheEnd) {
  const CorpusError e = ch02_corpus_error("# A\n1 x\n# B\n");
  EXPECT_EQ(ch02_message(e),
            "read corpus: empty document (file case.txt, byte 8, document 1 \"B\")");
}

TEST(CorpusErrors, EmptyTitle) {
  const CorpusError e = ch02_corpus_error("# A\n1 x\n# \n1 y\n");
  EXPECT_EQ(e.code, CorpusErrorCode::empty_title);
  EXPECT_EQ(ch02_message(e),
            "read corpus: empty title (file case.txt, byte 8, document 1)");
}

TEST(CorpusErrors, DuplicateTitleNamesBothDocuments) {
  // Documents 0 "A", 1 "B", then "A" again at byte 16 (each document is 8 bytes).
  const CorpusError e = ch02_corpus_error("# A\n1 x\n# B\n1 y\n# A\n1 z\n");
  EXPECT_EQ(e.code, CorpusErrorCode::duplicate_title);
  EXPECT_EQ(ch02_message(e),
            "read corpus: duplicate title (file case.txt, byte 16, document 2 \"A\", "
            "first used by document 0)");
}

TEST(CorpusErrors, MissingFinalNewlineNamesTheEndOfTheFile) {
  const CorpusError e = ch02_corpus_error("# A\n1 x");  // 7 bytes, no '\n' at the end
  EXPECT_EQ(e.code, CorpusErrorCode::missing_final_newline);
  EXPECT_EQ(ch02_message(e),
            "read corpus: missing final newline (file case.txt, byte 7, document 0 "
            "\"A\")");
}

TEST(CorpusErrors, AnEmptyFileHasNoDocuments) {
  const CorpusError e = ch02_corpus_error("");
  EXPECT_EQ(e.code, CorpusErrorCode::no_documents);
  EXPECT_EQ(ch02_message(e), "read corpus: no documents (file case.txt, byte 0)");
}

TEST(CorpusErrors, TheFirstErrorInFileOrderWins) {
  // A duplicate title (byte 8) comes before the missing newline (byte 15).
  const CorpusError e = ch02_corpus_error("# A\n1 x\n# A\n1 y");
  EXPECT_EQ(e.code, CorpusErrorCode::duplicate_title);
}

class CorpusFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = llmfs::test::make_temp_dir("llmfs-ch02-corpus"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(CorpusFile, AMissingFileIsUnreadableAndNamed) {
  const auto path = dir_ / "missing.txt";
  const auto corpus = llmfs::text::read_corpus(path);
  ASSERT_FALSE(corpus.has_value());
  EXPECT_EQ(corpus.error().code, CorpusErrorCode::unreadable);
  EXPECT_EQ(ch02_message(corpus.error()),
            fmt::format("read corpus: cannot read the file (file {}: no such file)",
                        path.string()));
}

// Not a regular file: a folder, a FIFO with no writer (must not block), a path under a
// file. Each is a typed error saying which, never an exception.
TEST_F(CorpusFile, AFolderAFifoAndAPathUnderAFileAreTypedErrors) {
  const auto folder = llmfs::text::read_corpus(dir_);
  ASSERT_FALSE(folder.has_value());
  EXPECT_EQ(
      ch02_message(folder.error()),
      fmt::format("read corpus: cannot read the file (file {}: is a folder, not a "
                  "file)",
                  dir_.string()));
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const auto fifo = llmfs::text::read_corpus(dir_ / "fifo");
  ASSERT_FALSE(fifo.has_value());
  EXPECT_TRUE(ch02_message(fifo.error()).ends_with(": not a regular file)"));
  std::ofstream(dir_ / "plain.txt") << "# A\na\n";
  const auto under = llmfs::text::read_corpus(dir_ / "plain.txt" / "x");
  ASSERT_FALSE(under.has_value());
  EXPECT_TRUE(ch02_message(under.error())
                  .ends_with(": no such file: a parent of it is not a folder)"));
  const auto io = llmfs::text::read_corpus("/proc/self/mem");  // read(2) fails: EIO
  ASSERT_FALSE(io.has_value());
  EXPECT_EQ(ch02_message(io.error()),
            "read corpus: cannot read the file (file /proc/self/mem: read failed: "
            "Input/output error)");
}

TEST_F(CorpusFile, AFileReadsAsItsBytesParse) {
  const auto path = dir_ / "small.txt";
  std::ofstream(path, std::ios::binary) << "# A 1\n1 x\n";
  const auto corpus = llmfs::text::read_corpus(path);
  ASSERT_TRUE(corpus.has_value()) << ch02_message(corpus.error());
  EXPECT_EQ(corpus->documents, (std::vector<Document>{{"A 1", "1 x\n"}}));
  const auto broken = dir_ / "broken.txt";
  std::ofstream(broken, std::ios::binary) << "# A 1\n1 x";
  const auto error = llmfs::text::read_corpus(broken);
  ASSERT_FALSE(error.has_value());
  EXPECT_EQ(ch02_message(error.error()),
            fmt::format("read corpus: missing final newline (file {}, byte 9, "
                        "document 0 \"A 1\")",
                        broken.string()));
}

// A random word of 1-6 letters, sometimes with a two-byte é.
std::string ch02_random_word(std::mt19937_64& rng) {
  std::string word;
  for (std::uint64_t n = 1 + rng() % 6; n > 0; --n)
    word += rng() % 8 == 0 ? std::string("\xC3\xA9") : std::string(1, 'a' + rng() % 26);
  return word;
}

TEST(CorpusProperty, RandomCorporaRoundTripThroughTheirText) {
  // 300 seeded corpora of 1-8 documents with 1-4 lines each: corpus_text writes the
  // file the reader reads back into the same documents, and its size is the sum of
  // document_bytes.
  std::mt19937_64 rng(20261202);
  for (int round = 0; round < 300; ++round) {
    Corpus corpus;
    const std::uint64_t documents = 1 + rng() % 8;
    for (std::uint64_t d = 0; d < documents; ++d) {
      Document document{fmt::format("{} {}", ch02_random_word(rng), d), {}};
      for (std::uint64_t line = 1 + rng() % 4; line > 0; --line)
        document.text += fmt::format("{} {}\n", line, ch02_random_word(rng));
      corpus.documents.push_back(document);
    }
    const std::string text = llmfs::text::corpus_text(corpus);
    std::size_t bytes = 0;
    for (const Document& document : corpus.documents)
      bytes += llmfs::text::document_bytes(document);
    EXPECT_EQ(text.size(), bytes);
    const auto back = parse_corpus(text, "random.txt");
    ASSERT_TRUE(back.has_value()) << ch02_message(back.error());
    EXPECT_EQ(*back, corpus) << "round " << round;
  }
}

}  // namespace

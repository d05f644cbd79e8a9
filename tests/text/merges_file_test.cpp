// Chapter 4: the merges file. Its exact text, an atomic write read back, and every
// damaged file with its message: header, version, malformed and later-token lines, a
// cut file and an edited one.
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/merges_file.hpp>

#include "support/temp_dir.hpp"
#include "tokenizer_support.hpp"

#include <sys/stat.h>

namespace ch04_merges_file_test {
namespace {

using ch04_tokenizer_support::low_table;
using llmfs::text::MergeTable;
using llmfs::text::TokenId;
using llmfs::text::TokenizerErrorCode;
using llmfs::text::TokenPair;

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
  // The folder holds the file and nothing else (no temporary left behind).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
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
            fmt::format("merges file {}: cannot read merges file (no such file)",
                        (dir / "absent.merges").string()));
  std::filesystem::remove_all(dir);
}

// A folder, a FIFO with no writer and a path under a file, given where a merges file is
// expected: each a typed error saying which (a folder used to throw
// std::ios_base::failure out of the library, and llmfs-train-tokenizer died of
// SIGABRT).
TEST(MergesFile, AFolderAFifoOrAPathUnderAFileIsATypedError) {
  const auto dir = llmfs::test::make_temp_dir("llmfs-ch04-merges-kinds");
  const auto folder = llmfs::text::read_merges(dir);
  ASSERT_FALSE(folder.has_value());
  EXPECT_EQ(fmt::format("{}", folder.error()),
            fmt::format("merges file {}: cannot read merges file (is a folder, not a "
                        "file)",
                        dir.string()));
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  const auto fifo = llmfs::text::read_merges(dir / "fifo");
  ASSERT_FALSE(fifo.has_value());
  EXPECT_EQ(fifo.error().detail, "not a regular file");
  ASSERT_TRUE(llmfs::text::write_merges(dir / "low.merges", low_table()).has_value());
  const auto under = llmfs::text::read_merges(dir / "low.merges" / "x");
  ASSERT_FALSE(under.has_value());
  EXPECT_EQ(under.error().detail, "no such file: a parent of it is not a folder");
  const auto io = llmfs::text::read_merges("/proc/self/mem");  // read(2) fails: EIO
  ASSERT_FALSE(io.has_value());
  EXPECT_EQ(io.error().detail, "read failed: Input/output error");
  // Writing over a folder fails at the rename; the folder and its contents stay.
  std::filesystem::create_directory(dir / "taken");
  std::ofstream(dir / "taken" / "inside") << "kept";
  const auto over = llmfs::text::write_merges(dir / "taken", low_table());
  ASSERT_FALSE(over.has_value());
  EXPECT_TRUE(over.error().detail.starts_with("cannot rename over the target"));
  EXPECT_TRUE(std::filesystem::exists(dir / "taken" / "inside"));
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
      "merges file t.merges line 3: malformed merge line (expected 'id left right' in "
      "decimal without leading zeros, found '257 256 w')");
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
            "merges file t.merges line 10: malformed merge line (header says 8 merges, "
            "file has 9)");
}

TEST(MergesFile, TruncationAndChecksum) {
  const std::string text = low_file();
  // Cut after line 5 (the header and four merges): line 6 is missing.
  std::size_t cut = 0;
  for (int line = 0; line < 5; ++line)
    cut = text.find('\n', cut) + 1;
  EXPECT_EQ(
      fmt::format("{}", parse_error(text.substr(0, cut))),
      "merges file t.merges line 6: file is truncated (header says 8 merges, file "
      "has 4)");
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

// --- The grammar's boundaries: one spelling per table
// ----------------------------------

// The low file with line `line` (1 = the header) replaced; the header's hash is
// recomputed unless the header itself is replaced, so only the replaced text is wrong.
std::string with_line(std::size_t line, const std::string& replacement) {
  std::string text = low_file();
  std::size_t start = 0;
  for (std::size_t n = 1; n < line; ++n)
    start = text.find('\n', start) + 1;
  text.replace(start, text.find('\n', start) - start, replacement);
  if (line == 1) return text;
  const std::size_t body = text.find('\n') + 1;
  return fmt::format("llmfs-bpe-merges version=1 merges=8 fnv1a64={:016x}\n",
                     llmfs::text::fnv1a64(text.substr(body))) +
         text.substr(body);
}

TEST(MergesFileGrammar, NumbersHaveOneSpelling) {
  const std::string header = low_file().substr(0, low_file().find('\n'));
  const std::string hash = header.substr(header.find("fnv1a64=") + 8);
  std::string upper = hash;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ASSERT_NE(upper, hash);  // the fixture's hash has a letter
  const std::vector<std::pair<std::string, std::string>> cases{
      {"llmfs-bpe-merges version=1 merges=08 fnv1a64=" + hash,
       "merges file t.merges line 1: bad header ('merges=08' is not a decimal number "
       "without leading zeros)"},
      {"llmfs-bpe-merges version=01 merges=8 fnv1a64=" + hash,
       "merges file t.merges line 1: bad header ('version=01' is not a decimal number "
       "without leading zeros)"},
      {"llmfs-bpe-merges version=1 merges=8 fnv1a64=" + upper,
       "merges file t.merges line 1: bad header ('fnv1a64=" + upper +
           "' is not 16 lowercase hex digits)"},
      {"llmfs-bpe-merges version=1 merges=+8 fnv1a64=" + hash,
       "merges file t.merges line 1: bad header ('merges=+8' is not a decimal number "
       "without leading zeros)"},
      {"llmfs-bpe-merges version=1 count=8 fnv1a64=" + hash,
       "merges file t.merges line 1: bad header (expected 'merges=', found 'count=8')"},
      {"llmfs-bpe-merges  version=1 merges=8 fnv1a64=" + hash,
       "merges file t.merges line 1: bad header (expected 'llmfs-bpe-merges version= "
       "merges= fnv1a64=', found 'llmfs-bpe-merges  version=1 merges=8 fnv1a64=" +
           hash + "')"},
  };
  for (const auto& [line, message] : cases)
    EXPECT_EQ(fmt::format("{}", parse_error(with_line(1, line))), message) << line;
  for (const std::string line : {"0256 108 111", "256 0108 111", "256 108 +111",
                                 "256 108 -0", "256 108  111", "256 108 111 "}) {
    const auto error = parse_error(with_line(2, line));
    EXPECT_EQ(fmt::format("{}", error),
              "merges file t.merges line 2: malformed merge line (expected 'id left "
              "right' in decimal without leading zeros, found '" +
                  line + "')");
  }
  // "0" is the one spelling of byte 0.
  const auto zero =
      llmfs::text::parse_merges(llmfs::text::format_merges({{{0, 0}}}), "t.merges");
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, (MergeTable{{{0, 0}}}));
}

// A merge may use only tokens made before it: merge r (token 256 + r) using 256 + r
// itself is the boundary. parse_merges must refuse it (not leave it to
// Tokenizer::create); a reader that checked `> made` instead of `>= made` fails here.
TEST(MergesFileGrammar, AMergeUsingTheTokenItMakesIsRefusedByTheParser) {
  const std::string self = llmfs::text::format_merges({{{256, 97}}});
  ASSERT_EQ(self.substr(self.find('\n') + 1), "256 256 97\n");
  EXPECT_EQ(fmt::format("{}", parse_error(self)),
            "merges file t.merges line 2: merge uses a token not made yet (pair (256, "
            "97) makes token 256)");
  EXPECT_EQ(
      fmt::format("{}",
                  parse_error(llmfs::text::format_merges({{{'l', 'o'}, {'w', 257}}}))),
      "merges file t.merges line 3: merge uses a token not made yet (pair (119, "
      "257) makes token 257)");
  // One below the boundary is fine.
  EXPECT_TRUE(llmfs::text::parse_merges(
                  llmfs::text::format_merges({{{'l', 'o'}, {256, 256}}}), "t.merges")
                  .has_value());
}

TEST(MergesFileGrammar, TooFewOrTooManyWholeLinesSayHowMany) {
  const std::string text = low_file();
  std::size_t cut = 0;
  for (int line = 0; line < 3; ++line)  // the header and two merges
    cut = text.find('\n', cut) + 1;
  EXPECT_EQ(
      fmt::format("{}", parse_error(text.substr(0, cut))),
      "merges file t.merges line 4: file is truncated (header says 8 merges, file "
      "has 2)");
  EXPECT_EQ(fmt::format("{}", parse_error(text.substr(0, cut + 3))),
            "merges file t.merges line 4: file is truncated (the line has no newline: "
            "the file was cut after 2 of the header's 8 merges)");
  EXPECT_EQ(fmt::format("{}", parse_error(text + "264 1 2\n265 1 3")),
            "merges file t.merges line 10: malformed merge line (header says 8 merges, "
            "file has 10)");
}

// --- Property: any valid table is written and read back exactly
// -------------------------

MergeTable random_table(std::mt19937_64& rng) {
  MergeTable table;
  std::set<std::pair<TokenId, TokenId>> seen;
  const std::size_t merges = rng() % 300;
  while (table.merges.size() < merges) {
    const auto below = static_cast<std::uint64_t>(
        llmfs::text::MergeTable::token_of_rank(table.merges.size()));
    const TokenPair pair{static_cast<TokenId>(rng() % below),
                         static_cast<TokenId>(rng() % below)};
    if (seen.insert({pair.left, pair.right}).second) table.merges.push_back(pair);
  }
  return table;
}

TEST(MergesFileProperty, AnyValidTableRoundTripsThroughTextAndFile) {
  const auto dir = llmfs::test::make_temp_dir("llmfs-ch04-merges-property");
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    const MergeTable table = random_table(rng);
    const std::string text = llmfs::text::format_merges(table);
    const auto parsed = llmfs::text::parse_merges(text, "p.merges");
    ASSERT_TRUE(parsed.has_value())
        << "seed " << seed << ": " << fmt::format("{}", parsed.error());
    ASSERT_EQ(*parsed, table) << "seed " << seed;
    EXPECT_EQ(llmfs::text::format_merges(*parsed), text) << "seed " << seed;
    if (seed % 20 != 0) continue;  // and through the file, every 20th seed
    ASSERT_TRUE(llmfs::text::write_merges(dir / "p.merges", table).has_value());
    EXPECT_EQ(llmfs::text::read_merges(dir / "p.merges").value_or(MergeTable{}), table)
        << "seed " << seed;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ch04_merges_file_test

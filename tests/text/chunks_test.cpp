// Chapter 3: the chunking rule (src/llmfs/text/chunks.hpp). Expected chunks are cut by
// hand: a cut before every space and every newline, nowhere else.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/text/chunks.hpp>

namespace {

using llmfs::text::split_chunks;
using Ch03Chunks = std::vector<std::string_view>;

TEST(SplitChunks, CutsBeforeEverySpaceAndNewline) {
  EXPECT_EQ(split_chunks("In the\n1"), (Ch03Chunks{"In", " the", "\n1"}));
  EXPECT_EQ(split_chunks("1 In the beginning\n"),
            (Ch03Chunks{"1", " In", " the", " beginning", "\n"}));
}

TEST(SplitChunks, EmptyDocumentHasNoChunks) {
  EXPECT_TRUE(split_chunks("").empty());
}

TEST(SplitChunks, ALeadingSeparatorStartsTheFirstChunk) {
  // Nothing comes before position 0, so no empty chunk is made there.
  EXPECT_EQ(split_chunks(" a"), (Ch03Chunks{" a"}));
  EXPECT_EQ(split_chunks("\n"), (Ch03Chunks{"\n"}));
}

TEST(SplitChunks, RepeatedSeparatorsAreChunksOfTheirOwn) {
  // "a␣␣b\n\n": cut before 1, 2, 4 and 5.
  EXPECT_EQ(split_chunks("a  b\n\n"), (Ch03Chunks{"a", " ", " b", "\n", "\n"}));
}

TEST(SplitChunks, OtherWhitespaceAndPunctuationDoNotCut) {
  EXPECT_EQ(split_chunks("a\tb,c.\r"), (Ch03Chunks{"a\tb,c.\r"}));
}

TEST(SplitChunks, ChunksConcatenateToTheDocumentAndHoldSeparatorsOnlyFirst) {
  const std::string document =
      "1 And God said, Let there be light:\n2 and  there was\n";
  std::string joined;
  for (std::string_view chunk : split_chunks(document)) {
    ASSERT_FALSE(chunk.empty());
    for (std::size_t i = 1; i < chunk.size(); ++i)
      EXPECT_FALSE(llmfs::text::is_chunk_separator(chunk[i])) << chunk;
    joined += chunk;
  }
  EXPECT_EQ(joined, document);
}

}  // namespace

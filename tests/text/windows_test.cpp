// Chapter 5: autoregressive windows. The count formula by hand on small n, every error,
// the framing BOS + tokens + EOS, and seeded random sequences against a naive
// enumerator that tries every position of a concatenated stream.
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/text/windows.hpp>

namespace {

using llmfs::text::Example;
using llmfs::text::Specials;
using llmfs::text::TokenId;
using llmfs::text::WindowConfig;
using llmfs::text::WindowErrorCode;

constexpr Specials kCh05Bytes{256, 257, 258};  // byte-level: no merges, V = 258

std::size_t ch05_count(std::size_t n, WindowConfig config) {
  const auto count = llmfs::text::example_count(n, config);
  EXPECT_TRUE(count.has_value()) << fmt::format("{}", count.error());
  return count.value_or(0);
}

TEST(WindowCount, FormulaByHand) {
  // n = 15, T = 4, S = 3: starts 0, 3, 6, 9 (12 + 4 = 16 > 14): ⌊(15-5)/3⌋ + 1 = 4.
  EXPECT_EQ(ch05_count(15, {4, 3}), 4u);
  // S = 1: starts 0 … 10, 11 of them = 15 - 4.
  EXPECT_EQ(ch05_count(15, {4, 1}), 11u);
  // S = T + 1 = 5: starts 0, 5, 10 -> windows [0,5), [5,10), [10,15) tile the sequence.
  EXPECT_EQ(ch05_count(15, {4, 5}), 3u);
  EXPECT_EQ(ch05_count(5, {4, 3}), 1u);  // exactly T + 1 tokens: one example
  EXPECT_EQ(ch05_count(4, {4, 3}), 0u);  // n < T + 1: none
  EXPECT_EQ(ch05_count(0, {1, 1}), 0u);
  EXPECT_EQ(ch05_count(2, {1, 1}), 1u);  // BOS -> EOS, the empty document's one bigram
}

TEST(WindowErrors, ZeroContextZeroStrideAndGaps) {
  const auto zero_t = llmfs::text::example_count(10, {0, 1});
  ASSERT_FALSE(zero_t.has_value());
  EXPECT_EQ(fmt::format("{}", zero_t.error()),
            "window config: context length is zero (T=0, S=1)");
  const auto zero_s = llmfs::text::make_examples({{1, 2, 3}}, {2, 0});
  ASSERT_FALSE(zero_s.has_value());
  EXPECT_EQ(fmt::format("{}", zero_s.error()),
            "window config: stride is zero (T=2, S=0)");
  const auto gap = llmfs::text::example_count(10, {4, 6});
  ASSERT_FALSE(gap.has_value());
  EXPECT_EQ(gap.error().code, WindowErrorCode::stride_gap);
  EXPECT_EQ(
      fmt::format("{}", gap.error()),
      "window config: stride leaves gaps (T=4, S=6: S must be at most T + 1 = 5)");
}

TEST(WindowSequence, DocumentsAreFramedByBosAndEos) {
  const std::vector<TokenId> tokens{104, 105};  // "hi"
  const auto sequence = llmfs::text::document_sequence(tokens, kCh05Bytes, 0);
  ASSERT_TRUE(sequence.has_value());
  EXPECT_EQ(*sequence, (std::vector<TokenId>{256, 104, 105, 257}));
  const auto empty = llmfs::text::document_sequence({}, kCh05Bytes, 0);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(*empty, (std::vector<TokenId>{256, 257}));
}

TEST(WindowSequence, BadIdsAreNamedWithDocumentAndPosition) {
  const std::vector<TokenId> unknown{104, 300};
  const auto a = llmfs::text::document_sequence(unknown, kCh05Bytes, 7);
  ASSERT_FALSE(a.has_value());
  EXPECT_EQ(
      fmt::format("{}", a.error()),
      "document sequence: token id outside the vocabulary (document 7, token 1: id "
      "300, V=258)");
  const std::vector<TokenId> special{257, 104};
  const auto b = llmfs::text::document_sequence(special, kCh05Bytes, 2);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(fmt::format("{}", b.error()),
            "document sequence: special token inside a document (document 2, token 0: "
            "id 257 is EOS)");
  const auto c = llmfs::text::document_sequence(special, Specials{5, 5, 258}, 0);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(fmt::format("{}", c.error()),
            "document sequence: bad special tokens (BOS=5, EOS=5, V=258)");
  const auto d = llmfs::text::document_sequence(special, Specials{256, 258, 258}, 0);
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().code, WindowErrorCode::bad_specials);
}

TEST(WindowExamples, StartsAndTokensByHand) {
  // Sequences of 6 and 3 tokens, T = 2, S = 2: the first has starts 0, 2 (4 + 2 = 6 is
  // past its last index 5), the second start 0 only.
  const std::vector<std::vector<TokenId>> sequences{{10, 11, 12, 13, 14, 15},
                                                    {20, 21, 22}};
  const auto examples = llmfs::text::make_examples(sequences, {2, 2});
  ASSERT_TRUE(examples.has_value());
  EXPECT_EQ(*examples, (std::vector<Example>{{0, 0}, {0, 2}, {1, 0}}));
  const auto second = llmfs::text::example_tokens(sequences, (*examples)[1], {2, 2});
  EXPECT_EQ(std::vector<TokenId>(second.context.begin(), second.context.end()),
            (std::vector<TokenId>{12, 13}));
  EXPECT_EQ(second.next, 14);
  EXPECT_EQ(llmfs::text::example_tokens(sequences, (*examples)[2], {2, 2}).next, 22);
}

TEST(WindowSplits, SequencesOfOneSplitWithAByteEncoder) {
  const llmfs::text::Corpus corpus{{{"A", "ab\n"}, {"B", "c\n"}, {"C", "de\n"}}};
  const llmfs::text::Partitions partitions{{0, 2}, {1}, {}};
  const llmfs::text::Encoder bytes = [](std::string_view text) {
    return std::vector<TokenId>(text.begin(), text.end());
  };
  const auto train = llmfs::text::split_sequences(
      corpus, partitions, llmfs::text::Split::train, bytes, kCh05Bytes);
  ASSERT_TRUE(train.has_value());
  EXPECT_EQ(*train, (std::vector<std::vector<TokenId>>{{256, 'a', 'b', '\n', 257},
                                                       {256, 'd', 'e', '\n', 257}}));
  const auto missing = llmfs::text::read_split_sequences(
      std::filesystem::path("no-such-corpus.txt"), "no-such.tsv",
      llmfs::text::Split::test, bytes, kCh05Bytes);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, WindowErrorCode::partitions);
  EXPECT_EQ(
      fmt::format("{}", missing.error()),
      "split sequences: the corpus or its partitions failed: read partitions: the "
      "corpus failed: read corpus: cannot read the file (file no-such-corpus.txt: no "
      "such file)");
}

// The naive reference: all sequences concatenated into one stream with the owning
// document of each position; a window at every stream position p is an example when
// it starts a multiple of S into its document and its T + 1 tokens share that document.
struct Ch05NaiveExample {
  std::vector<TokenId> context;
  TokenId next;
};

std::vector<Ch05NaiveExample> ch05_naive_examples(
    const std::vector<std::vector<TokenId>>& sequences, WindowConfig config) {
  std::vector<TokenId> stream;
  std::vector<std::size_t> owner, offset;
  for (std::size_t d = 0; d < sequences.size(); ++d)
    for (std::size_t k = 0; k < sequences[d].size(); ++k) {
      stream.push_back(sequences[d][k]);
      owner.push_back(d);
      offset.push_back(k);
    }
  std::vector<Ch05NaiveExample> examples;
  for (std::size_t p = 0; p + config.context < stream.size(); ++p) {
    if (offset[p] % config.stride != 0 || owner[p + config.context] != owner[p])
      continue;
    examples.push_back(
        {std::vector<TokenId>(stream.begin() + p, stream.begin() + p + config.context),
         stream[p + config.context]});
  }
  return examples;
}

TEST(WindowProperty, RandomSequencesMatchTheNaiveEnumeratorAndTheFormula) {
  // 400 seeded cases: 0-6 sequences of 2-30 tokens, T in 1-8, S in 1-(T+1).
  std::mt19937_64 rng(20261205);
  for (int round = 0; round < 400; ++round) {
    const std::size_t t = 1 + rng() % 8;
    const WindowConfig cfg{t, 1 + rng() % (t + 1)};
    std::vector<std::vector<TokenId>> sequences(rng() % 7);
    std::size_t by_formula = 0;
    for (auto& sequence : sequences) {
      const std::size_t n = 2 + rng() % 29;
      for (std::size_t k = 0; k < n; ++k)
        sequence.push_back(static_cast<TokenId>(rng() % 258));
      by_formula += ch05_count(n, cfg);
    }
    const auto examples = llmfs::text::make_examples(sequences, cfg);
    ASSERT_TRUE(examples.has_value());
    const auto naive = ch05_naive_examples(sequences, cfg);
    ASSERT_EQ(examples->size(), naive.size()) << "round " << round;
    EXPECT_EQ(examples->size(), by_formula) << "round " << round;
    for (std::size_t i = 0; i < naive.size(); ++i) {
      const auto tokens = llmfs::text::example_tokens(sequences, (*examples)[i], cfg);
      EXPECT_EQ(std::vector<TokenId>(tokens.context.begin(), tokens.context.end()),
                naive[i].context);
      EXPECT_EQ(tokens.next, naive[i].next);
    }
  }
}

}  // namespace

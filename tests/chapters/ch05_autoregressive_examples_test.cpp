// Chapter 5: the chapter's claims, on the fixture (hand derivations beside each
// assertion, and the formula c(n) against the enumerated examples of every document
// and split) and on the King James text through the checked golden: every count the
// demo prints for the corpus, byte by byte and with the course tokenizer, equals the
// independent Python reference
// tests/reference/data/text/ch05_windows.txt (make_windows_reference.py).
#include <algorithm>
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
using llmfs::text::TokenId;

const ch05::Evidence& ch05_evidence() {
  static const ch05::Evidence e = [] {
    auto gathered = ch05::gather_fixture();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch05::Evidence{});
  }();
  return e;
}

// `key=value` lines of a file under the source tree.
std::map<std::string, std::string> ch05_key_values(const std::string& relative) {
  std::ifstream stream(std::string(LLMFS_SOURCE_DIR) + "/" + relative);
  std::map<std::string, std::string> kv;
  for (std::string line; std::getline(stream, line);)
    if (!line.empty() && line[0] != '#' && line.find('=') != std::string::npos)
      kv[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  return kv;
}

const std::map<std::string, std::string>& ch05_reference() {
  static const auto kv = ch05_key_values("tests/reference/data/text/ch05_windows.txt");
  return kv;
}

// The reference's columns for a split count, in the reference's own format.
std::string ch05_columns(const ch05::SplitCount& c) {
  return fmt::format(
      "documents:{} tokens:{} examples:{} too_short:{} eos_targets:{} "
      "stream_windows:{} crossing:{}",
      c.documents, c.tokens, c.examples, c.too_short, c.eos_targets, c.stream_windows,
      c.crossing);
}

// The formula c(n) of the library (example_count), for a valid configuration.
std::size_t ch05_formula(std::size_t n, llmfs::text::WindowConfig config) {
  const auto count = llmfs::text::example_count(n, config);
  EXPECT_TRUE(count.has_value());
  return count.value_or(0);
}

TEST(Ch05Prediction, TheDocumentIsFifteenTokensFramedByBosAndEos) {
  // "1 good night\n" is 13 bytes: '1' 49, ' ' 32, 'g' 103, 'o' 111, 'o', 'd' 100, ' ',
  // 'n' 110, 'i' 105, 'g', 'h' 104, 't' 116, '\n' 10; BOS = 256 before, EOS = 257
  // after.
  EXPECT_EQ(ch05_evidence().predict_sequence,
            (std::vector<TokenId>{256, 49, 32, 103, 111, 111, 100, 32, 110, 105, 103,
                                  104, 116, 10, 257}));
}

TEST(Ch05Prediction, FourWindowsOfFourWithStrideThree) {
  // Starts 0, 3, 6, 9 (12 + 4 = 16 > 14): ⌊(15 - 4 - 1)/3⌋ + 1 = 4. The targets are the
  // tokens at 4, 7, 10, 13: 'o', ' ', 'g', '\n'; EOS at 14 is never a target.
  const auto& w = ch05_evidence().predict_windows;
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(ch05_formula(15, ch05::kPredictConfig), 4u);
  EXPECT_EQ(w[0].context, (std::vector<TokenId>{256, 49, 32, 103}));
  EXPECT_EQ(w[0].next, 111);
  EXPECT_EQ(w[1].start, 3u);
  EXPECT_EQ(w[1].next, 32);
  EXPECT_EQ(w[2].next, 103);
  EXPECT_EQ(w[3].start, 9u);
  EXPECT_EQ(w[3].context, (std::vector<TokenId>{105, 103, 104, 116}));
  EXPECT_EQ(w[3].next, 10);
}

TEST(Ch05Fixture, CountsPerDocumentByHand) {
  // n = text bytes + 2: 32, 15, 20, 27 (train), 20 (validation), 13 (test).
  // T4_S3: ⌊(n-5)/3⌋+1 = 10, 4, 6, 8, 6, 3. T8_S4: ⌊(n-9)/4⌋+1 = 6, 2, 3, 5, 3, 2.
  // T1_S1: n - 1. The enumerated examples and the formula both give these.
  const auto& d = ch05_evidence().fixture.documents;
  ASSERT_EQ(d.size(), 6u);
  const std::size_t n[] = {32, 15, 20, 27, 20, 13};
  const std::size_t t4[] = {10, 4, 6, 8, 6, 3};
  const std::size_t t8[] = {6, 2, 3, 5, 3, 2};
  for (std::size_t k = 0; k < 6; ++k) {
    EXPECT_EQ(d[k].n, n[k]) << d[k].title;
    const std::vector<std::size_t> expected{n[k] - 1, t4[k], t8[k]};
    EXPECT_EQ(d[k].examples, expected) << d[k].title;
    for (std::size_t c = 0; c < ch05::kFixtureConfigs.size(); ++c)
      EXPECT_EQ(ch05_formula(n[k], ch05::kFixtureConfigs[c]), expected[c])
          << d[k].title;
  }
}

TEST(Ch05Fixture, SplitCountsMatchThePythonReference) {
  // Train T4_S3: 10 + 4 + 6 + 8 = 28 examples; every split's examples are the sum of
  // c(n) over its documents.
  const auto& splits = ch05_evidence().fixture.splits;
  ASSERT_EQ(splits.size(), 9u);
  for (const ch05::SplitCount& c : splits) {
    std::size_t by_formula = 0;
    for (const ch05::DocumentCount& d : ch05_evidence().fixture.documents)
      by_formula += d.split == c.split ? ch05_formula(d.n, c.config) : 0;
    EXPECT_EQ(c.examples, by_formula);
    EXPECT_EQ(ch05_columns(c),
              ch05_reference().at(fmt::format("fixture.{}.T{}_S{}", describe(c.split),
                                              c.config.context, c.config.stride)));
  }
  EXPECT_EQ(splits[1].examples, 28u);
}

TEST(Ch05Errors, EachBadInputIsNamed) {
  const auto& o = ch05_evidence().errors;
  ASSERT_EQ(o.size(), 6u);
  EXPECT_EQ(o[0].answer, "window config: context length is zero (T=0, S=1)");
  EXPECT_EQ(o[1].answer, "window config: stride is zero (T=4, S=0)");
  EXPECT_EQ(o[2].answer,
            "window config: stride leaves gaps (T=4, S=6: S must be at most T + 1 "
            "= 5)");
  EXPECT_EQ(o[3].answer,
            "document sequence: token id outside the vocabulary (document 0, token "
            "2: id 300, V=258)");
  EXPECT_EQ(o[4].answer,
            "document sequence: special token inside a document (document 0, "
            "token 1: id 257 is EOS)");
  EXPECT_EQ(o[5].answer,
            "document sequence: bad special tokens (BOS=256, EOS=256, V=258)");
}

TEST(Ch05Exercise, StridesOneToFive) {
  // n = 15, T = 4: ⌊10/S⌋ + 1 = 11, 6, 4, 3, 3.
  EXPECT_EQ(ch05_evidence().exercise_strides,
            (std::vector<std::size_t>{11, 6, 4, 3, 3}));
}

TEST(Ch05KingJames, GoldenCountsEqualThePythonReference) {
  // The demo's golden holds one line per split and configuration of the King James
  // text, in the reference's own columns (the formula against enumeration is the unit
  // test's 400 random cases and the fixture's tests above).
  const auto golden =
      ch05_key_values("snippets/ch05-autoregressive-examples/expected.txt");
  std::size_t checked = 0;
  for (const auto& [key, value] : ch05_reference()) {
    if (!key.starts_with("kjv")) continue;
    std::string golden_key = key;
    std::ranges::replace(golden_key, '.', '_');
    ASSERT_TRUE(golden.contains(golden_key)) << golden_key;
    EXPECT_EQ(golden.at(golden_key), value) << golden_key;
    ++checked;
  }
  EXPECT_EQ(checked, 18u);  // 2 tokenizers × 3 splits × 3 configurations
}

}  // namespace

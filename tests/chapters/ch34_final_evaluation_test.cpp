// Chapter 34's claims: the fixture's metrics derived by hand in
// chapters/34-final-evaluation.md, the refused second scoring and moved-from handle,
// and the final table checked against the formulas (uniform = ln 258, bits per byte
// from the cross-entropy) and the bigram rescored position by position.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

const ch34::Evidence& ch34_evidence() {
  static const ch34::Evidence e = [] {
    auto gathered = ch34::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch34::Evidence{});
  }();
  return e;
}

TEST(Fixture, AQuarterModelByHand) {
  const auto& m = ch34_evidence().fixture;
  EXPECT_EQ(m.score.tokens, 6u);
  EXPECT_EQ(m.score.bytes, 5u);
  EXPECT_NEAR(m.cross_entropy, std::log(4.0), 1e-15);
  EXPECT_NEAR(m.perplexity, 4.0, 1e-14);
  EXPECT_NEAR(m.bits_per_byte, 12.0 / 5.0, 1e-14);  // 6 positions × 2 bits over 5 bytes
}

TEST(Sealing, ASecondScoringAndAMovedFromHandleAreRefused) {
  const auto& e = ch34_evidence();
  const std::string refused =
      "final evaluation: test set already scored (the handle is empty: scored before, "
      "or moved to another handle)";
  EXPECT_EQ(e.second_scoring, refused);
  EXPECT_EQ(e.moved_from, refused);
  EXPECT_TRUE(e.sealed_after_refused_config);
}

TEST(Final, UniformIsLn258AndBitsPerByteFollowFromTheCrossEntropy) {
  const auto& e = ch34_evidence();
  ASSERT_EQ(e.table.size(), 3u);
  EXPECT_EQ(e.table[0].name, "uniform");
  EXPECT_NEAR(e.table[0].metrics.cross_entropy, std::log(258.0), 1e-14);
  for (const auto& row : e.table) {
    const auto& m = row.metrics;
    EXPECT_EQ(m.score.tokens, e.test_examples * ch33::kDemoContext);
    EXPECT_NEAR(
        m.bits_per_byte,
        m.cross_entropy * double(m.score.tokens) / (std::log(2.0) * e.test_bytes),
        1e-12);
  }
}

TEST(Final, TheBigramRescoredPositionByPosition) {
  // The same test windows, read again here, and the bigram fitted again: Σ −ln p.
  using llmfs::text::Split;
  const auto& e = ch34_evidence();
  const auto train =
      ch33::corpus_set(Split::train, ch33::kDemoDocuments, ch33::kDemoContext, 0);
  const auto test = ch33::corpus_set(Split::test, ch34::kTestDocuments,
                                     ch33::kDemoContext, ch34::kTestExamples);
  ASSERT_TRUE(train.has_value() && test.has_value());
  std::vector<llmfs::models::TokenSequence> docs;
  for (const auto& s : train->set.sequences)
    docs.emplace_back(s.begin() + 1, s.end() - 1);
  const auto bigram = llmfs::models::BigramModel::fit(docs, {258, 256, 257, e.alpha});
  ASSERT_TRUE(bigram.has_value());
  double nats = 0;
  std::size_t n = 0;
  for (const auto& ex : test->set.examples)
    for (std::size_t t = 0; t < ch33::kDemoContext; ++t, ++n) {
      const auto& seq = test->set.sequences[ex.sequence];
      nats -= std::log(
          bigram->probability(seq[ex.start + t], seq[ex.start + t + 1]).value());
    }
  ASSERT_EQ(e.table[1].name, "bigram");
  EXPECT_NEAR(e.table[1].metrics.cross_entropy, nats / double(n), 1e-12);
}

TEST(Final, TheBigramsAlphaIsTheLowestOnValidation) {
  const auto& e = ch34_evidence();
  const auto lowest =
      std::min_element(e.alpha_validation.begin(), e.alpha_validation.end());
  EXPECT_EQ(e.alpha, ch34::kAlphas[lowest - e.alpha_validation.begin()]);
}

TEST(Final, TheDecoderIsScoredAtChapter33sSelectedStep) {
  const auto& e = ch34_evidence();
  EXPECT_EQ(e.table[2].name, "decoder");
  EXPECT_LE(e.selected_step, e.last_step);
  EXPECT_LT(e.table[2].metrics.cross_entropy, e.table[0].metrics.cross_entropy);
}

}  // namespace

namespace {

TEST(Exercises, AnswersFromTheFormulas) {
  const auto& e = ch34_evidence();
  EXPECT_NEAR(e.exercises[0], 2.0, 1e-14);  // 6 positions × 2 bits over 6 bytes
  EXPECT_NEAR(e.exercises[1],
              e.table[1].metrics.cross_entropy / e.table[0].metrics.cross_entropy,
              1e-12);
  EXPECT_NEAR(e.exercises[2], e.table[2].metrics.bits_per_byte,
              1e-12);  // no EOS target
}

}  // namespace

namespace {

TEST(Reference, UniformAndBigramRowsEqualNumPyWithin1e12) {
  const auto& e = ch34_evidence();
  std::size_t rows = 0, alphas = 0;
  for (const auto& r :
       llmfs::testing::read_keyed_records("tests/reference/data/text/ch34_final.txt")) {
    if (r.kind == "ALPHA") {
      EXPECT_NEAR(e.alpha_validation[alphas], r.number("validation"),
                  1e-12 * r.number("validation"));
      ++alphas;
    }
    if (r.kind == "TEST") {
      EXPECT_EQ(e.table[0].metrics.score.tokens, std::size_t(r.number("positions")));
      EXPECT_EQ(e.test_bytes, std::size_t(r.number("bytes")));
    }
    if (r.kind != "FINAL") continue;
    const auto& row = e.table[r.fields.at("name") == "uniform" ? 0 : 1];
    EXPECT_EQ(row.name, r.fields.at("name"));
    for (const auto& [got, key] :
         {std::pair{row.metrics.cross_entropy, "cross_entropy"},
          {row.metrics.perplexity, "perplexity"},
          {row.metrics.bits_per_byte, "bits_per_byte"}})
      EXPECT_NEAR(got, r.number(key), 1e-12 * r.number(key)) << key;
    ++rows;
  }
  EXPECT_EQ(rows, 2u);
  EXPECT_EQ(alphas, 3u);
}

}  // namespace

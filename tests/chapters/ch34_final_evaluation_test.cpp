// Chapter 34's claims: the fixture's metrics derived by hand in
// chapters/34-final-evaluation.md, the refused second scoring and moved-from handle,
// and the final table checked against the formulas (uniform = ln 258, bits per byte
// from the cross-entropy) and the bigram rescored position by position.

#include <algorithm>
#include <cmath>
#include <string>

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
  ASSERT_EQ(e.table.size(), 4u);
  EXPECT_EQ(e.table[0].name, "uniform");
  EXPECT_NEAR(e.table[0].metrics.cross_entropy, std::log(258.0), 1e-14);
  for (const auto& row : e.table) {
    const auto& m = row.metrics;
    EXPECT_EQ(m.score.bytes, e.test_bytes);
    if (row.name != "ngram")  // the n-gram's tokens are its own (BPE), fewer
      EXPECT_EQ(m.score.tokens, e.test_examples * ch33::kDemoContext);
    else
      EXPECT_LT(m.score.tokens, e.test_bytes);
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

TEST(Final, TheNgramRescoredTokenByToken) {
  // The same test windows read again here; each window's target bytes encoded with
  // Chapter 4's tokenizer, and every token scored alone, with its three predecessors
  // (BOS before the window's first token): Σ −ln p, one forward pass per token.
  using llmfs::text::Split;
  const auto& e = ch34_evidence();
  ASSERT_TRUE(e.ngram && e.tokenizer);
  const auto test = ch33::corpus_set(Split::test, ch34::kTestDocuments,
                                     ch33::kDemoContext, ch34::kTestExamples);
  ASSERT_TRUE(test.has_value());
  const auto bos = e.tokenizer->bos();
  double nats = 0;
  std::size_t tokens = 0, bytes = 0;
  for (const auto& ex : test->set.examples) {
    const auto& seq = test->set.sequences[ex.sequence];
    std::string text;
    for (std::size_t t = 1; t <= ch33::kDemoContext; ++t) {
      ASSERT_LT(seq[ex.start + t], 256u);  // no EOS among these targets
      text.push_back(static_cast<char>(seq[ex.start + t]));
    }
    const auto ids = e.tokenizer->encode(text);
    ASSERT_EQ(e.tokenizer->decode(ids).value(), text);  // the same bytes, losslessly
    bytes += text.size();
    for (std::size_t i = 0; i < ids.size(); ++i, ++tokens) {
      llmfs::models::NgramBatch one{{1, ch23::kContext, {}}, {1, 1, {ids[i]}}};
      for (std::size_t k = ch23::kContext; k > 0; --k)
        one.contexts.ids.push_back(i >= k ? ids[i - k] : bos);
      const auto pass = e.ngram->forward(one, false);
      ASSERT_TRUE(pass.has_value());
      nats += pass->loss.value().value().values()[0];
    }
  }
  ASSERT_EQ(e.table[3].name, "ngram");
  const auto& m = e.table[3].metrics;
  EXPECT_EQ(bytes, e.test_bytes);
  EXPECT_EQ(m.score.bytes, e.test_bytes);  // the same bytes as every other row
  EXPECT_EQ(m.score.tokens, tokens);
  EXPECT_NEAR(m.score.total_nats, nats, 1e-10 * nats);
  EXPECT_NEAR(m.bits_per_byte, nats / (std::log(2.0) * double(bytes)), 1e-10);
  // Chapter 23's demo model: its golden's step-80 bits per byte on its own subset
  EXPECT_NEAR(e.ngram_subset_bpb, 2.213524, 5e-7);
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
  // bits per byte = bits per token / bytes per token, over the same bytes
  EXPECT_NEAR(e.exercises[4], double(e.test_bytes) / 1180.0, 1e-15);
  EXPECT_NEAR(e.exercises[3] / e.exercises[4], e.table[3].metrics.bits_per_byte, 1e-12);
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

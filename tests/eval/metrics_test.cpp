// Chapter 7: cross-entropy, perplexity and bits per byte against hand values, the
// uniform bound ln V, the typed errors, and a bigram scored against a naive product.
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/eval/metrics.hpp>

namespace {

using llmfs::eval::MetricsErrorCode;
using llmfs::eval::Score;
using llmfs::models::BigramConfig;
using llmfs::models::BigramModel;
using llmfs::models::TokenSequence;

TEST(Metrics, HandValuesOfFourPredictions) {
  // p = 2/7, 2/7, 1/3, 1/8: the product is 1/294, so Σ −ln p = ln 294; H = ln 294 / 4;
  // perplexity = 294^(1/4); over 3 bytes, bits per byte = log2(294) / 3.
  const std::vector<double> p{2.0 / 7, 2.0 / 7, 1.0 / 3, 1.0 / 8};
  const Score s = llmfs::eval::score_probabilities(p, 3).value();
  EXPECT_EQ(s.tokens, 4u);
  EXPECT_EQ(s.bytes, 3u);
  EXPECT_NEAR(s.total_nats, std::log(294.0), 1e-14);
  const auto m = llmfs::eval::summarize(s).value();
  EXPECT_NEAR(m.cross_entropy, std::log(294.0) / 4, 1e-14);
  EXPECT_NEAR(m.perplexity, std::pow(294.0, 0.25), 1e-13);
  EXPECT_NEAR(m.bits_per_byte, std::log2(294.0) / 3, 1e-14);
}

TEST(Metrics, UniformModelCostsLnV) {
  // Every token at 1/V costs −ln(1/V) = ln V, so H = N·ln V / N = ln V exactly in real
  // numbers. In doubles the sum of N equal terms rounds: for N = 1, 2, 4, 8 and V a
  // power of two every step is exact and so is H; for any V and N, H is within 4 ulps
  // of ln V (EXPECT_DOUBLE_EQ).
  for (std::size_t v : {256u, 4096u}) {
    for (std::size_t n : {1u, 2u, 4u, 8u}) {
      const std::vector<double> p(n, 1.0 / static_cast<double>(v));
      const Score s = llmfs::eval::score_probabilities(p, n).value();
      EXPECT_EQ(llmfs::eval::cross_entropy(s).value(),
                std::log(static_cast<double>(v)));
    }
  }
  for (std::size_t v : {5u, 258u, 1000u, 4096u}) {
    EXPECT_EQ(llmfs::eval::uniform_cross_entropy(v).value(),
              std::log(static_cast<double>(v)));
    for (std::size_t n : {3u, 777u, 1024u, 100000u}) {
      const std::vector<double> p(n, 1.0 / static_cast<double>(v));
      const Score s = llmfs::eval::score_probabilities(p, 1).value();
      EXPECT_DOUBLE_EQ(llmfs::eval::cross_entropy(s).value(),
                       std::log(static_cast<double>(v)))
          << v << " " << n;
      // exp(ln V) = V, but exp multiplies the ulp of ln V by ln V: 1e-14 relative.
      EXPECT_NEAR(llmfs::eval::perplexity(s).value(), static_cast<double>(v),
                  1e-14 * static_cast<double>(v));
    }
  }
}

TEST(Metrics, BigramFittedOnNothingIsTheUniformModel) {
  // No training pairs: every row has c(prev) = 0, so P = α / (α·V) = 1/V for any α, and
  // the cross-entropy of any text is ln V.
  for (double alpha : {1.0, 0.5, 3.0}) {
    const BigramModel m =
        BigramModel::fit(std::vector<TokenSequence>{}, {258, 256, 257, alpha}).value();
    const std::vector<TokenSequence> docs{{72, 105}, {33}, {}};
    const Score s = llmfs::eval::score_bigram(m, docs, 3).value();
    EXPECT_EQ(s.tokens, 6u);
    EXPECT_DOUBLE_EQ(llmfs::eval::cross_entropy(s).value(), std::log(258.0));
  }
}

TEST(Metrics, PerfectPredictionCostsNothing) {
  const std::vector<double> p(5, 1.0);
  const auto m = llmfs::eval::summarize(llmfs::eval::score_probabilities(p, 7).value());
  EXPECT_EQ(m.value().cross_entropy, 0.0);
  EXPECT_EQ(m.value().perplexity, 1.0);
  EXPECT_EQ(m.value().bits_per_byte, 0.0);
}

TEST(Metrics, TypedErrors) {
  const std::vector<double> zero{0.5, 0.0, 0.25};
  const auto z = llmfs::eval::score_probabilities(zero, 3);
  ASSERT_FALSE(z.has_value());
  EXPECT_EQ(fmt::format("{}", z.error()),
            "score: zero probability (infinite loss) (token 1: p = 0)");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double bad : {nan, -0.1, 1.5}) {
    const std::vector<double> p{0.5, bad};
    EXPECT_EQ(llmfs::eval::score_probabilities(p, 3).error().code,
              MetricsErrorCode::invalid_probability);
  }
  const Score empty{};
  EXPECT_EQ(llmfs::eval::cross_entropy(empty).error().code,
            MetricsErrorCode::no_tokens);
  EXPECT_EQ(llmfs::eval::perplexity(empty).error().code, MetricsErrorCode::no_tokens);
  EXPECT_EQ(llmfs::eval::bits_per_byte(Score{1.0, 1, 0}).error().code,
            MetricsErrorCode::no_bytes);
  EXPECT_EQ(llmfs::eval::summarize(Score{1.0, 1, 0}).error().code,
            MetricsErrorCode::no_bytes);
  EXPECT_EQ(llmfs::eval::uniform_cross_entropy(0).error().code,
            MetricsErrorCode::no_tokens);
}

TEST(Metrics, ScoresAddLikeOneLongerText) {
  const std::vector<double> a{0.5, 0.25}, b{0.125}, ab{0.5, 0.25, 0.125};
  const Score sum = llmfs::eval::score_probabilities(a, 2).value() +
                    llmfs::eval::score_probabilities(b, 1).value();
  const Score whole = llmfs::eval::score_probabilities(ab, 3).value();
  EXPECT_EQ(sum.tokens, whole.tokens);
  EXPECT_EQ(sum.bytes, whole.bytes);
  EXPECT_DOUBLE_EQ(sum.total_nats, whole.total_nats);
  EXPECT_DOUBLE_EQ(sum.total_nats, 6 * std::numbers::ln2);  // 1 + 2 + 3 bits
}

TEST(Metrics, BigramScoreIsTheNaiveProductOverFramedDocuments) {
  // V = 4 (0, 1, BOS = 2, EOS = 3), trained on [0,1,0] and [1]. Scoring [0,1] predicts
  // 0|BOS, 1|0, EOS|1: (1+1)/(2+4), (1+1)/(2+4), (1+1)/(2+4) = 1/3 each.
  const BigramConfig c{4, 2, 3, 1.0};
  const BigramModel m =
      BigramModel::fit(std::vector<TokenSequence>{{0, 1, 0}, {1}}, c).value();
  const std::vector<TokenSequence> docs{{0, 1}};
  const Score s = llmfs::eval::score_bigram(m, docs, 2).value();
  EXPECT_EQ(s.tokens, 3u);
  EXPECT_NEAR(s.total_nats, 3 * std::log(3.0), 1e-14);
  // Random documents: the score equals Σ −ln P(next | prev) asked one by one.
  llmfs::SplitMix64 rng(77);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<TokenSequence> random(1 + rng.next_u64() % 4);
    double expected = 0.0;
    std::size_t tokens = 0;
    for (TokenSequence& doc : random) {
      doc.resize(rng.next_u64() % 9);
      llmfs::models::TokenId prev = c.bos;
      for (auto& t : doc) {
        t = static_cast<llmfs::models::TokenId>(rng.next_u64() % 2);
        expected += -std::log(m.probability(prev, t).value());
        prev = t;
        ++tokens;
      }
      expected += -std::log(m.probability(prev, c.eos).value());
      ++tokens;
    }
    const Score r = llmfs::eval::score_bigram(m, random, 1).value();
    ASSERT_EQ(r.tokens, tokens);
    ASSERT_NEAR(r.total_nats, expected, 1e-12);
  }
}

TEST(Metrics, BigramScoreWrapsTheModelsError) {
  const BigramModel m =
      BigramModel::fit(std::vector<TokenSequence>{{0}}, {4, 2, 3, 1.0}).value();
  const std::vector<TokenSequence> docs{{0}, {1, 9}};
  const auto s = llmfs::eval::score_bigram(m, docs, 3);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code, MetricsErrorCode::model);
  EXPECT_EQ(fmt::format("{}", s.error()),
            "score bigram document 1: model query failed: bigram probability: token id "
            "out of range (id 9 (V = 4))");
}

}  // namespace

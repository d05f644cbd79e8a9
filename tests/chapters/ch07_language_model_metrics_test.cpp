// Chapter 7: the chapter's claims. Every expected value is computed by hand beside its
// assertion from chapter 6's fixture (train "banana", "nab"; validation "ban"), under
// the letters (V = 5) and the letters plus the merged token `an` (V = 6).
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

const std::vector<ch07::Evaluation>& ch07_fixture() {
  static const std::vector<ch07::Evaluation> f = [] {
    auto evaluated = ch07::evaluate_fixture();
    EXPECT_TRUE(evaluated.has_value()) << fmt::format("{}", evaluated.error());
    return evaluated.value_or(std::vector<ch07::Evaluation>{});
  }();
  return f;
}

TEST(Ch07Prediction, LettersByHand) {
  // p = 2/7, 2/7, 1/3, 1/8 (chapter 6): Σ −ln p = ln 294 over N = 4 tokens, 3 bytes.
  const ch07::Evaluation& e = ch07_fixture().at(0);
  EXPECT_EQ(e.metrics.score.tokens, 4u);
  EXPECT_EQ(e.metrics.score.bytes, 3u);
  EXPECT_NEAR(e.metrics.score.total_nats, std::log(294.0), 1e-14);
  EXPECT_NEAR(e.metrics.cross_entropy, std::log(294.0) / 4, 1e-14);
  EXPECT_NEAR(e.metrics.perplexity, std::pow(294.0, 0.25), 1e-13);
  EXPECT_NEAR(e.metrics.bits_per_byte, std::log2(294.0) / 3, 1e-14);
}

TEST(Ch07Prediction, MergedTokenizerByHand) {
  // b an an a | n a b counted; "ban" = BOS b an EOS: (1+1)/(2+6), (1+1)/(2+6),
  // (0+1)/(2+6) = 1/4, 1/4, 1/8: Σ −ln p = ln 128 = 7 ln 2 over N = 3 tokens.
  const ch07::Evaluation& e = ch07_fixture().at(1);
  ASSERT_EQ(e.predictions.size(), 3u);
  EXPECT_DOUBLE_EQ(e.predictions[0].probability, 0.25);
  EXPECT_DOUBLE_EQ(e.predictions[1].probability, 0.25);
  EXPECT_DOUBLE_EQ(e.predictions[2].probability, 0.125);
  EXPECT_EQ(e.predictions[1].next, "an");
  EXPECT_EQ(e.predictions[1].bytes, 2u);
  EXPECT_NEAR(e.metrics.cross_entropy, 7 * std::numbers::ln2 / 3, 1e-14);
  EXPECT_NEAR(e.metrics.bits_per_byte, 7.0 / 3, 1e-14);
}

TEST(Ch07Misconception, PerTokenLossRanksTheTokenizersOneWayBitsPerByteTheOther) {
  // Per token, letters win (1.421 < 1.617 nats); per byte of the same text the merged
  // tokenizer wins (2.333 < 2.733 bits): fewer, harder predictions.
  const auto& f = ch07_fixture();
  EXPECT_LT(f[0].metrics.cross_entropy, f[1].metrics.cross_entropy);
  EXPECT_GT(f[0].metrics.bits_per_byte, f[1].metrics.bits_per_byte);
}

TEST(Ch07Uniform, TheBoundIsLnV) {
  // The uniform model: H = ln 5 and ln 6, perplexity 5 and 6; both bigrams beat it.
  const auto& f = ch07_fixture();
  EXPECT_DOUBLE_EQ(f[0].uniform.cross_entropy, std::log(5.0));
  EXPECT_DOUBLE_EQ(f[1].uniform.cross_entropy, std::log(6.0));
  EXPECT_NEAR(f[0].uniform.perplexity, 5.0, 1e-13);
  EXPECT_NEAR(f[1].uniform.perplexity, 6.0, 1e-13);
  for (const auto& e : f)
    EXPECT_LT(e.metrics.cross_entropy, e.uniform.cross_entropy);
}

TEST(Ch07Refusals, UndefinedMetricsAreTypedErrors) {
  const auto r = ch07::refusals();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].text, "cross-entropy: no predicted tokens (N = 0)");
  EXPECT_EQ(r[1].text, "bits per byte: no bytes of text (0 bytes)");
  EXPECT_EQ(r[2].text, "score: zero probability (infinite loss) (token 1: p = 0)");
  EXPECT_EQ(r[3].text, "score: probability outside [0, 1] (token 0: p = nan)");
}

TEST(Ch07Exercise, Answers) {
  const auto x = ch07::solve_exercises();
  ASSERT_TRUE(x.has_value());
  // 2: unsmoothed c/c(prev): 1/2, 1/2, 2/4, 0/3 -> the fourth token has p = 0.
  EXPECT_EQ(x->unsmoothed, (std::vector<double>{0.5, 0.5, 0.5, 0.0}));
  EXPECT_EQ(x->unsmoothed_score,
            "score: zero probability (infinite loss) (token 3: p = 0)");
  // 3: log2 258 = 8 + log2(1.0078125) ≈ 8.011227.
  EXPECT_NEAR(x->uniform_bytes_bits, 8.0 + std::log2(258.0 / 256.0), 1e-12);
  // 4: 1.2 nats/token ÷ (ln 2 · 3.5 bytes/token) ≈ 0.494638 bits per byte.
  EXPECT_NEAR(x->converted_bpb, 1.2 / (std::numbers::ln2 * 3.5), 1e-12);
}

}  // namespace

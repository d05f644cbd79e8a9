// Chapter 36's claims: the fixture's stages derived by hand in
// chapters/36-temperature-and-top-k-sampling.md, the sweeps, the frequency experiment,
// reproducibility, the decoder draws, the refusals, the misconception and the
// exercises' hand answers. The demo's evidence is gathered once and shared by every
// test.

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>

#include "evidence.hpp"

namespace {

const ch36::Evidence& ch36_evidence() {
  static const ch36::Evidence e = [] {
    auto gathered = ch36::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch36::Evidence{});
  }();
  return e;
}

void ch36_expect_near(const std::vector<double>& got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance) << what << " element " << i;
}

TEST(Fixture, StagesMatchTheHandDerivation) {
  const ch36::Draw& d = ch36_evidence().draw;
  // τ = 1/2 squares e^z = (2, 4, 1, 2, 0): (4, 16, 1, 4, 0)/25.
  ch36_expect_near(d.stages.tempered, {0.16, 0.64, 0.04, 0.16, 0.0}, 1e-15, "tempered");
  // k = 2: token 1, then the tie 0 / 3 at ln 2 goes to the lower id.
  EXPECT_EQ(d.stages.kept, (std::vector<bool>{true, true, false, false, false}));
  // 0.16 / 0.80 and 0.64 / 0.80.
  ch36_expect_near(d.stages.probabilities, {0.2, 0.8, 0, 0, 0}, 1e-15, "renormalised");
  ch36_expect_near(d.cdf, {0.2, 1, 1, 1, 1}, 1e-15, "cdf");
}

TEST(Fixture, TheDrawIsTheInverseCdfOfTheGeneratorsFirstUniform) {
  const ch36::Draw& d = ch36_evidence().draw;
  EXPECT_EQ(d.u, llmfs::SplitMix64(36).next_unit());
  EXPECT_NEAR(d.u, 0.912889, 5e-7);
  EXPECT_EQ(d.token, 1);        // 0.2 ≤ u < 1
  EXPECT_EQ(d.uncut_token, 3);  // τ = 1: cdf 2/9, 6/9, 7/9, 1; 7/9 ≤ u < 1
}

TEST(Sweeps, TemperatureAndTopKByHand) {
  const ch36::Evidence& e = ch36_evidence();
  ASSERT_EQ(e.temperatures.size(), 6u);
  ch36_expect_near(e.temperatures[0].probabilities, {0, 1, 0, 0, 0}, 1e-12, "tau 0.01");
  ch36_expect_near(e.temperatures[3].probabilities,
                   {2 / 9.0, 4 / 9.0, 1 / 9.0, 2 / 9.0, 0}, 1e-15, "tau 1");
  // τ = 2: √e^z = (√2, 2, 1, √2, 0) over 3 + 2√2.
  const double s = 3 + 2 * std::numbers::sqrt2;
  ch36_expect_near(e.temperatures[4].probabilities,
                   {std::numbers::sqrt2 / s, 2 / s, 1 / s, std::numbers::sqrt2 / s, 0},
                   1e-15, "tau 2");
  ASSERT_EQ(e.cuts.size(), 6u);
  ch36_expect_near(e.cuts[0].probabilities, {0, 1, 0, 0, 0}, 0, "k 1");
  ch36_expect_near(e.cuts[1].probabilities, {1 / 3.0, 2 / 3.0, 0, 0, 0}, 1e-15, "k 2");
  ch36_expect_near(e.cuts[2].probabilities, {0.25, 0.5, 0, 0.25, 0}, 1e-15, "k 3");
  EXPECT_EQ(e.cuts[3].probabilities, e.cuts[5].probabilities);  // the 5th token is −∞
  EXPECT_TRUE(e.k_six_equals_no_cut);
  EXPECT_EQ(e.greedy, 1);
  EXPECT_TRUE(e.greedy_left_rng);
}

TEST(Frequencies, CountsStayWithinFourStandardDeviations) {
  const ch36::Frequencies& f = ch36_evidence().frequencies;
  ASSERT_EQ(f.counts.size(), 5u);
  std::size_t total = 0;
  for (std::size_t c : f.counts)
    total += c;
  EXPECT_EQ(total, ch36::kDraws);
  ch36_expect_near(f.expected, {4000, 8000, 2000, 4000, 0}, 1e-9, "N·p");
  for (double z : f.z)
    EXPECT_LT(std::abs(z), 4.0);  // P(|Z| > 4) ≈ 6e−5 for a correct sampler
  EXPECT_EQ(f.counts[4], 0u);     // −∞: never drawn
}

TEST(Runs, SameSeedSameTokensOtherSeedOthers) {
  const auto& runs = ch36_evidence().runs;
  EXPECT_EQ(runs[0].size(), 12u);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_NE(runs[0], runs[2]);
  EXPECT_EQ(runs[0][0], 3);  // the Predict's uncut token: the same first uniform
}

TEST(Decoder, GreedyAndSampledContinuationsAreInTheVocabulary) {
  const auto& c = ch36_evidence().continuations;
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].setting, "greedy");
  for (const ch36::Continuation& run : c) {
    EXPECT_EQ(run.tokens.size(), ch36::kGenerated) << run.setting;
    for (auto id : run.tokens) {
      EXPECT_GE(id, 0);
      EXPECT_LT(id, 32);
    }
  }
  EXPECT_NE(c[0].tokens, c[1].tokens);  // sampling at τ = 1 leaves the arg max path
}

TEST(Refusals, EveryBadInputIsNamed) {
  const auto& errors = ch36_evidence().errors;
  ASSERT_EQ(errors.size(), 10u);
  EXPECT_EQ(errors[0][1],
            "sampling config: temperature 0 (use greedy decoding) (temperature 0)");
  EXPECT_EQ(errors[4][1], "sampling config: top-k with k = 0 keeps no token (top_k 0)");
  EXPECT_EQ(errors[7][1], "logits: every logit is -inf (2 logits)");
  for (const auto& [name, text] : errors)
    EXPECT_NE(text, "accepted") << name;
}

TEST(Misconception, SmallTemperatureSplitsATieGreedyPicksOneZeroIsNaN) {
  const ch36::TieAtTop& t = ch36_evidence().tie;
  ch36_expect_near(t.tiny, {0.5, 0.5, 0}, 1e-300, "tau 1e-3");
  EXPECT_EQ(t.greedy, (std::vector<double>{1, 0, 0}));
  ASSERT_EQ(t.naive_zero.size(), 3u);
  for (double v : t.naive_zero)
    EXPECT_TRUE(std::isnan(v));
  EXPECT_NE(t.zero_error.find("use greedy decoding"), std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandDerivation) {
  const ch36::Exercises& x = ch36_evidence().exercises;
  // 1: kept 1, 0, 3 (e^z = 4, 2, 2 over 8).
  ch36_expect_near(x.tau_one_top3, {0.25, 0.5, 0, 0.25, 0}, 1e-15, "exercise 1");
  // 2: p₁ = (a/(a+1))² with a = 2^{1/τ}; 1/2 at a = 1 + √2, τ = ln 2 / ln(1 + √2).
  EXPECT_NEAR(x.half_temperature, std::log(2.0) / std::log(1 + std::numbers::sqrt2),
              1e-12);
  // 3: sorted 4/9, 2/9, 2/9 reach 8/9 < 0.9; the fourth, 1/9, reaches 1.
  EXPECT_EQ(x.nucleus_size, 4u);
}

}  // namespace

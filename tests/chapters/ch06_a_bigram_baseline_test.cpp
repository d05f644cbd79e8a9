// Chapter 6: the chapter's claims. Every expected value is counted or computed by hand
// beside its assertion (the fixture: train "banana", "nab"; validation "ban"; V = 5,
// α = 1), never taken from the code under test.
#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

const ch06::Fixture& ch06_fixture() {
  static const ch06::Fixture f = [] {
    auto fitted = ch06::fit_fixture();
    EXPECT_TRUE(fitted.has_value()) << fmt::format("{}", fitted.error());
    return fitted.value_or(ch06::Fixture{});
  }();
  return f;
}

TEST(Ch06Prediction, TrainingPairsAreTokensPlusOnePerDocument) {
  // banana: 6 tokens -> 7 pairs; nab: 3 -> 4; 11 in all. Distinct: BOS b, BOS n, a n,
  // a EOS, a b, b a, b EOS, n a = 8 of 25 cells.
  EXPECT_EQ(ch06_fixture().pairs, 11u);
  EXPECT_EQ(ch06_fixture().distinct_pairs, 8u);
}

TEST(Ch06Prediction, CountTableByHand) {
  // Rows a, b, n, BOS, EOS; columns a, b, n, BOS, EOS.
  const std::vector<std::vector<std::uint64_t>> expected{
      {0, 1, 2, 0, 1},   // a: n twice (baNAna), EOS (banana|), b (nAB)
      {1, 0, 0, 0, 1},   // b: a (bAnana), EOS (naB|)
      {3, 0, 0, 0, 0},   // n: a three times (baNAna twice, NAb)
      {0, 1, 1, 0, 0},   // BOS: b (|banana), n (|nab)
      {0, 0, 0, 0, 0}};  // EOS is never followed within a document
  const std::vector<std::uint64_t> totals{4, 2, 3, 2, 0};
  ASSERT_EQ(ch06_fixture().rows.size(), 5u);
  for (std::size_t r = 0; r < 5; ++r) {
    EXPECT_EQ(ch06_fixture().rows[r].counts, expected[r]) << r;
    EXPECT_EQ(ch06_fixture().rows[r].total, totals[r]) << r;
  }
}

TEST(Ch06Prediction, SmoothedRowsByHand) {
  // (c + 1) / (c(prev) + 5): row a over 9, row n over 8, row EOS uniform 1/5.
  const auto& rows = ch06_fixture().rows;
  const std::vector<double> a{1.0 / 9, 2.0 / 9, 3.0 / 9, 1.0 / 9, 2.0 / 9};
  const std::vector<double> n{4.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8, 1.0 / 8};
  for (std::size_t j = 0; j < 5; ++j) {
    EXPECT_DOUBLE_EQ(rows[0].probabilities[j], a[j]);
    EXPECT_DOUBLE_EQ(rows[2].probabilities[j], n[j]);
    EXPECT_DOUBLE_EQ(rows[4].probabilities[j], 0.2);
  }
}

TEST(Ch06Validation, BanScoresTwoSeventhsTwoSeventhsOneThirdOneEighth) {
  // BOS->b (1+1)/(2+5), b->a (1+1)/(2+5), a->n (2+1)/(4+5), n->EOS (0+1)/(3+5):
  // product 2·2·3·1 / (7·7·9·8) = 12/3528 = 1/294.
  const auto& s = ch06_fixture().scored;
  ASSERT_EQ(s.size(), 4u);
  EXPECT_DOUBLE_EQ(s[0].probability, 2.0 / 7);
  EXPECT_DOUBLE_EQ(s[1].probability, 2.0 / 7);
  EXPECT_DOUBLE_EQ(s[2].probability, 1.0 / 3);
  EXPECT_DOUBLE_EQ(s[3].probability, 1.0 / 8);
  EXPECT_EQ(s[3].count, 0u);  // n was never followed by EOS in training
  EXPECT_DOUBLE_EQ(ch06_fixture().likelihood, 1.0 / 294);
}

TEST(Ch06Samples, SeededSamplesUseOnlyTheVocabulary) {
  // Five samples from seed 6, each capped at 12 tokens; letters and <BOS> only (a
  // drawn EOS ends the sample, so it never appears inside one).
  const auto& samples = ch06_fixture().samples;
  ASSERT_EQ(samples.size(), ch06::kFixtureSamples);
  for (const std::string& s : samples) {
    EXPECT_EQ(s.find("<EOS>"), std::string::npos) << s;
    std::string rest = s;
    for (auto at = rest.find("<BOS>"); at != std::string::npos; at = rest.find("<BOS>"))
      rest.erase(at, 5);
    EXPECT_EQ(rest.find_first_not_of("abn"), std::string::npos) << s;
  }
}

TEST(Ch06Refusals, EachBadInputHasItsTypedError) {
  const auto& r = ch06_fixture().refusals;
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[0].text,
            "bigram fit: smoothing alpha must be finite and > 0 (alpha = 0)");
  EXPECT_EQ(r[1].text,
            "bigram fit: smoothing alpha must be finite and > 0 (alpha = -1)");
  EXPECT_EQ(r[2].text,
            "bigram fit: smoothing alpha must be finite and > 0 (alpha = nan)");
  EXPECT_EQ(r[3].text, "bigram fit: empty vocabulary (V = 0)");
  EXPECT_EQ(r[4].text,
            "bigram fit: special token out of range (BOS = 3, EOS = 5, V = 5)");
  EXPECT_EQ(r[5].text,
            "bigram fit: token id out of range (document 1, position 2: id 5 (V = 5))");
}

TEST(Ch06Exercise, Answers) {
  // 1 is the fixture's row a (count_a, prob_a): CountTableByHand, SmoothedRowsByHand.
  const auto x = ch06::solve_exercises(ch06_fixture());
  ASSERT_TRUE(x.has_value());
  // 2: α = 0.5: (2 + 0.5) / (4 + 2.5) = 5/13; (0 + 0.5) / (3 + 2.5) = 1/11.
  EXPECT_DOUBLE_EQ(x->p_n_after_a, 5.0 / 13);
  EXPECT_DOUBLE_EQ(x->p_eos_after_n, 1.0 / 11);
  // 3: 4096² = 16,777,216 cells; 8 bytes each = 134,217,728 bytes (128 MiB).
  EXPECT_EQ(x->dense_cells, 16777216u);
  EXPECT_EQ(x->dense_bytes, 134217728u);
  // 4: after a, never seen: a and BOS, 1/9 each.
  EXPECT_DOUBLE_EQ(x->unseen_mass_after_a, 2.0 / 9);
}

}  // namespace

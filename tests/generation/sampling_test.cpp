// Unit tests of generation/sampling (Chapter 36): hand values on small rows, property
// tests over seeded random rows against a naive reference written here from the
// chapter's formulas (unshifted softmax of z/τ, a rank count for top-k), empirical
// frequencies within a stated binomial bound, reproducibility, and every refusal.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/generation/sampling.hpp>

namespace {

using namespace llmfs::generation;
using llmfs::SplitMix64;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The naive reference. Rank of id i: the ids ahead of it (larger logit, or equal logit
// and lower id); top-k keeps the ids of rank < k. Probabilities: exp(z/τ) over the kept
// ids divided by their sum (safe for the |z/τ| ≤ 40 the random rows use).
std::vector<bool> naive_kept(const std::vector<double>& z,
                             std::optional<std::size_t> k) {
  std::vector<bool> kept(z.size(), true);
  if (!k) return kept;
  for (std::size_t i = 0; i < z.size(); ++i) {
    std::size_t ahead = 0;
    for (std::size_t j = 0; j < z.size(); ++j)
      ahead += (z[j] > z[i] || (z[j] == z[i] && j < i)) ? 1 : 0;
    kept[i] = ahead < *k;
  }
  return kept;
}

std::vector<double> naive_distribution(const std::vector<double>& z, double tau,
                                       std::optional<std::size_t> k) {
  const auto kept = naive_kept(z, k);
  std::vector<double> p(z.size(), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < z.size(); ++i)
    if (kept[i]) total += std::exp(z[i] / tau);
  for (std::size_t i = 0; i < z.size(); ++i)
    if (kept[i]) p[i] = std::exp(z[i] / tau) / total;
  return p;
}

// A random row: V in [1, 12], logits multiples of 1/4 in [-4, 4) (so ties are common),
// some masked with −∞ (never all).
std::vector<double> random_row(SplitMix64& rng) {
  const std::size_t vocab = 1 + rng.next_u64() % 12;
  std::vector<double> z(vocab);
  for (double& v : z)
    v = static_cast<double>(rng.next_u64() % 32) / 4.0 - 4.0;
  for (std::size_t i = 1; i < vocab; ++i)
    if (rng.next_u64() % 6 == 0) z[i] = -kInf;
  return z;
}

TEST(Sampling, FixtureStagesByHand) {
  const std::vector<double> z{std::log(2.0), std::log(4.0), 0.0, std::log(2.0), -kInf};
  const auto s = sampling_stages(z, {.temperature = 0.5, .top_k = 2}).value();
  const std::vector<double> tempered{0.16, 0.64, 0.04, 0.16, 0.0};
  for (std::size_t i = 0; i < z.size(); ++i)
    EXPECT_NEAR(s.tempered[i], tempered[i], 1e-15) << i;
  EXPECT_EQ(s.kept,
            (std::vector<bool>{true, true, false, false, false}));  // tie → id 0
  EXPECT_NEAR(s.probabilities[0], 0.2, 1e-15);
  EXPECT_NEAR(s.probabilities[1], 0.8, 1e-15);
  EXPECT_EQ(s.probabilities[2], 0.0);
  EXPECT_EQ(s.probabilities[3], 0.0);
  EXPECT_EQ(s.probabilities[4], 0.0);
  EXPECT_EQ(s.tempered[4], 0.0);  // −∞ is masked, exactly 0
}

TEST(Sampling, TopKTiesGoToTheLowerIdAndKeepExactlyK) {
  const std::vector<double> z{1.0, 3.0, 3.0, 1.0, 3.0, 0.0};
  EXPECT_EQ(top_k_ids(z, 1), (std::vector<TokenId>{1}));
  EXPECT_EQ(top_k_ids(z, 2), (std::vector<TokenId>{1, 2}));
  EXPECT_EQ(top_k_ids(z, 4), (std::vector<TokenId>{1, 2, 4, 0}));
  EXPECT_EQ(top_k_ids(z, 9), (std::vector<TokenId>{1, 2, 4, 0, 3, 5}));
}

TEST(Sampling, RandomRowsMatchTheNaiveReference) {
  SplitMix64 rng(3601);
  for (int trial = 0; trial < 2000; ++trial) {
    const auto z = random_row(rng);
    const double tau = 0.1 + static_cast<double>(rng.next_u64() % 1000) / 350.0;
    const std::size_t pick = rng.next_u64() % (z.size() + 3);
    const std::optional<std::size_t> k =
        pick == 0 ? std::nullopt : std::optional<std::size_t>(pick);
    const auto s = sampling_stages(z, {.temperature = tau, .top_k = k}).value();
    const auto want = naive_distribution(z, tau, k);
    const auto kept = naive_kept(z, k);
    ASSERT_EQ(s.kept, kept) << "trial " << trial;
    EXPECT_EQ(static_cast<std::size_t>(std::ranges::count(s.kept, true)),
              std::min(k.value_or(z.size()), z.size()));
    double sum = 0.0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      EXPECT_NEAR(s.probabilities[i], want[i], 1e-12)
          << "trial " << trial << " id " << i;
      if (!kept[i]) {
        EXPECT_EQ(s.probabilities[i], 0.0);
      }
      sum += s.probabilities[i];
    }
    EXPECT_NEAR(sum, 1.0, 1e-12) << "trial " << trial;
    const auto naive_tempered = naive_distribution(z, tau, std::nullopt);
    for (std::size_t i = 0; i < z.size(); ++i)
      EXPECT_NEAR(s.tempered[i], naive_tempered[i], 1e-12);
  }
}

TEST(Sampling, KAtOrAboveVIsBitwiseNoCut) {
  SplitMix64 rng(3602);
  for (int trial = 0; trial < 500; ++trial) {
    const auto z = random_row(rng);
    const double tau = 0.25 + static_cast<double>(rng.next_u64() % 16) / 4.0;
    const auto none = sampling_distribution(z, {.temperature = tau}).value();
    for (std::size_t k = z.size(); k < z.size() + 3; ++k)
      EXPECT_EQ(sampling_distribution(z, {.temperature = tau, .top_k = k}).value(),
                none);
  }
}

TEST(Sampling, SmallTemperatureTendsToGreedyWhenTheMaximumIsUnique) {
  SplitMix64 rng(3603);
  for (int trial = 0; trial < 500; ++trial) {
    auto z = random_row(rng);
    const auto top = static_cast<std::size_t>(top_k_ids(z, 1)[0]);
    z[top] += 0.125;  // the grid is 1/4: now the maximum is unique by 1/8
    const auto greedy =
        sampling_distribution(z, {.decoding = Decoding::greedy}).value();
    const auto cold = sampling_distribution(z, {.temperature = 1e-3}).value();
    for (std::size_t i = 0; i < z.size(); ++i)
      EXPECT_NEAR(cold[i], greedy[i], 1e-50);  // e^{−125} is below 1e−54
    SplitMix64 draw(static_cast<std::uint64_t>(trial));
    EXPECT_EQ(sample_token(z, {.temperature = 1e-3}, draw).value(),
              static_cast<TokenId>(top));
  }
}

TEST(Sampling, ATieAtTheTopSplitsUnderSmallTemperatureButGreedyPicksTheLowerId) {
  const std::vector<double> z{1.0, 2.0, 2.0};
  const auto cold = sampling_distribution(z, {.temperature = 1e-6}).value();
  EXPECT_EQ(cold, (std::vector<double>{0.0, 0.5, 0.5}));
  SplitMix64 rng(0);
  EXPECT_EQ(sample_token(z, {.decoding = Decoding::greedy}, rng).value(), 1);
}

TEST(Sampling, ExtremeTemperaturesStayFinite) {
  const std::vector<double> z{1.0, 0.0, -1.0, 1e300, -1e300};
  const auto cold = sampling_distribution(z, {.temperature = 1e-300}).value();
  EXPECT_EQ(cold, (std::vector<double>{0, 0, 0, 1, 0}));
  const std::vector<double> small{1.0, 0.0, -1.0};
  const auto hot = sampling_distribution(small, {.temperature = 1e300}).value();
  for (double p : hot)
    EXPECT_NEAR(p, 1.0 / 3.0, 1e-15);
}

TEST(Sampling, EmpiricalFrequenciesStayWithinFiveStandardDeviations) {
  // Bound: a correct sampler's count of token i is Binomial(N, p_i); |count − N·p_i| >
  // 5·√(N·p_i·(1 − p_i)) has probability below 6e−7 per token (normal approximation;
  // every kept token here has N·p_i > 1400). The seeds are fixed: deterministic.
  SplitMix64 rows(3604);
  for (int trial = 0; trial < 5; ++trial) {
    auto z = random_row(rows);
    z.resize(std::max<std::size_t>(z.size(), 3), 0.5);
    const SamplingConfig config{.temperature = 1.5, .top_k = 3};
    const auto p = sampling_distribution(z, config).value();
    const std::size_t draws = 20000;
    std::vector<std::size_t> counts(z.size(), 0);
    SplitMix64 rng(static_cast<std::uint64_t>(100 + trial));
    for (std::size_t n = 0; n < draws; ++n)
      ++counts[static_cast<std::size_t>(sample_token(z, config, rng).value())];
    for (std::size_t i = 0; i < z.size(); ++i) {
      const double mean = static_cast<double>(draws) * p[i];
      const double spread = std::sqrt(mean * (1.0 - p[i]));
      if (p[i] == 0.0) {
        EXPECT_EQ(counts[i], 0u) << "a token of probability 0 was drawn";
      } else {
        EXPECT_LE(std::abs(static_cast<double>(counts[i]) - mean), 5.0 * spread)
            << "trial " << trial << " token " << i;
      }
    }
  }
}

TEST(Sampling, SameSeedSameTokensAndOneDrawPerSample) {
  const std::vector<double> z{0.3, -1.2, 2.0, 0.0, 1.1};
  const SamplingConfig config{.temperature = 0.8, .top_k = 4};
  SplitMix64 a(7), b(7), c(8);
  std::vector<TokenId> first, second, third;
  for (int n = 0; n < 64; ++n) {
    first.push_back(sample_token(z, config, a).value());
    second.push_back(sample_token(z, config, b).value());
    third.push_back(sample_token(z, config, c).value());
  }
  EXPECT_EQ(first, second);
  EXPECT_NE(first, third);
  SplitMix64 counted(7);
  for (int n = 0; n < 64; ++n)
    (void)counted.next_u64();
  EXPECT_EQ(a, counted);  // exactly one uniform per sampled token
}

TEST(Sampling, GreedyDrawsNothingAndTakesTheLowestArgMax) {
  const std::vector<double> z{0.0, 5.0, -kInf, 5.0};
  SplitMix64 rng(11);
  EXPECT_EQ(sample_token(z, {.decoding = Decoding::greedy}, rng).value(), 1);
  EXPECT_EQ(rng, SplitMix64(11));
  // Greedy reads neither τ nor k: τ = 0 and k = 0 are accepted there.
  EXPECT_TRUE(
      sample_token(z, {.temperature = 0.0, .top_k = 0, .decoding = Decoding::greedy},
                   rng)
          .has_value());
  const auto p = sampling_distribution(z, {.decoding = Decoding::greedy}).value();
  EXPECT_EQ(p, (std::vector<double>{0, 1, 0, 0}));
}

TEST(Sampling, InverseCdfByHand) {
  const std::vector<double> p{0.0, 0.25, 0.0, 0.75, 0.0};
  EXPECT_EQ(inverse_cdf(p, 0.0).value(), 1);  // token 0 has probability 0: never
  EXPECT_EQ(inverse_cdf(p, 0.2499).value(), 1);
  EXPECT_EQ(inverse_cdf(p, 0.25).value(), 3);  // Σ must exceed u strictly
  EXPECT_EQ(inverse_cdf(p, 0.9999).value(), 3);
  // A total rounded below u: the last token of positive probability, never token 4.
  EXPECT_EQ(inverse_cdf(std::vector<double>{0.3, 0.3, 0.0}, 0.9).value(), 1);
}

TEST(Sampling, RefusalsAreTypedAndLeaveTheGeneratorUntouched) {
  const std::vector<double> z{0.0, 1.0};
  const auto code = [&](const std::vector<double>& row, const SamplingConfig& config) {
    SplitMix64 rng(5);
    const auto result = sample_token(row, config, rng);
    if (!result) {
      EXPECT_EQ(rng, SplitMix64(5)) << "a refused call drew a uniform";
    }
    return result ? std::optional<SamplingErrorCode>() : result.error().code;
  };
  using C = SamplingErrorCode;
  EXPECT_EQ(code(z, {.temperature = 0.0}), C::zero_temperature);
  EXPECT_EQ(code(z, {.temperature = -0.5}), C::negative_temperature);
  EXPECT_EQ(code(z, {.temperature = -0.0}), C::zero_temperature);
  EXPECT_EQ(code(z, {.temperature = kNaN}), C::non_finite_temperature);
  EXPECT_EQ(code(z, {.temperature = kInf}), C::non_finite_temperature);
  EXPECT_EQ(code(z, {.temperature = -kInf}), C::non_finite_temperature);
  EXPECT_EQ(code(z, {.top_k = 0}), C::zero_top_k);
  EXPECT_EQ(code({}, {}), C::empty_logits);
  EXPECT_EQ(code({0.0, kNaN}, {}), C::nan_logit);
  EXPECT_EQ(code({kInf, 0.0}, {}), C::infinite_logit);
  EXPECT_EQ(code({-kInf, -kInf}, {}), C::no_finite_logit);
  EXPECT_EQ(code({kNaN}, {.decoding = Decoding::greedy}), C::nan_logit);
  EXPECT_EQ(code({-kInf, 0.0}, {}), std::nullopt);  // one masked token is fine
}

TEST(Sampling, ErrorsNameTheirStageAndValue) {
  const auto text = [](const auto& result) {
    return fmt::format("{}", result.error());
  };
  EXPECT_EQ(text(sampling_distribution(std::vector<double>{0.0, kNaN}, {})),
            "logits: NaN logit (index 1)");
  EXPECT_EQ(text(sampling_distribution(std::vector<double>{0.0}, {.temperature = 0.0})),
            "sampling config: temperature 0 (use greedy decoding) (temperature 0)");
  EXPECT_EQ(text(inverse_cdf(std::vector<double>{0.5, -0.1}, 0.5)),
            "inverse CDF: not a probability distribution (p[1] = -0.1)");
  EXPECT_EQ(text(inverse_cdf(std::vector<double>{0.0, 0.0}, 0.5)),
            "inverse CDF: not a probability distribution (sum 0)");
  EXPECT_EQ(text(inverse_cdf(std::vector<double>{1.0}, -0.5)),
            "inverse CDF: uniform draw outside [0, 1) (u -0.5)");
  EXPECT_EQ(text(inverse_cdf(std::vector<double>{1.0, kInf}, 0.5)),
            "inverse CDF: not a probability distribution (p[1] = inf)");
}

}  // namespace

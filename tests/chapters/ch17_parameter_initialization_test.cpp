// Chapter 17's claims: the Predict answers derived by hand in
// chapters/17-parameter-initialization.md, the variance through the stack, named
// parameters in a stable order, every refusal typed and leaving the generator
// untouched, seeded property tests of the draws, and the exercises' hand answers.

#include <cmath>
#include <cstdint>
#include <numbers>

#include <gtest/gtest.h>

#include <llmfs/nn/init.hpp>

#include "evidence.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::nn::Distribution;
using llmfs::nn::draw;
using llmfs::nn::InitScheme;
using llmfs::nn::lecun;
using llmfs::nn::make_parameter;
using llmfs::nn::NnErrorCode;
using llmfs::nn::xavier;
using llmfs::tensor::Shape;

constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ULL;

const ch17::Evidence& ch17_evidence() {
  static const ch17::Evidence e = [] {
    auto gathered = ch17::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch17::Evidence{});
  }();
  return e;
}

double unit_of(std::uint64_t output) {
  return static_cast<double>(output >> 11) * 0x1.0p-53;
}

TEST(Predict, SplitMix64MatchesVignasPublishedOutputs) {
  // splitmix64.c with seed 1234567 (checked again in Python by make_init_reference.py).
  const std::vector<std::uint64_t> published = {
      6457827717110365317ULL, 3203168211198807973ULL, 9817491932198370423ULL,
      4593380528125082431ULL, 16408922859458223821ULL};
  EXPECT_EQ(ch17_evidence().first.outputs, published);
}

TEST(Predict, FirstDrawsFollowFromTheFirstOutputsByHand) {
  const ch17::FirstDraws& f = ch17_evidence().first;
  const double u0 = unit_of(6457827717110365317ULL),
               u1 = unit_of(3203168211198807973ULL);
  EXPECT_DOUBLE_EQ(f.units[0], u0);
  EXPECT_DOUBLE_EQ(f.units[1], u1);
  // LeCun uniform, fan-in 3: bound √3·√(1/3) = 1, so the first weight is 2u₀ − 1.
  EXPECT_NEAR(f.lecun_uniform[0], 2 * u0 - 1, 1e-15);
  const double z =
      std::sqrt(-2 * std::log(1 - u0)) * std::cos(2 * std::numbers::pi * u1);
  EXPECT_NEAR(f.first_normal, z, 1e-15);
  EXPECT_NEAR(f.lecun_normal[0], z / std::sqrt(3.0), 1e-15);
}

TEST(Stack, RightScaleKeepsTheVarianceAndWrongScalesCompoundExactly) {
  const auto& stack = ch17_evidence().stack;
  ASSERT_EQ(stack.size(), 4u);
  const auto& right = stack[0].variances;
  ASSERT_EQ(right.size(), ch17::kDepth + 1);
  for (const double v : right) {
    EXPECT_GT(v, 0.8);
    EXPECT_LT(v, 1.2);
  }
  // Same seed: the ×2 and ×½ weights are the right ones scaled, so each layer's
  // variance is the right run's times 4ᵏ or 4⁻ᵏ.
  for (std::size_t k = 0; k < right.size(); ++k) {
    EXPECT_NEAR(stack[1].variances[k], right[k] * std::pow(4.0, k),
                1e-12 * stack[1].variances[k]);
    EXPECT_NEAR(stack[2].variances[k], right[k] * std::pow(0.25, k),
                1e-12 * stack[2].variances[k]);
  }
  EXPECT_GT(stack[1].variances.back(), 4.0e4);
  EXPECT_LT(stack[2].variances.back(), 2.5e-5);
}

TEST(Draws, SampleVarianceIsTheSchemesWithinThreePercent) {
  for (const ch17::DrawStats& d : ch17_evidence().draws) {
    EXPECT_NEAR(d.variance, d.std_dev * d.std_dev, 0.03 * d.std_dev * d.std_dev)
        << d.name;
    EXPECT_LT(std::abs(d.mean), 5 * d.std_dev / 256) << d.name;  // 5 standard errors
  }
  EXPECT_DOUBLE_EQ(ch17_evidence().draws[0].std_dev, std::sqrt(1.0 / 128));
  EXPECT_DOUBLE_EQ(ch17_evidence().draws[2].std_dev, std::sqrt(2.0 / 640));
}

TEST(Naming, OrderIsCreationOrderNotTextOrder) {
  const ch17::Naming& n = ch17_evidence().naming;
  ASSERT_EQ(n.names.size(), 12u);
  EXPECT_EQ(n.names[2], "stack.2.weight");
  EXPECT_EQ(n.names[10], "stack.10.weight");
  EXPECT_EQ(n.sorted[2], "stack.10.weight");
  EXPECT_EQ(n.scalars, 12u * 16u);
  EXPECT_TRUE(n.rebuilt_identical);
  EXPECT_TRUE(ch17_evidence().check.passed());
  EXPECT_LT(ch17_evidence().check.max_abs_error(), 1e-8);
}

TEST(Refusals, EveryRefusalIsTypedAndLeavesTheGeneratorUntouched) {
  for (const ch17::Refusal& r : ch17_evidence().refusals)
    EXPECT_TRUE(r.rng_untouched) << r.name;
  SplitMix64 rng(7);
  const SplitMix64 fresh(7);
  Tape tape, released;
  released.release();
  EXPECT_EQ(lecun(0, Distribution::normal).error().code, NnErrorCode::zero_width);
  EXPECT_EQ(xavier(0, 3, Distribution::uniform).error().code, NnErrorCode::zero_width);
  EXPECT_EQ(draw({2}, {Distribution::normal, -0.5}, rng).error().code,
            NnErrorCode::bad_scale);
  EXPECT_EQ(draw({2}, {Distribution::normal, INFINITY}, rng).error().code,
            NnErrorCode::bad_scale);
  EXPECT_EQ(draw({1ULL << 40, 1ULL << 40}, {Distribution::normal, 1}, rng).error().code,
            NnErrorCode::size_overflow);
  EXPECT_EQ(make_parameter(tape, "", {2}, {Distribution::normal, 1}, rng).error().code,
            NnErrorCode::empty_name);
  EXPECT_EQ(
      make_parameter(released, "w", {2}, {Distribution::normal, 1}, rng).error().code,
      NnErrorCode::released_tape);
  EXPECT_EQ(
      make_parameter(tape, "w", {2}, {Distribution::normal, NAN}, rng).error().code,
      NnErrorCode::bad_scale);
  EXPECT_EQ(rng, fresh);
  EXPECT_EQ(tape.node_count(), 0u);  // nothing recorded by a refused make_parameter
}

TEST(Properties, DrawsConsumeExactlyOneOrTwoStepsPerElementAndStayInBounds) {
  SplitMix64 shapes(1700);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t rows = 1 + shapes.next_u64() % 6,
                      cols = 1 + shapes.next_u64() % 6;
    const std::uint64_t seed = shapes.next_u64();
    const double std_dev = 0.1 + 2.0 * shapes.next_unit();
    SplitMix64 uniform(seed), normal(seed), naive(seed);
    const auto u = *draw({rows, cols}, {Distribution::uniform, std_dev}, uniform);
    const double bound = std::sqrt(3.0) * std_dev;
    for (const double v : u.values()) {
      EXPECT_GE(v, -bound);
      EXPECT_LT(v, bound);
    }
    EXPECT_EQ(uniform.state(), seed + rows * cols * kGamma);
    const auto n = *draw({rows, cols}, {Distribution::normal, std_dev}, normal);
    EXPECT_EQ(normal.state(), seed + 2 * rows * cols * kGamma);
    for (const double v : n.values()) {  // Box–Muller written out again
      const double u1 = naive.next_unit(), u2 = naive.next_unit();
      const double z =
          std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * std::numbers::pi * u2);
      EXPECT_EQ(v, std_dev * z);
    }
  }
}

TEST(Properties, MakeParameterIsALeafHoldingTheDrawnValues) {
  Tape tape;
  SplitMix64 rng(3), reference(3);
  const InitScheme scheme = *xavier(4, 6, Distribution::normal);
  const auto p = make_parameter(tape, "layer.weight", {4, 6}, scheme, rng);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->name, "layer.weight");
  EXPECT_TRUE(p->value.requires_gradient());
  const auto expected = *draw({4, 6}, scheme, reference);
  EXPECT_TRUE(std::ranges::equal(p->value.value()->values(), expected.values()));
  EXPECT_EQ(rng, reference);
}

TEST(Exercises, AnswersMatchTheHandDerivation) {
  const ch17::Exercises& x = ch17_evidence().exercises;
  EXPECT_NEAR(x.xavier_bound, std::sqrt(6.0 / 400), 1e-15);
  EXPECT_NEAR(x.xavier_std, std::sqrt(2.0 / 400), 1e-15);
  EXPECT_NEAR(x.default_factor, 1.0 / 3, 0.02);
  EXPECT_EQ(x.state, 1234567ULL + 24 * kGamma);
  EXPECT_EQ(x.predicted, x.state);
}

}  // namespace

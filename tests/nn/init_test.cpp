// Chapter 17's initialization (src/llmfs/nn/init.hpp): schemes, draws, moments and
// named parameters, with the refusals that leave the generator untouched.
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::nn::Distribution;
using llmfs::nn::InitScheme;
using llmfs::nn::NnErrorCode;
using llmfs::tensor::Shape;

TEST(InitScheme, LecunAndXavierStandardDeviations) {
  EXPECT_DOUBLE_EQ(llmfs::nn::lecun(16, Distribution::normal)->std_dev, 0.25);
  EXPECT_DOUBLE_EQ(llmfs::nn::xavier(3, 5, Distribution::uniform)->std_dev, 0.5);
  EXPECT_EQ(llmfs::nn::xavier(3, 5, Distribution::uniform)->distribution,
            Distribution::uniform);
  EXPECT_EQ(llmfs::nn::lecun(0, Distribution::normal).error().code,
            NnErrorCode::zero_width);
  EXPECT_EQ(llmfs::nn::xavier(2, 0, Distribution::normal).error().code,
            NnErrorCode::zero_width);
}

TEST(Draw, UniformIsSqrtThreeSigmaTimesTwoUMinusOne) {
  SplitMix64 rng(11), reference(11);
  const auto t = llmfs::nn::draw(Shape{2, 3}, {Distribution::uniform, 0.5}, rng);
  ASSERT_TRUE(t.has_value());
  for (const double v : t->values())
    EXPECT_EQ(v, std::sqrt(3.0) * 0.5 * (2.0 * reference.next_unit() - 1.0));
  EXPECT_EQ(rng, reference);
}

TEST(Draw, NormalIsBoxMullerTimesSigmaTwoStepsEach) {
  SplitMix64 rng(12), reference(12);
  const auto t = llmfs::nn::draw(Shape{5}, {Distribution::normal, 2.0}, rng);
  ASSERT_TRUE(t.has_value());
  for (const double v : t->values()) {
    const double u1 = reference.next_unit(), u2 = reference.next_unit();
    EXPECT_EQ(v, 2.0 * std::sqrt(-2.0 * std::log(1.0 - u1)) *
                     std::cos(2.0 * std::numbers::pi * u2));
  }
  EXPECT_EQ(rng, reference);
}

TEST(Draw, ZeroSigmaGivesZerosAndEmptyShapesDrawNothing) {
  SplitMix64 rng(13);
  const auto zeros = llmfs::nn::draw(Shape{3}, {Distribution::normal, 0.0}, rng);
  for (const double v : zeros->values())
    EXPECT_EQ(v, 0.0);
  SplitMix64 empty(13);
  EXPECT_EQ(llmfs::nn::draw(Shape{0, 4}, {Distribution::uniform, 1.0}, empty)
                ->values()
                .size(),
            0u);
  EXPECT_EQ(empty, SplitMix64(13));
}

TEST(Draw, RefusalsLeaveTheGeneratorUntouched) {
  SplitMix64 rng(14);
  EXPECT_EQ(llmfs::nn::draw(Shape{2}, {Distribution::normal, -1.0}, rng).error().code,
            NnErrorCode::bad_scale);
  EXPECT_EQ(llmfs::nn::draw(Shape{2}, {Distribution::uniform, NAN}, rng).error().code,
            NnErrorCode::bad_scale);
  EXPECT_EQ(
      llmfs::nn::draw(Shape{1ULL << 40, 1ULL << 40}, {Distribution::uniform, 1}, rng)
          .error()
          .code,
      NnErrorCode::size_overflow);
  EXPECT_EQ(rng, SplitMix64(14));
}

TEST(Moments, MeanAndPopulationVariance) {
  const std::vector<double> values = {1, 2, 3, 4};
  const auto m = llmfs::nn::moments(values);
  EXPECT_DOUBLE_EQ(m.mean, 2.5);
  EXPECT_DOUBLE_EQ(m.variance, 1.25);
  EXPECT_EQ(llmfs::nn::moments({}).variance, 0.0);
}

TEST(MakeParameter, RecordsANamedLeafOrNothing) {
  Tape tape, released;
  released.release();
  SplitMix64 rng(15), reference(15);
  const InitScheme scheme{Distribution::normal, 0.1};
  const auto p = llmfs::nn::make_parameter(tape, "w", Shape{2, 2}, scheme, rng);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->name, "w");
  EXPECT_TRUE(p->value.requires_gradient());
  const auto want = llmfs::nn::draw(Shape{2, 2}, scheme, reference);
  EXPECT_TRUE(std::ranges::equal(p->value.value()->values(), want->values()));
  const auto nodes = tape.node_count();
  SplitMix64 untouched(16);
  EXPECT_EQ(
      llmfs::nn::make_parameter(tape, "", Shape{2}, scheme, untouched).error().code,
      NnErrorCode::empty_name);
  EXPECT_EQ(llmfs::nn::make_parameter(released, "w", Shape{2}, scheme, untouched)
                .error()
                .code,
            NnErrorCode::released_tape);
  EXPECT_EQ(llmfs::nn::make_parameter(tape, "w", Shape{2}, {Distribution::normal, -1},
                                      untouched)
                .error()
                .code,
            NnErrorCode::bad_scale);
  EXPECT_EQ(untouched, SplitMix64(16));
  EXPECT_EQ(tape.node_count(), nodes);
}

}  // namespace

// Unit tests of training/schedule (Chapter 33): the warmup and cosine values by hand,
// a property test against the formula written out naively, and the refusals.
#include <cmath>
#include <numbers>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/schedule.hpp>

namespace {

using namespace llmfs::training;

TEST(Schedule, WarmupRisesLinearlyThenCosineFallsToTheFloor) {
  const LearningRateSchedule s{1.0, 0.1, 4, 12};
  EXPECT_EQ(learning_rate(s, 1).value(), 0.25);
  EXPECT_EQ(learning_rate(s, 2).value(), 0.5);
  EXPECT_EQ(learning_rate(s, 4).value(), 1.0);
  // Step 8 is half way through the decay: cos(π/2) = 6.1e-17, so 0.1 + 0.45 = 0.55
  EXPECT_NEAR(learning_rate(s, 8).value(), 0.55, 1e-15);
  EXPECT_EQ(learning_rate(s, 12).value(), 0.1);  // cos π = −1 exactly
}

TEST(Schedule, NoWarmupStartsNearThePeak) {
  const LearningRateSchedule s{2.0, 1.0, 0, 2};
  EXPECT_NEAR(learning_rate(s, 1).value(), 1.5, 1e-15);  // p = 1/2
  EXPECT_EQ(learning_rate(s, 2).value(), 1.0);
}

TEST(Schedule, RandomSchedulesMatchTheNaiveFormulaAndStayInRange) {
  llmfs::SplitMix64 rng(33);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t total = 1 + rng.next_u64() % 500;
    const std::size_t warmup = rng.next_u64() % (total + 1);
    const double peak = 1e-4 + static_cast<double>(rng.next_u64() % 1000) * 1e-5;
    const double floor = peak * static_cast<double>(1 + rng.next_u64() % 100) / 100.0;
    const LearningRateSchedule s{peak, floor, warmup, total};
    for (std::size_t step = 1; step <= total; ++step) {
      const double got = learning_rate(s, step).value();
      double want;
      if (step <= warmup) {
        want = peak * double(step) / double(warmup);
      } else {
        const double p = double(step - warmup) / double(total - warmup);
        want = floor + (peak - floor) * (1.0 + std::cos(std::numbers::pi * p)) / 2.0;
      }
      ASSERT_NEAR(got, want, 1e-15 * peak) << "step " << step;
      ASSERT_LE(got, peak * (1 + 1e-15));  // within one rounding of the range
      if (step > warmup) {
        ASSERT_GE(got, floor * (1 - 1e-15));
      }
    }
  }
}

TEST(Schedule, RefusesBadRatesStepsAndStepsOutside) {
  EXPECT_EQ(learning_rate({0.0, 0.0, 0, 10}, 1).error().code,
            TrainingErrorCode::bad_schedule);
  EXPECT_EQ(learning_rate({1.0, 2.0, 0, 10}, 1).error().code,
            TrainingErrorCode::bad_schedule);
  EXPECT_EQ(learning_rate({1.0, 0.5, 11, 10}, 1).error().code,
            TrainingErrorCode::bad_schedule);
  EXPECT_EQ(learning_rate({1.0, 0.5, 0, 0}, 1).error().code,
            TrainingErrorCode::bad_schedule);
  const auto outside = learning_rate({1.0, 0.5, 2, 10}, 11);
  ASSERT_FALSE(outside.has_value());
  EXPECT_EQ(outside.error().code, TrainingErrorCode::step_range);
  EXPECT_EQ(fmt::format("{}", outside.error()),
            "schedule: step outside the schedule (step 11 of 1 … 10)");
  EXPECT_EQ(learning_rate({1.0, 0.5, 2, 10}, 0).error().code,
            TrainingErrorCode::step_range);
}

TEST(AdamWLearningRate, TheSetterChangesTheNextStepAndRefusesZero) {
  using llmfs::tensor::Shape;
  using llmfs::tensor::Tensor;
  auto adamw = AdamW::create({0.1, 0.9, 0.999, 0.0}, {{"g", 0.0, {{"w", Shape{1}}}}});
  ASSERT_TRUE(adamw.has_value());
  const auto refused = adamw->set_learning_rate(0.0);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(adamw->hyper().learning_rate, 0.1);  // kept
  ASSERT_TRUE(adamw->set_learning_rate(0.25).has_value());
  std::vector<Tensor> w{Tensor::from(Shape{1}, {1.0}).value()};
  const std::vector<Tensor> g{Tensor::from(Shape{1}, {2.0}).value()};
  ASSERT_TRUE(adamw->step(w, g).has_value());
  EXPECT_EQ(w[0].values()[0], 0.75);  // ε = 0, constant g: the step is −η·sign(g)
}

}  // namespace

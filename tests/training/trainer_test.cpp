// Unit tests of training/trainer (Chapter 33) on a one-parameter model, loss (w − 3)²:
// validation at step 0, every k steps and at S; η(s) from the schedule; clipping
// applied before the optimizer; the configuration refused before anything runs.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/training/trainer.hpp>

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

LossFunction quadratic() {
  return [](std::span<const Tensor> values, const Batch&,
            bool with_gradients) -> std::expected<LossAndGradients, ModelFailure> {
    const double w = values[0].values()[0];
    LossAndGradients out{(w - 3.0) * (w - 3.0), {}};
    if (with_gradients)
      out.gradients.push_back(Tensor::from(Shape{1}, {2.0 * (w - 3.0)}).value());
    return out;
  };
}

ExampleSet tiny() {
  return {{{0, 2, 3, 4, 5, 6, 7, 1}}, {{0, 0}, {0, 2}, {0, 4}}};
}

TrainConfig config_of(std::size_t steps, std::size_t every) {
  TrainConfig c;
  c.batch_size = 1;
  c.windows = {2, 2};
  c.schedule = {0.5, 0.05, 2, steps};
  c.max_gradient_norm = 1.0;
  c.eval_every = every;
  c.seed = 7;
  return c;
}

TEST(Trainer, ValidatesAtZeroEveryKAndAtTheLastStep) {
  auto adamw = AdamW::create({0.5, 0.9, 0.999, 1e-8}, {{"w", 0.0, {{"w", Shape{1}}}}});
  ASSERT_TRUE(adamw.has_value());
  const auto run = train({Tensor::from(Shape{1}, {0.0}).value()}, *adamw, quadratic(),
                         tiny(), tiny(), config_of(10, 4));
  ASSERT_TRUE(run.has_value()) << fmt::format("{}", run.error());
  std::vector<std::size_t> at;
  for (const auto& e : run->evaluations)
    at.push_back(e.step);
  EXPECT_EQ(at, (std::vector<std::size_t>{0, 4, 8, 10}));
  ASSERT_EQ(run->steps.size(), 10u);
  for (const auto& s : run->steps) {
    EXPECT_EQ(s.learning_rate,
              learning_rate(config_of(10, 4).schedule, s.step).value());
    EXPECT_EQ(s.tokens, s.step * 2);  // B·T = 2 positions per step
  }
  // Step 1: w = 0, g = −6, ‖g‖ = 6 > c = 1: clipped by 1/(6 + 1e-6)
  EXPECT_EQ(run->steps[0].gradient_norm, 6.0);
  EXPECT_EQ(run->steps[0].clip_scale, 1.0 / (6.0 + 1e-6));
  // The loss falls towards w = 3, and the selected step has the lowest validation loss
  EXPECT_LT(run->evaluations.back().validation_loss, 9.0);
  double lowest = 1e300;
  for (const auto& e : run->evaluations)
    lowest = std::min(lowest, e.validation_loss);
  EXPECT_EQ(run->selected.loss(), lowest);
}

TEST(Trainer, RefusesABadConfigurationBeforeAnyCall) {
  auto adamw = AdamW::create({0.5, 0.9, 0.999, 1e-8}, {{"w", 0.0, {{"w", Shape{1}}}}});
  ASSERT_TRUE(adamw.has_value());
  int calls = 0;
  const LossFunction counted =
      [&calls](std::span<const Tensor>, const Batch&,
               bool) -> std::expected<LossAndGradients, ModelFailure> {
    ++calls;
    return LossAndGradients{};
  };
  auto bad = config_of(10, 4);
  bad.max_gradient_norm = 0.0;
  const auto run = train({Tensor::from(Shape{1}, {0.0}).value()}, *adamw, counted,
                         tiny(), tiny(), bad);
  ASSERT_FALSE(run.has_value());
  EXPECT_EQ(run.error().code, TrainingErrorCode::bad_config);
  EXPECT_EQ(calls, 0);
  auto too_big = config_of(10, 4);
  too_big.batch_size = 4;  // 3 training examples
  EXPECT_EQ(check_train_config(too_big, tiny(), tiny()).error().code,
            TrainingErrorCode::bad_config);
}

}  // namespace

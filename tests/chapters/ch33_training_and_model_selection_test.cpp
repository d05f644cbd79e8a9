// Chapter 33's claims: the fixture's schedule, clipping and selection derived by hand
// in chapters/33-training-and-model-selection.md, the 50-step run against PyTorch
// float64 (tests/reference/data/training/ch33_training.txt, make_training_reference.py)
// within 1e-9 relative, a selection that keeps an earlier step, bit-for-bit
// reproducibility, typed errors with their stage, and the exercises.

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/training/trainer.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch33::Evidence& ch33_evidence() {
  static const ch33::Evidence e = [] {
    auto gathered = ch33::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch33::Evidence{});
  }();
  return e;
}

TEST(Fixture, ScheduleByHand) {
  const auto& s = ch33_evidence().schedule;
  ASSERT_EQ(s.size(), 6u);
  // Warmup: 0.01·1/2, 0.01·2/2; cosine over 4 steps: p = 1/4, 1/2, 3/4, 1
  EXPECT_EQ(s[0], 0.005);
  EXPECT_EQ(s[1], 0.01);
  EXPECT_NEAR(s[2], 0.001 + 0.0045 * (1 + std::sqrt(0.5)), 1e-17);
  EXPECT_NEAR(s[3], 0.0055, 1e-17);
  EXPECT_NEAR(s[4], 0.001 + 0.0045 * (1 - std::sqrt(0.5)), 1e-17);
  EXPECT_EQ(s[5], 0.001);
}

TEST(Fixture, ClippingThreeFourFive) {
  const auto& e = ch33_evidence();
  EXPECT_EQ(e.clip.norm, 5.0);
  EXPECT_EQ(e.clip.scale, 1.0 / 5.000001);
  EXPECT_NEAR(e.clipped[0][0], 0.6, 1e-6);
  EXPECT_NEAR(e.clipped[1][1], 0.8, 1e-6);
}

TEST(Fixture, SelectionKeepsTheFirstLowest) {
  const auto& sel = ch33_evidence().selection;
  EXPECT_EQ(sel.kept, (std::vector<bool>{true, true, true, false, false}));
  EXPECT_EQ(sel.step, 20u);
  EXPECT_EQ(sel.loss, 2.25);
}

TEST(Reference, FiftyStepsMatchPyTorchWithin1e9Relative) {
  const auto& r = ch33_evidence().replay;
  EXPECT_EQ(r.steps, 50u);
  EXPECT_EQ(r.parameters, 11u);  // E, 9 per block, the final gain
  EXPECT_LT(r.loss_max_relative, 1e-9);
  EXPECT_LT(r.norm_max_relative, 1e-9);
  EXPECT_LT(r.validation_max_relative, 1e-9);
  EXPECT_LT(r.values_max_relative, 1e-9);
}

TEST(Reference, SelectionKeepsAnEarlierStepThanTheLast) {
  const auto& r = ch33_evidence().replay;
  EXPECT_EQ(r.selected_step, r.torch_best_step);
  EXPECT_LT(r.selected_step, 50u);
  EXPECT_LT(r.selected_loss, r.final_loss);
}

TEST(Reference, TheKeptCopyIsTorchsParametersAtThatStep) {
  // The reference keeps its own copy at its lowest validation loss (BEST records).
  const auto& r = ch33_evidence().replay;
  ASSERT_GT(r.selected_step, 0u);
  EXPECT_LT(r.selected_max_relative, 1e-9);
}

TEST(Corpus, SameSeedSameBits) {
  const auto& c = ch33_evidence().corpus;
  EXPECT_TRUE(c.reproducible);
  ASSERT_EQ(c.result.steps.size(), ch33::kDemoSteps);
  EXPECT_EQ(c.result.evaluations.size(), ch33::kDemoSteps / ch33::kDemoEvery + 1);
  // The loss falls below the uniform model's ln 258 within the run
  EXPECT_LT(c.result.evaluations.back().validation_loss, std::log(258.0));
}

TEST(Errors, AFailingModelIsReportedWithItsStep) {
  ExampleSet data{{{0, 2, 3, 4, 5, 1}}, {{0, 0}, {0, 2}}};
  TrainConfig config;
  config.batch_size = 1;
  config.windows = {2, 2};
  config.schedule = {0.1, 0.01, 0, 3};
  config.eval_every = 1;
  int calls = 0;
  const LossFunction failing =
      [&calls](std::span<const Tensor>, const Batch&,
               bool) -> std::expected<LossAndGradients, ModelFailure> {
    if (++calls == 3) return std::unexpected(ModelFailure{"model: broken"});
    return LossAndGradients{1.0, {Tensor::from(Shape{1}, {0.5}).value()}};
  };
  auto optimizer =
      AdamW::create({0.1, 0.9, 0.999, 1e-8}, {{"w", 0.0, {{"w", Shape{1}}}}});
  ASSERT_TRUE(optimizer.has_value());
  const auto run = train({Tensor::from(Shape{1}, {1.0}).value()}, *optimizer, failing,
                         data, data, config);
  ASSERT_FALSE(run.has_value());
  // Calls 1 and 2: validation at step 0 (two examples, B = 1); call 3: step 1's batch
  EXPECT_EQ(fmt::format("{}", run.error()),
            "train step 1: a stage of training failed: model: broken");
  EXPECT_EQ(ch33_evidence().errors.size(), 3u);
}

TEST(Exercises, AnswersAgreeWithTheFormulasAndTheReferenceFile) {
  const auto& x = ch33_evidence().exercises;
  EXPECT_NEAR(x.no_warmup_first_rate,
              0.001 + 0.0045 * (1 + std::cos(std::numbers::pi / 6)), 1e-17);
  EXPECT_EQ(x.unclipped_from, 5.000001);
  double best = 1e300, last = 0;
  std::size_t clipped = 0;
  for (const auto& r : llmfs::testing::read_keyed_records(
           "tests/reference/data/training/ch33_training.txt")) {
    if (r.kind == "EVAL")
      best = std::min(best, r.number("loss")), last = r.number("loss");
    if (r.kind == "STEP" && r.number("norm") > 1.0 - 1e-6) ++clipped;
  }
  EXPECT_NEAR(x.last_minus_selected, last - best, 1e-9);
  EXPECT_EQ(x.clipped_steps, clipped);
}

}  // namespace

// Chapter 42's run (`make train-fast`): its model's size by the chapter 32 formula
// worked by hand, and its pieces on a tiny configuration: training equal to chapter
// 39's pipeline on the same settings, the selection, bits per byte by chapter 7's
// formula, the model file read back, the samples, and the command line's refusals.
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <llmfs/models/decoder.hpp>

#include "support/temp_dir.hpp"
#include "train_fast.hpp"

namespace {

// By hand: V·d = 4096·128 = 524,288; per block 2·128 + 4·128² + 3·128·344 = 256 +
// 65,536
// + 132,096 = 197,888, four of them 791,552; the final gain 128: 1,315,968 ≥ 10⁶.
TEST(Ch42FastRun, ModelHasTheHandCountedParameters) {
  EXPECT_EQ(llmfs::models::decoder_parameter_count(ch42::kFastModel).value(), 1315968u);
  EXPECT_EQ(ch42::kFastModel.context_length, 128u);
  EXPECT_EQ(ch42::kFastBatch * ch42::kFastModel.context_length, 2048u);
}

// A tiny run: chapter 39's demo model on its first two documents of each partition.
ch39::RunSettings tiny() {
  ch39::RunSettings s = ch39::demo_settings();
  s.steps = 6;
  s.every = 3;
  s.warmup = 2;
  s.sample_tokens = 4;
  return s;
}

TEST(Ch42FastRun, TrainsAsChapter39sPipelineAndScoresItsSelection) {
  const auto corpus = ch39::load_corpus(2).value();
  const auto dir = llmfs::test::make_temp_dir("ch42-fast-run");
  const auto s = tiny();
  const auto run = ch42::run_fast(s, corpus, nullptr, dir / "m.safetensors").value();
  const auto pipeline = ch39::run_pipeline(s, corpus, nullptr, {}, {}).value();
  // The same trainer, settings and seed: every step's loss and the selection equal
  ASSERT_EQ(run.run.steps.size(), 6u);
  ASSERT_EQ(pipeline.run.steps.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(run.run.steps[i].loss, pipeline.run.steps[i].loss) << "step " << i + 1;
  EXPECT_EQ(run.run.selected.step(), pipeline.run.selected.step());
  EXPECT_EQ(run.validation.total, pipeline.validation.total);
  // Validated at 0, 3 and 6; the selected step has the lowest validation loss
  ASSERT_EQ(run.run.evaluations.size(), 3u);
  auto best = run.run.evaluations[0];
  for (const auto& e : run.run.evaluations)
    if (e.validation_loss < best.validation_loss) best = e;
  EXPECT_EQ(run.run.selected.step(), best.step);
  // Bits per byte: nats / (ln 2 · bytes), chapter 7
  EXPECT_NEAR(run.validation_bpb,
              run.validation.total /
                  (std::numbers::ln2 * static_cast<double>(corpus.validation.bytes)),
              1e-12);
  EXPECT_EQ(run.parameters, llmfs::models::decoder_parameter_count(s.model).value());
  // The model file holds the selected values; 3 prompts × 4 settings sampled
  const auto back = ch39::load_model(dir / "m.safetensors", *corpus.tokenizer).value();
  EXPECT_EQ(back.step, run.run.selected.step());
  ASSERT_EQ(back.values.size(), run.run.selected.values().size());
  for (std::size_t i = 0; i < back.values.size(); ++i)
    EXPECT_TRUE(std::ranges::equal(back.values[i].values(),
                                   run.run.selected.values()[i].values()));
  ASSERT_EQ(run.samples.size(), 12u);
  for (const auto& sample : run.samples)
    EXPECT_EQ(sample.ids.size(), 4u);
}

TEST(Ch42FastRun, CommandLineRefusesBadOptions) {
  std::string a0 = "ch42", mode = "--train-fast", out = "--out", prefix = "x",
              steps = "--steps", bad = "12x", model = "--model", file = "m";
  char* no_model[] = {a0.data(), mode.data(), out.data(), prefix.data()};
  EXPECT_EQ(ch42::train_fast(4, no_model), 2);
  char* bad_steps[] = {a0.data(),    mode.data(), out.data(),   prefix.data(),
                       model.data(), file.data(), steps.data(), bad.data()};
  EXPECT_EQ(ch42::train_fast(8, bad_steps), 2);
  std::string bench = "--bench-train", zero = "0";
  char* zero_steps[] = {a0.data(), bench.data(), steps.data(), zero.data()};
  EXPECT_EQ(ch42::bench_train(4, zero_steps), 2);
}

}  // namespace

// Chapter 23: the neural n-gram model's examples, its checks of values and batches, a
// training loop that lowers the loss on a tiny corpus it can memorise, the loop's
// schedule errors, and a training run that is the same bit for bit from the same seed.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/models/ngram_mlp.hpp>

namespace {

using llmfs::SplitMix64;
using llmfs::models::NgramBatch;
using llmfs::models::NgramConfig;
using llmfs::models::NgramErrorCode;
using llmfs::models::NgramMlp;
using llmfs::text::TokenId;

const std::vector<std::vector<TokenId>> kCorpus = {{0, 1, 2, 0, 1, 2}, {2, 1, 0}};
constexpr NgramConfig kConfig{5, 2, 3, 4};  // tokens 0..2, BOS = 3, EOS = 4

TEST(NgramExamples, OneRowPerTokenAndEosWithBosPadding) {
  const NgramBatch b = llmfs::models::ngram_examples(kCorpus, 2, 3, 4);
  ASSERT_EQ(b.targets.batch, 6u + 1 + 3 + 1);
  EXPECT_EQ(b.contexts.time, 2u);
  EXPECT_EQ((std::vector<TokenId>(b.contexts.ids.begin(), b.contexts.ids.begin() + 6)),
            (std::vector<TokenId>{3, 3, 3, 0, 0, 1}));
  EXPECT_EQ(b.targets.ids[6], 4);       // EOS of document 0
  EXPECT_EQ(b.contexts.ids[7 * 2], 3);  // document 1 restarts
  const std::vector<std::size_t> rows = {6, 0};
  const NgramBatch picked = llmfs::models::select_rows(b, rows);
  EXPECT_EQ(picked.targets.ids, (std::vector<TokenId>{4, 0}));
  EXPECT_EQ(picked.contexts.ids, (std::vector<TokenId>{1, 2, 3, 3}));
}

TEST(NgramMlp, CreateDrawsTheDocumentedShapesAndCounts) {
  SplitMix64 rng(7);
  const NgramMlp m = NgramMlp::create(kConfig, rng).value();
  EXPECT_EQ(m.parameter_count(), 5u * 3 + 6 * 4 + 4 + 4 * 5 + 5);
  const double bound = 1.0 / std::sqrt(6.0);
  for (double v : m.values()[1].values())
    EXPECT_LE(std::abs(v), bound);
  EXPECT_EQ(NgramMlp::names()[3], "output.weight");
}

TEST(NgramTrain, LowersTheLossAndRepeatsBitForBit) {
  const NgramBatch data = llmfs::models::ngram_examples(kCorpus, 2, 3, 4);
  const auto run = [&] {
    SplitMix64 rng(11);
    NgramMlp m = NgramMlp::create(kConfig, rng).value();
    auto opt =
        llmfs::training::AdamW::create({0.05, 0.9, 0.999, 1e-8},
                                       llmfs::models::ngram_groups(m, 0.0).value())
            .value();
    return llmfs::models::train_ngram(m, opt, data, data, 20, {4, 60, 20, 3}).value();
  };
  const auto curve = run();
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_LT(curve.back().validation_loss, 0.5 * curve.front().validation_loss);
  const auto again = run();
  for (std::size_t i = 0; i < curve.size(); ++i)
    EXPECT_EQ(curve[i].validation_loss, again[i].validation_loss);
}

TEST(NgramTrain, RefusesABadSchedule) {
  SplitMix64 rng(1);
  NgramMlp m = NgramMlp::create(kConfig, rng).value();
  auto opt =
      llmfs::training::AdamW::create({}, llmfs::models::ngram_groups(m, 0.0).value())
          .value();
  const NgramBatch data = llmfs::models::ngram_examples(kCorpus, 2, 3, 4);
  for (const llmfs::models::NgramSchedule s :
       {llmfs::models::NgramSchedule{0, 1, 1, 0}, {4, 1, 0, 0}, {100, 1, 1, 0}})
    EXPECT_EQ(llmfs::models::train_ngram(m, opt, data, data, 1, s).error().code,
              NgramErrorCode::empty_batch);
  EXPECT_EQ(llmfs::models::score(m, data, 1, 0).error().code,
            NgramErrorCode::empty_batch);
  EXPECT_EQ(opt.state().step, 0u);
}

// The long run's schedule: step s (from 0) runs with η₀·(S − s)/S, so the optimizer's η
// after the last step is η₀/S, and a decayed run leaves other values than a constant
// one.
TEST(NgramTrain, LinearDecayFollowsItsFormulaStepByStep) {
  const NgramBatch data = llmfs::models::ngram_examples(kCorpus, 2, 3, 4);
  constexpr double eta0 = 0.05;
  constexpr std::size_t steps = 8;
  const auto run = [&](bool decay, std::vector<double>* etas) {
    SplitMix64 rng(11);
    NgramMlp m = NgramMlp::create(kConfig, rng).value();
    auto opt =
        llmfs::training::AdamW::create({eta0, 0.9, 0.999, 1e-8},
                                       llmfs::models::ngram_groups(m, 0.0).value())
            .value();
    const auto seen = [&](std::size_t, double) {
      if (etas != nullptr) etas->push_back(opt.hyper().learning_rate);
    };
    llmfs::models::NgramSchedule s{4, steps, steps, 3};
    s.linear_decay = decay;
    EXPECT_TRUE(llmfs::models::train_ngram(m, opt, data, data, 20, s, {}, seen));
    return m.values()[3].values()[0];
  };
  std::vector<double> etas;
  const double decayed = run(true, &etas);
  ASSERT_EQ(etas.size(), steps);
  for (std::size_t s = 0; s < steps; ++s)
    EXPECT_EQ(etas[s],
              eta0 * static_cast<double>(steps - s) / static_cast<double>(steps));
  EXPECT_NE(decayed, run(false, nullptr));
}

}  // namespace

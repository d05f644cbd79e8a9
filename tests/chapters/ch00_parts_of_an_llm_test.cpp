// Chapter 0: the toy's numbers, derived by hand beside each assertion.
#include <cmath>

#include <gtest/gtest.h>

#include "evidence.hpp"

namespace {

const ch00::ToyModel kModel;

TEST(Ch00Toy, TokenizerMapsCharactersToVocabularyIndices) {
  EXPECT_EQ(ch00::tokenize(kModel, "abc"), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Ch00Toy, ContextIsTheRunningMeanOfEmbeddings) {
  // a=[1,0], b=[0,1]: position 0 sees only a; position 1 averages a and b.
  const auto context = ch00::mix_context(ch00::embed(kModel, {0, 1}));
  ASSERT_EQ(context.size(), 2u);
  EXPECT_EQ(context[0], (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(context[1], (std::vector<double>{0.5, 0.5}));
}

TEST(Ch00Toy, PromptAbPredictsCWithProbabilityFromHandDerivation) {
  // logits = [0.5,0.5]·E^T = [0.5, 0.5, 1.0]; softmax: p(c) = e^0.5 / (2 + e^0.5).
  const auto e = ch00::gather(kModel, "ab");
  EXPECT_EQ(e.logits, (std::vector<double>{0.5, 0.5, 1.0}));
  const double pc = std::exp(0.5) / (2.0 + std::exp(0.5));
  EXPECT_NEAR(e.probabilities[2], pc, 1e-15);
  EXPECT_NEAR(e.probabilities[2], 0.451863, 5e-7);
  EXPECT_NEAR(e.probabilities[0], 1.0 / (2.0 + std::exp(0.5)), 1e-15);
  EXPECT_EQ(e.next_id, 2u);
}

TEST(Ch00Exercise, LongerPromptAbcStillPredictsC) {
  // mean of a, b, c = [2/3, 2/3]; logits [2/3, 2/3, 4/3]; p(c) = e^(2/3) / (2 +
  // e^(2/3)).
  const auto e = ch00::exercise_longer_prompt(kModel);
  const double pc = std::exp(2.0 / 3.0) / (2.0 + std::exp(2.0 / 3.0));
  EXPECT_NEAR(e.probabilities[2], pc, 1e-15);
  EXPECT_NEAR(e.probabilities[2], 0.493380, 5e-7);
  EXPECT_EQ(e.next_id, 2u);
}

}  // namespace

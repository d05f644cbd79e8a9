// Chapter 0: the toy's numbers, derived by hand beside each assertion.
#include <cmath>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "evidence.hpp"

namespace {

const ch00::ToyModel kModel;

TEST(Ch00Toy, TokenizerMapsCharactersToVocabularyIndices) {
  EXPECT_EQ(ch00::tokenize(kModel, "abc"), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Ch00Toy, TokenizerRejectsACharacterOutsideTheVocabulary) {
  // 'z' is the third character (position 2) of "abz"; the vocabulary is a, b, c.
  const auto ids = ch00::tokenize(kModel, "abz");
  ASSERT_FALSE(ids.has_value());
  EXPECT_EQ(ids.error().code, ch00::ToyErrorCode::unknown_character);
  EXPECT_EQ(ids.error().stage, "tokenizer");
  EXPECT_EQ(ids.error().detail, "'z' at position 2; the vocabulary is a,b,c");
  EXPECT_FALSE(ids.error().cause.has_value());
}

TEST(Ch00Toy, TokenizerRejectsAnEmptyPrompt) {
  const auto ids = ch00::tokenize(kModel, "");
  ASSERT_FALSE(ids.has_value());
  EXPECT_EQ(ids.error().code, ch00::ToyErrorCode::empty_prompt);
}

TEST(Ch00Toy, ForwardWrapsTheTokenizerErrorWithItsStage) {
  // The chain reads outside-in: the forward pass, then the tokenizer's own error.
  const auto pass = ch00::forward(kModel, "abz");
  ASSERT_FALSE(pass.has_value());
  EXPECT_EQ(pass.error().code, ch00::ToyErrorCode::stage_failed);
  EXPECT_EQ(pass.error().stage, "toy forward");
  EXPECT_EQ(fmt::format("{}", pass.error()),
            "toy forward: stage failed: tokenizer: character outside the vocabulary "
            "('z' at position 2; the vocabulary is a,b,c)");
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
  const auto e = ch00::forward(kModel, "ab");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->logits, (std::vector<double>{0.5, 0.5, 1.0}));
  const double pc = std::exp(0.5) / (2.0 + std::exp(0.5));
  EXPECT_NEAR(e->probabilities[2], pc, 1e-15);
  EXPECT_NEAR(e->probabilities[2], 0.451863, 5e-7);
  EXPECT_NEAR(e->probabilities[0], 1.0 / (2.0 + std::exp(0.5)), 1e-15);
  EXPECT_EQ(e->next_id, 2u);
}

TEST(Ch00Exercise, LongerPromptAbcStillPredictsC) {
  // mean of a, b, c = [2/3, 2/3]; logits [2/3, 2/3, 4/3]; p(c) = e^(2/3) / (2 +
  // e^(2/3)).
  const auto e = ch00::exercise_longer_prompt(kModel);
  ASSERT_TRUE(e.has_value());
  const double pc = std::exp(2.0 / 3.0) / (2.0 + std::exp(2.0 / 3.0));
  EXPECT_NEAR(e->probabilities[2], pc, 1e-15);
  EXPECT_NEAR(e->probabilities[2], 0.493380, 5e-7);
  EXPECT_EQ(e->next_id, 2u);
}

TEST(Ch00Exercise, NoPromptStartingAbPredictsA) {
  // "ab" + 0..4 tokens: 1 + 3 + 9 + 27 + 81 prompts; h_1 > 0 always, so c beats a.
  const auto count = ch00::exercise_never_a(kModel);
  ASSERT_TRUE(count.has_value());
  EXPECT_EQ(count->prompts, 121u);
  EXPECT_EQ(count->predicted_a, 0u);
}

}  // namespace

// Unit tests of eval/final_evaluation (Chapter 34): the test set cannot be copied, is
// emptied by a move and by the one scoring, refuses a second scoring with a typed
// error, and stays sealed when the configuration is refused.
#include <cmath>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/eval/final_evaluation.hpp>

namespace {

using namespace llmfs::eval;
using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

static_assert(!std::is_copy_constructible_v<SealedTestSet>);
static_assert(!std::is_copy_assignable_v<SealedTestSet>);
static_assert(std::is_nothrow_move_constructible_v<SealedTestSet>);

/// A model whose loss is 2 nats per position whatever the values: ln-free arithmetic.
LossFunction constant_model(int* calls) {
  return [calls](std::span<const Tensor>, const Batch&,
                 bool) -> std::expected<LossAndGradients, ModelFailure> {
    ++*calls;
    return LossAndGradients{2.0, {}};
  };
}

ExampleSet three_examples() {
  // One sequence of 7 tokens, T = 2, stride 2: windows at 0, 2, 4.
  return {{{0, 2, 3, 4, 5, 6, 1}}, {{0, 0}, {0, 2}, {0, 4}}};
}

/// The contenders: one model named `constant`, scored at one value.
std::vector<Contender> contenders(int* calls) {
  return {{"constant", constant_model(calls), {Tensor::from(Shape{1}, {1.0}).value()}}};
}

TEST(FinalEvaluation, ScoresOnceThenRefusesWithATypedError) {
  int calls = 0;
  TrainConfig config;
  config.batch_size = 2;
  config.windows = {2, 2};
  SealedTestSet test = SealedTestSet::seal(three_examples(), 12);
  ASSERT_TRUE(test.sealed());
  const auto table = contenders(&calls);
  const auto first = final_evaluation(std::move(test), table, config);
  ASSERT_TRUE(first.has_value()) << fmt::format("{}", first.error());
  ASSERT_EQ(first->size(), 1u);
  const Metrics& m = (*first)[0].metrics;
  EXPECT_EQ((*first)[0].name, "constant");
  EXPECT_EQ(m.score.tokens, 6u);  // 3 examples × T = 2
  EXPECT_EQ(m.cross_entropy, 2.0);
  EXPECT_EQ(m.perplexity, std::exp(2.0));
  EXPECT_EQ(m.bits_per_byte, 12.0 / (std::log(2.0) * 12.0));
  EXPECT_EQ(calls, 2);  // batches of 2 and 1
  EXPECT_FALSE(test.sealed());
  const auto second = final_evaluation(std::move(test), table, config);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code, FinalErrorCode::already_scored);
  EXPECT_EQ(calls, 2);  // the model never saw the test set again
}

TEST(FinalEvaluation, AMoveLeavesTheSourceEmpty) {
  SealedTestSet a = SealedTestSet::seal(three_examples(), 12);
  SealedTestSet b = std::move(a);
  EXPECT_FALSE(a.sealed());  // NOLINT: reading a moved-from handle is the point
  EXPECT_TRUE(b.sealed());
  SealedTestSet c = SealedTestSet::seal({}, 0);
  c = std::move(b);
  EXPECT_FALSE(b.sealed());  // NOLINT
  EXPECT_TRUE(c.sealed());
  int calls = 0;
  TrainConfig config;
  config.batch_size = 2;
  config.windows = {2, 2};
  const auto from_moved = final_evaluation(std::move(a), contenders(&calls), config);
  ASSERT_FALSE(from_moved.has_value());
  EXPECT_EQ(from_moved.error().code, FinalErrorCode::already_scored);
  EXPECT_EQ(fmt::format("{}", from_moved.error()),
            "final evaluation: test set already scored (the handle is empty: scored "
            "before, or moved to another handle)");
}

TEST(FinalEvaluation, ARefusedConfigurationLeavesTheSetSealed) {
  int calls = 0;
  TrainConfig config;  // B = 0
  config.windows = {2, 2};
  SealedTestSet test = SealedTestSet::seal(three_examples(), 12);
  const auto refused = final_evaluation(std::move(test), contenders(&calls), config);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, FinalErrorCode::bad_config);
  EXPECT_TRUE(test.sealed());  // NOLINT
  EXPECT_EQ(calls, 0);
  config.batch_size = 2;  // and no contender at all
  const auto none = final_evaluation(std::move(test), {}, config);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, FinalErrorCode::bad_config);
  EXPECT_TRUE(test.sealed());  // NOLINT
}

TEST(FinalEvaluation, AContenderWithItsOwnTokensKeepsItsNatsAndBytes) {
  // 6 positions at 2 nats each: 12 nats, whatever the model counts as a token. A
  // model with its own tokenizer that predicts 4 tokens over the 3 windows gets a
  // cross-entropy of 12/4 = 3 nats per token and the same bits per byte as a model
  // of the positions: 12/(12 ln 2).
  int calls = 0;
  TrainConfig config;
  config.batch_size = 2;
  config.windows = {2, 2};
  std::size_t seen = 0;
  std::vector<Contender> table = contenders(&calls);
  table.push_back(
      {"own-tokens", constant_model(&calls), {}, [&seen](const ExampleSet& s) {
         seen = s.examples.size();
         return std::size_t{4};
       }});
  const auto scored =
      final_evaluation(SealedTestSet::seal(three_examples(), 12), table, config);
  ASSERT_TRUE(scored.has_value());
  EXPECT_EQ(seen, 3u);  // it counted over the opened examples
  const Metrics& positions = (*scored)[0].metrics;
  const Metrics& own = (*scored)[1].metrics;
  EXPECT_EQ(positions.score.tokens, 6u);
  EXPECT_EQ(own.score.tokens, 4u);
  EXPECT_DOUBLE_EQ(own.score.total_nats, 12.0);
  EXPECT_DOUBLE_EQ(own.cross_entropy, 3.0);
  EXPECT_DOUBLE_EQ(own.perplexity, std::exp(3.0));
  EXPECT_DOUBLE_EQ(own.bits_per_byte, 1.0 / std::log(2.0));
  EXPECT_DOUBLE_EQ(own.bits_per_byte, positions.bits_per_byte);
}

}  // namespace

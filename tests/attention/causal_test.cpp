#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::attention::AttentionErrorCode;
using llmfs::attention::causal_mask;
using llmfs::attention::causal_self_attention;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::make;
using llmfs::testing::value_of;

constexpr double inf = std::numeric_limits<double>::infinity();

TEST(CausalMask, IsZeroOnAndBelowTheDiagonalAndMinusInfinityAbove) {
  auto mask = causal_mask(3);
  ASSERT_TRUE(mask.has_value());
  EXPECT_EQ(mask->shape(), (Shape{3, 3}));
  const std::vector<double> expected{0, -inf, -inf, 0, 0, -inf, 0, 0, 0};
  for (std::size_t i = 0; i < 9; ++i)
    EXPECT_EQ(mask->values()[i], expected[i]) << i;
  auto empty = causal_mask(0);
  ASSERT_TRUE(empty.has_value());
  EXPECT_EQ(empty->shape(), (Shape{0, 0}));
}

TEST(CausalMask, OverflowingSizeIsATypedError) {
  auto huge = causal_mask(std::size_t{1} << 33);
  ASSERT_FALSE(huge.has_value());
  EXPECT_EQ(huge.error().code, AttentionErrorCode::size_overflow);
  // 2^31 tokens: T·T = 2^62 fits std::size_t but exceeds what a tensor can store.
  auto too_big = causal_mask(std::size_t{1} << 31);
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, AttentionErrorCode::size_overflow);
}

// Hand derivation with Q = K = [[1,0],[0,1],[1,1]], V = [[1,0],[0,1],[2,2]], d_k = 2:
// row 0 sees key 0 only: weight 1, output V_0 = [1,0].
// row 1 scores [0, 1/√2]: weights [1/(1+e^a), e^a/(1+e^a)], a = 1/√2 -> [0.330238,
// 0.669762]. row 2 scores [1, 1, 2]/√2: weights [1,1,e^a]/(2+e^a).
TEST(CausalAttention, ThreeTokenHeadMatchesHandDerivation) {
  Tape tape;
  auto qk = tape.constant(make(Shape{1, 3, 2}, {1, 0, 0, 1, 1, 1}));
  auto v = tape.constant(make(Shape{1, 3, 2}, {1, 0, 0, 1, 2, 2}));
  auto head = causal_self_attention(qk, qk, v);
  ASSERT_TRUE(head.has_value());
  const double a = 1.0 / std::sqrt(2.0);
  const double ea = std::exp(a);
  const std::vector<double> weights{1,
                                    0,
                                    0,
                                    1 / (1 + ea),
                                    ea / (1 + ea),
                                    0,
                                    1 / (2 + ea),
                                    1 / (2 + ea),
                                    ea / (2 + ea)};
  llmfs::testing::expect_values_near(value_of(head->weights), weights, 1e-15);
  const std::vector<double> output{1,
                                   0,
                                   weights[3],
                                   weights[4],
                                   weights[6] + 2 * weights[8],
                                   weights[7] + 2 * weights[8]};
  llmfs::testing::expect_values_near(value_of(head->output), output, 1e-15);
  EXPECT_NEAR(weights[4], 0.669762, 1e-6);
}

TEST(CausalAttention, FutureWeightsAreExactlyZeroAndMaskedScoresMinusInfinity) {
  llmfs::SplitMix64 rng(17);
  Tape tape;
  auto q = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 3, 4, 6}, 1, rng));
  auto k = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 3, 4, 6}, 1, rng));
  auto v = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 3, 4, 5}, 1, rng));
  auto head = causal_self_attention(q, k, v);
  ASSERT_TRUE(head.has_value());
  const auto weights = value_of(head->weights);
  const auto scores = value_of(head->scores);
  const auto masked = value_of(head->masked_scores);
  EXPECT_EQ(weights.shape(), (Shape{2, 3, 4, 4}));
  EXPECT_TRUE(llmfs::testing::all_finite(scores));
  for (std::size_t lane = 0; lane < 6; ++lane) {
    for (std::size_t i = 0; i < 4; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < 4; ++j) {
        const std::size_t at = (lane * 4 + i) * 4 + j;
        sum += weights.values()[at];
        if (j > i) {
          EXPECT_EQ(weights.values()[at], 0.0);
          EXPECT_EQ(masked.values()[at], -inf);
        } else {
          EXPECT_GT(weights.values()[at], 0.0);
          EXPECT_EQ(masked.values()[at],
                    scores.values()[at]);  // adding 0 changes nothing
        }
      }
      EXPECT_NEAR(sum, 1.0, 1e-15);
    }
  }
}

TEST(CausalAttention, EarlierRowsIgnoreALaterTokenBitwise) {
  llmfs::SplitMix64 rng(23);
  Tensor x = *llmfs::nn::uniform_fan_in(Shape{1, 4, 3}, 1, rng);
  Tensor changed = x;
  for (std::size_t c = 0; c < 3; ++c)
    changed.mutable_values()[9 + c] += 1.5;  // last token
  auto run = [](const Tensor& input) {
    Tape tape;
    auto t = tape.constant(input);
    auto head = causal_self_attention(t, t, t);
    EXPECT_TRUE(head.has_value());
    return value_of(head->output);
  };
  const Tensor before = run(x);
  const Tensor after = run(changed);
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(before.values()[i]),
              std::bit_cast<std::uint64_t>(after.values()[i]));
  }
  bool last_changed = false;
  for (std::size_t i = 9; i < 12; ++i)
    last_changed |= before.values()[i] != after.values()[i];
  EXPECT_TRUE(last_changed);
}

TEST(CausalAttention, GradientsPassCentralDifferences) {
  llmfs::testing::expect_head_gradients_pass(
      [](const auto& q, const auto& k, const auto& v) {
        return causal_self_attention(q, k, v);
      },
      31, Shape{2, 4, 3}, Shape{2, 4, 2}, 24u + 24u + 16u);
}

TEST(CausalAttention, RejectsEmptyTokensAndMismatchedTokenCounts) {
  Tape tape;
  auto none = tape.constant(Tensor::zeros(Shape{2, 0, 4}));
  auto empty = causal_self_attention(none, none, none);
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, AttentionErrorCode::empty_tokens);
  EXPECT_EQ(empty.error().stage, "causal attention");
  auto q = tape.constant(Tensor::zeros(Shape{1, 2, 4}));
  auto k = tape.constant(Tensor::zeros(Shape{1, 3, 4}));
  auto cross = causal_self_attention(q, k, k);
  ASSERT_FALSE(cross.has_value());
  EXPECT_EQ(cross.error().code, AttentionErrorCode::token_mismatch);
}

TEST(CausalAttention, EmptyBatchRunsForwardAndBackward) {
  Tape tape;
  auto x = tape.parameter(Tensor::zeros(Shape{0, 3, 4}));
  auto head = causal_self_attention(x, x, x);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->weights.shape(), (Shape{0, 3, 3}));
  ASSERT_TRUE(llmfs::autograd::backward(head->output, Tensor::zeros(Shape{0, 3, 4}))
                  .has_value());
  EXPECT_EQ(llmfs::testing::gradient_of(x).shape(), (Shape{0, 3, 4}));
}

// PyTorch float64 (tests/reference/data/ch28_causal.txt): one causal head over X·W
// projections.
TEST(CausalAttention, MatchesPyTorchReference) {
  const auto data = llmfs::testing::load_reference_case("ch28_causal");
  auto tensor = [&](std::string_view name) {
    const auto& stored = data.at(name);
    return make(Shape(stored.shape), stored.values);
  };
  Tape tape;
  auto x = tape.parameter(tensor("X"));
  auto wq = tape.parameter(tensor("W_Q"));
  auto wk = tape.parameter(tensor("W_K"));
  auto wv = tape.parameter(tensor("W_V"));
  auto head = causal_self_attention(*llmfs::autograd::matmul(x, wq),
                                    *llmfs::autograd::matmul(x, wk),
                                    *llmfs::autograd::matmul(x, wv));
  ASSERT_TRUE(head.has_value());
  auto close = [&](const Tensor& actual, std::string_view name) {
    const auto d = llmfs::testing::discrepancy(actual.values(), data.at(name).values);
    EXPECT_TRUE(d.same_size && d.same_nonfinite) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  };
  close(value_of(head->scores), "scores");
  close(value_of(head->masked_scores), "masked_scores");
  close(value_of(head->weights), "weights");
  close(value_of(head->output), "output");
  ASSERT_TRUE(llmfs::autograd::backward(head->output, tensor("upstream")).has_value());
  close(llmfs::testing::gradient_of(x), "grad_X");
  close(llmfs::testing::gradient_of(wq), "grad_W_Q");
  close(llmfs::testing::gradient_of(wk), "grad_W_K");
  close(llmfs::testing::gradient_of(wv), "grad_W_V");
}

}  // namespace

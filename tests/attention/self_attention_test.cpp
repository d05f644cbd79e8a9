#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::attention::AttentionErrorCode;
using llmfs::attention::scaled_dot_product_attention;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::make;
using llmfs::testing::value_of;

// Hand derivation. Q = K = [[1,0],[0,1]], V = [[1,2],[3,4]], d_k = 2.
// Scores = Q·Kᵀ/√2 = [[1/√2, 0],[0, 1/√2]]. Row 0 weights: e^{a}/(e^{a}+1) with a =
// 1/√2, = 0.669762..., and 1 − that = 0.330238...; row 1 is the mirror image. Output
// row 0 = 0.669762·[1,2] + 0.330238·[3,4] = [1.660477, 2.660477].
TEST(SelfAttention, TwoTokenHeadMatchesHandDerivation) {
  Tape tape;
  auto q = tape.constant(make(Shape{2, 2}, {1, 0, 0, 1}));
  auto v = tape.constant(make(Shape{2, 2}, {1, 2, 3, 4}));
  auto head = scaled_dot_product_attention(q, q, v);
  ASSERT_TRUE(head.has_value());
  const double a = 1.0 / std::sqrt(2.0);
  const double p = std::exp(a) / (std::exp(a) + 1.0);
  llmfs::testing::expect_values_near(value_of(head->scores),
                                     std::vector<double>{a, 0, 0, a}, 1e-15);
  llmfs::testing::expect_values_near(value_of(head->weights),
                                     std::vector<double>{p, 1 - p, 1 - p, p}, 1e-15);
  EXPECT_NEAR(p, 0.669762, 1e-6);
  llmfs::testing::expect_values_near(
      value_of(head->output),
      std::vector<double>{p + 3 * (1 - p), 2 * p + 4 * (1 - p), (1 - p) + 3 * p,
                          2 * (1 - p) + 4 * p},
      1e-15);
  EXPECT_NEAR(value_of(head->output).values()[0], 1.660477, 1e-6);
}

TEST(SelfAttention, RowsOfTheWeightsSumToOneAndFutureKeysAreVisible) {
  llmfs::SplitMix64 rng(4);
  Tape tape;
  auto q = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 5, 3}, 1, rng));
  auto k = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 5, 3}, 1, rng));
  auto v = tape.constant(*llmfs::nn::uniform_fan_in(Shape{2, 5, 4}, 1, rng));
  auto head = scaled_dot_product_attention(q, k, v);
  ASSERT_TRUE(head.has_value());
  const auto weights = value_of(head->weights);
  EXPECT_EQ(weights.shape(), (Shape{2, 5, 5}));
  EXPECT_EQ(value_of(head->output).shape(), (Shape{2, 5, 4}));
  for (std::size_t row = 0; row < 10; ++row) {
    double sum = 0.0;
    for (std::size_t j = 0; j < 5; ++j) {
      sum += weights.values()[row * 5 + j];
      EXPECT_GT(weights.values()[row * 5 + j], 0.0);  // no mask: every key has weight
    }
    EXPECT_NEAR(sum, 1.0, 1e-15);
  }
}

TEST(SelfAttention, GradientsPassCentralDifferences) {
  llmfs::testing::expect_head_gradients_pass(
      [](const auto& q, const auto& k, const auto& v) {
        return scaled_dot_product_attention(q, k, v);
      },
      8, Shape{2, 3, 4}, Shape{2, 3, 2}, 24u + 24u + 12u);
}

TEST(SelfAttention, RejectsBadShapesBeforeTouchingTheTape) {
  Tape tape;
  auto q = tape.constant(Tensor::zeros(Shape{1, 3, 4}));
  auto rank =
      scaled_dot_product_attention(tape.constant(Tensor::zeros(Shape{4})), q, q);
  ASSERT_FALSE(rank.has_value());
  EXPECT_EQ(rank.error().code, AttentionErrorCode::input_rank);
  auto batch =
      scaled_dot_product_attention(q, tape.constant(Tensor::zeros(Shape{2, 3, 4})), q);
  ASSERT_FALSE(batch.has_value());
  EXPECT_EQ(batch.error().code, AttentionErrorCode::batch_mismatch);
  auto width =
      scaled_dot_product_attention(q, tape.constant(Tensor::zeros(Shape{1, 3, 5})), q);
  ASSERT_FALSE(width.has_value());
  EXPECT_EQ(width.error().code, AttentionErrorCode::key_width);
  auto zero = tape.constant(Tensor::zeros(Shape{1, 3, 0}));
  auto zero_width = scaled_dot_product_attention(zero, zero, q);
  ASSERT_FALSE(zero_width.has_value());
  EXPECT_EQ(zero_width.error().code, AttentionErrorCode::zero_key_width);
  auto tokens =
      scaled_dot_product_attention(q, q, tape.constant(Tensor::zeros(Shape{1, 2, 4})));
  ASSERT_FALSE(tokens.has_value());
  EXPECT_EQ(tokens.error().code, AttentionErrorCode::token_mismatch);
  auto none = tape.constant(Tensor::zeros(Shape{1, 0, 4}));
  auto empty = scaled_dot_product_attention(none, none, none);
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, AttentionErrorCode::empty_tokens);
  EXPECT_EQ(fmt::format("{}", empty.error()),
            "self-attention: empty token axis (query [1,0,4], key [1,0,4])");
}

TEST(SelfAttention, ReleasedInputIsATypedErrorWithItsCause) {
  Tape tape;
  auto q = tape.constant(Tensor::zeros(Shape{1, 3, 4}));
  tape.release();
  auto head = scaled_dot_product_attention(q, q, q);
  ASSERT_FALSE(head.has_value());
  EXPECT_EQ(head.error().code, AttentionErrorCode::autograd);
  ASSERT_TRUE(head.error().cause.has_value());
  EXPECT_EQ(head.error().cause->code,
            llmfs::autograd::AutogradErrorCode::released_input);
}

// PyTorch float64 (tests/reference/data/ch27_self_attention.txt): one head, X·W
// projections.
TEST(SelfAttention, MatchesPyTorchReference) {
  const auto data = llmfs::testing::load_reference_case("ch27_self_attention");
  auto tensor = [&](std::string_view name) {
    const auto& stored = data.at(name);
    return make(Shape(stored.shape), stored.values);
  };
  Tape tape;
  auto x = tape.parameter(tensor("X"));
  auto wq = tape.parameter(tensor("W_Q"));
  auto wk = tape.parameter(tensor("W_K"));
  auto wv = tape.parameter(tensor("W_V"));
  auto q = llmfs::autograd::matmul(x, wq);
  auto k = llmfs::autograd::matmul(x, wk);
  auto v = llmfs::autograd::matmul(x, wv);
  auto head = scaled_dot_product_attention(*q, *k, *v);
  ASSERT_TRUE(head.has_value());
  auto close = [&](const Tensor& actual, std::string_view name) {
    const auto d = llmfs::testing::discrepancy(actual.values(), data.at(name).values);
    EXPECT_TRUE(d.same_size) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  };
  close(value_of(head->scores), "scores");
  close(value_of(head->weights), "weights");
  close(value_of(head->output), "output");
  ASSERT_TRUE(llmfs::autograd::backward(head->output, tensor("upstream")).has_value());
  close(llmfs::testing::gradient_of(x), "grad_X");
  close(llmfs::testing::gradient_of(wq), "grad_W_Q");
  close(llmfs::testing::gradient_of(wk), "grad_W_K");
  close(llmfs::testing::gradient_of(wv), "grad_W_V");
}

}  // namespace

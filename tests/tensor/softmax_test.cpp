#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/softmax.hpp>

#include "tensor/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
constexpr double inf = std::numeric_limits<double>::infinity();

TEST(Softmax, LargeLogitsDoNotOverflow) {
  // softmax([1000,1001]) = [1/(1+e), e/(1+e)] = [sigmoid(-1), sigmoid(1)]
  // = [0.2689414213699951, 0.7310585786300049]. Without the max shift exp(1000) is
  // +inf.
  auto y =
      llmfs::tensor::softmax_last_axis(Tensor::from(Shape{2}, {1000, 1001}).value())
          .value();
  EXPECT_NEAR(y.values()[0], 0.2689414213699951, 1e-15);
  EXPECT_NEAR(y.values()[1], 0.7310585786300049, 1e-15);
}

TEST(Softmax, EqualLogitsGiveUniformRows) {
  // Three equal logits: each exp(0)/3 = 1/3; a single logit: exactly 1.
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2, 3}, {5, 5, 5, -2, -2, -2}).value())
               .value();
  for (double v : y.values())
    EXPECT_DOUBLE_EQ(v, 1.0 / 3.0);
  auto one = llmfs::tensor::softmax_last_axis(Tensor::from(Shape{1, 1}, {-7.5}).value())
                 .value();
  EXPECT_EQ(one.values()[0], 1.0);
}

TEST(Softmax, LogDifferenceGivesClosedFormRatio) {
  // logits [0, ln 3]: exp values 1 and 3 (after subtracting ln 3: 1/3 and 1) -> [1/4,
  // 3/4].
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2}, {0.0, std::log(3.0)}).value())
               .value();
  EXPECT_NEAR(y.values()[0], 0.25, 1e-15);
  EXPECT_NEAR(y.values()[1], 0.75, 1e-15);
}

TEST(Softmax, MaskedEntriesAreExactlyZero) {
  // Causal row [0, -inf, 0]: exp values 1, 0, 1 -> [0.5, 0, 0.5], all exact in binary.
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2, 3}, {0, -inf, 0, 2, -inf, -inf}).value())
               .value();
  EXPECT_EQ(y.values()[0], 0.5);
  EXPECT_EQ(y.values()[1], 0.0);
  EXPECT_FALSE(std::signbit(y.values()[1]));
  EXPECT_EQ(y.values()[2], 0.5);
  EXPECT_EQ(y.values()[3], 1.0);
  EXPECT_EQ(y.values()[4], 0.0);
  EXPECT_EQ(y.values()[5], 0.0);
}

TEST(Softmax, RandomRowsSumToOneAndAreShiftInvariant) {
  auto x = llmfs::test::random_tensor(Shape{4, 7}, 5);
  auto y = llmfs::tensor::softmax_last_axis(x).value();
  for (std::size_t r = 0; r < 4; ++r) {
    double total = 0.0;
    for (std::size_t j = 0; j < 7; ++j)
      total += y.values()[r * 7 + j];
    EXPECT_NEAR(total, 1.0, 1e-15);
  }
  // Adding 3 to every logit changes nothing mathematically: softmax(x + c) =
  // softmax(x).
  Tensor shifted = x;
  for (double& v : shifted.mutable_values())
    v += 3.0;
  auto ys = llmfs::tensor::softmax_last_axis(shifted).value();
  for (std::size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(ys.values()[i], y.values()[i], 1e-15);
}

TEST(Softmax, FullyMaskedRowIsTypedError) {
  auto r = llmfs::tensor::softmax_last_axis(
      Tensor::from(Shape{2, 2}, {0, 1, -inf, -inf}).value());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::fully_masked_row);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "softmax_last_axis: fully masked row: [2,2] (row 1 is entirely -inf)");
}

TEST(Softmax, NanOrPositiveInfinityIsTypedError) {
  auto nan = llmfs::tensor::softmax_last_axis(
      Tensor::from(Shape{2}, {0, std::numeric_limits<double>::quiet_NaN()}).value());
  ASSERT_FALSE(nan.has_value());
  EXPECT_EQ(nan.error().code, TensorErrorCode::non_finite_input);
  auto pos = llmfs::tensor::softmax_last_axis(Tensor::from(Shape{2}, {inf, 0}).value());
  ASSERT_FALSE(pos.has_value());
  EXPECT_EQ(pos.error().code, TensorErrorCode::non_finite_input);
}

TEST(Softmax, RankZeroIsErrorEmptyIsEmpty) {
  auto r = llmfs::tensor::softmax_last_axis(Tensor::scalar(1.0));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::rank_too_small);
  EXPECT_EQ(
      llmfs::tensor::softmax_last_axis(Tensor::zeros(Shape{0, 2, 3})).value().shape(),
      (Shape{0, 2, 3}));
  EXPECT_EQ(
      llmfs::tensor::softmax_last_axis(Tensor::zeros(Shape{3, 0})).value().shape(),
      (Shape{3, 0}));
}

}  // namespace

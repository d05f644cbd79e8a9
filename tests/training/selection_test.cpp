// Unit tests of training/selection (Chapter 33): strictly lower wins, ties keep the
// earlier step, NaN never wins, and the kept values are a copy.
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/training/selection.hpp>

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<Tensor> single_value(double x) {
  return {Tensor::from(Shape{1}, {x}).value()};
}

TEST(BestStep, KeepsTheLowestEvenWhenItIsNotTheLast) {
  BestStep best;
  EXPECT_FALSE(best.has_value());
  EXPECT_TRUE(best.offer(0, 3.0, single_value(0.0)));
  EXPECT_TRUE(best.offer(10, 2.0, single_value(10.0)));
  EXPECT_FALSE(best.offer(20, 2.5, single_value(20.0)));
  EXPECT_EQ(best.step(), 10u);
  EXPECT_EQ(best.loss(), 2.0);
  EXPECT_EQ(best.values()[0].values()[0], 10.0);
}

TEST(BestStep, ATieKeepsTheEarlierStepAndNaNNeverWins) {
  BestStep best;
  EXPECT_FALSE(
      best.offer(0, std::numeric_limits<double>::quiet_NaN(), single_value(0.0)));
  EXPECT_FALSE(best.has_value());
  EXPECT_TRUE(best.offer(5, 1.0, single_value(5.0)));
  EXPECT_FALSE(best.offer(6, 1.0, single_value(6.0)));
  EXPECT_FALSE(
      best.offer(7, std::numeric_limits<double>::quiet_NaN(), single_value(7.0)));
  EXPECT_EQ(best.step(), 5u);
}

TEST(BestStep, TheKeptValuesAreACopy) {
  BestStep best;
  std::vector<Tensor> values = single_value(1.0);
  ASSERT_TRUE(best.offer(1, 1.0, values));
  values[0].mutable_values()[0] = 99.0;  // training goes on
  EXPECT_EQ(best.values()[0].values()[0], 1.0);
}

}  // namespace

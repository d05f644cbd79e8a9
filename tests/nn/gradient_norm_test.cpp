// nn/gradient_norm: the global norm against a hand sum, and over parameter gradients.

#include <cmath>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/gradient_norm.hpp>

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

TEST(GlobalNorm, IsTheNormOfAllElementsAsOneVector) {
  const std::vector<Tensor> parts = {Tensor::from(Shape{2}, {3, 0}).value(),
                                     Tensor::from(Shape{1, 1}, {4}).value()};
  EXPECT_EQ(llmfs::nn::global_norm(parts), 5.0);
  EXPECT_EQ(llmfs::nn::global_norm({}), 0.0);
}

TEST(GradientNorm, ReadsEachParametersGradient) {
  Tape tape;
  const llmfs::nn::NamedParameter a{"a", tape.parameter(Tensor::full(Shape{2}, 1.0))};
  const llmfs::nn::NamedParameter b{"b", tape.parameter(Tensor::full(Shape{2}, 1.0))};
  // L = Σ 2a: ∂L/∂a = (2, 2); b takes no part, its gradient is zeros.
  ASSERT_TRUE(backward(sum(scale(a.value, 2.0).value()).value(), Tensor::scalar(1.0)));
  const std::vector<llmfs::nn::NamedParameter> both = {a, b};
  EXPECT_DOUBLE_EQ(llmfs::nn::gradient_norm(both).value(), std::sqrt(8.0));
  tape.release();
  const auto gone = llmfs::nn::gradient_norm(both);
  ASSERT_FALSE(gone.has_value());
  EXPECT_EQ(gone.error().code, llmfs::nn::NnErrorCode::autograd);
  EXPECT_EQ(gone.error().stage, "gradient norm a");
}

}  // namespace

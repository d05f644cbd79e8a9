// nn/residual: x + f(x) against a naive sum, its gradient, and its refusals.

#include <gtest/gtest.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/residual.hpp>

#include "support/random_tensor.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::nn::NnError;
using llmfs::nn::NnErrorCode;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

TEST(Residual, AddsTheBranchToItsInputAndGivesTheInputBothGradients) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Tape tape;
    const Tensor v = llmfs::test::random_tensor(Shape{2, 3, 4}, seed);
    const TensorValue x = tape.parameter(v);
    const auto f = [](const TensorValue& h) -> std::expected<TensorValue, NnError> {
      return silu(h).value();
    };
    const TensorValue y = llmfs::nn::residual("block", x, f).value();
    ASSERT_TRUE(backward(sum(y).value(), Tensor::scalar(1.0)).has_value());
    const Tensor y_value = y.value().value(), x_gradient = x.gradient().value();
    const auto out = y_value.values();
    const auto gx = x_gradient.values();
    for (std::size_t i = 0; i < v.values().size(); ++i) {
      const double a = v.values()[i], s = 1.0 / (1.0 + std::exp(-a));
      EXPECT_NEAR(out[i], a + a * s, 1e-15);
      EXPECT_NEAR(gx[i], 1.0 + s * (1.0 + a * (1.0 - s)), 1e-15);
    }
  }
}

TEST(Residual, RefusesABranchThatChangesTheShape) {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{2, 3}));
  const auto widen =
      [&tape](const TensorValue&) -> std::expected<TensorValue, NnError> {
    return tape.parameter(
        Tensor::zeros(Shape{1, 3}));  // would broadcast, still refused
  };
  const auto r = llmfs::nn::residual("b", x, widen);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, NnErrorCode::branch_shape);
  EXPECT_EQ(r.error().stage, "residual b");
}

TEST(Residual, PrefixesTheBranchErrorWithItsStage) {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{2, 3}));
  const auto fail = [](const TensorValue&) -> std::expected<TensorValue, NnError> {
    return std::unexpected(NnError{NnErrorCode::input_width, "inner", "detail", {}});
  };
  const auto r = llmfs::nn::residual("b", x, fail);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, NnErrorCode::input_width);
  EXPECT_EQ(r.error().stage, "residual b: inner");
}

TEST(Stack, PlainAndResidualStacksComposeTheirBlocks) {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::full(Shape{1, 2}, 1.0));
  const std::vector<llmfs::nn::ResidualBranch> blocks(
      3, [](const TensorValue& h) -> std::expected<TensorValue, NnError> {
        return scale(h, 2.0).value();
      });
  EXPECT_EQ(llmfs::nn::stack("s", x, blocks, false).value().value().value().values()[0],
            8.0);
  EXPECT_EQ(llmfs::nn::stack("s", x, blocks, true).value().value().value().values()[0],
            27.0);
  EXPECT_EQ(llmfs::nn::stack("s", x, {}, true).value().node_id(), x.node_id());
}

}  // namespace

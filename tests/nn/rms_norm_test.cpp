// nn/rms_norm: RMSNorm against a naive loop on random rows, its backward against
// central differences, the layer's parameters and its refusals.

#include <cmath>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/rms_norm.hpp>

#include "support/random_tensor.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::nn::NnErrorCode;
using llmfs::nn::RMSNorm;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

TEST(RmsNorm, MatchesANaiveLoopOnRandomRows) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::size_t d = 1 + seed % 7;
    const Tensor x = llmfs::test::random_tensor(Shape{2, 3, d}, seed);
    const Tensor g = llmfs::test::random_tensor(Shape{d}, seed + 100);
    Tape tape;
    const TensorValue y =
        llmfs::nn::rms_norm(tape.constant(x), tape.constant(g), 1e-5).value();
    const Tensor y_value = y.value().value();
    const auto out = y_value.values();
    for (std::size_t row = 0; row < 6; ++row) {
      double ms = 0;
      for (std::size_t j = 0; j < d; ++j)
        ms += x.values()[row * d + j] * x.values()[row * d + j];
      const double r = std::sqrt(ms / static_cast<double>(d) + 1e-5);
      for (std::size_t j = 0; j < d; ++j)
        EXPECT_NEAR(out[row * d + j], x.values()[row * d + j] / r * g.values()[j],
                    1e-14);
    }
  }
}

TEST(RmsNorm, BackwardPassesCentralDifferences) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const std::vector<Tensor> point = {llmfs::test::random_tensor(Shape{3, 5}, seed),
                                       llmfs::test::random_tensor(Shape{5}, seed + 50)};
    const Tensor w = llmfs::test::random_tensor(Shape{3, 5}, seed + 99);
    const auto loss = [&w](Tape& t, std::span<const TensorValue> in)
        -> std::expected<TensorValue, AutogradError> {
      const TensorValue y = llmfs::nn::rms_norm(in[0], in[1], 1e-6).value();
      return sum(multiply(y, t.constant(w)).value());
    };
    const auto report = check_tape_gradients(loss, point).value();
    EXPECT_TRUE(report.passed()) << seed;
  }
}

TEST(RmsNorm, ZeroRowGivesZeroOutputAndFiniteGradient) {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{1, 4}));
  const TensorValue g = tape.parameter(Tensor::full(Shape{4}, 1.0));
  const TensorValue y = llmfs::nn::rms_norm(x, g, 1e-6).value();
  ASSERT_TRUE(backward(sum(y).value(), Tensor::scalar(1.0)).has_value());
  const Tensor y_value = y.value().value(), x_gradient = x.gradient().value();
  for (const double v : y_value.values())
    EXPECT_EQ(v, 0.0);
  for (const double v : x_gradient.values())
    EXPECT_NEAR(v, 1000.0, 1e-9);
}

TEST(RMSNormLayer, StartsWithUnitGainNamedWeight) {
  Tape tape;
  const RMSNorm norm = RMSNorm::create(tape, "attention_norm", 3).value();
  EXPECT_EQ(norm.gain().name, "attention_norm.weight");
  EXPECT_EQ(norm.width(), 3u);
  EXPECT_EQ(norm.epsilon(), RMSNorm::default_epsilon);
  const Tensor gain = norm.gain().value.value().value();
  for (const double v : gain.values())
    EXPECT_EQ(v, 1.0);
}

TEST(RMSNormLayer, RefusesBadArgumentsWithTypedErrors) {
  Tape tape;
  EXPECT_EQ(RMSNorm::create(tape, "", 3).error().code, NnErrorCode::empty_name);
  EXPECT_EQ(RMSNorm::create(tape, "n", 0).error().code, NnErrorCode::zero_width);
  EXPECT_EQ(RMSNorm::create(tape, "n", 3, 0.0).error().code, NnErrorCode::epsilon);
  EXPECT_EQ(RMSNorm::create(tape, "n", 3, INFINITY).error().code, NnErrorCode::epsilon);
  const auto matrix = RMSNorm::from_parameters(
      {"n.weight", tape.parameter(Tensor::zeros(Shape{2, 2}))});
  EXPECT_EQ(matrix.error().code, NnErrorCode::gain_shape);
  const RMSNorm norm = RMSNorm::create(tape, "n", 3).value();
  EXPECT_EQ(norm.forward(tape.constant(Tensor::zeros(Shape{2, 4}))).error().code,
            NnErrorCode::input_width);
  EXPECT_EQ(norm.forward(tape.constant(Tensor::zeros(Shape{3}))).error().code,
            NnErrorCode::input_rank);
  Tape other;
  const auto mixed = llmfs::nn::rms_norm(other.parameter(Tensor::zeros(Shape{1, 3})),
                                         norm.gain().value, 1e-6);
  EXPECT_EQ(mixed.error().code, NnErrorCode::autograd);
  tape.release();
  EXPECT_EQ(RMSNorm::create(tape, "n", 3).error().code, NnErrorCode::released_tape);
}

}  // namespace

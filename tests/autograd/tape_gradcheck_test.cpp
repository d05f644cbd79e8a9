// The Chapter-15 gradient check of the tape: every differentiable op's backward
// against central differences, and the checker's typed errors through the tape.

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>

#include "autograd/support.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::test::random_tensor;
using llmfs::test::weighted_sum;

// δ = 1e-6 and inputs of size ~1: the central difference's truncation error is O(δ²) ≈
// 1e-12 and its rounding error about ε·|f|/δ ≈ 1e-10; 1e-7 leaves a wide margin and
// still rejects a gradient that is wrong by a factor.
constexpr GradientCheckOptions kOptions{
    .step = 1e-6, .absolute_tolerance = 1e-7, .relative_tolerance = 1e-7};

using Binary = std::expected<TensorValue, AutogradError> (*)(const TensorValue&,
                                                             const TensorValue&);

void expect_binary_passes(Binary op, Shape a, Shape b, std::uint64_t seed) {
  const std::vector<Tensor> inputs{random_tensor(a, seed), random_tensor(b, seed + 1)};
  auto report = check_tape_gradients(
      [op, seed](Tape& tape, std::span<const TensorValue> in)
          -> std::expected<TensorValue, AutogradError> {
        auto y = op(in[0], in[1]);
        if (!y) return y;
        return weighted_sum(tape, *y, seed + 2);
      },
      inputs, kOptions);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << "max error " << report->max_abs_error();
  ASSERT_EQ(report->inputs.size(), 2u);
  EXPECT_EQ(report->inputs[0].coordinates, inputs[0].size());
  EXPECT_EQ(report->inputs[1].coordinates, inputs[1].size());
  EXPECT_EQ(report->coordinates(), inputs[0].size() + inputs[1].size());
}

TEST(TapeGradientCheck, AddWithBroadcasting) {
  expect_binary_passes(&add, Shape{2, 3}, Shape{3}, 10);
}
TEST(TapeGradientCheck, SubtractWithBroadcasting) {
  expect_binary_passes(&subtract, Shape{2, 1, 4}, Shape{3, 1}, 20);
}
TEST(TapeGradientCheck, MultiplyWithBroadcasting) {
  expect_binary_passes(&multiply, Shape{2, 3, 1}, Shape{1, 4}, 30);
}
TEST(TapeGradientCheck, MatmulLinearLayerShape) {
  expect_binary_passes(&matmul, Shape{2, 3, 4}, Shape{4, 5}, 40);
}
TEST(TapeGradientCheck, MatmulBatchedHeads) {
  expect_binary_passes(&matmul, Shape{1, 2, 3, 2}, Shape{1, 2, 2, 3}, 50);
}
TEST(TapeGradientCheck, MatmulUnitBatchBroadcast) {
  expect_binary_passes(&matmul, Shape{1, 2, 3}, Shape{3, 3, 2}, 60);
}

template <typename Build>
void expect_unary_passes(Build build, Shape shape, std::uint64_t seed) {
  const std::vector<Tensor> inputs{random_tensor(shape, seed)};
  auto report = check_tape_gradients(
      [build, seed](Tape& tape, std::span<const TensorValue> in)
          -> std::expected<TensorValue, AutogradError> {
        auto y = build(in[0]);
        if (!y) return y;
        return weighted_sum(tape, *y, seed + 1);
      },
      inputs, kOptions);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << "max error " << report->max_abs_error();
  EXPECT_EQ(report->coordinates(), inputs[0].size());
}

TEST(TapeGradientCheck, Scale) {
  expect_unary_passes([](const TensorValue& x) { return scale(x, -1.75); }, Shape{2, 3},
                      70);
}
TEST(TapeGradientCheck, Reshape) {
  expect_unary_passes(
      [](const TensorValue& x) {
        return reshape(x, Shape{3, 2, 2});
      },
      Shape{2, 6}, 80);
}
TEST(TapeGradientCheck, Transpose) {
  expect_unary_passes([](const TensorValue& x) { return transpose(x, 1, 2); },
                      Shape{2, 3, 2, 2}, 90);
}
TEST(TapeGradientCheck, Sum) {
  expect_unary_passes([](const TensorValue& x) { return sum(x); }, Shape{3, 2}, 100);
}
TEST(TapeGradientCheck, SoftmaxLastAxis) {
  expect_unary_passes([](const TensorValue& x) { return softmax_last_axis(x); },
                      Shape{2, 3, 4}, 110);
}
TEST(TapeGradientCheck, SoftmaxWithCausalMask) {
  // scores + mask (−∞ above the diagonal) then softmax: the masked probabilities stay
  // exactly 0 under every perturbation, so their columns contribute nothing either way.
  const double inf = std::numeric_limits<double>::infinity();
  expect_unary_passes(
      [inf](const TensorValue& x) -> std::expected<TensorValue, AutogradError> {
        auto tape = x.tape();
        auto mask = tape.constant(
            llmfs::test::T(Shape{3, 3}, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0}));
        auto masked = add(x, mask);
        if (!masked) return masked;
        return softmax_last_axis(*masked);
      },
      Shape{2, 3, 3}, 120);
}
TEST(TapeGradientCheck, SliceLastAxis) {
  // The middle of three column blocks, as the combined Q/K/V layout cuts it.
  expect_unary_passes([](const TensorValue& x) { return slice_last_axis(x, 2, 4); },
                      Shape{2, 3, 6}, 125);
}
TEST(TapeGradientCheck, CustomRecordedOp) {
  expect_unary_passes([](const TensorValue& x) { return llmfs::test::cube(x); },
                      Shape{4}, 130);
}

TEST(TapeGradientCheck, DetectsAWrongBackward) {
  // cube with derivative 2x² instead of 3x²: at x ~ U(-1,1) the error is x² — far above
  // 1e-7.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {0.5, -1.0})};
  auto report = check_tape_gradients(
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        auto y = llmfs::test::cube(in[0], 2.0);
        if (!y) return y;
        return sum(*y);
      },
      inputs, kOptions);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  // Largest error at x = -1: |2·1 − 3·1| = 1 (numeric derivative ≈ 3).
  EXPECT_NEAR(report->max_abs_error(), 1.0, 1e-6);
  EXPECT_EQ(report->inputs[0].worst_coordinate, 1u);
}

LossBuilder sum_loss() {
  return [](Tape&, std::span<const TensorValue> in) { return sum(in[0]); };
}

TEST(TapeGradientCheck, IdentityAtOneHundredMillionPasses) {
  // L = Σ x at x = 1e8: ∂L/∂x = 1 from backward, and exactly 1 from h = 100.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {1e8, -1e8})};
  auto report = check_tape_gradients(sum_loss(), inputs);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
  EXPECT_EQ(report->max_abs_error(), 0.0);
}

TEST(TapeGradientCheck, ExpAtThirtyPassesAndAWrongExpFails) {
  // L = exp(x) at 30: backward gives exp(30) ≈ 1.07e13; the central difference is
  // within 1.5e-10 of it relatively. A backward of 1.01·exp(x) fails.
  const std::vector<Tensor> inputs{Tensor::scalar(30.0)};
  for (const double factor : {1.0, 1.01}) {
    auto report = check_tape_gradients(
        [factor](Tape&, std::span<const TensorValue> in) {
          return llmfs::test::exponential(in[0], factor);
        },
        inputs);
    ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
    EXPECT_EQ(report->passed(), factor == 1.0) << report->max_abs_error();
    EXPECT_NEAR(report->max_abs_error() / std::exp(30.0), factor - 1.0, 1e-8);
  }
}

TEST(TapeGradientCheck, ANaNBackwardFailsWithANaNMaximumError) {
  // cube whose backward multiplies by NaN: every analytic derivative is NaN.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {0.5, -1.0})};
  auto report = check_tape_gradients(
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        auto y = llmfs::test::cube(in[0], std::numeric_limits<double>::quiet_NaN());
        if (!y) return y;
        return sum(*y);
      },
      inputs);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  EXPECT_EQ(report->inputs[0].failed, 2u);
  EXPECT_EQ(report->inputs[0].worst_coordinate, 0u);  // the first NaN
  EXPECT_TRUE(std::isnan(report->max_abs_error()));
}

TEST(TapeGradientCheck, RejectsNonPositiveOrNonFiniteStepBeforeBuildingTheLoss) {
  std::size_t builds = 0;
  const LossBuilder counted = [&builds](Tape&, std::span<const TensorValue> in) {
    ++builds;
    return sum(in[0]);
  };
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2})};
  for (double step : {0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity()}) {
    auto r = check_tape_gradients(counted, inputs, {.step = step});
    ASSERT_FALSE(r.has_value()) << step;
    EXPECT_EQ(r.error().code, GradientCheckErrorCode::invalid_step) << step;
    EXPECT_EQ(fmt::format("{}", r.error()),
              fmt::format("check_gradients: invalid step (step {})", step));
  }
  EXPECT_EQ(builds, 0u);
}

TEST(TapeGradientCheck, RejectsPerturbationThatRoundsAway) {
  // δ = 1e-17 at x = 1: 1 + 1e-17 == 1 in double.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {2.0, 1.0})};
  auto r = check_tape_gradients(sum_loss(), inputs, {.step = 1e-17});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::ineffective_perturbation);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: perturbation does not change the input (input 0 "
            "coordinate 0: 2 +/- 2e-17 rounds back to itself)");
}

TEST(TapeGradientCheck, RejectsNonScalarLoss) {
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2})};
  auto r = check_tape_gradients(
      [](Tape&, std::span<const TensorValue> in) { return scale(in[0], 2.0); }, inputs);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::loss_not_scalar);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: loss is not a scalar (loss shape [2])");
}

TEST(TapeGradientCheck, WrapsTheLossBuildersError) {
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2, 3})};
  auto r = check_tape_gradients(
      [](Tape&, std::span<const TensorValue> in) { return matmul(in[0], in[0]); },
      inputs);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::evaluation_failed);
  EXPECT_EQ(r.error().stage, "loss");
  ASSERT_TRUE(r.error().cause.has_value());
  EXPECT_EQ(r.error().cause->code, AutogradErrorCode::tensor);
  EXPECT_EQ(r.error().cause->stage, "matmul");
  EXPECT_EQ(fmt::format("{}", r.error()),
            fmt::format("loss: evaluation failed: {}", *r.error().cause));
}

TEST(TapeGradientCheck, TapeGradientsAreTheBackwardPass) {
  // L = Σ x³ at (0.5, −1, 2): ∂L/∂x = 3x² = (0.75, 3, 12), exactly.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{3}, {0.5, -1.0, 2.0})};
  auto gradients = tape_gradients(
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        auto y = llmfs::test::cube(in[0]);
        if (!y) return y;
        return sum(*y);
      },
      inputs);
  ASSERT_TRUE(gradients.has_value()) << fmt::format("{}", gradients.error());
  ASSERT_EQ(gradients->size(), 1u);
  EXPECT_EQ((*gradients)[0].shape(), (Shape{3}));
  EXPECT_EQ(std::vector<double>((*gradients)[0].values().begin(),
                                (*gradients)[0].values().end()),
            (std::vector<double>{0.75, 3.0, 12.0}));
}

TEST(TapeGradientCheck, ReportsCoordinateCountsPerInput) {
  // Σ(a·b) with a [3,4] and b [4,4]: 12 + 16 coordinates (the chapter-30 check shape).
  const std::vector<Tensor> inputs{random_tensor(Shape{3, 4}, 1),
                                   random_tensor(Shape{4, 4}, 2)};
  auto report = check_tape_gradients(
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        auto y = matmul(in[0], in[1]);
        if (!y) return y;
        return sum(*y);
      },
      inputs, {.step = 1e-6, .absolute_tolerance = 8e-6, .relative_tolerance = 0.0});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->inputs[0].coordinates, 12u);
  EXPECT_EQ(report->inputs[1].coordinates, 16u);
  EXPECT_EQ(report->coordinates(), 28u);
  EXPECT_TRUE(report->passed());
  EXPECT_LE(report->max_abs_error(), 8e-6);
}

}  // namespace

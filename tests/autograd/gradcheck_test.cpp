#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/ops.hpp>

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
constexpr GradientCheckOptions kOptions{1e-6, 1e-7};

using Binary = std::expected<TensorValue, AutogradError> (*)(const TensorValue&,
                                                             const TensorValue&);

void expect_binary_passes(Binary op, Shape a, Shape b, std::uint64_t seed) {
  const std::vector<Tensor> inputs{random_tensor(a, seed), random_tensor(b, seed + 1)};
  auto report = check_gradients(
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

TEST(GradientCheck, AddWithBroadcasting) {
  expect_binary_passes(&add, Shape{2, 3}, Shape{3}, 10);
}
TEST(GradientCheck, SubtractWithBroadcasting) {
  expect_binary_passes(&subtract, Shape{2, 1, 4}, Shape{3, 1}, 20);
}
TEST(GradientCheck, MultiplyWithBroadcasting) {
  expect_binary_passes(&multiply, Shape{2, 3, 1}, Shape{1, 4}, 30);
}
TEST(GradientCheck, MatmulLinearLayerShape) {
  expect_binary_passes(&matmul, Shape{2, 3, 4}, Shape{4, 5}, 40);
}
TEST(GradientCheck, MatmulBatchedHeads) {
  expect_binary_passes(&matmul, Shape{1, 2, 3, 2}, Shape{1, 2, 2, 3}, 50);
}
TEST(GradientCheck, MatmulUnitBatchBroadcast) {
  expect_binary_passes(&matmul, Shape{1, 2, 3}, Shape{3, 3, 2}, 60);
}

template <typename Build>
void expect_unary_passes(Build build, Shape shape, std::uint64_t seed) {
  const std::vector<Tensor> inputs{random_tensor(shape, seed)};
  auto report = check_gradients(
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

TEST(GradientCheck, Scale) {
  expect_unary_passes([](const TensorValue& x) { return scale(x, -1.75); }, Shape{2, 3},
                      70);
}
TEST(GradientCheck, Reshape) {
  expect_unary_passes(
      [](const TensorValue& x) {
        return reshape(x, Shape{3, 2, 2});
      },
      Shape{2, 6}, 80);
}
TEST(GradientCheck, Transpose) {
  expect_unary_passes([](const TensorValue& x) { return transpose(x, 1, 2); },
                      Shape{2, 3, 2, 2}, 90);
}
TEST(GradientCheck, Sum) {
  expect_unary_passes([](const TensorValue& x) { return sum(x); }, Shape{3, 2}, 100);
}
TEST(GradientCheck, SoftmaxLastAxis) {
  expect_unary_passes([](const TensorValue& x) { return softmax_last_axis(x); },
                      Shape{2, 3, 4}, 110);
}
TEST(GradientCheck, SoftmaxWithCausalMask) {
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
TEST(GradientCheck, SliceLastAxis) {
  // The middle of three column blocks, as the combined Q/K/V layout cuts it.
  expect_unary_passes([](const TensorValue& x) { return slice_last_axis(x, 2, 4); },
                      Shape{2, 3, 6}, 125);
}
TEST(GradientCheck, CustomRecordedOp) {
  expect_unary_passes([](const TensorValue& x) { return llmfs::test::cube(x); },
                      Shape{4}, 130);
}

TEST(GradientCheck, DetectsAWrongBackward) {
  // cube with derivative 2x² instead of 3x²: at x ~ U(-1,1) the error is x² — far above
  // 1e-7.
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {0.5, -1.0})};
  auto report = check_gradients(
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

TEST(GradientCheck, RejectsNonPositiveOrNonFiniteStep) {
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2})};
  for (double step : {0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(),
                      std::numeric_limits<double>::infinity()}) {
    auto r = check_gradients(sum_loss(), inputs, {step, 1e-6});
    ASSERT_FALSE(r.has_value()) << step;
    EXPECT_EQ(r.error().code, AutogradErrorCode::invalid_step) << step;
  }
}

TEST(GradientCheck, RejectsPerturbationThatRoundsAway) {
  // 1e20 + 1e-6 == 1e20 in double (spacing near 1e20 is 16384).
  const std::vector<Tensor> inputs{llmfs::test::T(Shape{2}, {1.0, 1e20})};
  auto r = check_gradients(sum_loss(), inputs, {1e-6, 1e-6});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::ineffective_perturbation);
  EXPECT_NE(r.error().detail.find("input 0 coordinate 1"), std::string::npos)
      << r.error().detail;
}

TEST(GradientCheck, RejectsNonScalarLoss) {
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2})};
  auto r = check_gradients(
      [](Tape&, std::span<const TensorValue> in) { return scale(in[0], 2.0); }, inputs,
      {1e-6, 1e-6});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::loss_not_scalar);
}

TEST(GradientCheck, PropagatesTheLossBuildersError) {
  const std::vector<Tensor> inputs{Tensor::zeros(Shape{2, 3})};
  auto r = check_gradients(
      [](Tape&, std::span<const TensorValue> in) { return matmul(in[0], in[0]); },
      inputs, {1e-6, 1e-6});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::tensor);
  EXPECT_EQ(r.error().stage, "matmul");
}

TEST(GradientCheck, ReportsCoordinateCountsPerInput) {
  // Σ(a·b) with a [3,4] and b [4,4]: 12 + 16 coordinates (the chapter-30 check shape).
  const std::vector<Tensor> inputs{random_tensor(Shape{3, 4}, 1),
                                   random_tensor(Shape{4, 4}, 2)};
  auto report = check_gradients(
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        auto y = matmul(in[0], in[1]);
        if (!y) return y;
        return sum(*y);
      },
      inputs, {1e-6, 8e-6});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->inputs[0].coordinates, 12u);
  EXPECT_EQ(report->inputs[1].coordinates, 16u);
  EXPECT_EQ(report->coordinates(), 28u);
  EXPECT_TRUE(report->passed());
  EXPECT_LE(report->max_abs_error(), 8e-6);
}

}  // namespace

#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/rope.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::attention::RopeErrorCode;
using llmfs::attention::RotaryEmbedding;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::make;
using llmfs::testing::value_of;

RotaryEmbedding rope(std::size_t width, std::size_t capacity, double base) {
  auto made = RotaryEmbedding::create(width, capacity, base);
  EXPECT_TRUE(made.has_value());
  return *made;
}

double dot(std::span<const double> a, std::span<const double> b) {
  double total = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    total += a[i] * b[i];
  return total;
}

TEST(Rope, RatesFallGeometricallyFromOne) {
  const auto r = rope(8, 4, 10000.0);
  ASSERT_EQ(r.frequencies().size(), 4u);
  // θ_i = 10000^(−2i/8) = 10^(−i)
  EXPECT_EQ(r.frequencies()[0], 1.0);
  EXPECT_NEAR(r.frequencies()[1], 0.1, 1e-16);
  EXPECT_NEAR(r.frequencies()[2], 0.01, 1e-17);
  EXPECT_NEAR(r.frequencies()[3], 0.001, 1e-18);
  EXPECT_EQ(r.cos_table().shape(), (Shape{4, 4}));
  EXPECT_EQ(r.sin_table().shape(), (Shape{4, 4}));
  EXPECT_EQ(r.cos_table().values()[3 * 4 + 1], std::cos(3.0 * r.frequencies()[1]));
  EXPECT_EQ(r.sin_table().values()[2 * 4 + 0], std::sin(2.0));
}

// Hand derivation: width 4, base 100 -> θ_0 = 1, θ_1 = 100^(−1/2) = 0.1.
// x = [1,0,0,1] at position 2: pair 0 turns [1,0] by 2 rad -> [cos 2, sin 2];
// pair 1 turns [0,1] by 0.2 rad -> [−sin 0.2, cos 0.2].
TEST(Rope, RotatesAdjacentPairsByPositionTimesRate) {
  const auto r = rope(4, 6, 100.0);
  auto turned = r.rotate(make(Shape{1, 4}, {1, 0, 0, 1}), 2);
  ASSERT_TRUE(turned.has_value());
  llmfs::testing::expect_values_near(
      *turned,
      std::vector<double>{std::cos(2.0), std::sin(2.0), -std::sin(0.2), std::cos(0.2)},
      1e-15);
  EXPECT_NEAR(turned->values()[0], -0.416147, 1e-6);
  EXPECT_NEAR(turned->values()[1], 0.909297, 1e-6);
}

// The chapter-30 fixture's head 0: row t is [cos t, −sin t] = R(−t)[1,0]; RoPE turns it
// back.
TEST(Rope, UndoesACounterRotatedInput) {
  const auto r = rope(2, 6, 100.0);
  auto turned = r.rotate(make(Shape{3, 2}, {1, 0, std::cos(1.0), -std::sin(1.0),
                                            std::cos(2.0), -std::sin(2.0)}),
                         0);
  ASSERT_TRUE(turned.has_value());
  llmfs::testing::expect_values_near(*turned, std::vector<double>{1, 0, 1, 0, 1, 0},
                                     1e-15);
}

TEST(Rope, OffsetShiftsEveryRowsPositionBitwise) {
  llmfs::SplitMix64 rng(1);
  const auto r = rope(6, 8, 50.0);
  const Tensor x = *llmfs::nn::uniform_fan_in(Shape{2, 3, 6}, 1, rng);
  auto whole = r.rotate(x, 4);
  ASSERT_TRUE(whole.has_value());
  for (std::size_t b = 0; b < 2; ++b) {
    for (std::size_t t = 0; t < 3; ++t) {
      std::vector<double> row(x.values().begin() + (b * 3 + t) * 6,
                              x.values().begin() + (b * 3 + t + 1) * 6);
      auto single = r.rotate(make(Shape{1, 6}, row), 4 + t);
      ASSERT_TRUE(single.has_value());
      for (std::size_t c = 0; c < 6; ++c) {
        EXPECT_EQ(whole->values()[(b * 3 + t) * 6 + c], single->values()[c]);
      }
    }
  }
}

TEST(Rope, ScoreDependsOnlyOnTheGapBetweenPositions) {
  llmfs::SplitMix64 rng(2);
  const auto r = rope(8, 16, 10000.0);
  const Tensor q = *llmfs::nn::uniform_fan_in(Shape{1, 8}, 1, rng);
  const Tensor k = *llmfs::nn::uniform_fan_in(Shape{1, 8}, 1, rng);
  auto score = [&](std::size_t p, std::size_t s) {
    return dot(r.rotate(q, p)->values(), r.rotate(k, s)->values());
  };
  for (std::size_t gap = 0; gap < 4; ++gap) {
    const double reference = score(gap, 0);
    for (std::size_t s = 1; s + gap < 16; ++s)
      EXPECT_NEAR(score(s + gap, s), reference, 1e-12);
  }
  EXPECT_GT(std::abs(score(3, 0) - score(1, 0)),
            1e-3);  // different gaps, different scores
}

TEST(Rope, PreservesTheNormOfEveryPair) {
  llmfs::SplitMix64 rng(3);
  const auto r = rope(4, 10, 100.0);
  const Tensor x = *llmfs::nn::uniform_fan_in(Shape{5, 4}, 1, rng);
  auto turned = r.rotate(x, 5);
  ASSERT_TRUE(turned.has_value());
  for (std::size_t pair = 0; pair < 10; ++pair) {
    const double a = std::hypot(x.values()[2 * pair], x.values()[2 * pair + 1]);
    const double b =
        std::hypot(turned->values()[2 * pair], turned->values()[2 * pair + 1]);
    EXPECT_NEAR(a, b, 1e-15);
  }
}

// Backward is the opposite turn: with loss = y·g at position 1 and g = [1, 0],
// ∂loss/∂x = R(−1)·g = [cos 1, −sin 1].
TEST(Rope, BackwardTurnsTheGradientTheOtherWay) {
  const auto r = rope(2, 4, 100.0);
  Tape tape;
  auto x = tape.parameter(make(Shape{1, 2}, {0.3, -0.7}));
  auto y = r.rotate(x, 1);
  ASSERT_TRUE(y.has_value());
  ASSERT_TRUE(llmfs::autograd::backward(*y, make(Shape{1, 2}, {1, 0})).has_value());
  llmfs::testing::expect_values_near(llmfs::testing::gradient_of(x),
                                     std::vector<double>{std::cos(1.0), -std::sin(1.0)},
                                     1e-15);
}

TEST(Rope, GradientsPassCentralDifferences) {
  llmfs::SplitMix64 rng(4);
  const auto r = rope(6, 8, 10.0);
  std::vector<Tensor> inputs{*llmfs::nn::uniform_fan_in(Shape{2, 3, 6}, 1, rng)};
  const Tensor upstream = *llmfs::nn::uniform_fan_in(Shape{2, 3, 6}, 1, rng);
  auto loss = [&](Tape& tape, std::span<const TensorValue> in)
      -> std::expected<TensorValue, llmfs::autograd::AutogradError> {
    auto turned = r.rotate(in[0], 2);
    if (!turned) return std::unexpected(*turned.error().cause);
    auto weighted = llmfs::autograd::multiply(*turned, tape.constant(upstream));
    if (!weighted) return std::unexpected(weighted.error());
    return llmfs::autograd::sum(*weighted);
  };
  auto report = llmfs::autograd::check_tape_gradients(
      loss, inputs,
      {.step = 1e-6, .absolute_tolerance = 1e-9, .relative_tolerance = 0.0});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->coordinates(), 36u);
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
}

TEST(Rope, ConfigurationErrorsAreTypedAndOrdered) {
  auto code = [](std::size_t width, std::size_t capacity, double base) {
    auto made = RotaryEmbedding::create(width, capacity, base);
    EXPECT_FALSE(made.has_value());
    return made ? RopeErrorCode::autograd : made.error().code;
  };
  EXPECT_EQ(code(0, 4, 100.0), RopeErrorCode::zero_width);
  EXPECT_EQ(code(3, 4, 100.0), RopeErrorCode::odd_width);
  EXPECT_EQ(code(3, 0, 0.0), RopeErrorCode::odd_width);
  EXPECT_EQ(code(4, 0, 100.0), RopeErrorCode::zero_capacity);
  EXPECT_EQ(code(4, 4, 1.0), RopeErrorCode::invalid_base);
  EXPECT_EQ(code(4, 4, 0.5), RopeErrorCode::invalid_base);
  EXPECT_EQ(code(4, 4, -2.0), RopeErrorCode::invalid_base);
  EXPECT_EQ(code(4, 4, std::numeric_limits<double>::infinity()),
            RopeErrorCode::invalid_base);
  EXPECT_EQ(code(4, 4, std::numeric_limits<double>::quiet_NaN()),
            RopeErrorCode::invalid_base);
  auto message = RotaryEmbedding::create(3, 4, 100.0);
  EXPECT_EQ(fmt::format("{}", message.error()),
            "RoPE configuration: rotated width must be even (width 3, max_positions 4, "
            "base 100)");
}

// A capacity whose [P, d/2] tables cannot be stored is refused before anything is
// allocated (it used to escape as std::length_error from Tensor::zeros).
TEST(Rope, CapacityTooLargeForTheTablesIsATypedError) {
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  auto made = RotaryEmbedding::create(2, huge, 100.0);
  ASSERT_FALSE(made.has_value());
  EXPECT_EQ(made.error().code, RopeErrorCode::capacity_too_large);
  EXPECT_EQ(made.error().stage, "RoPE configuration");
  EXPECT_EQ(fmt::format("{}", made.error()),
            fmt::format("RoPE configuration: capacity too large for the angle tables "
                        "(width 2, max_positions {}, base 100)",
                        huge));
  // The limit counts elements: capacity × pairs, so a wider rotation lowers the
  // capacity.
  const std::size_t limit = llmfs::tensor::max_element_count();
  auto wide = RotaryEmbedding::create(4, limit / 2 + 1, 100.0);
  ASSERT_FALSE(wide.has_value());
  EXPECT_EQ(wide.error().code, RopeErrorCode::capacity_too_large);
  // Earlier checks still come first.
  auto odd = RotaryEmbedding::create(3, huge, 100.0);
  ASSERT_FALSE(odd.has_value());
  EXPECT_EQ(odd.error().code, RopeErrorCode::odd_width);
  auto base = RotaryEmbedding::create(2, huge, 1.0);
  ASSERT_FALSE(base.has_value());
  EXPECT_EQ(base.error().code, RopeErrorCode::invalid_base);
}

TEST(Rope, RotateChecksShapeAndPositionIntervalBeforeTheTape) {
  const auto r = rope(4, 6, 100.0);
  Tape tape;
  auto rank = r.rotate(tape.constant(Tensor::zeros(Shape{4})), 0);
  ASSERT_FALSE(rank.has_value());
  EXPECT_EQ(rank.error().code, RopeErrorCode::input_rank);
  auto width = r.rotate(tape.constant(Tensor::zeros(Shape{3, 2})), 0);
  ASSERT_FALSE(width.has_value());
  EXPECT_EQ(width.error().code, RopeErrorCode::input_width);
  auto x = tape.constant(Tensor::zeros(Shape{2, 3, 4}));
  auto overflow = r.rotate(x, std::numeric_limits<std::size_t>::max() - 1);
  ASSERT_FALSE(overflow.has_value());
  EXPECT_EQ(overflow.error().code, RopeErrorCode::offset_overflow);
  auto range = r.rotate(x, 4);
  ASSERT_FALSE(range.has_value());
  EXPECT_EQ(range.error().code, RopeErrorCode::position_range);
  EXPECT_EQ(fmt::format("{}", range.error()),
            "RoPE rotate: position interval exceeds capacity (positions [4, 7) but "
            "capacity 6)");
  EXPECT_TRUE(r.rotate(x, 3).has_value());  // [3, 6) fits exactly
  tape.release();
  auto still_range = r.rotate(x, 4);  // the interval is checked before the tape
  ASSERT_FALSE(still_range.has_value());
  EXPECT_EQ(still_range.error().code, RopeErrorCode::position_range);
  auto released = r.rotate(x, 0);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, RopeErrorCode::autograd);
  EXPECT_EQ(released.error().cause->code,
            llmfs::autograd::AutogradErrorCode::released_input);
}

TEST(Rope, EmptyTokenAxisGivesAnEmptyResult) {
  const auto r = rope(4, 2, 100.0);
  auto turned = r.rotate(Tensor::zeros(Shape{2, 0, 4}), 2);
  ASSERT_TRUE(turned.has_value());
  EXPECT_EQ(turned->shape(), (Shape{2, 0, 4}));
}

// PyTorch float64 (tests/reference/data/ch29_rope.txt): Q and K [2,5,8] rotated at
// (base 10000, offset 3) and (base 100, offset 0), with gradients of Σ Q̃⊙G_Q + Σ K̃⊙G_K.
TEST(Rope, MatchesPyTorchReference) {
  const auto data = llmfs::testing::load_reference_case("ch29_rope");
  auto tensor = [&](std::string_view name) {
    const auto& stored = data.at(name);
    return make(Shape(stored.shape), stored.values);
  };
  auto close = [&](std::span<const double> actual, std::string_view name) {
    const auto d = llmfs::testing::discrepancy(actual, data.at(name).values);
    EXPECT_TRUE(d.same_size) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  };
  for (std::string prefix : {"rope_b10000_o3", "rope_b100_o0"}) {
    const double base = data.scalar(prefix + ".rope_base");
    const auto offset = static_cast<std::size_t>(data.scalar(prefix + ".rope_offset"));
    const auto r = rope(8, offset + 5, base);
    close(r.frequencies(), prefix + ".theta");
    Tape tape;
    auto q = tape.parameter(tensor("Q"));
    auto k = tape.parameter(tensor("K"));
    auto qr = r.rotate(q, offset);
    auto kr = r.rotate(k, offset);
    ASSERT_TRUE(qr.has_value() && kr.has_value());
    close(value_of(*qr).values(), prefix + ".Q_rotated");
    close(value_of(*kr).values(), prefix + ".K_rotated");
    ASSERT_TRUE(llmfs::autograd::backward(*qr, tensor("upstream_Q")).has_value());
    ASSERT_TRUE(llmfs::autograd::backward(*kr, tensor("upstream_K")).has_value());
    close(llmfs::testing::gradient_of(q).values(), prefix + ".grad_Q");
    close(llmfs::testing::gradient_of(k).values(), prefix + ".grad_K");
  }
}

}  // namespace

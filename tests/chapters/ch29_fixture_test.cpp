// Chapter 29 claims on the frozen fixture, each against the hand derivation written
// beside it.
//
// The fixture (snippets/ch29-rope/fixture.hpp): width d = 4 (pairs (x0,x1), (x2,x3)),
// base b = 100, capacity P = 6, T = 3 tokens, every query and key row x = [1,0,1,0],
// value rows v_t = e_t, offsets 0 and 3.
//
// Hand derivation (chapter 29, "Predict" and "Derive"):
//   θ_i = b^(-2i/d):  θ_0 = 100^0 = 1,  θ_1 = 100^(-1/2) = 0.1.
//   Rotating [1,0] by α gives [cos α, sin α], so the row at position p becomes
//     [cos p, sin p, cos 0.1p, sin 0.1p]:
//     p=0: [1, 0, 1, 0]
//     p=1: [0.540302, 0.841471, 0.995004, 0.099833]
//     p=2: [-0.416147, 0.909297, 0.980067, 0.198669]
//     p=3: [-0.989992, 0.141120, 0.955336, 0.295520]
//     p=4: [-0.653644, -0.756802, 0.921061, 0.389418]
//     p=5: [0.283662, -0.958924, 0.877583, 0.479426]
//   Score of contents q = k = x at positions p, s:  per pair q_iᵀ R((s-p)θ_i) k_i =
//   cos((s-p)θ_i),
//     so S_ps = cos(p-s) + cos(0.1(p-s)):  gap 0 → 2,  gap 1 → 1.535306,  gap 2 →
//     0.563920.
//   Causal weights with scale 1/√4 = 1/2:
//     row 0: [1, 0, 0]
//     row 1: softmax([0.767653, 1])           = [0.442173, 0.557827, 0]
//     row 2: softmax([0.281960, 0.767653, 1]) = [0.213871, 0.347605, 0.438524]
//   Outputs with unrotated values e_t: row t = [A_t0, A_t1, A_t2, 0].
//   With rotated values (the contrast) at offset 3: row 0 = R(3θ)e_0 = [cos 3, sin 3,
//   0, 0].

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/rope.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/values.hpp"

namespace {

using llmfs::attention::RopeErrorCode;
using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::expect_values_near;

// Six-decimal literals from the derivation above are checked to half a unit in the last
// place.
constexpr double kPrinted = 5e-7;
// Equal up to rounding: two computations of the same exact quantity.
constexpr double kTolerance = 1e-12;

const ch29::Evidence& evidence() {
  static const ch29::Evidence gathered = [] {
    auto result = ch29::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

// The demo's message for a rejected input, by the name the report prints it under.
std::string error_of(const std::string& name) {
  const auto& errors = evidence().errors;
  const auto found =
      std::ranges::find(errors, name, [](const auto& e) { return e.first; });
  return found == errors.end() ? std::string("missing") : found->second;
}

// Largest |a − b| over two tensors of the same size.
double max_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.size(), b.size());
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    largest = std::max(largest, std::abs(a.values()[i] - b.values()[i]));
  return largest;
}

// The length of every row of a [1, T, d] tensor.
std::vector<double> row_norms(const Tensor& rows) {
  std::vector<double> norms;
  for (std::size_t start = 0; start < rows.size(); start += 4) {
    double sum = 0.0;
    for (const double x : rows.values().subspan(start, 4))
      sum += x * x;
    norms.push_back(std::sqrt(sum));
  }
  return norms;
}

// The hand formula S_ps = cos(p-s) + cos(0.1(p-s)), with θ written in as the literals 1
// and 0.1.
double hand_score(int gap) {
  return std::cos(gap * 1.0) + std::cos(gap * 0.1);
}

TEST(Ch29Fixture, RatesAreOneAndOneTenth) {
  const auto theta = evidence().rope.frequencies();
  ASSERT_EQ(theta.size(), 2u);
  EXPECT_DOUBLE_EQ(theta[0], 1.0);
  EXPECT_DOUBLE_EQ(theta[1], 0.1);
}

TEST(Ch29Fixture, CosineAndSineTablesHoldPositionTimesRate) {
  const std::vector<double> cos_printed{1.0,       1.0,      0.540302,  0.995004,
                                        -0.416147, 0.980067, -0.989992, 0.955336,
                                        -0.653644, 0.921061, 0.283662,  0.877583};
  const std::vector<double> sin_printed{0.0,       0.0,      0.841471,  0.099833,
                                        0.909297,  0.198669, 0.141120,  0.295520,
                                        -0.756802, 0.389418, -0.958924, 0.479426};
  EXPECT_EQ(evidence().rope.cos_table().shape(), (Shape{6, 2}));
  expect_values_near(evidence().rope.cos_table().values(), cos_printed, kPrinted,
                     "cos table");
  expect_values_near(evidence().rope.sin_table().values(), sin_printed, kPrinted,
                     "sin table");
  for (int p = 0; p < 6; ++p) {
    EXPECT_NEAR(evidence().rope.cos_table().values()[2 * p], std::cos(p * 1.0), 1e-15);
    EXPECT_NEAR(evidence().rope.cos_table().values()[2 * p + 1], std::cos(p * 0.1),
                1e-15);
    EXPECT_NEAR(evidence().rope.sin_table().values()[2 * p], std::sin(p * 1.0), 1e-15);
    EXPECT_NEAR(evidence().rope.sin_table().values()[2 * p + 1], std::sin(p * 0.1),
                1e-15);
  }
}

TEST(Ch29Fixture, RotatedRowsAreCosineSineOfEachPairAngle) {
  const std::vector<double> offset0{1.0,       0.0,      1.0,      0.0,
                                    0.540302,  0.841471, 0.995004, 0.099833,
                                    -0.416147, 0.909297, 0.980067, 0.198669};
  const std::vector<double> offset3{-0.989992, 0.141120,  0.955336, 0.295520,
                                    -0.653644, -0.756802, 0.921061, 0.389418,
                                    0.283662,  -0.958924, 0.877583, 0.479426};
  expect_values_near(evidence().runs[0].relative.rotated_query.values(), offset0,
                     kPrinted, "offset 0");
  expect_values_near(evidence().runs[1].relative.rotated_query.values(), offset3,
                     kPrinted, "offset 3");
  for (const ch29::OffsetRun& run : evidence().runs) {
    for (std::size_t t = 0; t < 3; ++t) {
      const double p = static_cast<double>(run.offset + t);
      const std::vector<double> hand{std::cos(p), std::sin(p), std::cos(0.1 * p),
                                     std::sin(0.1 * p)};
      expect_values_near(run.relative.rotated_query.values().subspan(4 * t, 4), hand,
                         1e-15, fmt::format("offset {} token {}", run.offset, t));
    }
  }
}

TEST(Ch29Fixture, ScoreTableDependsOnTheGapOnly) {
  const std::vector<double> printed{2.0,      1.535306, 0.563920, 1.535306, 2.0,
                                    1.535306, 0.563920, 1.535306, 2.0};
  for (const ch29::OffsetRun& run : evidence().runs) {
    EXPECT_EQ(run.relative.scores.shape(), (Shape{1, 3, 3}));
    expect_values_near(run.relative.scores.values(), printed, kPrinted, "scores");
    for (int p = 0; p < 3; ++p)
      for (int s = 0; s < 3; ++s)
        EXPECT_NEAR(run.relative.scores.values()[3 * p + s], hand_score(p - s), 1e-14)
            << "offset " << run.offset << " p " << p << " s " << s;
  }
  EXPECT_LE(max_difference(evidence().runs[0].relative.scores,
                           evidence().runs[1].relative.scores),
            kTolerance);
}

TEST(Ch29Fixture, CausalWeightsMatchTheHandSoftmax) {
  // Row 1: softmax([S_10/2, S_11/2]); row 2: softmax([S_20/2, S_21/2, S_22/2]).
  const double a = hand_score(1) / 2.0, b = hand_score(0) / 2.0,
               c = hand_score(2) / 2.0;
  const double row1 = std::exp(a) + std::exp(b);
  const double row2 = std::exp(c) + std::exp(a) + std::exp(b);
  const std::vector<double> hand{1.0,
                                 0.0,
                                 0.0,
                                 std::exp(a) / row1,
                                 std::exp(b) / row1,
                                 0.0,
                                 std::exp(c) / row2,
                                 std::exp(a) / row2,
                                 std::exp(b) / row2};
  const std::vector<double> printed{1.0, 0.0,      0.0,      0.442173, 0.557827,
                                    0.0, 0.213871, 0.347605, 0.438524};
  for (const ch29::OffsetRun& run : evidence().runs) {
    expect_values_near(run.attention.weights.values(), hand, 1e-14,
                       "weights (formula)");
    expect_values_near(run.attention.weights.values(), printed, kPrinted,
                       "weights (printed)");
    // Future keys get exactly zero weight
    EXPECT_EQ(run.attention.weights.values()[1], 0.0);
    EXPECT_EQ(run.attention.weights.values()[2], 0.0);
    EXPECT_EQ(run.attention.weights.values()[5], 0.0);
  }
}

TEST(Ch29Fixture, SharedOffsetPreservesWeightsAndOutputs) {
  const ch29::OffsetRun& first = evidence().runs[0];
  const ch29::OffsetRun& shifted = evidence().runs[1];
  EXPECT_LE(max_difference(first.attention.weights, shifted.attention.weights),
            kTolerance);
  EXPECT_LE(max_difference(first.attention.output, shifted.attention.output),
            kTolerance);
  // ...while every rotated row did change: the preservation is not a trivial no-op.
  for (std::size_t t = 0; t < 3; ++t)
    EXPECT_GT(std::abs(evidence().runs[0].relative.rotated_query.values()[4 * t] -
                       evidence().runs[1].relative.rotated_query.values()[4 * t]),
              0.1)
        << "token " << t;
}

TEST(Ch29Fixture, ValuesAreNotRotated) {
  // Output row t = [A_t0, A_t1, A_t2, 0]: the unit value rows come through untouched.
  for (const ch29::OffsetRun& run : evidence().runs) {
    const auto weights = run.attention.weights.values();
    const auto output = run.attention.output.values();
    for (std::size_t t = 0; t < 3; ++t) {
      for (std::size_t j = 0; j < 3; ++j)
        EXPECT_NEAR(output[4 * t + j], weights[3 * t + j], 1e-15);
      EXPECT_EQ(output[4 * t + 3], 0.0);
    }
  }
  // Position 0 sees only itself: its output is v_0 bit for bit at both offsets.
  for (const ch29::OffsetRun& run : evidence().runs)
    for (std::size_t j = 0; j < 4; ++j)
      EXPECT_EQ(run.attention.output.values()[j], ch29::Fixture::values[j]);
}

TEST(Ch29Fixture, RotatingTheValuesWouldLeakAbsolutePosition) {
  // Contrast at offset 3: row 0 = R(3θ)e_0 = [cos 3, sin 3, 0, 0];
  // row 1 = A_10 R(3θ)e_0 + A_11 R(4θ)e_1 with R(4)e_1 = [-sin 4, cos 4] on pair 0.
  const auto& run = evidence().runs[1];
  const auto contrast = run.attention.output_if_values_rotated.values();
  const auto weights = run.attention.weights.values();
  expect_values_near(contrast.first(4), {std::cos(3.0), std::sin(3.0), 0.0, 0.0}, 1e-15,
                     "row 0");
  expect_values_near(
      contrast.subspan(4, 4),
      {weights[3] * std::cos(3.0) - weights[4] * std::sin(4.0),
       weights[3] * std::sin(3.0) + weights[4] * std::cos(4.0), 0.0, 0.0},
      1e-15, "row 1");
  // And it differs between offsets 0 and 3, unlike the real output.
  EXPECT_GT(max_difference(evidence().runs[0].attention.output_if_values_rotated,
                           run.attention.output_if_values_rotated),
            0.5);
}

// Every row of the contrast at both offsets, from the derivation at the top of this
// file and nothing the program computed. Value v_j = e_j sits at position p_j = offset
// + j and would be turned like a key:
//   R(p)e_0 = [cos p, sin p, 0, 0],   R(p)e_1 = [-sin p, cos p, 0, 0],
//   R(p)e_2 = [0, 0, cos 0.1p, sin 0.1p]   (e_2 lives in pair 1, rate θ_1 = 0.1).
// The weights are the hand ones, A_t = softmax over s ≤ t of S(t - s)/2 with
// S(g) = cos g + cos 0.1g. Row t of the contrast is Σ_{s≤t} A_ts R(p_s)e_s; at offset
// 3, row 2 is A_20 [cos 3, sin 3, 0, 0] + A_21 [-sin 4, cos 4, 0, 0] + A_22 [0, 0, cos
// 0.5, sin 0.5]
//   ≈ [0.051338, -0.197028, 0.384841, 0.210239].
TEST(Ch29Fixture, RotatedValueContrastMatchesTheHandFormulaAtBothOffsets) {
  const auto score = [](double gap) { return std::cos(gap) + std::cos(0.1 * gap); };
  std::vector<std::vector<double>> weights(3);
  for (std::size_t t = 0; t < 3; ++t) {
    double total = 0.0;
    for (std::size_t s = 0; s <= t; ++s) {
      weights[t].push_back(std::exp(score(static_cast<double>(t - s)) / 2.0));
      total += weights[t].back();
    }
    for (double& w : weights[t])
      w /= total;
  }
  const auto rotated_value = [](std::size_t j, double p) -> std::array<double, 4> {
    if (j == 0) return {std::cos(p), std::sin(p), 0.0, 0.0};
    if (j == 1) return {-std::sin(p), std::cos(p), 0.0, 0.0};
    return {0.0, 0.0, std::cos(0.1 * p), std::sin(0.1 * p)};
  };
  for (const ch29::OffsetRun& run : evidence().runs) {
    std::vector<double> hand(12, 0.0);
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t s = 0; s <= t; ++s) {
        const auto v = rotated_value(s, static_cast<double>(run.offset + s));
        for (std::size_t c = 0; c < 4; ++c)
          hand[4 * t + c] += weights[t][s] * v[c];
      }
    expect_values_near(run.attention.output_if_values_rotated.values(), hand, 1e-14,
                       fmt::format("contrast at offset {}", run.offset).c_str());
    if (run.offset == 3) {
      expect_values_near(std::span<const double>(hand).subspan(8, 4),
                         {0.051338, -0.197028, 0.384841, 0.210239}, kPrinted,
                         "offset 3 row 2, as printed");
    }
  }
  ASSERT_EQ(evidence().runs.size(), 2u);
  EXPECT_EQ(evidence().runs[0].offset, 0u);
  EXPECT_EQ(evidence().runs[1].offset, 3u);
}

TEST(Ch29Fixture, RotationPreservesEveryRowLength) {
  for (const double before : row_norms(ch29::fixture_content_rows()))
    EXPECT_NEAR(before, std::sqrt(2.0), 1e-15);
  for (const ch29::OffsetRun& run : evidence().runs)
    for (const double after : row_norms(run.relative.rotated_query))
      EXPECT_NEAR(after, std::sqrt(2.0), 1e-15) << "offset " << run.offset;
}

TEST(Ch29Fixture, GradientIsTheUpstreamTurnedBack) {
  // Loss Σ RoPE(x) ⊙ u at offset 3. Per pair y = R(pθ)x, so ∂L/∂x = R(pθ)ᵀu = R(-pθ)u:
  //   g[2i] = u[2i] cos + u[2i+1] sin,   g[2i+1] = -u[2i] sin + u[2i+1] cos.
  auto rope = ch29::fixture_rope();
  ASSERT_TRUE(rope.has_value());
  const std::vector<double> u{1.0, -0.5, 0.25, 0.75, -0.3, 0.8,
                              1.2, -0.4, 0.6,  0.1,  -0.7, 0.9};
  llmfs::autograd::Tape tape;
  auto x = tape.parameter(ch29::fixture_content_rows());
  auto y = rope->rotate(x, 3);
  ASSERT_TRUE(y.has_value());
  ASSERT_TRUE(
      llmfs::autograd::backward(*y, *Tensor::from(Shape{1, 3, 4}, u)).has_value());
  auto gradient = x.gradient();
  ASSERT_TRUE(gradient.has_value());
  std::vector<double> hand;
  for (std::size_t t = 0; t < 3; ++t) {
    for (std::size_t i = 0; i < 2; ++i) {
      const double angle = static_cast<double>(3 + t) * (i == 0 ? 1.0 : 0.1);
      const double u0 = u[4 * t + 2 * i], u1 = u[4 * t + 2 * i + 1];
      hand.push_back(u0 * std::cos(angle) + u1 * std::sin(angle));
      hand.push_back(-u0 * std::sin(angle) + u1 * std::cos(angle));
    }
  }
  expect_values_near(gradient->values(), hand, 1e-15, "gradient");
}

TEST(Ch29Errors, ConfigurationErrorsAreTyped) {
  auto code_of = [](auto result) {
    return result ? std::optional<RopeErrorCode>{} : result.error().code;
  };
  EXPECT_EQ(code_of(RotaryEmbedding::create(0, 6, 100.0)), RopeErrorCode::zero_width);
  EXPECT_EQ(code_of(RotaryEmbedding::create(3, 6, 100.0)), RopeErrorCode::odd_width);
  EXPECT_EQ(code_of(RotaryEmbedding::create(4, 0, 100.0)),
            RopeErrorCode::zero_capacity);
  EXPECT_EQ(code_of(RotaryEmbedding::create(4, 6, 1.0)), RopeErrorCode::invalid_base);
  EXPECT_EQ(code_of(RotaryEmbedding::create(4, 6, 0.5)), RopeErrorCode::invalid_base);
  EXPECT_EQ(
      code_of(RotaryEmbedding::create(4, 6, std::numeric_limits<double>::quiet_NaN())),
      RopeErrorCode::invalid_base);
  EXPECT_EQ(
      code_of(RotaryEmbedding::create(4, 6, std::numeric_limits<double>::infinity())),
      RopeErrorCode::invalid_base);
  // The demo prints the same failures with their stage and numbers
  EXPECT_NE(error_of("zero_width").find("RoPE configuration"), std::string::npos);
  EXPECT_NE(error_of("odd_width").find("width 3"), std::string::npos);
  EXPECT_NE(error_of("base").find("base 1"), std::string::npos);
  EXPECT_NE(error_of("zero_capacity").find("max_positions 0"), std::string::npos);
}

TEST(Ch29Errors, PositionIntervalIsCheckedAgainstCapacityAndOverflow) {
  auto rope = ch29::fixture_rope();
  ASSERT_TRUE(rope.has_value());
  const Tensor rows = ch29::fixture_content_rows();
  EXPECT_TRUE(
      rope->rotate(rows, 3).has_value());  // positions 3,4,5: exactly the capacity
  auto beyond = rope->rotate(rows, 4);     // positions 4,5,6
  ASSERT_FALSE(beyond.has_value());
  EXPECT_EQ(beyond.error().code, RopeErrorCode::position_range);
  auto wrapped = rope->rotate(rows, std::numeric_limits<std::size_t>::max() - 1);
  ASSERT_FALSE(wrapped.has_value());
  EXPECT_EQ(wrapped.error().code, RopeErrorCode::offset_overflow);
  EXPECT_NE(error_of("capacity").find("[4, 7)"), std::string::npos);
  EXPECT_NE(error_of("capacity").find("capacity 6"), std::string::npos);
  EXPECT_NE(error_of("offset_overflow").find("overflows"), std::string::npos);
  // On the tape the same checks come first, before any node is recorded.
  llmfs::autograd::Tape tape;
  auto x = tape.constant(rows);
  const std::size_t nodes = tape.node_count();
  EXPECT_EQ(rope->rotate(x, 4).error().code, RopeErrorCode::position_range);
  EXPECT_EQ(tape.node_count(), nodes);
}

TEST(Ch29Errors, InputShapeAndReleasedTapeAreTyped) {
  auto rope = ch29::fixture_rope();
  ASSERT_TRUE(rope.has_value());
  EXPECT_EQ(rope->rotate(*Tensor::from(Shape{4}, {1, 0, 1, 0}), 0).error().code,
            RopeErrorCode::input_rank);
  EXPECT_EQ(rope->rotate(Tensor::zeros(Shape{1, 3, 6}), 0).error().code,
            RopeErrorCode::input_width);
  llmfs::autograd::Tape tape;
  auto x = tape.constant(ch29::fixture_content_rows());
  tape.release();
  auto released = rope->rotate(x, 0);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, RopeErrorCode::autograd);
  ASSERT_TRUE(released.error().cause.has_value());
  EXPECT_EQ(released.error().cause->code,
            llmfs::autograd::AutogradErrorCode::released_input);
}

TEST(Ch29Exercises, AnswersMatchTheWorkedSolutions) {
  const ch29::ExerciseAnswers& x = evidence().exercises;
  // 1. 10000^(-2i/8) = 10^(-i)
  expect_values_near(x.rates_width8_base10000, {1.0, 0.1, 0.01, 0.001}, 1e-15,
                     "exercise 1");
  // 2. 2π / 0.1 = 20π
  EXPECT_NEAR(x.slow_pair_period, 20.0 * std::numbers::pi, 1e-12);
  EXPECT_NEAR(x.slow_pair_period, 62.831853, kPrinted);
  // 3. gap 3: cos 3 + cos 0.3 = -0.034656, the same as positions (3, 0)
  EXPECT_NEAR(x.score_5_2, hand_score(3), 1e-14);
  EXPECT_NEAR(x.score_5_2, -0.034656, kPrinted);
  EXPECT_NEAR(x.score_5_2, x.score_3_0, kTolerance);
  // 4. offsets 0..3 fit P = 6 with T = 3; offset 4 asks for [4, 7)
  EXPECT_EQ(x.largest_offset, 3u);
  EXPECT_NE(x.first_invalid.find("[4, 7)"), std::string::npos);
  // 5. real: v_0 = [1,0,0,0]; values rotated: [cos 3, sin 3, 0, 0]
  expect_values_near(x.position0_real, {1.0, 0.0, 0.0, 0.0}, 0.0, "exercise 5 real");
  expect_values_near(x.position0_values_rotated,
                     {std::cos(3.0), std::sin(3.0), 0.0, 0.0}, 1e-15,
                     "exercise 5 contrast");
  expect_values_near(x.position0_values_rotated, {-0.989992, 0.141120, 0.0, 0.0},
                     kPrinted, "exercise 5 printed");
  // 6. R(-2)[1,0] = [cos 2, -sin 2]; R(2) brings it back to [1,0]
  expect_values_near(x.counter_rotated_row, {std::cos(2.0), -std::sin(2.0)}, 1e-15,
                     "exercise 6 row");
  expect_values_near(x.counter_rotated_row, {-0.416147, -0.909297}, kPrinted,
                     "exercise 6 printed");
  expect_values_near(x.counter_rotated_result, {1.0, 0.0}, 1e-15, "exercise 6 result");
}

}  // namespace

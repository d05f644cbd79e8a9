// Chapter 27's claims: every number the chapter quotes, checked against a hand
// derivation written beside the test, against PyTorch float64 reference data, or
// against central differences. Nothing here is checked against the demo's own output.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/central_differences.hpp"
#include "support/reference_data.hpp"
#include "support/values.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::expect_values_near;
namespace ag = llmfs::autograd;
namespace at = llmfs::attention;

const ch27::Evidence& evidence() {
  static const ch27::Evidence gathered = [] {
    auto result = ch27::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

std::vector<double> to_vector(std::span<const double> values) {
  return {values.begin(), values.end()};
}

// Hand derivation (chapter 27, "Predict before you run"). With a = 1/√2 and Q = K = V =
// X:
//   Q·Kᵀ = [[1,0,1],[0,1,1],[1,1,2]], scores = a·Q·Kᵀ.
//   Row 0 scores [a,0,a]:  weights [e^a, 1, e^a] / (2e^a + 1).
//   Row 1 scores [0,a,a]:  weights [1, e^a, e^a] / (2e^a + 1).
//   Row 2 scores [a,a,2a]: weights [e^-a, e^-a, 1] / (2e^-a + 1)   (after subtracting
//   2a). Output row i = Σ_j w_ij V_j with V = [[1,0],[0,1],[1,1]]:
//     row 0 = [w00 + w02, w01 + w02], row 1 = [w10 + w12, w11 + w12], row 2 = [w20 +
//     w22, w21 + w22].
struct HandFixture {
  double a = 1.0 / std::sqrt(2.0);
  double big = std::exp(a) / (2.0 * std::exp(a) + 1.0);
  double small = 1.0 / (2.0 * std::exp(a) + 1.0);
  double side = std::exp(-a) / (2.0 * std::exp(-a) + 1.0);
  double self = 1.0 / (2.0 * std::exp(-a) + 1.0);
};

TEST(Ch27Fixture, ScoresAreDotProductsTimesOneOverRootTwo) {
  const HandFixture h;
  expect_values_near(evidence().fixture.dots.values(), {1, 0, 1, 0, 1, 1, 1, 1, 2}, 0.0,
                     "dots");
  expect_values_near(evidence().fixture.scores.values(),
                     {h.a, 0, h.a, 0, h.a, h.a, h.a, h.a, 2 * h.a}, 1e-15, "scores");
}

TEST(Ch27Fixture, WeightsMatchTheHandDerivation) {
  const HandFixture h;
  expect_values_near(
      evidence().fixture.weights.values(),
      {h.big, h.small, h.big, h.small, h.big, h.big, h.side, h.side, h.self}, 1e-15,
      "weights");
  // The six-decimal values the chapter prints.
  EXPECT_NEAR(h.big, 0.401112, 5e-7);
  EXPECT_NEAR(h.small, 0.197776, 5e-7);
  EXPECT_NEAR(h.side, 0.248255, 5e-7);
  EXPECT_NEAR(h.self, 0.503490, 5e-7);
}

TEST(Ch27Fixture, OutputRowsAreTheWeightedValueRows) {
  const HandFixture h;
  expect_values_near(evidence().fixture.output.values(),
                     {h.big + h.big, h.small + h.big, h.small + h.big, h.big + h.big,
                      h.side + h.self, h.side + h.self},
                     1e-15, "output");
  EXPECT_NEAR(2 * h.big, 0.802224, 5e-7);
  EXPECT_NEAR(h.small + h.big, 0.598888, 5e-7);
  EXPECT_NEAR(h.side + h.self, 0.751745, 5e-7);
}

// loss = Σ output ⊙ upstream with the hand outputs above and upstream
// [1,-0.5,0.25,0.75,-0.3,0.8].
TEST(Ch27Fixture, LossIsTheUpstreamWeightedSumOfTheHandOutputs) {
  const HandFixture h;
  const std::vector<double> y{2 * h.big, h.small + h.big, h.small + h.big,
                              2 * h.big, h.side + h.self, h.side + h.self};
  const auto& u = ch27::kUpstream;  // [1,-0.5,0.25,0.75,-0.3,0.8]
  double loss = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i)
    loss += y[i] * u[i];
  EXPECT_NEAR(evidence().loss, loss, 1e-15);
}

TEST(Ch27Fixture, EveryWeightRowSumsToOne) {
  EXPECT_EQ(evidence().fixture.row_sums.shape(), (Shape{1, 3, 1}));
  for (double sum : evidence().fixture.row_sums.values())
    EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST(Ch27Fixture, ShapesFollowTheContract) {
  const auto& f = evidence().fixture;
  const std::vector<Shape> stages{
      evidence().input.shape(), f.query.shape(),   f.key.shape(),   f.value.shape(),
      f.scores.shape(),         f.weights.shape(), f.output.shape()};
  const std::vector<Shape> expected{{1, 3, 2}, {1, 3, 2}, {1, 3, 2}, {1, 3, 2},
                                    {1, 3, 3}, {1, 3, 3}, {1, 3, 2}};
  EXPECT_EQ(stages, expected);
  // A batch holding no sequences runs and keeps its shape.
  const Tensor none = Tensor::zeros(Shape{0, 3, 2});
  const auto empty = ch27::run_head_on(none, none, none);
  ASSERT_TRUE(empty) << fmt::format("{}", empty.error());
  EXPECT_EQ(empty->output.shape(), (Shape{0, 3, 2}));
}

// Identity projections: Q, K and V are the input rows bit for bit (the report prints
// Q, K and V; X is the fixture).
TEST(Ch27Fixture, IdentityProjectionsGiveQKAndVEqualToX) {
  const auto& e = evidence();
  for (const Tensor* stage : {&e.fixture.query, &e.fixture.key, &e.fixture.value})
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(*stage, e.input));
}

TEST(Ch27SharedTable, ScalingOneValueColumnScalesOnlyThatOutputColumn) {
  const auto& f = evidence().fixture;
  Tensor value = f.value;
  for (std::size_t t = 0; t < 3; ++t)
    value.mutable_values()[t * 2 + 1] *= 10.0;
  const auto scaled = ch27::run_head_on(f.query, f.key, value);
  ASSERT_TRUE(scaled) << fmt::format("{}", scaled.error());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(scaled->weights, f.weights));
  for (std::size_t t = 0; t < 3; ++t) {
    EXPECT_EQ(scaled->output.values()[t * 2], f.output.values()[t * 2]);
    EXPECT_NEAR(scaled->output.values()[t * 2 + 1], 10.0 * f.output.values()[t * 2 + 1],
                1e-14);
  }
}

// Saturation fixture, d_k = 16: raw dots [16, 8, 0].
//   Unscaled weights: [1, e^-8, e^-16] / (1 + e^-8 + e^-16).
//   Scaled (÷4) scores [4, 2, 0]: weights [e^4, e^2, 1] / (e^4 + e^2 + 1).
TEST(Ch27Saturation, UnscaledScoresSaturateAndScaledScoresDoNot) {
  const auto& s = evidence().saturation;
  const double z = 1.0 + std::exp(-8.0) + std::exp(-16.0);
  expect_values_near(s.unscaled.scores.values(), {16, 8, 0}, 0.0, "unscaled scores");
  expect_values_near(s.unscaled.weights.values(),
                     {1.0 / z, std::exp(-8.0) / z, std::exp(-16.0) / z}, 1e-15,
                     "unscaled weights");
  const double y = std::exp(4.0) + std::exp(2.0) + 1.0;
  expect_values_near(s.scaled.scores.values(), {4, 2, 0}, 0.0, "scaled scores");
  expect_values_near(s.scaled.weights.values(),
                     {std::exp(4.0) / y, std::exp(2.0) / y, 1.0 / y}, 1e-15,
                     "scaled weights");
  EXPECT_GT(s.unscaled.weights.values()[0], 0.9996);
  const double unscaled = ch27::max_softmax_derivative(s.unscaled.weights.values());
  const double scaled = ch27::max_softmax_derivative(s.scaled.weights.values());
  EXPECT_NEAR(unscaled, 0.000335, 5e-7);
  EXPECT_NEAR(scaled, 0.115448, 5e-7);
  EXPECT_GT(scaled / unscaled, 300.0);
}

// max_softmax_derivative is the formula p_i(δ_ij − p_j); check it against central
// differences of the library's softmax itself, so the saturation claim does not rest on
// the formula.
TEST(Ch27Saturation, LargestDerivativeAgreesWithCentralDifferences) {
  for (const std::vector<double>& scores :
       {std::vector<double>{16, 8, 0}, std::vector<double>{4, 2, 0}}) {
    const double step = 1e-6;
    double largest = 0.0;
    for (std::size_t j = 0; j < 3; ++j) {
      std::vector<double> up = scores, down = scores;
      up[j] += step;
      down[j] -= step;
      const auto pu =
          llmfs::tensor::softmax_last_axis(Tensor::from(Shape{3}, up).value()).value();
      const auto pd =
          llmfs::tensor::softmax_last_axis(Tensor::from(Shape{3}, down).value())
              .value();
      for (std::size_t i = 0; i < 3; ++i) {
        largest =
            std::max(largest, std::abs((pu.values()[i] - pd.values()[i]) / (2 * step)));
      }
    }
    const auto p =
        llmfs::tensor::softmax_last_axis(Tensor::from(Shape{3}, scores).value())
            .value();
    const double formula = ch27::max_softmax_derivative(p.values());
    EXPECT_NEAR(formula, largest, 1e-8);
  }
}

// Additive scores for query 0 = [1,0] with W = U = I, v = [1,1]:
//   key [1,0]: tanh(2) + tanh(0); key [0,1]: tanh(1) + tanh(1); key [1,1]: tanh(2) +
//   tanh(1).
TEST(Ch27History, AdditiveScoresAreSumsOfTanh) {
  expect_values_near(
      evidence().additive,
      {std::tanh(2.0), 2 * std::tanh(1.0), std::tanh(2.0) + std::tanh(1.0)}, 1e-15,
      "additive");
  EXPECT_NEAR(std::tanh(2.0), 0.964028, 5e-7);
  EXPECT_NEAR(2 * std::tanh(1.0), 1.523188, 5e-7);
  EXPECT_NEAR(std::tanh(2.0) + std::tanh(1.0), 1.725622, 5e-7);
}

// Chapter 13's checker through the tape (Chapter 15) on the fixture's loss: central
// differences with step 1e-6 on all 6 + 3·4 = 18 coordinates, absolute error ≤ 1e-8.
TEST(Ch27Gradients, EveryCoordinatePassesCentralDifferences) {
  const auto& e = evidence();
  const auto check = ag::check_tape_gradients(
      snippets::head_loss(&at::scaled_dot_product_attention, e.upstream),
      e.head_inputs(),
      {.step = 1e-6, .absolute_tolerance = 1e-8, .relative_tolerance = 0.0});
  ASSERT_TRUE(check) << fmt::format("{}", check.error());
  ASSERT_EQ(check->inputs.size(), 4u);
  EXPECT_EQ(check->coordinates(), 18u);
  EXPECT_TRUE(check->passed()) << "max error " << check->max_abs_error();
  EXPECT_LT(check->max_abs_error(), 1e-8);
}

// The gradients the report prints, confirmed by central differences computed here,
// outside the library's gradient checker: loss(X, W_Q, W_K, W_V) = Σ output ⊙ upstream,
// evaluated by run_head at x ± δ for every one of the 18 coordinates.
TEST(Ch27Gradients, ReportedGradientsMatchIndependentCentralDifferences) {
  const auto& e = evidence();
  const auto& upstream = e.upstream;
  std::vector<Tensor> point{e.input, e.identity, e.identity, e.identity};
  const auto& reported = e.gradients;
  ASSERT_EQ(reported.size(), 4u);
  auto loss = [&](const std::vector<Tensor>& at_point) {
    const auto pass =
        ch27::run_head(at_point[0], at_point[1], at_point[2], at_point[3]);
    double total = 0.0;
    for (std::size_t i = 0; i < upstream.size(); ++i)
      total += pass->output.values()[i] * upstream.values()[i];
    return total;
  };
  EXPECT_NEAR(loss(point), e.loss, 1e-15);
  const std::size_t checked = llmfs::testing::central_differences(
      point, loss, 1e-6, [&](std::size_t which, std::size_t i, double numeric) {
        EXPECT_NEAR(reported[which].values()[i], numeric, 1e-8)
            << "input " << which << " coordinate " << i;
      });
  EXPECT_EQ(checked, 18u);
}

TEST(Ch27Errors, MalformedHeadInputsAreTypedErrors) {
  ag::Tape tape;
  const auto x = tape.constant(Tensor::zeros(Shape{1, 3, 2}));
  auto wide_key = at::scaled_dot_product_attention(
      x, tape.constant(Tensor::zeros(Shape{1, 3, 4})), x);
  ASSERT_FALSE(wide_key);
  EXPECT_EQ(wide_key.error().code, at::AttentionErrorCode::key_width);
  auto short_value = at::scaled_dot_product_attention(
      x, x, tape.constant(Tensor::zeros(Shape{1, 2, 2})));
  ASSERT_FALSE(short_value);
  EXPECT_EQ(short_value.error().code, at::AttentionErrorCode::token_mismatch);
  auto flat =
      at::scaled_dot_product_attention(tape.constant(Tensor::zeros(Shape{2})), x, x);
  ASSERT_FALSE(flat);
  EXPECT_EQ(flat.error().code, at::AttentionErrorCode::input_rank);
  // The demo reports the same three refusals.
  EXPECT_NE(evidence().error_key_width.find("query and key widths differ"),
            std::string::npos);
  EXPECT_NE(evidence().error_token_count.find("token counts differ"),
            std::string::npos);
  EXPECT_NE(evidence().error_rank.find("ranks"), std::string::npos);
}

// PyTorch reference case

// |actual − expected| ≤ 1e-12 · |expected|: a relative error of 1e-12 on every entry
// (an exact zero must be matched exactly).
void expect_matches(const Tensor& actual,
                    const llmfs::testing::ReferenceTensor& expected, const char* what) {
  ASSERT_EQ(actual.shape().as_vector(), expected.shape) << what;
  for (std::size_t i = 0; i < expected.values.size(); ++i) {
    const double want = expected.values[i];
    EXPECT_LE(std::abs(actual.values()[i] - want), 1e-12 * std::abs(want))
        << what << " at " << i << ": " << actual.values()[i] << " vs " << want;
  }
}

Tensor tensor_of(const llmfs::testing::ReferenceTensor& t) {
  return Tensor::from(Shape(t.shape), t.values).value();
}

TEST(Ch27Reference, RandomCaseMatchesPyTorchFloat64) {
  const auto ref = llmfs::testing::load_reference_case("ch27_self_attention");
  ag::Tape tape;
  const auto x = tape.parameter(tensor_of(ref.at("X")));
  const auto w_q = tape.parameter(tensor_of(ref.at("W_Q")));
  const auto w_k = tape.parameter(tensor_of(ref.at("W_K")));
  const auto w_v = tape.parameter(tensor_of(ref.at("W_V")));
  const auto q = ag::matmul(x, w_q).value();
  const auto k = ag::matmul(x, w_k).value();
  const auto v = ag::matmul(x, w_v).value();
  const auto head = at::scaled_dot_product_attention(q, k, v);
  ASSERT_TRUE(head) << fmt::format("{}", head.error());
  expect_matches(q.value().value(), ref.at("Q"), "Q");
  expect_matches(k.value().value(), ref.at("K"), "K");
  expect_matches(v.value().value(), ref.at("V"), "V");
  expect_matches(head->scores.value().value(), ref.at("scores"), "scores");
  expect_matches(head->weights.value().value(), ref.at("weights"), "weights");
  expect_matches(head->output.value().value(), ref.at("output"), "output");

  const Tensor upstream = tensor_of(ref.at("upstream"));
  const auto loss =
      ag::sum(ag::multiply(head->output, tape.constant(upstream)).value()).value();
  expect_matches(loss.value().value(), ref.at("loss"), "loss");
  ASSERT_TRUE(ag::backward(loss, Tensor::scalar(1.0)));
  expect_matches(x.gradient().value(), ref.at("grad_X"), "grad_X");
  expect_matches(w_q.gradient().value(), ref.at("grad_W_Q"), "grad_W_Q");
  expect_matches(w_k.gradient().value(), ref.at("grad_W_K"), "grad_W_K");
  expect_matches(w_v.gradient().value(), ref.at("grad_W_V"), "grad_W_V");
}

TEST(Ch27Reference, RandomCaseWeightsAreNotNearlyOneHot) {
  // A case whose rows were almost one-hot would barely test the softmax.
  const auto ref = llmfs::testing::load_reference_case("ch27_self_attention");
  const auto& w = ref.at("weights").values;
  EXPECT_LT(*std::max_element(w.begin(), w.end()), 0.99);
}

// exercises

TEST(Ch27Exercises, ShapesAndParameterCountForTheWiderHead) {
  const auto& x = evidence().exercises;
  const std::vector<Shape> expected{{2, 5, 4}, {2, 5, 4}, {2, 5, 4},
                                    {2, 5, 5}, {2, 5, 5}, {2, 5, 4}};
  const auto& w = x.wide;
  const std::vector<Shape> shapes{w.query.shape(),   w.key.shape(),
                                  w.value.shape(),   w.scores.shape(),
                                  w.weights.shape(), w.output.shape()};
  EXPECT_EQ(shapes, expected);
  EXPECT_EQ(x.parameters, 3u * 8u * 4u);
}

TEST(Ch27Exercises, ZeroQueryGivesUniformRowsAndTheMeanValue) {
  const auto& x = evidence().exercises;
  for (double w : x.blind.weights.values())
    EXPECT_EQ(w, 1.0 / 3.0);  // exp(0)/3 is exact
  for (double y : x.blind.output.values())
    EXPECT_NEAR(y, 2.0 / 3.0, 1e-15);
}

TEST(Ch27Exercises, ShiftingEveryKeyByOneVectorLeavesWeightsUnchanged) {
  expect_values_near(evidence().exercises.shifted.weights.values(),
                     to_vector(evidence().fixture.weights.values()), 1e-15,
                     "shifted-key weights");
}

TEST(Ch27Exercises, SwappingTokensPermutesTheOutputRows) {
  const auto& x = evidence().exercises;
  const HandFixture h;
  const auto y = evidence().fixture.output.values();  // rows in the order 2, 1, 0
  expect_values_near(x.swapped.output.values(), {y[4], y[5], y[2], y[3], y[0], y[1]},
                     1e-15, "permuted rows");
  expect_values_near(x.swapped.output.values(),
                     {h.side + h.self, h.side + h.self, h.small + h.big, h.big + h.big,
                      h.big + h.big, h.small + h.big},
                     1e-15, "swapped output");
}

// d_k = 64: raw dots [64, 32, 0]; unscaled weights ∝ [1, e^-32, e^-64];
// scaled by 1/8: [8, 4, 0], weights [e^8, e^4, 1] / (e^8 + e^4 + 1).
TEST(Ch27Exercises, WiderKeysSaturateHarderWithoutTheScale) {
  const auto& x = evidence().exercises;
  const double z = 1.0 + std::exp(-32.0) + std::exp(-64.0);
  expect_values_near(x.wide_keys.unscaled.weights.values(),
                     {1.0 / z, std::exp(-32.0) / z, std::exp(-64.0) / z}, 1e-15,
                     "unscaled");
  EXPECT_NEAR(x.wide_keys.unscaled.weights.values()[1] / std::exp(-32.0), 1.0, 1e-12);
  const double y = std::exp(8.0) + std::exp(4.0) + 1.0;
  expect_values_near(x.wide_keys.scaled.weights.values(),
                     {std::exp(8.0) / y, std::exp(4.0) / y, 1.0 / y}, 1e-15, "scaled");
  EXPECT_NEAR(x.wide_keys.scaled.weights.values()[1], 0.017980, 5e-7);
}

}  // namespace

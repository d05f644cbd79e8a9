// Chapter 28's claims: the mask, exact zeros, bitwise prefix invariance, the gradient
// barrier, the typed refusals and the exercise answers, checked against hand
// derivations written beside each test, PyTorch float64 reference data and central
// differences.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/report/format.hpp>
#include <llmfs/tensor/matmul.hpp>
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

constexpr double kInf = std::numeric_limits<double>::infinity();

const ch28::Evidence& evidence() {
  static const ch28::Evidence gathered = [] {
    auto result = ch28::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

// The chapter's head on projected rows: X·W_Q, X·W_K, X·W_V, then run_causal.
snippets::Step<ch28::CausalPass> projected_causal(const Tensor& x, const Tensor& w_q,
                                                  const Tensor& w_k,
                                                  const Tensor& w_v) {
  namespace tensor = llmfs::tensor;
  return ch28::run_causal(tensor::matmul(x, w_q).value(),
                          tensor::matmul(x, w_k).value(),
                          tensor::matmul(x, w_v).value());
}

// The library's notion of "the same bits" (0.0 differs from -0.0), on two numbers.
bool same_bits(double a, double b) {
  return llmfs::tensor::bitwise_equal(Tensor::scalar(a), Tensor::scalar(b));
}

TEST(Ch28Mask, ZeroOnAndBelowTheDiagonalMinusInfinityAbove) {
  const auto mask = at::causal_mask(3);
  ASSERT_TRUE(mask);
  EXPECT_EQ(mask->shape(), (Shape{3, 3}));
  const std::vector<double> expected{0, -kInf, -kInf, 0, 0, -kInf, 0, 0, 0};
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(mask->values()[i], expected[i]) << i;
  EXPECT_EQ(evidence().fixture.mask, *mask);
}

// Hand derivation (chapter 28, "Predict before you run"), a = 1/√2, V =
// [[1,0],[0,1],[1,1]]:
//   row 0: one allowed key, weight e^0/e^0 = 1 exactly, output = V_0 = [1,0] exactly.
//   row 1: allowed scores [0, a]: weights [1, e^a] / (1 + e^a), output = [w10, w11].
//   row 2: nothing blocked: Chapter 27's row, [e^-a, e^-a, 1] / (2e^-a + 1),
//          output [w20 + w22, w21 + w22].
TEST(Ch28Fixture, WeightsMatchTheHandDerivation) {
  const double a = 1.0 / std::sqrt(2.0);
  const double w10 = 1.0 / (1.0 + std::exp(a));
  const double w11 = std::exp(a) / (1.0 + std::exp(a));
  const double side = std::exp(-a) / (2.0 * std::exp(-a) + 1.0);
  const double self = 1.0 / (2.0 * std::exp(-a) + 1.0);
  expect_values_near(evidence().fixture.weights.values(),
                     {1, 0, 0, w10, w11, 0, side, side, self}, 1e-15, "weights");
  EXPECT_NEAR(w10, 0.330238, 5e-7);
  EXPECT_NEAR(w11, 0.669762, 5e-7);
  expect_values_near(evidence().fixture.output.values(),
                     {1, 0, w10, w11, side + self, side + self}, 1e-15, "output");
  EXPECT_NEAR(side + self, 0.751745, 5e-7);
}

TEST(Ch28Fixture, MaskedScoresAreScoresPlusTheMask) {
  const auto& f = evidence().fixture;
  const double a = 1.0 / std::sqrt(2.0);
  expect_values_near(f.scores.values(), {a, 0, a, 0, a, a, a, a, 2 * a}, 1e-15,
                     "scores");
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      const double masked = f.masked_scores.values()[i * 3 + j];
      if (j > i) {
        EXPECT_EQ(masked, -kInf);
      } else {
        EXPECT_TRUE(same_bits(masked, f.scores.values()[i * 3 + j]));
      }
    }
  }
}

TEST(Ch28Fixture, BlockedWeightsArePositiveZeroAndRowZeroIsExactlyValueZero) {
  const auto& f = evidence().fixture;
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = i + 1; j < 3; ++j)
      EXPECT_TRUE(same_bits(f.weights.values()[i * 3 + j], 0.0));
  }
  EXPECT_EQ(f.weights.values()[0], 1.0);
  EXPECT_EQ(f.output.values()[0], 1.0);
  EXPECT_EQ(f.output.values()[1], 0.0);
  for (double sum : evidence().row_sums.values())
    EXPECT_NEAR(sum, 1.0, 1e-15);
}

TEST(Ch28Prefix, ReplacingTheLastTokenLeavesEarlierRowsBitwiseUnchanged) {
  const auto& f = evidence().fixture;
  const auto& changed = evidence().changed;
  // Rows 0 and 1 (the first 6 weights, the first 4 outputs) keep their bits; row 2
  // moves.
  for (std::size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(same_bits(changed.weights.values()[i], f.weights.values()[i]), i < 6)
        << "weight " << i;
  }
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(same_bits(changed.output.values()[i], f.output.values()[i]), i < 4)
        << "output " << i;
  }
}

// The changed row itself, by hand. Identity projections, so Q = K = V = X, and the new
// last token is x_2 = [3,-2]. Query 2 sees all three keys:
//   q_2·k_0 = 3,  q_2·k_1 = -2,  q_2·k_2 = 9 + 4 = 13;  scaled by 1/√2.
//   w = softmax([3, -2, 13]/√2) = [e^{3a}, e^{-2a}, e^{13a}] / Σ  with a = 1/√2.
//   output_2 = w_0 [1,0] + w_1 [0,1] + w_2 [3,-2] = [w_0 + 3 w_2, w_1 - 2 w_2] ≈
//   [2.998229, -1.998229].
// The report's changed_output and the trace's PREFIX token=2 print exactly these
// numbers.
TEST(Ch28Prefix, ChangedLastRowMatchesTheHandDerivation) {
  const double a = 1.0 / std::sqrt(2.0);
  const double e0 = std::exp(3.0 * a), e1 = std::exp(-2.0 * a), e2 = std::exp(13.0 * a);
  const double total = e0 + e1 + e2;
  const double w0 = e0 / total, w1 = e1 / total, w2 = e2 / total;
  const std::vector<double> hand{w0 + 3.0 * w2, w1 - 2.0 * w2};
  const auto& changed = evidence().changed;
  expect_values_near(changed.weights.values().subspan(6, 3), {w0, w1, w2}, 1e-15,
                     "row 2 weights");
  expect_values_near(changed.output.values().subspan(4, 2), hand, 1e-14,
                     "row 2 output");
  EXPECT_NEAR(hand[0], 2.998229, 5e-7);
  EXPECT_NEAR(hand[1], -1.998229, 5e-7);

  const std::string printed =
      fmt::format("[{},{}]", llmfs::report::format_number(hand[0]),
                  llmfs::report::format_number(hand[1]));
  const std::string dir =
      std::string(LLMFS_SOURCE_DIR) + "/snippets/ch28-causal-masking/";
  const auto line_starting = [](const std::string& file, const std::string& start) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
      if (line.starts_with(start)) return line;
    return std::string();
  };
  const std::string prefix_line = line_starting(dir + "expected.txt", "prefix=");
  EXPECT_NE(prefix_line.find("changed_output:[1.000000,0.000000,0.330238,0.669762," +
                             printed.substr(1)),
            std::string::npos)
      << prefix_line;
  const std::string record = line_starting(dir + "trace.txt", "PREFIX|token=2|");
  EXPECT_NE(record.find("|after=" + printed + "|"), std::string::npos) << record;
}

// On a larger input: for every cut t, changing all tokens after t leaves rows 0..t
// bitwise equal.
TEST(Ch28Prefix, HoldsForEveryCutOfARandomSequence) {
  const auto ref = llmfs::testing::load_reference_case("ch28_causal");
  const auto& x = ref.at("X");
  const Tensor input = Tensor::from(Shape(x.shape), x.values).value();
  const auto w = [&](const char* name) {
    return Tensor::from(Shape(ref.at(name).shape), ref.at(name).values).value();
  };
  const auto base = projected_causal(input, w("W_Q"), w("W_K"), w("W_V"));
  ASSERT_TRUE(base) << fmt::format("{}", base.error());
  const std::size_t batch = input.shape()[0], tokens = input.shape()[1],
                    width = input.shape()[2];
  const std::size_t d_v = base->output.shape()[2];
  for (std::size_t cut = 0; cut + 1 < tokens; ++cut) {
    Tensor changed = input;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t t = cut + 1; t < tokens; ++t) {
        for (std::size_t c = 0; c < width; ++c) {
          changed.mutable_values()[(b * tokens + t) * width + c] +=
              1.5 + 0.25 * static_cast<double>(c);
        }
      }
    }
    const auto after = projected_causal(changed, w("W_Q"), w("W_K"), w("W_V"));
    ASSERT_TRUE(after) << fmt::format("{}", after.error());
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t t = 0; t < tokens; ++t) {
        bool same = true;
        for (std::size_t c = 0; c < d_v; ++c) {
          const std::size_t at_index = (b * tokens + t) * d_v + c;
          same = same && same_bits(base->output.values()[at_index],
                                   after->output.values()[at_index]);
        }
        EXPECT_EQ(same, t <= cut) << "batch " << b << " row " << t << " cut " << cut;
      }
    }
  }
}

// The misconception's correction: row i of the full pass is what the head computes on
// the prefix 0..i alone, bit for bit (the full pass only adds exact zeros).
TEST(Ch28Prefix, EachRowEqualsTheHeadOnItsPrefixAlone) {
  const auto& f = evidence().fixture;
  const Tensor& identity = evidence().identity;
  for (std::size_t length = 1; length <= 3; ++length) {
    std::vector<double> prefix(evidence().input.values().begin(),
                               evidence().input.values().begin() + 2 * length);
    const auto alone =
        projected_causal(Tensor::from(Shape{1, length, 2}, prefix).value(), identity,
                         identity, identity);
    ASSERT_TRUE(alone) << fmt::format("{}", alone.error());
    for (std::size_t row = 0; row < length; ++row) {
      EXPECT_TRUE(ch28::same_row(alone->output, f.output, row)) << "length " << length;
    }
  }
}

// The handoff's claim: without positions, swapping tokens 0 and 1 only reorders the
// terms row 2 adds, so row 2's output changes by rounding at most.
TEST(Ch28Prefix, SwappingEarlierTokensLeavesALaterRowUpToRounding) {
  const auto& f = evidence().fixture;
  const Tensor& identity = evidence().identity;
  const Tensor swapped = Tensor::from(Shape{1, 3, 2}, {0, 1, 1, 0, 1, 1}).value();
  const auto pass = projected_causal(swapped, identity, identity, identity);
  ASSERT_TRUE(pass) << fmt::format("{}", pass.error());
  EXPECT_NEAR(pass->output.values()[4], f.output.values()[4], 1e-15);
  EXPECT_NEAR(pass->output.values()[5], f.output.values()[5], 1e-15);
  EXPECT_NE(pass->output.values()[0],
            f.output.values()[0]);  // row 0 now reads token [0,1]
}

// A loss that reads rows 0 and 1 only (upstream row 2 zeroed): no gradient may reach
// token 2, not even a rounding error.
TEST(Ch28Gradients, LossOnEarlyRowsSendsExactlyZeroToTheLastToken) {
  Tensor early = evidence().upstream;
  std::ranges::fill(early.mutable_values().last(2), 0.0);
  const auto gradients = ag::tape_gradients(
      snippets::head_loss(&at::causal_self_attention, early), evidence().head_inputs());
  ASSERT_TRUE(gradients) << fmt::format("{}", gradients.error());
  const auto& input_gradient = gradients->at(0);
  ASSERT_EQ(input_gradient.shape(), (Shape{1, 3, 2}));
  for (double g : input_gradient.values().last(2))
    EXPECT_EQ(g, 0.0);
}

// The tape's gradients of Σ output ⊙ upstream through the masked head, confirmed by
// central differences computed here, outside the library's gradient checker, with
// run_causal at x ± δ on all 18 coordinates.
TEST(Ch28Gradients, TapeGradientsMatchIndependentCentralDifferences) {
  const auto& e = evidence();
  const auto& upstream = e.upstream;
  const std::vector<Tensor> point = e.head_inputs();
  const auto builder = snippets::head_loss(&at::causal_self_attention, upstream);
  const auto gradients = ag::tape_gradients(builder, point);
  ASSERT_TRUE(gradients) << fmt::format("{}", gradients.error());
  const auto& reported = *gradients;
  ASSERT_EQ(reported.size(), 4u);
  auto loss = [&](const std::vector<Tensor>& at_point) {
    const auto pass =
        projected_causal(at_point[0], at_point[1], at_point[2], at_point[3]);
    double total = 0.0;
    for (std::size_t i = 0; i < upstream.size(); ++i)
      total += pass->output.values()[i] * upstream.values()[i];
    return total;
  };
  EXPECT_NEAR(loss(point), ag::evaluate_loss(builder, point)->values()[0], 1e-15);
  const std::size_t checked = llmfs::testing::central_differences(
      point, loss, 1e-6, [&](std::size_t which, std::size_t i, double numeric) {
        EXPECT_NEAR(reported[which].values()[i], numeric, 1e-8)
            << "input " << which << " coordinate " << i;
      });
  EXPECT_EQ(checked, 18u);
}

// Chapter 13's checker through the tape (Chapter 15): step 1e-6 on all 18
// coordinates, absolute error ≤ 1e-8.
TEST(Ch28Gradients, EveryCoordinatePassesCentralDifferences) {
  const auto check = ag::check_tape_gradients(
      snippets::head_loss(&at::causal_self_attention, evidence().upstream),
      evidence().head_inputs(),
      {.step = 1e-6, .absolute_tolerance = 1e-8, .relative_tolerance = 0.0});
  ASSERT_TRUE(check) << fmt::format("{}", check.error());
  ASSERT_EQ(check->inputs.size(), 4u);
  EXPECT_EQ(check->coordinates(), 18u);
  EXPECT_TRUE(check->passed()) << "max error " << check->max_abs_error();
}

// Masked entries must receive gradient 0 through the softmax, checked by central
// differences on the library's softmax alone: perturbing a −∞ entry by ±δ leaves it −∞.
TEST(Ch28Gradients, SoftmaxBackwardGivesMaskedEntriesZero) {
  ag::Tape tape;
  const auto logits =
      tape.parameter(Tensor::from(Shape{1, 3}, {0.5, -kInf, 0.25}).value());
  const auto probs = ag::softmax_last_axis(logits).value();
  ASSERT_TRUE(ag::backward(probs, Tensor::from(Shape{1, 3}, {1.0, 2.0, -1.0}).value()));
  const auto grad = logits.gradient().value();
  EXPECT_TRUE(same_bits(grad.values()[1], 0.0) || same_bits(grad.values()[1], -0.0));
  // p = softmax([0.5, 0.25]) on the allowed entries; g·(dp/dx) by the formula p_j (g_j
  // − Σ g_k p_k).
  const double p0 = 1.0 / (1.0 + std::exp(-0.25)), p2 = 1.0 - p0;
  const double mean = 1.0 * p0 + -1.0 * p2;
  EXPECT_NEAR(grad.values()[0], p0 * (1.0 - mean), 1e-15);
  EXPECT_NEAR(grad.values()[2], p2 * (-1.0 - mean), 1e-15);
}

TEST(Ch28Errors, EmptyTokenAxisAndMismatchedTokensAreRefused) {
  ag::Tape tape;
  const auto empty = tape.constant(Tensor::zeros(Shape{1, 0, 2}));
  auto refused = at::causal_self_attention(empty, empty, empty);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, at::AttentionErrorCode::empty_tokens);
  EXPECT_EQ(tape.node_count(), 1u);  // refused before anything was recorded
  const auto three = tape.constant(Tensor::zeros(Shape{1, 3, 2}));
  const auto two = tape.constant(Tensor::zeros(Shape{1, 2, 2}));
  auto mismatch = at::causal_self_attention(three, two, two);
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().code, at::AttentionErrorCode::token_mismatch);
  EXPECT_NE(evidence().error_empty_tokens.find("empty token axis"), std::string::npos);
  EXPECT_NE(evidence().error_token_mismatch.find("token counts differ"),
            std::string::npos);
}

TEST(Ch28Errors, AFullyMaskedSoftmaxRowIsAnErrorNotNaN) {
  const auto refused = llmfs::tensor::softmax_last_axis(
      Tensor::from(Shape{2, 2}, {0.0, -kInf, -kInf, -kInf}).value());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, llmfs::tensor::TensorErrorCode::fully_masked_row);
  EXPECT_NE(evidence().error_fully_masked_row.find("fully masked row"),
            std::string::npos);
}

TEST(Ch28Shapes, EmptyBatchRunsAndKeepsItsShape) {
  const Tensor none = Tensor::zeros(Shape{0, 3, 2});
  const auto pass = ch28::run_causal(none, none, none);
  ASSERT_TRUE(pass) << fmt::format("{}", pass.error());
  EXPECT_EQ(pass->output.shape(), (Shape{0, 3, 2}));
}

// PyTorch reference case

// |actual − expected| ≤ 1e-12 · |expected| (relative); −∞ must be −∞ and exact zeros
// exact.
void expect_matches(const Tensor& actual,
                    const llmfs::testing::ReferenceTensor& expected, const char* what) {
  ASSERT_EQ(actual.shape().as_vector(), expected.shape) << what;
  for (std::size_t i = 0; i < expected.values.size(); ++i) {
    const double want = expected.values[i];
    const double got = actual.values()[i];
    if (std::isinf(want) || want == 0.0) {
      EXPECT_EQ(got, want) << what << " at " << i;
    } else {
      EXPECT_LE(std::abs(got - want), 1e-12 * std::abs(want))
          << what << " at " << i << ": " << got << " vs " << want;
    }
  }
}

Tensor tensor_of(const llmfs::testing::ReferenceTensor& t) {
  return Tensor::from(Shape(t.shape), t.values).value();
}

TEST(Ch28Reference, RandomCaseMatchesPyTorchFloat64) {
  const auto ref = llmfs::testing::load_reference_case("ch28_causal");
  ag::Tape tape;
  const auto x = tape.parameter(tensor_of(ref.at("X")));
  const auto w_q = tape.parameter(tensor_of(ref.at("W_Q")));
  const auto w_k = tape.parameter(tensor_of(ref.at("W_K")));
  const auto w_v = tape.parameter(tensor_of(ref.at("W_V")));
  const auto head =
      at::causal_self_attention(ag::matmul(x, w_q).value(), ag::matmul(x, w_k).value(),
                                ag::matmul(x, w_v).value());
  ASSERT_TRUE(head) << fmt::format("{}", head.error());
  expect_matches(head->scores.value().value(), ref.at("scores"), "scores");
  expect_matches(head->masked_scores.value().value(), ref.at("masked_scores"),
                 "masked_scores");
  expect_matches(head->weights.value().value(), ref.at("weights"), "weights");
  expect_matches(head->output.value().value(), ref.at("output"), "output");

  const auto loss =
      ag::sum(ag::multiply(head->output, tape.constant(tensor_of(ref.at("upstream"))))
                  .value())
          .value();
  expect_matches(loss.value().value(), ref.at("loss"), "loss");
  ASSERT_TRUE(ag::backward(loss, Tensor::scalar(1.0)));
  expect_matches(x.gradient().value(), ref.at("grad_X"), "grad_X");
  expect_matches(w_q.gradient().value(), ref.at("grad_W_Q"), "grad_W_Q");
  expect_matches(w_k.gradient().value(), ref.at("grad_W_K"), "grad_W_K");
  expect_matches(w_v.gradient().value(), ref.at("grad_W_V"), "grad_W_V");
}

// exercises

TEST(Ch28Exercises, AllowedEntriesAreTriangularNumbers) {
  const auto& x = evidence().exercises;
  EXPECT_EQ(x.allowed_4, 4u * 5u / 2u);  // the other 16 − 10 = 6 are blocked
  EXPECT_EQ(x.allowed_1024, 1024u * 1025u / 2u);
  EXPECT_EQ(x.allowed_1024, 524800u);
}

TEST(Ch28Exercises, EqualScoresGiveRunningMeansOfTheValues) {
  const auto& x = evidence().exercises;
  // exp(0)/n is exact for n = 1, 2 and correctly rounded for 3.
  const std::vector<double> weights{1, 0, 0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (std::size_t i = 0; i < weights.size(); ++i)
    EXPECT_EQ(x.blind.weights.values()[i], weights[i]) << i;
  expect_values_near(x.blind.output.values(), {1, 0, 0.5, 0.5, 2.0 / 3, 2.0 / 3}, 1e-15,
                     "running means");
}

TEST(Ch28Exercises, ChangingTokenOneKeepsOnlyRowZero) {
  const auto& f = evidence().fixture;
  const auto& changed = evidence().exercises.token_1_changed_output;
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(same_bits(changed.values()[i], f.output.values()[i]), i < 2) << i;
}

// Chapter 27's head on the same rows: its last weight row and output row have the
// causal head's bits, and the program's unmasked weights are that head's weights.
TEST(Ch28Exercises, LastRowEqualsTheUnmaskedHeadsLastRow) {
  const auto& f = evidence().fixture;
  const auto& x = evidence().exercises;
  ag::Tape tape;
  const auto rows = tape.constant(evidence().input);
  const auto head = at::scaled_dot_product_attention(rows, rows, rows);
  ASSERT_TRUE(head) << fmt::format("{}", head.error());
  const Tensor weights = head->weights.value().value();
  const Tensor output = head->output.value().value();
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(x.unmasked_weights, weights));
  EXPECT_TRUE(ch28::same_row(f.weights, weights, 2));
  EXPECT_FALSE(ch28::same_row(f.weights, weights, 0));
  EXPECT_TRUE(ch28::same_row(f.output, output, 2));
}

// Finite mask −10, row 0 scores [a, 0, a] + [0, −10, −10], a = 1/√2:
//   weights [e^a, e^-10, e^(a−10)] / (e^a + e^-10 + e^(a−10)); output [p0 + p2, p1 +
//   p2].
// After token 2 := [3, −2]: row 0's key-2 score is 3a − 10 and V_2 = [3, −2]:
//   weights ∝ [e^a, e^-10, e^(3a−10)]; output [p0 + 3 p2, p1 − 2 p2].
TEST(Ch28Exercises, AFiniteMaskLeaksAndBreaksPrefixInvariance) {
  const auto& x = evidence().exercises;
  const double a = 1.0 / std::sqrt(2.0);
  const double z = std::exp(a) + std::exp(-10.0) + std::exp(a - 10.0);
  const double p0 = std::exp(a) / z, p1 = std::exp(-10.0) / z,
               p2 = std::exp(a - 10.0) / z;
  EXPECT_NEAR(x.future_weight, p1 + p2, 1e-15);
  EXPECT_NEAR(x.future_weight, 0.000068, 5e-7);
  expect_values_near(x.finite_before.values().first(2), {p0 + p2, p1 + p2}, 1e-15,
                     "before");
  const double y = std::exp(a) + std::exp(-10.0) + std::exp(3 * a - 10.0);
  const double q0 = std::exp(a) / y, q1 = std::exp(-10.0) / y,
               q2 = std::exp(3 * a - 10.0) / y;
  expect_values_near(x.finite_after.values().first(2), {q0 + 3 * q2, q1 - 2 * q2},
                     1e-15, "after");
  EXPECT_NEAR(x.finite_after.values()[0], 1.000351, 5e-7);
  EXPECT_NEAR(x.finite_after.values()[1], -0.000351, 5e-7);
}

}  // namespace

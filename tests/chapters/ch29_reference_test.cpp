// Chapter 29 claims on random data: PyTorch float64 reference values
// (tests/reference/data/ch29_rope.txt, written by tests/reference/make_reference.py,
// seed 29), central differences, and the relative property, norm preservation,
// shared-offset invariance and unrotated values checked on those same random rows.
//
// Tolerance: |actual − expected| ≤ 1e-12 · max(1, |expected|) per entry (relative 1e-12
// for entries of size ≥ 1, absolute below that).

#include <algorithm>
#include <array>
#include <cmath>
#include <expected>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/rope.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>

#include "support/reference_data.hpp"
#include "support/values.hpp"

namespace {

namespace ag = llmfs::autograd;
using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::gradient_of;
using llmfs::testing::value_of;

constexpr double kReferenceTolerance = 1e-12;

const llmfs::testing::ReferenceData& reference() {
  static const auto data = llmfs::testing::load_reference_case("ch29_rope");
  return data;
}

Tensor tensor_of(const std::string& name) {
  const auto& stored = reference().at(name);
  auto made =
      Tensor::from(Shape(std::vector<std::size_t>(stored.shape)), stored.values);
  if (!made)
    throw std::runtime_error("reference tensor " + name + " has an inconsistent shape");
  return *made;
}

void expect_matches(std::span<const double> actual, const std::string& name) {
  const auto& expected = reference().at(name).values;
  ASSERT_EQ(actual.size(), expected.size()) << name;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << name << " at " << i;
      continue;
    }
    EXPECT_NEAR(actual[i], expected[i],
                kReferenceTolerance * std::max(1.0, std::abs(expected[i])))
        << name << " at " << i;
  }
}

RotaryEmbedding make_rope(std::size_t width, std::size_t capacity, double base) {
  auto rope = RotaryEmbedding::create(width, capacity, base);
  if (!rope) throw std::runtime_error("RoPE configuration rejected");
  return *rope;
}

double dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    sum += a[i] * b[i];
  return sum;
}

// RoPE alone vs PyTorch

class Ch29RopeReference : public ::testing::TestWithParam<std::string> {};

TEST_P(Ch29RopeReference, RatesRotationsAndGradientsMatchPyTorch) {
  const std::string prefix = GetParam();
  const double base = reference().scalar(prefix + "rope_base");
  const auto offset =
      static_cast<std::size_t>(reference().scalar(prefix + "rope_offset"));
  const RotaryEmbedding rope = make_rope(8, offset + 5, base);
  expect_matches(rope.frequencies(), prefix + "theta");

  ag::Tape tape;
  auto q = tape.parameter(tensor_of("Q"));
  auto k = tape.parameter(tensor_of("K"));
  auto q_rotated = rope.rotate(q, offset);
  auto k_rotated = rope.rotate(k, offset);
  ASSERT_TRUE(q_rotated.has_value() && k_rotated.has_value());
  expect_matches(value_of(*q_rotated).values(), prefix + "Q_rotated");
  expect_matches(value_of(*k_rotated).values(), prefix + "K_rotated");

  // loss = Σ Q̃ ⊙ u_Q + Σ K̃ ⊙ u_K: seeding each rotated tensor with its upstream gives
  // ∂loss/∂Q, ∂loss/∂K
  const Tensor upstream_q = tensor_of("upstream_Q");
  const Tensor upstream_k = tensor_of("upstream_K");
  const double loss = dot(value_of(*q_rotated).values(), upstream_q.values()) +
                      dot(value_of(*k_rotated).values(), upstream_k.values());
  EXPECT_NEAR(loss, reference().scalar(prefix + "loss"),
              kReferenceTolerance *
                  std::max(1.0, std::abs(reference().scalar(prefix + "loss"))));
  ASSERT_TRUE(ag::backward(*q_rotated, upstream_q).has_value());
  ASSERT_TRUE(ag::backward(*k_rotated, upstream_k).has_value());
  expect_matches(gradient_of(q).values(), prefix + "grad_Q");
  expect_matches(gradient_of(k).values(), prefix + "grad_K");
}

INSTANTIATE_TEST_SUITE_P(BothSettings, Ch29RopeReference,
                         ::testing::Values("rope_b10000_o3.", "rope_b100_o0."),
                         [](const auto& info) {
                           return info.index == 0 ? "Base10000Offset3"
                                                  : "Base100Offset0";
                         });

TEST(Ch29Reference, TensorAndTapeRotationsAgreeBitwise) {
  const RotaryEmbedding rope = make_rope(8, 8, 10000.0);
  ag::Tape tape;
  auto on_tape = rope.rotate(tape.constant(tensor_of("Q")), 3);
  auto plain = rope.rotate(tensor_of("Q"), 3);
  ASSERT_TRUE(on_tape.has_value() && plain.has_value());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(value_of(*on_tape), *plain));
}

// a causal head with RoPE vs PyTorch

TEST(Ch29Reference, CausalHeadWithRopeOnQueriesAndKeysMatchesPyTorch) {
  const double base = reference().scalar("attn.rope_base");
  const auto offset = static_cast<std::size_t>(reference().scalar("attn.rope_offset"));
  const RotaryEmbedding rope = make_rope(8, offset + 5, base);
  ag::Tape tape;
  auto x = tape.parameter(tensor_of("attn.X"));
  auto w_q = tape.parameter(tensor_of("attn.W_Q"));
  auto w_k = tape.parameter(tensor_of("attn.W_K"));
  auto w_v = tape.parameter(tensor_of("attn.W_V"));
  auto q = ag::matmul(x, w_q);
  auto k = ag::matmul(x, w_k);
  auto v = ag::matmul(x, w_v);
  ASSERT_TRUE(q && k && v);
  auto q_rotated = rope.rotate(*q, offset);
  auto k_rotated = rope.rotate(*k, offset);
  ASSERT_TRUE(q_rotated && k_rotated);
  auto head = llmfs::attention::causal_self_attention(*q_rotated, *k_rotated, *v);
  ASSERT_TRUE(head.has_value());

  expect_matches(value_of(*q).values(), "attn.Q");
  expect_matches(value_of(*k).values(), "attn.K");
  expect_matches(value_of(*v).values(), "attn.V");
  expect_matches(value_of(*q_rotated).values(), "attn.Q_rotated");
  expect_matches(value_of(*k_rotated).values(), "attn.K_rotated");
  expect_matches(value_of(head->scores).values(), "attn.scores");
  expect_matches(value_of(head->masked_scores).values(), "attn.masked_scores");
  expect_matches(value_of(head->weights).values(), "attn.weights");
  expect_matches(value_of(head->output).values(), "attn.output");

  ASSERT_TRUE(ag::backward(head->output, tensor_of("attn.upstream")).has_value());
  expect_matches(gradient_of(x).values(), "attn.grad_X");
  expect_matches(gradient_of(w_q).values(), "attn.grad_W_Q");
  expect_matches(gradient_of(w_k).values(), "attn.grad_W_K");
  expect_matches(gradient_of(w_v).values(), "attn.grad_W_V");
}

// central differences

TEST(Ch29Properties, RotationGradientPassesCentralDifferences) {
  for (const double base : {10000.0, 100.0}) {
    const RotaryEmbedding rope = make_rope(8, 8, base);
    const Tensor upstream = tensor_of("upstream_Q");
    auto loss = [&](ag::Tape& tape, std::span<const ag::TensorValue> inputs)
        -> std::expected<ag::TensorValue, ag::AutogradError> {
      auto rotated = rope.rotate(inputs[0], 3);
      if (!rotated)
        return std::unexpected(
            ag::AutogradError{ag::AutogradErrorCode::invalid_argument, "rope", "", {}});
      auto weighted = ag::multiply(*rotated, tape.constant(upstream));
      if (!weighted) return std::unexpected(weighted.error());
      return ag::sum(*weighted);
    };
    const std::array<Tensor, 1> inputs{tensor_of("Q")};
    auto report = ag::check_tape_gradients(
        loss, inputs,
        {.step = 1e-6, .absolute_tolerance = 1e-8, .relative_tolerance = 0.0});
    ASSERT_TRUE(report.has_value());
    EXPECT_EQ(report->coordinates(), 80u);
    EXPECT_TRUE(report->passed())
        << "base " << base << " max error " << report->max_abs_error();
  }
}

// invariants on the random rows

TEST(Ch29Properties, RotationPreservesTheLengthOfEveryPair) {
  const RotaryEmbedding rope = make_rope(8, 8, 10000.0);
  const Tensor q = tensor_of("Q");
  auto rotated = rope.rotate(q, 3);
  ASSERT_TRUE(rotated.has_value());
  for (std::size_t pair = 0; pair < q.size() / 2; ++pair) {
    const double before = std::hypot(q.values()[2 * pair], q.values()[2 * pair + 1]);
    const double after =
        std::hypot(rotated->values()[2 * pair], rotated->values()[2 * pair + 1]);
    EXPECT_NEAR(after, before, kReferenceTolerance * std::max(1.0, before))
        << "pair " << pair;
  }
}

TEST(Ch29Properties, ScoreDependsOnlyOnThePositionDifference) {
  // For every query row at p and key row at s (random content), the score after
  // rotating them to (p, s) equals the score after rotating them to (p + k, s + k).
  const Tensor q = tensor_of("Q");
  const Tensor k = tensor_of("K");
  for (const double base : {10000.0, 100.0}) {
    const RotaryEmbedding rope = make_rope(8, 64, base);
    std::size_t compared = 0;
    for (std::size_t row = 0; row < 10; ++row) {
      const Tensor query_row = *Tensor::from(
          Shape{1, 8}, std::vector<double>(q.values().begin() + 8 * row,
                                           q.values().begin() + 8 * row + 8));
      const Tensor key_row = *Tensor::from(
          Shape{1, 8}, std::vector<double>(k.values().begin() + 8 * (9 - row),
                                           k.values().begin() + 8 * (9 - row) + 8));
      auto score = [&](std::size_t p, std::size_t s) {
        return dot(rope.rotate(query_row, p)->values(),
                   rope.rotate(key_row, s)->values());
      };
      for (std::size_t p = 0; p < 5; ++p) {
        for (std::size_t s = 0; s < 5; ++s) {
          const double reference_score = score(p, s);
          for (const std::size_t shift : {1u, 3u, 17u, 58u}) {
            const double shifted = score(p + shift, s + shift);
            EXPECT_NEAR(shifted, reference_score,
                        kReferenceTolerance * std::max(1.0, std::abs(reference_score)))
                << "base " << base << " row " << row << " (" << p << "," << s
                << ") shift " << shift;
            ++compared;
          }
        }
      }
    }
    EXPECT_EQ(compared, 10u * 25u * 4u);
    // ...and the rotation is not the identity: the raw score does depend on the gap.
    const Tensor query_row = *Tensor::from(
        Shape{1, 8}, std::vector<double>(q.values().begin(), q.values().begin() + 8));
    const double same_place =
        dot(rope.rotate(query_row, 2)->values(), rope.rotate(query_row, 2)->values());
    const double two_apart =
        dot(rope.rotate(query_row, 4)->values(), rope.rotate(query_row, 2)->values());
    EXPECT_GT(std::abs(same_place - two_apart), 1e-3) << "base " << base;
  }
}

namespace {

struct HeadAtOffset {
  Tensor weights;
  Tensor output;
  Tensor values;
};

HeadAtOffset causal_head_at(std::size_t offset) {
  const RotaryEmbedding rope = make_rope(8, 16, 10000.0);
  ag::Tape tape;
  auto x = tape.constant(tensor_of("attn.X"));
  auto q = ag::matmul(x, tape.constant(tensor_of("attn.W_Q")));
  auto k = ag::matmul(x, tape.constant(tensor_of("attn.W_K")));
  auto v = ag::matmul(x, tape.constant(tensor_of("attn.W_V")));
  if (!q || !k || !v) throw std::runtime_error("projection failed");
  auto q_rotated = rope.rotate(*q, offset);
  auto k_rotated = rope.rotate(*k, offset);
  if (!q_rotated || !k_rotated) throw std::runtime_error("rotation failed");
  auto head = llmfs::attention::causal_self_attention(*q_rotated, *k_rotated, *v);
  if (!head) throw std::runtime_error("attention failed");
  return {value_of(head->weights), value_of(head->output), value_of(*v)};
}

}  // namespace

TEST(Ch29Properties, SharedOffsetPreservesCausalWeightsAndOutputs) {
  const HeadAtOffset start = causal_head_at(0);
  for (const std::size_t offset : {1u, 4u, 11u}) {
    const HeadAtOffset shifted = causal_head_at(offset);
    for (std::size_t i = 0; i < start.weights.size(); ++i)
      EXPECT_NEAR(shifted.weights.values()[i], start.weights.values()[i],
                  kReferenceTolerance)
          << "offset " << offset << " weight " << i;
    for (std::size_t i = 0; i < start.output.size(); ++i)
      EXPECT_NEAR(
          shifted.output.values()[i], start.output.values()[i],
          kReferenceTolerance * std::max(1.0, std::abs(start.output.values()[i])))
          << "offset " << offset << " output " << i;
  }
}

TEST(Ch29Properties, ValuesAreNotRotated) {
  // Token 0 attends only to itself, so its output row is V's row 0, bit for bit, at any
  // offset; a rotated value would have been turned by offset·θ.
  for (const std::size_t offset : {0u, 4u, 11u}) {
    const HeadAtOffset head = causal_head_at(offset);
    for (std::size_t batch = 0; batch < 2; ++batch)
      for (std::size_t j = 0; j < 8; ++j)
        EXPECT_EQ(head.output.values()[batch * 40 + j],
                  head.values.values()[batch * 40 + j])
            << "offset " << offset << " batch " << batch << " coordinate " << j;
  }
}

}  // namespace

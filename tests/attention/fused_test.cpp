// Chapter 42's fused causal attention against chapter 28's composition, bit for bit.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/fused.hpp>
#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"

namespace {

namespace at = llmfs::attention;
using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// Same shape and the same 64 bits in every element (+0.0 and −0.0 differ; so would
// two NaNs of different payloads).
::testing::AssertionResult identical_bits(const Tensor& actual,
                                          const Tensor& expected) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << fmt::format("shape {} != {}", actual.shape(), expected.shape());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double a = actual.values()[i], e = expected.values()[i];
    if (std::bit_cast<std::uint64_t>(a) != std::bit_cast<std::uint64_t>(e))
      return ::testing::AssertionFailure()
             << fmt::format("element {}: {:a} != {:a}", i, a, e);
  }
  return ::testing::AssertionSuccess();
}

// Uniform in [−bound, bound], then about one element in six set to +0.0 and one in six
// to −0.0 when `zeros` (upstream gradients: exact and signed zeros flow through).
Tensor draw_values(const Shape& shape, SplitMix64& rng, double bound, bool zeros) {
  Tensor t = llmfs::nn::uniform_fan_in(shape, 1, rng).value();
  for (double& v : t.mutable_values()) {
    v *= bound;
    if (!zeros) continue;
    const std::uint64_t pick = rng.next_u64() % 6;
    if (pick == 0) v = 0.0;
    if (pick == 1) v = -0.0;
  }
  return t;
}

// Everything one kernel gives: output, weights, and the gradients of Σ output ⊙ dO.
struct KernelRun {
  Tensor output, weights, query, key, value;
};

KernelRun run_kernel(at::CausalAttentionFn kernel, const std::array<Tensor, 3>& in,
                     const Tensor& upstream) {
  Tape tape;
  auto q = tape.parameter(in[0]), k = tape.parameter(in[1]), v = tape.parameter(in[2]);
  auto head = kernel(q, k, v, 0);
  EXPECT_TRUE(head.has_value());
  if (!head) return {};
  EXPECT_TRUE(llmfs::autograd::backward(head->output, upstream).has_value());
  return {*head->output.value(), *head->weights.value(), *q.gradient(), *k.gradient(),
          *v.gradient()};
}

// Many seeded shapes: B and h in 1..3 (or no lane axes at all), T around the panel and
// tile edges, odd widths and width 1, values large enough that some weights underflow
// to exact zeros below the diagonal.
TEST(FusedAttention, EqualsStoredWeightsBitForBitOnRandomShapes) {
  const std::vector<std::size_t> token_counts{1,  2,  3,  5,  6,  7,  13, 31, 32, 33,
                                              47, 48, 49, 53, 64, 65, 95, 96, 97, 128};
  const std::vector<std::size_t> widths{1, 2, 3, 5, 8, 16, 31, 32, 33};
  const std::vector<double> bounds{0.1, 1.0, 4.0, 30.0};
  SplitMix64 rng(4242);
  for (std::size_t c = 0; c < 60; ++c) {
    const std::size_t batch = 1 + rng.next_u64() % 3, heads = 1 + rng.next_u64() % 3;
    const std::size_t tokens = token_counts[c % token_counts.size()];
    const std::size_t dk = widths[rng.next_u64() % widths.size()];
    const std::size_t dv = widths[rng.next_u64() % widths.size()];
    const double bound = bounds[rng.next_u64() % bounds.size()];
    const bool lanes = c % 7 != 3;  // now and then a bare [T, d] pair
    const Shape qk = lanes ? Shape{batch, heads, tokens, dk} : Shape{tokens, dk};
    const Shape vs = lanes ? Shape{batch, heads, tokens, dv} : Shape{tokens, dv};
    const std::array<Tensor, 3> in{draw_values(qk, rng, bound, false),
                                   draw_values(qk, rng, bound, false),
                                   draw_values(vs, rng, 1.0, false)};
    const Tensor upstream = draw_values(vs, rng, 1.0, true);
    const std::string where =
        fmt::format("case {}: Q {} V {} bound {}", c, qk, vs, bound);
    const KernelRun expected = run_kernel(&at::stored_weights_attention, in, upstream);
    const KernelRun actual = run_kernel(&at::fused_causal_attention, in, upstream);
    EXPECT_TRUE(identical_bits(actual.output, expected.output)) << where << " output";
    EXPECT_TRUE(identical_bits(actual.weights, expected.weights))
        << where << " weights";
    EXPECT_TRUE(identical_bits(actual.query, expected.query)) << where << " dQ";
    EXPECT_TRUE(identical_bits(actual.key, expected.key)) << where << " dK";
    EXPECT_TRUE(identical_bits(actual.value, expected.value)) << where << " dV";
  }
}

// The claim the kernel rests on, by itself: a sum that starts from +0.0 is unchanged by
// a ±0.0 term, wherever it stands, and a nonzero sum never rounds to −0.0.
TEST(FusedAttention, SignedZeroTermsNeverChangeASumFromPlusZero) {
  for (double term : {0.0, -0.0}) {
    double sum = 0.0;
    sum += term;
    EXPECT_FALSE(std::signbit(sum));
    sum += 0.25;
    sum += term;
    EXPECT_EQ(sum, 0.25);
    sum += -0.25;  // x + (−x) is +0.0 in round-to-nearest
    EXPECT_FALSE(std::signbit(sum));
  }
  EXPECT_TRUE(std::signbit(0.0 * -3.0));  // why a masked term can be −0.0 at all
}

TEST(FusedAttention, RecordsOneOpAndKeepsOnlyTheWeights) {
  Tape tape;
  SplitMix64 rng(3);
  const Shape shape{1, 2, 6, 4};
  auto q = tape.parameter(draw_values(shape, rng, 1.0, false));
  auto k = tape.parameter(draw_values(shape, rng, 1.0, false));
  auto v = tape.parameter(draw_values(shape, rng, 1.0, false));
  const std::size_t before = tape.node_count();
  auto head = at::fused_causal_attention(q, k, v, 0);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(tape.node_count(), before + 2);  // the weights (a constant) and the op
  EXPECT_EQ(head->output.shape(), shape);
  EXPECT_EQ(head->weights.shape(), (Shape{1, 2, 6, 6}));
  EXPECT_EQ(head->scores.shape(), Shape{});  // never formed
  EXPECT_EQ(head->masked_scores.shape(), Shape{});
  EXPECT_EQ(at::fused_kernel.run, &at::fused_causal_attention);
}

// Chapter 30's layer with the fused kernel against the default layer: the output, the
// attention weights and all four weight gradients, bit for bit, across two panels.
TEST(FusedAttention, MultiHeadLayerEqualsTheDefaultLayerBitForBit) {
  const std::size_t d = 16, heads = 2, tokens = 50;
  std::vector<std::vector<Tensor>> grads;
  std::vector<Tensor> outputs, weights;
  for (const at::AttentionKernel& choice : {at::AttentionKernel{}, at::fused_kernel}) {
    Tape tape;
    SplitMix64 rng(30);
    auto layer = at::MultiHeadAttention::create(
        tape, "mha", d, heads, at::RotaryPositions{64, 100.0}, rng, choice);
    ASSERT_TRUE(layer.has_value());
    EXPECT_EQ(layer->kernel(), choice);
    SplitMix64 data(31);
    auto x = tape.constant(draw_values(Shape{2, tokens, d}, data, 1.0, false));
    auto forward = layer->forward(x, 3);
    ASSERT_TRUE(forward.has_value());
    ASSERT_TRUE(llmfs::autograd::backward(
                    forward->output, draw_values(Shape{2, tokens, d}, data, 1.0, true))
                    .has_value());
    outputs.push_back(*forward->output.value());
    weights.push_back(*forward->attention_weights.value());
    grads.emplace_back();
    for (const auto& p : layer->parameters())
      grads.back().push_back(*p.value.gradient());
  }
  EXPECT_TRUE(identical_bits(outputs[1], outputs[0]));
  EXPECT_TRUE(identical_bits(weights[1], weights[0]));
  ASSERT_EQ(grads[0].size(), 4u);
  for (std::size_t i = 0; i < grads[0].size(); ++i)
    EXPECT_TRUE(identical_bits(grads[1][i], grads[0][i])) << "parameter " << i;
}

// Every bad shape is refused with causal_self_attention's code and message; so is a
// score the softmax refuses (a NaN in Q reaches every score of its row).
TEST(FusedAttention, RefusesWhatCausalAttentionRefusesWithTheSameError) {
  struct Case {
    Shape q, k, v;
  };
  const std::vector<Case> cases{
      {Shape{4}, Shape{4}, Shape{4}},                    // rank
      {Shape{2, 3, 4}, Shape{2, 3}, Shape{2, 3}},        // ranks differ
      {Shape{2, 3, 4}, Shape{3, 3, 4}, Shape{3, 3, 4}},  // batch
      {Shape{3, 4}, Shape{3, 5}, Shape{3, 2}},           // key width
      {Shape{3, 0}, Shape{3, 0}, Shape{3, 2}},           // zero key width
      {Shape{3, 4}, Shape{5, 4}, Shape{5, 2}},           // Q and K tokens
      {Shape{3, 4}, Shape{3, 4}, Shape{4, 2}},           // K and V tokens
      {Shape{0, 4}, Shape{0, 4}, Shape{0, 2}},           // no tokens
  };
  for (const Case& c : cases) {
    Tape tape;
    auto q = tape.constant(Tensor::zeros(c.q));
    auto k = tape.constant(Tensor::zeros(c.k));
    auto v = tape.constant(Tensor::zeros(c.v));
    auto expected = at::causal_self_attention(q, k, v);
    auto actual = at::fused_causal_attention(q, k, v, 0);
    ASSERT_FALSE(expected.has_value()) << fmt::format("{}", c.q);
    ASSERT_FALSE(actual.has_value()) << fmt::format("{}", c.q);
    EXPECT_EQ(actual.error().code, expected.error().code) << fmt::format("{}", c.q);
    EXPECT_EQ(fmt::format("{}", actual.error()), fmt::format("{}", expected.error()));
  }
  for (std::size_t bad_row : {0u, 4u}) {
    Tape tape;
    SplitMix64 rng(9);
    Tensor query = draw_values(Shape{2, 6, 3}, rng, 1.0, false);
    query.mutable_values()[(6 + bad_row) * 3 + 1] = std::nan("");
    auto q = tape.constant(query);
    auto k = tape.constant(draw_values(Shape{2, 6, 3}, rng, 1.0, false));
    auto expected = at::causal_self_attention(q, k, k);
    auto actual = at::fused_causal_attention(q, k, k, 0);
    ASSERT_FALSE(expected.has_value());
    ASSERT_FALSE(actual.has_value());
    EXPECT_EQ(actual.error().code, at::AttentionErrorCode::autograd);
    EXPECT_EQ(fmt::format("{}", actual.error()), fmt::format("{}", expected.error()));
  }
}

}  // namespace

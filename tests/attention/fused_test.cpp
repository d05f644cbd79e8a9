// Chapter 42's fused causal attention against chapter 28's composition, bit for bit.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/fused.hpp>
#include <llmfs/attention/head_layout.hpp>
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
  EXPECT_EQ(at::fused_kernel.layer, &at::fused_multi_head_attention);
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

// Everything chapter 30's layer gives on one input: output, weights, the gradients of
// the four matrices and of the input, for a loss Σ output ⊙ dY.
struct FusedLayerRun {
  Tensor output, weights, input_gradient;
  std::vector<Tensor> parameter_gradients;
};

FusedLayerRun run_fused_layer(const at::AttentionKernel& kernel, std::size_t d,
                              std::size_t heads, const at::PositionEncoding& positions,
                              const Tensor& x, std::size_t offset,
                              const Tensor& upstream) {
  Tape tape;
  SplitMix64 rng(77);
  auto layer =
      at::MultiHeadAttention::create(tape, "mha", d, heads, positions, rng, kernel);
  EXPECT_TRUE(layer.has_value());
  if (!layer) return {};
  auto input = tape.parameter(x);
  auto forward = layer->forward(input, offset);
  EXPECT_TRUE(forward.has_value()) << fmt::format("{}", forward.error());
  if (!forward) return {};
  EXPECT_TRUE(llmfs::autograd::backward(forward->output, upstream).has_value());
  FusedLayerRun run{*forward->output.value(),
                    *forward->attention_weights.value(),
                    *input.gradient(),
                    {}};
  for (const auto& p : layer->parameters())
    run.parameter_gradients.push_back(*p.value.gradient());
  return run;
}

// The whole-layer path (fused_multi_head_attention: no split, rotation or merge tensor)
// against chapter 30's default layer on seeded shapes: B 1..3, h 1..4, head widths odd
// and even (odd only without RoPE), T around the panel edges, offsets, both position
// encodings, and upstream gradients with signed zeros; every bit of every result.
TEST(FusedAttention, WholeLayerEqualsTheDefaultLayerBitForBitOnRandomShapes) {
  const std::vector<std::size_t> token_counts{1, 2, 5, 13, 47, 48, 49, 64, 97, 100};
  const std::vector<std::size_t> head_widths{1, 2, 3, 4, 6, 8, 16};
  SplitMix64 rng(2024);
  for (std::size_t c = 0; c < 30; ++c) {
    const std::size_t batch = 1 + rng.next_u64() % 3, heads = 1 + rng.next_u64() % 4;
    const std::size_t tokens = token_counts[c % token_counts.size()];
    const bool rotary = c % 3 != 2;
    std::size_t dh = head_widths[rng.next_u64() % head_widths.size()];
    if (rotary && dh % 2 != 0) ++dh;
    const std::size_t d = heads * dh, offset = rng.next_u64() % 5;
    const at::PositionEncoding positions =
        rotary ? at::PositionEncoding{at::RotaryPositions{tokens + offset, 50.0}}
               : at::PositionEncoding{at::NoPositions{}};
    const Shape shape{batch, tokens, d};
    const Tensor x = draw_values(shape, rng, c % 4 == 0 ? 6.0 : 1.0, false);
    const Tensor upstream = draw_values(shape, rng, 1.0, true);
    const std::string where =
        fmt::format("case {}: X {} h {} offset {} {}", c, shape, heads, offset,
                    rotary ? "RoPE" : "no positions");
    const FusedLayerRun expected = run_fused_layer(at::AttentionKernel{}, d, heads,
                                                   positions, x, offset, upstream);
    const FusedLayerRun actual =
        run_fused_layer(at::fused_kernel, d, heads, positions, x, offset, upstream);
    EXPECT_TRUE(identical_bits(actual.output, expected.output)) << where << " output";
    EXPECT_TRUE(identical_bits(actual.weights, expected.weights))
        << where << " weights";
    EXPECT_TRUE(identical_bits(actual.input_gradient, expected.input_gradient))
        << where << " dX";
    ASSERT_EQ(actual.parameter_gradients.size(), 4u) << where;
    ASSERT_EQ(expected.parameter_gradients.size(), 4u) << where;
    for (std::size_t i = 0; i < 4; ++i)
      EXPECT_TRUE(identical_bits(actual.parameter_gradients[i],
                                 expected.parameter_gradients[i]))
          << where << " parameter " << i;
  }
}

// The whole-layer op against chapter 30's pieces called by hand (split, RoPE, the
// per-head kernel, merge), on one tape each: output and the gradients of Q, K, V.
TEST(FusedAttention, WholeLayerOpEqualsSplitRotateAttendMerge) {
  const std::size_t batch = 2, tokens = 51, heads = 3, dh = 4, d = heads * dh;
  const auto rope = at::RotaryEmbedding::create(dh, 60, 10000.0).value();
  SplitMix64 rng(5);
  const Shape shape{batch, tokens, d};
  const std::array<Tensor, 3> in{draw_values(shape, rng, 2.0, false),
                                 draw_values(shape, rng, 2.0, false),
                                 draw_values(shape, rng, 1.0, false)};
  const Tensor upstream = draw_values(shape, rng, 1.0, true);
  std::vector<std::array<Tensor, 5>> runs;
  for (const bool whole : {false, true}) {
    Tape tape;
    auto q = tape.parameter(in[0]), k = tape.parameter(in[1]),
         v = tape.parameter(in[2]);
    llmfs::autograd::TensorValue out, weights;
    if (whole) {
      const std::size_t before = tape.node_count();
      auto all = at::fused_multi_head_attention(q, k, v, heads, rope, 7);
      ASSERT_TRUE(all.has_value());
      EXPECT_EQ(tape.node_count(), before + 2);  // the weights (a constant) and the op
      EXPECT_EQ(all->scores.shape(), Shape{});
      out = all->output;
      weights = all->weights;
    } else {
      auto qh = rope.rotate(at::split_heads(q, heads).value(), 7).value();
      auto kh = rope.rotate(at::split_heads(k, heads).value(), 7).value();
      auto vh = at::split_heads(v, heads).value();
      auto head = at::stored_weights_attention(qh, kh, vh, 0).value();
      out = at::merge_heads(head.output).value();
      weights = head.weights;
    }
    ASSERT_TRUE(llmfs::autograd::backward(out, upstream).has_value());
    runs.push_back(
        {*out.value(), *weights.value(), *q.gradient(), *k.gradient(), *v.gradient()});
  }
  EXPECT_EQ(runs[1][1].shape(), (Shape{batch, heads, tokens, tokens}));
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_TRUE(identical_bits(runs[1][i], runs[0][i])) << "result " << i;
}

// Bad projections are refused before the tape moves, each with its code; a NaN in the
// layer's input gets the error of the same layer running fused_causal_attention() per
// head, message included. (The default layer can name another entry: its softmax sees
// the masked scores too, and a NaN key reaches them.)
TEST(FusedAttention, WholeLayerRefusesBadInputsWithTypedErrors) {
  using Code = at::MultiHeadErrorCode;
  const auto rope = at::RotaryEmbedding::create(2, 4, 100.0).value();
  struct Case {
    Shape q, k, v;
    std::size_t heads;
    bool rotary;
    std::size_t offset;
    Code code;
  };
  const std::vector<Case> cases{
      {Shape{1, 3, 4}, Shape{1, 3, 4}, Shape{1, 3, 4}, 0, true, 0, Code::zero_heads},
      {Shape{3, 4}, Shape{3, 4}, Shape{3, 4}, 2, true, 0, Code::input_rank},
      {Shape{1, 3, 4}, Shape{1, 2, 4}, Shape{1, 3, 4}, 2, true, 0, Code::input_width},
      {Shape{1, 3, 4}, Shape{1, 3, 4}, Shape{2, 3, 4}, 2, true, 0, Code::input_width},
      {Shape{1, 3, 0}, Shape{1, 3, 0}, Shape{1, 3, 0}, 2, false, 0,
       Code::zero_model_width},
      {Shape{1, 3, 5}, Shape{1, 3, 5}, Shape{1, 3, 5}, 2, false, 0,
       Code::width_not_divisible},
      {Shape{1, 0, 4}, Shape{1, 0, 4}, Shape{1, 0, 4}, 2, true, 0, Code::empty_tokens},
      {Shape{1, 3, 8}, Shape{1, 3, 8}, Shape{1, 3, 8}, 2, true, 0, Code::input_width},
      {Shape{1, 3, 4}, Shape{1, 3, 4}, Shape{1, 3, 4}, 2, true,
       std::numeric_limits<std::size_t>::max() - 1, Code::offset_overflow},
      {Shape{1, 3, 4}, Shape{1, 3, 4}, Shape{1, 3, 4}, 2, true, 2,
       Code::position_range},
  };
  for (const Case& c : cases) {
    Tape tape;
    auto q = tape.constant(Tensor::zeros(c.q));
    auto k = tape.constant(Tensor::zeros(c.k));
    auto v = tape.constant(Tensor::zeros(c.v));
    const std::size_t before = tape.node_count();
    auto result = at::fused_multi_head_attention(
        q, k, v, c.heads, c.rotary ? std::optional{rope} : std::nullopt, c.offset);
    ASSERT_FALSE(result.has_value()) << fmt::format("{} h {}", c.q, c.heads);
    EXPECT_EQ(result.error().code, c.code) << fmt::format("{}", result.error());
    EXPECT_EQ(tape.node_count(), before);
  }
  std::vector<std::string> messages;
  const at::AttentionKernel per_head{"fused", 0, &at::fused_causal_attention};
  for (const at::AttentionKernel& choice : {per_head, at::fused_kernel}) {
    Tape tape;
    SplitMix64 rng(12);
    auto layer = at::MultiHeadAttention::create(
        tape, "mha", 4, 2, at::RotaryPositions{8, 100.0}, rng, choice);
    ASSERT_TRUE(layer.has_value());
    Tensor x = draw_values(Shape{2, 5, 4}, rng, 1.0, false);
    x.mutable_values()[(5 + 3) * 4 + 1] = std::nan("");
    auto forward = layer->forward(tape.constant(x), 0);
    ASSERT_FALSE(forward.has_value());
    EXPECT_EQ(forward.error().stage, at::MultiHeadStage::causal_attention);
    messages.push_back(fmt::format("{}", forward.error()));
  }
  EXPECT_EQ(messages[1], messages[0]);
}

}  // namespace

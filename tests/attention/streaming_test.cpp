#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/streaming.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"

namespace {

namespace at = llmfs::attention;
using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// max |a − b| / max |b|: the error relative to the tensor's scale (T = 1: dQ = dK = 0).
double relative_error(const Tensor& a, const Tensor& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(a.values()[i] - b.values()[i]));
    scale = std::max(scale, std::abs(b.values()[i]));
  }
  return scale > 0.0 ? diff / scale
                     : diff;  // an all-zero reference: the difference itself
}

Tensor draw(const Shape& shape, SplitMix64& rng, double bound) {
  Tensor t = llmfs::nn::uniform_fan_in(shape, 1, rng).value();
  for (double& v : t.mutable_values())
    v *= bound;
  return t;
}

// Output and the gradients of Σ output ⊙ upstream w.r.t. Q, K, V, by one kernel.
struct HeadRun {
  Tensor output, query, key, value;
};

HeadRun run_head(at::CausalAttentionFn kernel, const std::vector<Tensor>& in,
                 const Tensor& upstream, std::size_t block) {
  Tape tape;
  auto q = tape.parameter(in[0]), k = tape.parameter(in[1]), v = tape.parameter(in[2]);
  auto head = kernel(q, k, v, block);
  EXPECT_TRUE(head.has_value());
  if (!head) return {};
  EXPECT_TRUE(llmfs::autograd::backward(head->output, upstream).has_value());
  return {*head->output.value(), *q.gradient(), *k.gradient(), *v.gradient()};
}

// Milakov and Gimelshein's update by hand on scores [1, 3, 2, 5, 0], two keys a block.
TEST(OnlineSoftmax, RunningMaximumAndRescaleMatchTheHandDerivation) {
  const std::vector<double> scores{1, 3, 2, 5, 0};
  auto steps = at::online_softmax(scores, 2);
  ASSERT_TRUE(steps.has_value());
  ASSERT_EQ(steps->size(), 3u);
  // Block {1, 3}: m = 3, nothing before it (α = 0), ℓ = e^-2 + 1
  EXPECT_EQ((*steps)[0].after.max, 3.0);
  EXPECT_EQ((*steps)[0].rescale, 0.0);
  EXPECT_NEAR((*steps)[0].after.sum, 1.1353352832366128, 1e-15);
  // Block {2, 5}: m = 5, α = e^-2, ℓ = e^-2·(e^-2 + 1) + e^-3 + 1
  EXPECT_EQ((*steps)[1].after.max, 5.0);
  EXPECT_NEAR((*steps)[1].rescale, 0.1353352832366127, 1e-16);
  EXPECT_NEAR((*steps)[1].after.sum, 1.2034379904932109, 1e-15);
  // Block {0}: m stays 5, α = 1, ℓ gains e^-5; ℓ = Σ exp(s − 5)
  EXPECT_EQ((*steps)[2].rescale, 1.0);
  double direct = 0.0;
  for (double s : scores)
    direct += std::exp(s - 5.0);
  EXPECT_NEAR((*steps)[2].after.sum, direct, 1e-15);
}

TEST(OnlineSoftmax, EveryBlockSizeGivesTheSameNormaliser) {
  const std::vector<double> scores{0.5, -2, 7, 7, 1, -30, 4};
  for (std::size_t block = 1; block <= scores.size() + 1; ++block) {
    auto steps = at::online_softmax(scores, block);
    ASSERT_TRUE(steps.has_value());
    EXPECT_EQ(steps->back().after.max, 7.0);
    double direct = 0.0;
    for (double s : scores)
      direct += std::exp(s - 7.0);
    EXPECT_NEAR(steps->back().after.sum, direct, 1e-15) << block;
  }
}

TEST(OnlineSoftmax, RejectsZeroBlockAndEmptyRow) {
  const std::vector<double> scores{1.0};
  EXPECT_EQ(at::online_softmax(scores, 0).error().code,
            at::AttentionErrorCode::zero_block_size);
  EXPECT_EQ(at::online_softmax({}, 1).error().code,
            at::AttentionErrorCode::empty_tokens);
}

// The property: every T in the list (T = 1, T not a multiple of the block), every block
// size from 1 to T, seeded random Q, K, V and upstream: outputs and all three
// gradients within 1e-12 of the stored-weights kernel.
TEST(StreamingAttention, AgreesWithStoredWeightsForEveryBlockSize) {
  std::uint64_t seed = 41;
  for (std::size_t tokens : {1, 2, 3, 5, 8, 11}) {
    SplitMix64 rng(seed++);
    const Shape qk{2, 2, tokens, 4}, v{2, 2, tokens, 3};
    const std::vector<Tensor> in{draw(qk, rng, 3.0), draw(qk, rng, 3.0),
                                 draw(v, rng, 1.0)};
    const Tensor upstream = draw(v, rng, 1.0);
    const HeadRun stored = run_head(&at::stored_weights_attention, in, upstream, 0);
    for (std::size_t block = 1; block <= tokens; ++block) {
      const HeadRun streamed =
          run_head(&at::streaming_causal_attention, in, upstream, block);
      EXPECT_LE(relative_error(streamed.output, stored.output), 1e-12)
          << tokens << block;
      EXPECT_LE(relative_error(streamed.query, stored.query), 1e-12) << tokens << block;
      EXPECT_LE(relative_error(streamed.key, stored.key), 1e-12) << tokens << block;
      EXPECT_LE(relative_error(streamed.value, stored.value), 1e-12) << tokens << block;
    }
  }
}

TEST(StreamingAttention, PassesCentralDifferences) {
  auto head = [](const TensorValue& q, const TensorValue& k, const TensorValue& v) {
    return at::streaming_causal_attention(q, k, v, 2);
  };
  llmfs::testing::expect_head_gradients_pass(head, 7, Shape{1, 2, 5, 3},
                                             Shape{1, 2, 5, 2}, 30 + 30 + 20);
}

TEST(StreamingAttention, RecordsOneNodeAndNoTable) {
  Tape tape;
  SplitMix64 rng(3);
  const Shape shape{1, 2, 6, 4};
  auto q = tape.parameter(draw(shape, rng, 1.0));
  auto k = tape.parameter(draw(shape, rng, 1.0));
  auto v = tape.parameter(draw(shape, rng, 1.0));
  const std::size_t before = tape.node_count();
  auto head = at::streaming_causal_attention(q, k, v, 4);
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(tape.node_count(), before + 1);
  EXPECT_EQ(head->output.shape(), shape);
  EXPECT_EQ(head->weights.shape(), Shape{});  // never formed: an empty handle
}

TEST(StreamingAttention, RejectsZeroBlockAndMismatchedTokens) {
  Tape tape;
  auto q = tape.constant(Tensor::zeros(Shape{1, 3, 2}));
  auto k = tape.constant(Tensor::zeros(Shape{1, 4, 2}));
  EXPECT_EQ(at::streaming_causal_attention(q, q, q, 0).error().code,
            at::AttentionErrorCode::zero_block_size);
  EXPECT_EQ(at::streaming_causal_attention(q, k, k, 2).error().code,
            at::AttentionErrorCode::token_mismatch);
  EXPECT_EQ(at::streaming_kernel(0).error().code,
            at::AttentionErrorCode::zero_block_size);
}

// The drop-in: one layer's four matrices, built twice, one kernel each.
TEST(StreamingAttention, IsADropInForMultiHeadAttention) {
  const std::size_t d = 8, heads = 2, tokens = 7;
  auto kernel = at::streaming_kernel(3);
  ASSERT_TRUE(kernel.has_value());
  std::vector<std::vector<Tensor>> grads;
  std::vector<Tensor> outputs;
  for (const at::AttentionKernel& choice : {at::AttentionKernel{}, *kernel}) {
    Tape tape;
    SplitMix64 rng(30);
    auto layer = at::MultiHeadAttention::create(
        tape, "mha", d, heads, at::RotaryPositions{16, 100.0}, rng, choice);
    ASSERT_TRUE(layer.has_value());
    EXPECT_EQ(layer->kernel(), choice);
    SplitMix64 data(31);
    auto x = tape.constant(draw(Shape{2, tokens, d}, data, 1.0));
    auto forward = layer->forward(x, 2);
    ASSERT_TRUE(forward.has_value());
    ASSERT_TRUE(
        llmfs::autograd::backward(forward->output, draw(Shape{2, tokens, d}, data, 1.0))
            .has_value());
    outputs.push_back(*forward->output.value());
    grads.emplace_back();
    for (const auto& p : layer->parameters())
      grads.back().push_back(*p.value.gradient());
  }
  EXPECT_LE(relative_error(outputs[1], outputs[0]), 1e-12);
  for (std::size_t i = 0; i < grads[0].size(); ++i)
    EXPECT_LE(relative_error(grads[1][i], grads[0][i]), 1e-12) << i;
}

TEST(StreamingAttention, AKernelWithoutAFunctionIsRejectedBeforeTheGeneratorMoves) {
  Tape tape;
  SplitMix64 rng(5);
  const SplitMix64 before = rng;
  auto layer = at::MultiHeadAttention::create(tape, "mha", 4, 2, at::NoPositions{}, rng,
                                              at::AttentionKernel{"none", 1, nullptr});
  ASSERT_FALSE(layer.has_value());
  EXPECT_EQ(layer.error().code, at::MultiHeadErrorCode::missing_kernel);
  EXPECT_EQ(rng.next_u64(), SplitMix64(before).next_u64());
}

}  // namespace

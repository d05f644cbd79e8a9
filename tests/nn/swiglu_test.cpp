#include <limits>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/swiglu.hpp>

#include "support/tensors.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::nn::NnErrorCode;
using llmfs::nn::swiglu_hidden_width;
using llmfs::nn::SwiGluFeedForward;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::make;

TEST(SwiGluWidth, RoundsEightThirdsUpToTheMultiple) {
  EXPECT_EQ(swiglu_hidden_width(3, 1).value(), 8u);     // 8·3/3 exactly
  EXPECT_EQ(swiglu_hidden_width(1, 1).value(), 3u);     // ⌈8/3⌉
  EXPECT_EQ(swiglu_hidden_width(64, 8).value(), 176u);  // ⌈170.67⌉ = 171 → 176
  EXPECT_EQ(swiglu_hidden_width(768, 8).value(), 2048u);
  EXPECT_EQ(swiglu_hidden_width(4096, 256).value(), 11008u);
  for (std::size_t d = 1; d < 200; ++d)
    for (const std::size_t m : {1, 2, 8, 64}) {
      const std::size_t f = swiglu_hidden_width(d, m).value();
      EXPECT_EQ(f % m, 0u);
      EXPECT_GE(3 * f, 8 * d);        // at least 8d/3
      EXPECT_LT(3 * (f - m), 8 * d);  // the smallest such multiple
    }
}

TEST(SwiGluWidth, RefusesZeroAndOverflow) {
  EXPECT_EQ(swiglu_hidden_width(0, 8).error().code, NnErrorCode::zero_width);
  EXPECT_EQ(swiglu_hidden_width(8, 0).error().code, NnErrorCode::zero_width);
  const std::size_t most = std::numeric_limits<std::size_t>::max();
  EXPECT_EQ(swiglu_hidden_width(most / 4, 8).error().code, NnErrorCode::size_overflow);
  EXPECT_EQ(swiglu_hidden_width(8, most).error().code, NnErrorCode::size_overflow);
  EXPECT_EQ(fmt::format("{}", swiglu_hidden_width(0, 8).error()),
            "swiglu hidden width: zero width (d_model 0, multiple 8)");
}

TEST(SwiGlu, CreateDrawsGateUpDownInOrderAndNamesThem) {
  Tape tape;
  SplitMix64 rng(20);
  SplitMix64 reference(20);
  auto layer = SwiGluFeedForward::create(tape, "block.ffn", 4, 16, rng);
  ASSERT_TRUE(layer.has_value());
  const auto parameters = layer->parameters();
  ASSERT_EQ(parameters.size(), 3u);
  EXPECT_EQ(parameters[0].name, "block.ffn.gate.weight");
  EXPECT_EQ(parameters[1].name, "block.ffn.up.weight");
  EXPECT_EQ(parameters[2].name, "block.ffn.down.weight");
  EXPECT_EQ(*parameters[0].value.value(),
            *llmfs::nn::uniform_fan_in(Shape{4, 16}, 4, reference));
  EXPECT_EQ(*parameters[1].value.value(),
            *llmfs::nn::uniform_fan_in(Shape{4, 16}, 4, reference));
  EXPECT_EQ(*parameters[2].value.value(),
            *llmfs::nn::uniform_fan_in(Shape{16, 4}, 16, reference));
  EXPECT_EQ(rng, reference);
  EXPECT_EQ(layer->model_width(), 4u);
  EXPECT_EQ(layer->hidden_width(), 16u);
  EXPECT_EQ(layer->parameter_count(), 3u * 4u * 16u);
  EXPECT_FALSE(layer->gate().bias().has_value());
}

TEST(SwiGlu, RejectedCreateLeavesTheGeneratorUnchanged) {
  Tape tape;
  SplitMix64 rng(5);
  EXPECT_EQ(SwiGluFeedForward::create(tape, "", 4, 8, rng).error().code,
            NnErrorCode::empty_name);
  EXPECT_EQ(SwiGluFeedForward::create(tape, "ffn", 0, 8, rng).error().code,
            NnErrorCode::zero_width);
  EXPECT_EQ(SwiGluFeedForward::create(tape, "ffn", 4, 0, rng).error().code,
            NnErrorCode::zero_width);
  Tape released;
  released.release();
  EXPECT_EQ(SwiGluFeedForward::create(released, "ffn", 4, 8, rng).error().code,
            NnErrorCode::released_tape);
  EXPECT_EQ(rng, SplitMix64(5));
}

TEST(SwiGlu, FromParametersRefusesShapesThatDoNotChain) {
  Tape tape;
  auto w = [&tape](Shape shape) { return tape.parameter(Tensor::zeros(shape)); };
  auto ok = SwiGluFeedForward::from_parameters(
      {"g", w(Shape{2, 3})}, {"u", w(Shape{2, 3})}, {"d", w(Shape{3, 2})});
  ASSERT_TRUE(ok.has_value());
  auto up = SwiGluFeedForward::from_parameters(
      {"g", w(Shape{2, 3})}, {"u", w(Shape{3, 3})}, {"d", w(Shape{3, 2})});
  EXPECT_EQ(up.error().code, NnErrorCode::width_mismatch);
  auto down = SwiGluFeedForward::from_parameters(
      {"g", w(Shape{2, 3})}, {"u", w(Shape{2, 3})}, {"d", w(Shape{3, 3})});
  EXPECT_EQ(down.error().code, NnErrorCode::width_mismatch);
  auto rank = SwiGluFeedForward::from_parameters(
      {"g", w(Shape{6})}, {"u", w(Shape{2, 3})}, {"d", w(Shape{3, 2})});
  EXPECT_EQ(rank.error().code, NnErrorCode::weight_rank);
  Tape other;
  auto far = SwiGluFeedForward::from_parameters(
      {"g", w(Shape{2, 3})}, {"u", w(Shape{2, 3})},
      {"d", other.parameter(Tensor::zeros(Shape{3, 2}))});
  EXPECT_EQ(far.error().code, NnErrorCode::different_tapes);
  const auto shared = w(Shape{2, 3});
  auto twice = SwiGluFeedForward::from_parameters({"g", shared}, {"u", shared},
                                                  {"d", w(Shape{3, 2})});
  EXPECT_EQ(twice.error().code, NnErrorCode::duplicate_node);
}

TEST(SwiGlu, ForwardKeepsTheShapeAndRefusesAWrongWidth) {
  Tape tape;
  // d = 1, d_ff = 1: y = SiLU(x·a)·(x·u)·v; at x = 2, a = 0: the gate is closed, y = 0.
  auto layer =
      SwiGluFeedForward::from_parameters({"g", tape.parameter(make(Shape{1, 1}, {0}))},
                                         {"u", tape.parameter(make(Shape{1, 1}, {3}))},
                                         {"d", tape.parameter(make(Shape{1, 1}, {5}))});
  ASSERT_TRUE(layer.has_value());
  const auto x = tape.parameter(make(Shape{2, 1, 1}, {2, -1}));
  auto stages = layer->forward_stages(x);
  ASSERT_TRUE(stages.has_value());
  EXPECT_EQ(stages->output.shape(), (Shape{2, 1, 1}));
  EXPECT_EQ(*stages->output.value(), make(Shape{2, 1, 1}, {0, 0}));
  ASSERT_TRUE(
      llmfs::autograd::backward(stages->output, Tensor::full(Shape{2, 1, 1}, 1.0))
          .has_value());
  // ∂L/∂W₁ = Σ_t x_t·SiLU'(0)·u_t·v = ½·5·Σ_t x_t·3x_t = 7.5·(4 + 1): the closed
  // gate still learns.
  EXPECT_EQ(*layer->gate().weight().value.gradient(), make(Shape{1, 1}, {37.5}));
  EXPECT_EQ(*layer->up().weight().value.gradient(), make(Shape{1, 1}, {0}));
  auto wide = layer->forward(tape.constant(Tensor::zeros(Shape{2, 2})));
  ASSERT_FALSE(wide.has_value());
  EXPECT_EQ(wide.error().code, NnErrorCode::input_width);
  tape.release();
  auto released = layer->forward(x);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, NnErrorCode::autograd);
}

}  // namespace

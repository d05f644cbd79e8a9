// The exact text of every multi-head and head-layout error. Each message must name the
// stage that failed and the cause; the strings below are written out by hand from the
// formats `multi-head attention, <stage>: <description> (<detail>): <cause>` and
// `<stage>: <description> (<detail>): <cause>`, so a change of wording fails here
// first.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>

#include "../../snippets/ch30-multi-head-attention/fixture.hpp"
#include "attention/test_util.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::attention::HeadLayoutError;
using llmfs::attention::HeadLayoutErrorCode;
using llmfs::attention::merge_heads;
using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadError;
using llmfs::attention::MultiHeadErrorCode;
using llmfs::attention::MultiHeadStage;
using llmfs::attention::split_heads;
using llmfs::autograd::Tape;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::make;

// The chapter-30 fixture's identity matrix, RoPE capacity and base.
using ch30::identity;
using ch30::kMaxPositions;
using ch30::kRopeBase;

// A d_model = 4, h = 2 layer (capacity 6, base 100) with parameters q, k, v, o as nodes
// 0..3.
MultiHeadAttention layer_on(Tape& tape) {
  auto w = [&] { return tape.parameter(identity()); };
  auto made = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", w()}, {"v", w()}, {"o", w()}, 2, kMaxPositions, kRopeBase);
  EXPECT_TRUE(made.has_value());
  return std::move(*made);
}

MultiHeadError create_error(std::size_t width, std::size_t heads, std::size_t capacity,
                            double base) {
  Tape tape;
  SplitMix64 rng(1);
  auto made =
      MultiHeadAttention::create(tape, "attention", width, heads, capacity, base, rng);
  EXPECT_FALSE(made.has_value());
  return made.error();
}

MultiHeadError forward_error(Shape shape, std::size_t offset) {
  Tape tape;
  const auto layer = layer_on(tape);
  auto forward = layer.forward(tape.constant(Tensor::zeros(std::move(shape))), offset);
  EXPECT_FALSE(forward.has_value());
  return forward.error();
}

struct MultiHeadCase {
  MultiHeadErrorCode code;
  MultiHeadError error;
  std::string expected;
};

TEST(MultiHeadErrorMessages, EveryCodeNamesItsStageAndCause) {
  const std::size_t near_max = std::numeric_limits<std::size_t>::max() - 1;

  // stage_failed with a tape cause: the input's tape is released after the layer exists
  Tape released_tape;
  const auto released_layer = layer_on(released_tape);
  const auto released_input =
      released_tape.constant(make(Shape{1, 1, 4}, {1, 2, 3, 4}));  // node 4
  released_tape.release();
  auto released = released_layer.forward(released_input, 0);
  ASSERT_FALSE(released.has_value());

  // stage_failed with an nn cause: two parameters named "q"
  Tape duplicate_tape;
  auto w = [&] { return duplicate_tape.parameter(identity()); };
  auto duplicate = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", w()}, {"v", w()}, {"q", w()}, 2, kMaxPositions, kRopeBase);
  ASSERT_FALSE(duplicate.has_value());

  // parameter_shape: W_O is [4,2]
  Tape narrow_tape;
  auto v = [&] { return narrow_tape.parameter(identity()); };
  auto narrow = MultiHeadAttention::from_parameters(
      {"q", v()}, {"k", v()}, {"v", v()},
      {"o", narrow_tape.parameter(Tensor::zeros(Shape{4, 2}))}, 2, kMaxPositions,
      kRopeBase);
  ASSERT_FALSE(narrow.has_value());

  Tape kernel_tape;
  SplitMix64 kernel_rng(1);
  auto no_kernel = MultiHeadAttention::create(
      kernel_tape, "mha", 4, 2,
      llmfs::attention::RotaryPositions{kMaxPositions, kRopeBase}, kernel_rng,
      llmfs::attention::AttentionKernel{"none", 1, nullptr});
  ASSERT_FALSE(no_kernel.has_value());

  const std::vector<MultiHeadCase> cases{
      {MultiHeadErrorCode::missing_kernel, no_kernel.error(),
       "multi-head attention, configuration: attention kernel has no function (none)"},
      {MultiHeadErrorCode::zero_model_width,
       create_error(0, 2, kMaxPositions, kRopeBase),
       "multi-head attention, configuration: model width must be nonzero"},
      {MultiHeadErrorCode::zero_heads, create_error(4, 0, kMaxPositions, kRopeBase),
       "multi-head attention, configuration: head count must be nonzero"},
      {MultiHeadErrorCode::width_not_divisible,
       create_error(4, 3, kMaxPositions, kRopeBase),
       "multi-head attention, configuration: model width not divisible by head count "
       "(d_model 4, 3 heads)"},
      {MultiHeadErrorCode::odd_head_width, create_error(4, 4, kMaxPositions, kRopeBase),
       "multi-head attention, configuration: head width must be even for RoPE "
       "(d_model 4, 4 heads: d_h 1)"},
      {MultiHeadErrorCode::parameter_shape, narrow.error(),
       "multi-head attention, configuration: projection matrix has the wrong shape "
       "(W_O is [4,2], expected [4,4])"},
      {MultiHeadErrorCode::input_rank, forward_error(Shape{3, 5}, 0),
       "multi-head attention, input: input must have rank 3 [B, T, d_model] (got "
       "[3,5])"},
      {MultiHeadErrorCode::input_width, forward_error(Shape{1, 3, 5}, 0),
       "multi-head attention, input: input width differs from the model width "
       "(expected 4, got 5)"},
      {MultiHeadErrorCode::empty_tokens, forward_error(Shape{1, 0, 4}, 0),
       "multi-head attention, input: at least one token is needed (got [1,0,4])"},
      {MultiHeadErrorCode::offset_overflow, forward_error(Shape{1, 3, 4}, near_max),
       "multi-head attention, input: position interval overflows "
       "(offset 18446744073709551614 plus 3 tokens)"},
      {MultiHeadErrorCode::position_range, forward_error(Shape{1, 3, 4}, 4),
       "multi-head attention, input: position interval exceeds capacity "
       "(positions [4, 7) but capacity 6)"},
      {MultiHeadErrorCode::stage_failed, create_error(4, 2, kMaxPositions, 0.5),
       "multi-head attention, configuration: RoPE configuration: base must be finite "
       "and "
       "greater than 1 (width 2, max_positions 6, base 0.5)"},
      {MultiHeadErrorCode::stage_failed, create_error(4, 2, 0, kRopeBase),
       "multi-head attention, configuration: RoPE configuration: capacity must be at "
       "least one "
       "position (width 2, max_positions 0, base 100)"},
      {MultiHeadErrorCode::stage_failed, released.error(),
       "multi-head attention, Q/K/V projection: linear q: tape operation failed: "
       "matmul: released input (node 4)"},
      {MultiHeadErrorCode::stage_failed, duplicate.error(),
       "multi-head attention, parameters: named parameters: duplicate parameter name "
       "('q' at entries 0 and 3)"},
  };
  // Every code appears at least once.
  for (int code = 0; code <= static_cast<int>(MultiHeadErrorCode::stage_failed);
       ++code) {
    bool seen = false;
    for (const auto& c : cases)
      seen = seen || static_cast<int>(c.code) == code;
    EXPECT_TRUE(seen) << "no message case for MultiHeadErrorCode " << code;
  }
  for (const auto& c : cases) {
    EXPECT_EQ(c.error.code, c.code) << c.expected;
    EXPECT_EQ(fmt::format("{}", c.error), c.expected);
  }
}

TEST(MultiHeadErrorMessages, AHeadMergeTapeErrorKeepsItsWholeChain) {
  Tape released_tape;
  const auto to_merge =
      released_tape.constant(Tensor::zeros(Shape{1, 2, 3, 2}));  // node 0
  released_tape.release();
  auto merge_released = merge_heads(to_merge);
  ASSERT_FALSE(merge_released.has_value());
  // The merge-side tape error, wrapped by the layer, keeps the whole chain.
  const MultiHeadError wrapped{MultiHeadErrorCode::stage_failed, MultiHeadStage::merge,
                               "", merge_released.error()};
  EXPECT_EQ(
      fmt::format("{}", wrapped),
      "multi-head attention, head merge: head merge transpose: tape operation failed: "
      "transpose: released input (node 0)");
  ASSERT_NE(autograd_cause(wrapped), nullptr);
  EXPECT_EQ(autograd_cause(wrapped)->code,
            llmfs::autograd::AutogradErrorCode::released_input);
}

}  // namespace

// Chapter 30: the head layout. Split then merge is the identity bit for bit, with the
// element map written out; every HeadLayoutErrorCode with its exact message.

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/head_layout.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/multi_head_fixture.hpp"
#include "attention/test_util.hpp"

namespace {

using namespace llmfs::testing::multi_head;
using llmfs::attention::HeadLayoutError;

TEST(HeadLayout, SplitThenMergeIsBitwiseIdentity) {
  SplitMix64 rng(30);
  const Tensor x = *llmfs::nn::uniform_fan_in(Shape{2, 3, 8}, 1, rng);
  Tape tape;
  auto input = tape.constant(x);
  auto split = split_heads(input, 4);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->shape(), (Shape{2, 4, 3, 2}));
  const Tensor heads = value_of(*split);
  // split[b,h,t,j] = x[b,t,h·d_h + j]
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 4; ++h)
      for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t j = 0; j < 2; ++j)
          EXPECT_TRUE(same_bits(heads.values()[((b * 4 + h) * 3 + t) * 2 + j],
                                x.values()[(b * 3 + t) * 8 + h * 2 + j]));
  auto merged = merge_heads(*split);
  ASSERT_TRUE(merged.has_value());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(value_of(*merged), x));
  // And the fixture's own projections.
  auto run = run_fixture();
  auto back = merge_heads(run->forward.projected_query_heads);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(value_of(*back), fixture_input()));
}

TEST(HeadLayout, HeadLayoutErrorsAreTyped) {
  Tape tape;
  auto code_of_split = [&](Shape shape, std::size_t heads) {
    auto split = split_heads(tape.constant(Tensor::zeros(shape)), heads);
    EXPECT_FALSE(split.has_value());
    return split ? HeadLayoutErrorCode::autograd : split.error().code;
  };
  EXPECT_EQ(code_of_split(Shape{3, 4}, 2), HeadLayoutErrorCode::split_rank);
  EXPECT_EQ(code_of_split(Shape{1, 3, 4}, 0), HeadLayoutErrorCode::zero_heads);
  EXPECT_EQ(code_of_split(Shape{1, 3, 0}, 2), HeadLayoutErrorCode::zero_head_width);
  EXPECT_EQ(code_of_split(Shape{1, 3, 6}, 4), HeadLayoutErrorCode::width_not_divisible);
  auto code_of_merge = [&](Shape shape) {
    auto merged = merge_heads(tape.constant(Tensor::zeros(shape)));
    EXPECT_FALSE(merged.has_value());
    return merged ? HeadLayoutErrorCode::autograd : merged.error().code;
  };
  EXPECT_EQ(code_of_merge(Shape{1, 3, 4}), HeadLayoutErrorCode::merge_rank);
  EXPECT_EQ(code_of_merge(Shape{1, 0, 3, 2}), HeadLayoutErrorCode::zero_heads);
  EXPECT_EQ(code_of_merge(Shape{1, 2, 3, 0}), HeadLayoutErrorCode::zero_head_width);
  const std::size_t huge = std::size_t{1} << 40;
  EXPECT_EQ(code_of_merge(Shape{0, huge, 1, huge}),
            HeadLayoutErrorCode::model_width_overflow);
  auto x = tape.constant(Tensor::zeros(Shape{1, 3, 4}));
  tape.release();
  auto released = split_heads(x, 2);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, HeadLayoutErrorCode::autograd);
  EXPECT_EQ(released.error().stage, "head split reshape");
  EXPECT_EQ(released.error().cause->code, AutogradErrorCode::released_input);
}

struct LayoutCase {
  HeadLayoutErrorCode code;
  HeadLayoutError error;
  std::string expected;
};

TEST(HeadLayoutErrorMessages, EveryCodeNamesItsStepAndCause) {
  Tape tape;
  auto split_error = [&](Shape shape, std::size_t heads) {
    auto split = split_heads(tape.constant(Tensor::zeros(std::move(shape))), heads);
    EXPECT_FALSE(split.has_value());
    return split.error();
  };
  auto merge_error = [&](Shape shape) {
    auto merged = merge_heads(tape.constant(Tensor::zeros(std::move(shape))));
    EXPECT_FALSE(merged.has_value());
    return merged.error();
  };
  const std::size_t huge = std::size_t{1} << 40;  // 2^40 · 2^40 overflows 64 bits

  // A released input reaching each side: split fails in its reshape, merge in its
  // transpose.
  Tape released_tape;
  const auto to_split =
      released_tape.constant(Tensor::zeros(Shape{1, 3, 4}));  // node 0
  const auto to_merge =
      released_tape.constant(Tensor::zeros(Shape{1, 2, 3, 2}));  // node 1
  released_tape.release();
  auto split_released = split_heads(to_split, 2);
  auto merge_released = merge_heads(to_merge);
  ASSERT_FALSE(split_released.has_value());
  ASSERT_FALSE(merge_released.has_value());

  const std::vector<LayoutCase> cases{
      {HeadLayoutErrorCode::split_rank, split_error(Shape{3, 4}, 2),
       "head split: input must have rank 3 [B, T, d_model] (got [3,4])"},
      {HeadLayoutErrorCode::merge_rank, merge_error(Shape{1, 3, 4}),
       "head merge: input must have rank 4 [B, h, T, d_h] (got [1,3,4])"},
      {HeadLayoutErrorCode::zero_heads, split_error(Shape{1, 3, 4}, 0),
       "head split: head count must be nonzero"},
      {HeadLayoutErrorCode::zero_heads, merge_error(Shape{1, 0, 3, 2}),
       "head merge: head count must be nonzero"},
      {HeadLayoutErrorCode::zero_head_width, split_error(Shape{1, 3, 0}, 2),
       "head split: head width must be nonzero (model width 0)"},
      {HeadLayoutErrorCode::zero_head_width, merge_error(Shape{1, 2, 3, 0}),
       "head merge: head width must be nonzero (head width 0)"},
      {HeadLayoutErrorCode::width_not_divisible, split_error(Shape{1, 3, 6}, 4),
       "head split: width not divisible by head count (width 6, 4 heads)"},
      {HeadLayoutErrorCode::model_width_overflow, merge_error(Shape{0, huge, 1, huge}),
       "head merge: merged width overflows (1099511627776 heads of width "
       "1099511627776)"},
      {HeadLayoutErrorCode::autograd, split_released.error(),
       "head split reshape: tape operation failed: reshape: released input (node 0)"},
      {HeadLayoutErrorCode::autograd, merge_released.error(),
       "head merge transpose: tape operation failed: transpose: released input (node "
       "1)"},
  };
  for (int code = 0; code <= static_cast<int>(HeadLayoutErrorCode::autograd); ++code) {
    bool seen = false;
    for (const auto& c : cases)
      seen = seen || static_cast<int>(c.code) == code;
    EXPECT_TRUE(seen) << "no message case for HeadLayoutErrorCode " << code;
  }
  for (const auto& c : cases) {
    EXPECT_EQ(c.error.code, c.code) << c.expected;
    EXPECT_EQ(fmt::format("{}", c.error), c.expected);
  }
}

}  // namespace

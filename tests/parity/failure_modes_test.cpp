// The lesson's failure-modes table as tests: each deliberately wrong variant of the appendix
// snippet (snippets/ch40-pytorch-parity/variants.cpp) is caught by the parity check against
// PyTorch's data, or rejected by the library with a typed error. Where torch could run the
// same mistake, the variant must reproduce torch's wrong output too: the variant is the
// lesson's mistake, not some other bug.
#include <gtest/gtest.h>

#include <string>

#include <llmfs/tensor/error.hpp>

#include "evidence.hpp"
#include "variants.hpp"

namespace {

using ch40::FailureOutcome;
using ch40::Mistake;
using llmfs::testing::load_reference_case;

FailureOutcome seed123(Mistake m, double bias = 0.0) {
  return ch40::run_variant(load_reference_case("ch40_seed123_float64"), m, bias);
}
FailureOutcome tokens_equal_heads(Mistake m) {
  return ch40::run_variant(load_reference_case("ch40_random_b1_t4_h4"), m);
}

llmfs::tensor::TensorErrorCode error_code(Mistake m) {
  const auto data = load_reference_case("ch40_seed123_float64");
  auto result = ch40::lesson_forward(ch40::to_tensor(data.at("X")), ch40::to_tensor(data.at("W_in")),
                                     ch40::to_tensor(data.at("W_O")), 4, m);
  EXPECT_FALSE(result.has_value());
  return result ? llmfs::tensor::TensorErrorCode::size_mismatch : result.error().code;
}

TEST(FailureModes, CorrectStepsPassTheParityCheck) {
  const auto outcome = seed123(Mistake::none);
  EXPECT_FALSE(outcome.caught()) << outcome.caught_by();
  EXPECT_LE(outcome.relative, 1e-12);
  EXPECT_EQ(outcome.parameters, 4096u);
}

TEST(FailureModes, WrongSplitOrderIsCaughtByTheOutputAndReproducesTorchsMistake) {
  const auto outcome = seed123(Mistake::split_order);
  EXPECT_EQ(outcome.caught_by(), "output");
  EXPECT_GT(outcome.relative, 0.1);
  ASSERT_TRUE(outcome.matches_torch_variant.has_value());
  EXPECT_TRUE(*outcome.matches_torch_variant);
}

TEST(FailureModes, MissingTransposeIsATypedBroadcastErrorWhenTokensDifferFromHeads) {
  const auto outcome = seed123(Mistake::missing_transpose);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.caught_by(), "typed error");
  EXPECT_EQ(*outcome.error, "add: shapes do not broadcast: [2,5,4,4] and [5,5] (axis -1: 4 vs 5)");
  EXPECT_EQ(error_code(Mistake::missing_transpose), llmfs::tensor::TensorErrorCode::broadcast_mismatch);
  EXPECT_NE(outcome.torch_says.find("must match the size"), std::string::npos) << outcome.torch_says;
}

TEST(FailureModes, MissingTransposeRunsSilentlyWhenTokensEqualHeadsAndParityCatchesIt) {
  const auto outcome = tokens_equal_heads(Mistake::missing_transpose);
  EXPECT_FALSE(outcome.error.has_value());
  EXPECT_EQ(outcome.caught_by(), "output");
  EXPECT_GT(outcome.relative, 0.1);
  ASSERT_TRUE(outcome.matches_torch_variant.has_value());
  EXPECT_TRUE(*outcome.matches_torch_variant);
}

TEST(FailureModes, MissingContiguityCannotBeWrittenHereBecauseTransposeCopies) {
  // PyTorch: transpose(1,2).view(B,T,d) raises; this library's transpose materialises a new
  // contiguous tensor, so transpose-then-reshape is already the correct merge, bit for bit.
  const auto data = load_reference_case("ch40_seed123_float64");
  const auto x = ch40::to_tensor(data.at("X"));
  const auto w_in = ch40::to_tensor(data.at("W_in"));
  const auto w_o = ch40::to_tensor(data.at("W_O"));
  const auto correct = ch40::lesson_forward(x, w_in, w_o, 4, Mistake::none);
  const auto no_copy = ch40::lesson_forward(x, w_in, w_o, 4, Mistake::missing_contiguity);
  ASSERT_TRUE(correct && no_copy);
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(correct->output, no_copy->output));
  const auto outcome = seed123(Mistake::missing_contiguity);
  EXPECT_FALSE(outcome.caught());
  EXPECT_NE(outcome.torch_says.find("view size is not compatible"), std::string::npos) << outcome.torch_says;
}

TEST(FailureModes, WrongMergeOrderIsCaughtByTheOutputAndReproducesTorchsMistake) {
  const auto outcome = seed123(Mistake::merge_order);
  EXPECT_EQ(outcome.caught_by(), "output");
  EXPECT_GT(outcome.relative, 0.1);
  ASSERT_TRUE(outcome.matches_torch_variant.has_value());
  EXPECT_TRUE(*outcome.matches_torch_variant);
}

TEST(FailureModes, MaskWithoutAHeadAxisIsATypedBroadcastError) {
  const auto outcome = seed123(Mistake::mask_batch_only);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(*outcome.error, "add: shapes do not broadcast: [2,4,5,5] and [2,5,5] (axis -3: 4 vs 2)");
  EXPECT_EQ(error_code(Mistake::mask_batch_only), llmfs::tensor::TensorErrorCode::broadcast_mismatch);
  EXPECT_NE(outcome.torch_says.find("must match the size"), std::string::npos) << outcome.torch_says;
}

TEST(FailureModes, MaskWithoutAHeadAxisBroadcastsHarmlesslyForOneSequence) {
  // B = 1: [1,T,T] broadcasts against [1,h,T,T], and every row of a causal mask is the same,
  // so nothing is wrong; torch agrees.
  const auto outcome = tokens_equal_heads(Mistake::mask_batch_only);
  EXPECT_FALSE(outcome.caught());
  ASSERT_TRUE(outcome.matches_torch_variant.has_value());
  EXPECT_TRUE(*outcome.matches_torch_variant);
}

TEST(FailureModes, ZeroOutputBiasIsCaughtOnlyByTheParameterCount) {
  // nn.MultiheadAttention(bias=True) initialises its biases to zero: the output still matches,
  // the parameter list does not (4096 + 32 here; torch's bias=True adds 4·32).
  const auto outcome = seed123(Mistake::output_bias, 0.0);
  EXPECT_LE(outcome.relative, 1e-12);
  EXPECT_EQ(outcome.parameters, 4096u + 32u);
  EXPECT_EQ(outcome.caught_by(), "parameter count");
}

TEST(FailureModes, NonzeroOutputBiasIsCaughtByTheOutput) {
  const auto outcome = seed123(Mistake::output_bias, ch40::kBiasValue);
  EXPECT_EQ(outcome.caught_by(), "output and parameter count");
  // A bias of 0.001 on outputs up to 123: tiny, but 10^7 times the float64 criterion.
  EXPECT_GT(outcome.relative, 1e-6);
}

TEST(FailureModes, EveryMistakeExceptTheImpossibleOneIsCaught) {
  for (const Mistake m : ch40::kMistakes) {
    if (m == Mistake::none || m == Mistake::missing_contiguity) continue;
    EXPECT_TRUE(seed123(m, m == Mistake::output_bias ? ch40::kBiasValue : 0.0).caught()) << ch40::mistake_name(m);
  }
}

}  // namespace

// The lesson's failure-modes table as tests: each deliberately wrong variant of the
// appendix snippet (snippets/ch40-pytorch-parity/variants.cpp) is caught by the parity
// check against PyTorch's data, or rejected by the library with a typed error. Where
// torch could run the same mistake, the variant must reproduce torch's wrong output
// too: the variant is the lesson's mistake, not some other bug.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "evidence.hpp"

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
  auto result = ch40::lesson_forward(ch40::to_tensor(data.at("X")),
                                     ch40::to_tensor(data.at("W_in")),
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
  ASSERT_TRUE(outcome.torch_variant_relative.has_value());
  EXPECT_LE(*outcome.torch_variant_relative, 1e-12);
}

TEST(FailureModes, MissingTransposeIsATypedBroadcastErrorWhenTokensDifferFromHeads) {
  const auto outcome = seed123(Mistake::missing_transpose);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.caught_by(), "typed error");
  EXPECT_EQ(*outcome.error,
            "add: shapes do not broadcast: [2,5,4,4] and [5,5] (axis -1: 4 vs 5)");
  EXPECT_EQ(error_code(Mistake::missing_transpose),
            llmfs::tensor::TensorErrorCode::broadcast_mismatch);
  EXPECT_NE(outcome.torch_says.find("must match the size"), std::string::npos)
      << outcome.torch_says;
}

TEST(FailureModes, MissingTransposeRunsSilentlyWhenTokensEqualHeadsAndParityCatchesIt) {
  const auto outcome = tokens_equal_heads(Mistake::missing_transpose);
  EXPECT_FALSE(outcome.error.has_value());
  EXPECT_EQ(outcome.caught_by(), "output");
  EXPECT_GT(outcome.relative, 0.1);
  ASSERT_TRUE(outcome.torch_variant_relative.has_value());
  EXPECT_LE(*outcome.torch_variant_relative, 1e-12);
}

// The lesson's "missing contiguous()" mistake has no counterpart here:
// Mistake::missing_contiguity runs the same code as the correct merge (there is no
// separate copy step to leave out), so comparing the two outputs would prove nothing.
// What makes the mistake impossible is a property of tensor::transpose, tested
// directly: it returns a NEW tensor whose values are stored in row-major order of the
// transposed shape (PyTorch's transpose returns a strided view of the old storage
// instead). A following reshape reads that order, so transpose-then-reshape is already
// PyTorch's transpose(1,2).contiguous().view(B,T,d).
TEST(FailureModes, TransposeStoresItsResultRowMajorSoMergeNeedsNoContiguousStep) {
  // Distinct values 0..n-1 in a [B,h,T,d_h] = [2,3,4,5] tensor: every entry is its own
  // index.
  constexpr std::size_t B = 2, H = 3, T = 4, D = 5;
  std::vector<double> iota(B * H * T * D);
  for (std::size_t i = 0; i < iota.size(); ++i)
    iota[i] = static_cast<double>(i);
  const auto heads = llmfs::tensor::Tensor::from({B, H, T, D}, iota);
  ASSERT_TRUE(heads);
  const auto swapped = llmfs::tensor::transpose(*heads, 1, 2);
  ASSERT_TRUE(swapped);
  EXPECT_EQ(swapped->shape(), (llmfs::tensor::Shape{B, T, H, D}));
  // Row-major order of [B,T,h,d_h]: position ((b·T + t)·h + i)·d_h + f holds element
  // (b,i,t,f).
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t t = 0; t < T; ++t)
      for (std::size_t i = 0; i < H; ++i)
        for (std::size_t f = 0; f < D; ++f)
          ASSERT_EQ(swapped->values()[((b * T + t) * H + i) * D + f],
                    iota[((b * H + i) * T + t) * D + f])
              << "b=" << b << " t=" << t << " head=" << i << " f=" << f;

  // On PyTorch's own numbers: transpose + reshape of torch's head outputs [2,4,5,8] is,
  // bit for bit, torch's merged tensor, which torch computed with
  // transpose(1,2).contiguous().view(...).
  const auto data = load_reference_case("ch40_seed123_float64");
  const auto torch_heads = ch40::to_tensor(data.at("head_outputs"));
  const auto torch_swapped = llmfs::tensor::transpose(torch_heads, 1, 2);
  ASSERT_TRUE(torch_swapped);
  const auto merged = llmfs::tensor::reshape(*torch_swapped, {2, 5, 32});
  ASSERT_TRUE(merged);
  EXPECT_TRUE(
      llmfs::tensor::bitwise_equal(*merged, ch40::to_tensor(data.at("merged"))));
  // ...while torch, given the same steps without contiguous(), refuses the view.
  const auto outcome = seed123(Mistake::missing_contiguity);
  EXPECT_NE(outcome.torch_says.find("view size is not compatible"), std::string::npos)
      << outcome.torch_says;
}

TEST(FailureModes, WrongMergeOrderIsCaughtByTheOutputAndReproducesTorchsMistake) {
  const auto outcome = seed123(Mistake::merge_order);
  EXPECT_EQ(outcome.caught_by(), "output");
  EXPECT_GT(outcome.relative, 0.1);
  ASSERT_TRUE(outcome.torch_variant_relative.has_value());
  EXPECT_LE(*outcome.torch_variant_relative, 1e-12);
}

TEST(FailureModes, MaskWithoutAHeadAxisIsATypedBroadcastError) {
  const auto outcome = seed123(Mistake::mask_batch_only);
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(*outcome.error,
            "add: shapes do not broadcast: [2,4,5,5] and [2,5,5] (axis -3: 4 vs 2)");
  EXPECT_EQ(error_code(Mistake::mask_batch_only),
            llmfs::tensor::TensorErrorCode::broadcast_mismatch);
  EXPECT_NE(outcome.torch_says.find("must match the size"), std::string::npos)
      << outcome.torch_says;
}

TEST(FailureModes, MaskWithoutAHeadAxisBroadcastsHarmlesslyForOneSequence) {
  // B = 1: [1,T,T] broadcasts against [1,h,T,T], and every row of a causal mask is the
  // same, so nothing is wrong; torch agrees.
  const auto outcome = tokens_equal_heads(Mistake::mask_batch_only);
  EXPECT_FALSE(outcome.caught());
  ASSERT_TRUE(outcome.torch_variant_relative.has_value());
  EXPECT_LE(*outcome.torch_variant_relative, 1e-12);
}

TEST(FailureModes, ZeroOutputBiasIsCaughtOnlyByTheParameterCount) {
  // nn.MultiheadAttention(bias=True) initialises its biases to zero: the output still
  // matches, the parameter list does not (4096 + 32 here; torch's bias=True adds 4·32).
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
    EXPECT_TRUE(seed123(m, m == Mistake::output_bias ? ch40::kBiasValue : 0.0).caught())
        << ch40::mistake_name(m);
  }
}

}  // namespace

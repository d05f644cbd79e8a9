// The appendix's exercise answers (snippets/ch40-pytorch-parity/exercises.cpp) against
// the same questions answered by torch (tests/reference/data/ch40_exercises.txt) and
// against the seed's statements (d = 128, W_in [128,384], W_O [128,128], 3·d²
// parameters either way).
#include <vector>

#include <gtest/gtest.h>

#include "evidence.hpp"

namespace {

using llmfs::testing::load_reference_case;

std::vector<double> as_doubles(std::span<const std::size_t> values) {
  return {values.begin(), values.end()};
}

TEST(Exercises, ModelWidthAndMatrixShapesMatchTheSeedAndTorch) {
  const auto a = ch40::answer_exercises();
  const auto torch = load_reference_case("ch40_exercises");
  EXPECT_EQ(a.model_width, 128u);
  EXPECT_EQ(a.w_in_shape, (llmfs::tensor::Shape{128, 384}));
  EXPECT_EQ(a.w_o_shape, (llmfs::tensor::Shape{128, 128}));
  EXPECT_EQ(static_cast<double>(a.model_width), torch.scalar("d_model"));
  EXPECT_EQ(as_doubles(a.w_in_shape.dims()), torch.at("W_in_shape").values);
  EXPECT_EQ(as_doubles(a.w_o_shape.dims()), torch.at("W_O_shape").values);
}

TEST(Exercises, StridesAfterViewAndTransposeMatchTorch) {
  const auto a = ch40::answer_exercises();
  const auto torch = load_reference_case("ch40_exercises");
  EXPECT_EQ(a.view_strides, (std::vector<std::size_t>{1280, 128, 16, 1}));
  EXPECT_EQ(as_doubles(a.view_strides), torch.at("view_strides").values);
  EXPECT_EQ(as_doubles(a.split_shape.dims()), torch.at("split_shape").values);
  EXPECT_EQ(as_doubles(a.split_strides), torch.at("split_strides").values);
  EXPECT_EQ(a.split_contiguous, torch.scalar("split_is_contiguous") != 0.0);
  EXPECT_FALSE(a.split_contiguous);
  EXPECT_EQ(as_doubles(a.contiguous_strides),
            torch.at("contiguous_split_strides").values);
}

TEST(Exercises, CausalMaskBroadcastsAgainstTheScoresAsInTorch) {
  const auto a = ch40::answer_exercises();
  const auto torch = load_reference_case("ch40_exercises");
  EXPECT_EQ(as_doubles(a.mask_shape.dims()), torch.at("mask_shape").values);
  EXPECT_EQ(as_doubles(a.mask_broadcast_shape.dims()),
            torch.at("mask_broadcast_shape").values);
  EXPECT_EQ(a.mask_broadcast_shape, a.scores_shape);
}

TEST(Exercises, CombinedAndSeparateInProjectionsHoldThreeDSquaredParameters) {
  const auto a = ch40::answer_exercises();
  const auto torch = load_reference_case("ch40_exercises");
  EXPECT_EQ(a.combined_parameters, 3u * 128u * 128u);
  EXPECT_EQ(a.separate_parameters, a.combined_parameters);
  EXPECT_EQ(static_cast<double>(a.combined_parameters),
            torch.scalar("in_proj_parameters_combined"));
  EXPECT_EQ(static_cast<double>(a.separate_parameters),
            torch.scalar("in_proj_parameters_separate"));
}

}  // namespace

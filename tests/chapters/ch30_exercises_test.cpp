// Chapter 30's exercise answers, as computed by
// snippets/ch30-multi-head-attention/exercises.cpp, checked against derivations written
// here.

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "chapters/ch30_support.hpp"

namespace {

using ch30_test::evidence;
using llmfs::tensor::Shape;

TEST(Ch30Exercises, WidthSixAcceptsOneAndThreeHeadsOnly) {
  const auto& choices = evidence().exercises.width_six;
  ASSERT_EQ(choices.size(), 5u);
  for (const auto& choice : choices) {
    // The rule: h must divide 6, then d_h = 6/h must be even.
    const char* expected = 6 % choice.heads != 0         ? "not_divisible"
                           : (6 / choice.heads) % 2 != 0 ? "odd_head_width"
                                                         : "accepted";
    EXPECT_EQ(choice.verdict, expected) << "h=" << choice.heads;
  }
  EXPECT_EQ(choices[0].heads, 1u);
  EXPECT_EQ(choices[0].verdict, "accepted");
  EXPECT_EQ(choices[1].verdict, "odd_head_width");
  EXPECT_EQ(choices[1].head_width, 3u);
  EXPECT_EQ(choices[2].verdict, "accepted");
  EXPECT_EQ(choices[2].head_width, 2u);
  EXPECT_EQ(choices[3].verdict, "not_divisible");
  EXPECT_EQ(choices[4].verdict, "odd_head_width");
  EXPECT_EQ(choices[4].head_width, 1u);
}

TEST(Ch30Exercises, ShapeTraceForTwoSequencesOfFiveTokensAndThreeHeads) {
  // B=2, T=5, d_model=12, h=3, d_h=4.
  const std::vector<std::pair<std::string, Shape>> expected = {
      {"input", {2, 5, 12}},           {"qkv", {2, 5, 12}},
      {"split", {2, 3, 5, 4}},         {"rotated", {2, 3, 5, 4}},
      {"weights_per_head", {2, 5, 5}}, {"weights", {2, 3, 5, 5}},
      {"head_outputs", {2, 3, 5, 4}},  {"merged", {2, 5, 12}},
      {"output", {2, 5, 12}}};
  EXPECT_EQ(evidence().exercises.shape_trace, expected);
}

TEST(Ch30Exercises, BothHeadsShareOneVisibilityTriangle) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.visible_keys[0], (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(e.visible_keys[1], (std::vector<std::size_t>{1, 2, 3}));
  // The triangles are equal; the allowed probabilities are not (row 1: 0.5 vs
  // 0.213809).
  const auto w = evidence().attention_weights.values();
  EXPECT_NE(w[3], w[9 + 3]);
}

TEST(Ch30Exercises, OneFullWidthTableDiffersFromBothHeadTables) {
  const auto single_head = evidence().single_head_weights.values();
  const auto heads = evidence().attention_weights.values();
  const std::array<double, 2> single_head_row_one = {single_head[3], single_head[4]};
  const std::array<double, 2> head_zero_row_one = {heads[3], heads[4]};
  const std::array<double, 2> head_one_row_one = {heads[12], heads[13]};
  // Full width, Q = K = V = X, scale 1/√4: row 1 scores X1·X0/2 = cos(1)/2 and X1·X1/2
  // = 1.
  const double single = 1.0 / (1.0 + std::exp(1.0 - std::cos(1.0) / 2.0));
  EXPECT_NEAR(single_head_row_one[0], single, 1e-15);
  EXPECT_NEAR(single_head_row_one[1], 1.0 - single, 1e-15);
  EXPECT_EQ(llmfs::report::format_number(single_head_row_one[0]), "0.325228");
  EXPECT_EQ(head_zero_row_one[0], 0.5);
  EXPECT_EQ(llmfs::report::format_number(head_one_row_one[0]), "0.213809");
  EXPECT_GT(std::abs(single_head_row_one[0] - head_zero_row_one[0]), 0.1);
  EXPECT_GT(std::abs(single_head_row_one[0] - head_one_row_one[0]), 0.1);
}

TEST(Ch30Exercises, OffBlockOutputEntryMakesY2EqualAPlusC) {
  const auto& e = evidence().exercises;
  // Powers of ten keep every sum of distinct symbols distinguishable.
  const double a = 1.0, b = 10.0, c = 100.0, d = 1000.0;
  EXPECT_EQ(std::vector<double>(e.concatenated.values().begin(),
                                e.concatenated.values().end()),
            (std::vector<double>{a, b, c, d}));
  EXPECT_EQ(std::vector<double>(e.swapped.values().begin(), e.swapped.values().end()),
            (std::vector<double>{c, d, a, b}));
  EXPECT_EQ(
      std::vector<double>(e.off_block.values().begin(), e.off_block.values().end()),
      (std::vector<double>{a, b, a + c, d}));
  EXPECT_EQ(e.off_block.values()[2], 101.0);
}

TEST(Ch30Exercises, ChangingTokenTwoLeavesRowsZeroAndOneBitwiseIdentical) {
  const auto& p = evidence();
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(p.prefix_perturbed_output.values()[i]),
              std::bit_cast<std::uint64_t>(p.output.values()[i]))
        << i;
  // The printed answer counts the changed coordinates of each row.
  EXPECT_EQ(ch30::changed_per_row(p.prefix_perturbed_output, p.output),
            (std::vector<std::size_t>{0, 0, 4}));
}

TEST(Ch30Exercises, DenseQueryProjectionLetsHeadZeroReadInputFeatureThree) {
  const auto& e = evidence().exercises;
  // (W_Q)[3][0] = 1 adds input feature 3 of token 1 (which is 1) to head 0's first
  // query coordinate.
  // Head 0, token 1 sits at [0,0,1,:] of [1,2,3,2].
  const auto identity = evidence().projected_query_heads.values().subspan(2, 2);
  const auto mixed = e.dense_query_heads.values().subspan(2, 2);
  EXPECT_NEAR(identity[0], std::cos(1.0), 1e-15);
  EXPECT_NEAR(mixed[0], std::cos(1.0) + 1.0, 1e-15);
  EXPECT_EQ(mixed[1], identity[1]);
}

TEST(Ch30Exercises, ParameterCountAtModelWidth128Is65536) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.wide_model_width, 128u);
  EXPECT_EQ(e.wide_heads, 4u);
  EXPECT_EQ(e.wide_parameters, 4u * 128u * 128u);
  EXPECT_EQ(e.wide_parameters, 65536u);
  EXPECT_EQ(evidence().parameter_count, 64u);  // and 4·4² for the fixture
}

}  // namespace

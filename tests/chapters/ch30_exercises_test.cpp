// Chapter 30's exercise answers, as computed by
// snippets/ch30-multi-head-attention/exercises.cpp, checked against derivations written
// here.

#include <cmath>

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
  EXPECT_TRUE(e.triangles_equal);
  EXPECT_TRUE(e.blocked_exact_zero);
  EXPECT_FALSE(e.allowed_probabilities_equal);
}

TEST(Ch30Exercises, OneFullWidthTableDiffersFromBothHeadTables) {
  const auto& e = evidence().exercises;
  // Full width, Q = K = V = X, scale 1/√4: row 1 scores X1·X0/2 = cos(1)/2 and X1·X1/2
  // = 1.
  const double single = 1.0 / (1.0 + std::exp(1.0 - std::cos(1.0) / 2.0));
  EXPECT_NEAR(e.single_head_row_one[0], single, 1e-15);
  EXPECT_NEAR(e.single_head_row_one[1], 1.0 - single, 1e-15);
  EXPECT_EQ(llmfs::report::format_number(e.single_head_row_one[0]), "0.325228");
  EXPECT_EQ(e.head_zero_row_one[0], 0.5);
  EXPECT_EQ(llmfs::report::format_number(e.head_one_row_one[0]), "0.213809");
  EXPECT_GT(std::abs(e.single_head_row_one[0] - e.head_zero_row_one[0]), 0.1);
  EXPECT_GT(std::abs(e.single_head_row_one[0] - e.head_one_row_one[0]), 0.1);
}

TEST(Ch30Exercises, OffBlockOutputEntryMakesY2EqualAPlusC) {
  const auto& e = evidence().exercises;
  const auto [a, b, c, d] = e.symbolic;
  // Powers of ten keep every sum of distinct symbols distinguishable.
  EXPECT_EQ(a, 1.0);
  EXPECT_EQ(b, 10.0);
  EXPECT_EQ(c, 100.0);
  EXPECT_EQ(d, 1000.0);
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
  const auto& p = evidence().primary;
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(p.prefix_perturbed_output.values()[i]),
              std::bit_cast<std::uint64_t>(p.output.values()[i]))
        << i;
  bool changed = false;
  for (std::size_t i = 8; i < 12; ++i)
    changed = changed || p.prefix_perturbed_output.values()[i] != p.output.values()[i];
  EXPECT_TRUE(changed);
}

TEST(Ch30Exercises, DenseQueryProjectionLetsHeadZeroReadInputFeatureThree) {
  const auto& e = evidence().exercises;
  // (W_Q)[3][0] = 1 adds input feature 3 of token 1 (which is 1) to head 0's first
  // query coordinate.
  EXPECT_NEAR(e.dense_query_identity[0], std::cos(1.0), 1e-15);
  EXPECT_NEAR(e.dense_query_mixed[0], std::cos(1.0) + 1.0, 1e-15);
  EXPECT_EQ(e.dense_query_mixed[1], e.dense_query_identity[1]);
}

TEST(Ch30Exercises, ParameterCountAtModelWidth128Is65536) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.wide_model_width, 128u);
  EXPECT_EQ(e.wide_parameter_count, 4u * 128u * 128u);
  EXPECT_EQ(e.wide_parameter_count, 65536u);
  EXPECT_EQ(evidence().parameters.count, 64u);  // and 4·4² for the fixture
}

}  // namespace

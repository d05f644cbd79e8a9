// Chapter 30's invariants, boundaries, typed errors and history contrast, on the values
// the program prints. Head isolation, replay, finiteness, distinct parameter nodes and
// the untouched generator are the layer's unit tests
// (tests/attention/multi_head_test.cpp: HeadsStayIsolatedUntilTheOutputProjection,
// ReplayIsBitwiseIdentical, SavedForwardValuesAndGradientsAreFinite,
// ParametersHaveStableNamesShapesAndDistinctNodes,
// RejectedCreateLeavesTheGeneratorUntouched).

#include <bit>
#include <cmath>
#include <cstdint>

#include "chapters/ch30_support.hpp"

namespace {

using ch30_test::evidence;
using ch30_test::expect_close;
using llmfs::tensor::Shape;

TEST(Ch30Invariants, ReplacingTheLastRowChangesOnlyTheLastOutputRow) {
  const auto& p = evidence();
  // Rows 0 and 1 cannot see token 2: not one of their coordinates may change.
  EXPECT_EQ(ch30::changed_per_row(p.prefix_perturbed_output, p.output),
            (std::vector<std::size_t>{0, 0, 4}));
  const auto naive =
      ch30_test::naive_layer(ch30_test::values_of(ch30::perturbed_input()), 0);
  expect_close(p.prefix_perturbed_output.values(), naive.output, 1e-12,
               "perturbed output");
  ch30_test::expect_printed(p.prefix_perturbed_output.values().subspan(8, 4),
                            {"-0.999983", "3.999952", "2.999321", "-1.999519"},
                            "row 2");
}

TEST(Ch30Invariants, SharedPositionOffsetPreservesWeights) {
  // The plain-loop layer at positions 3..5 gives the weights the library gives at 0..2.
  const auto shifted = ch30_test::naive_layer(ch30_test::fixture_values(), 3);
  expect_close(evidence().attention_weights.values(), shifted.weights, 1e-12,
               "offset 3");
}

TEST(Ch30Invariants, FutureWeightsAreExactZeros) {
  const auto& p = evidence();
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t q = 0; q < 3; ++q)
      for (std::size_t k = q + 1; k < 3; ++k)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(
                      p.attention_weights.values()[(h * 3 + q) * 3 + k]),
                  0u);
  // And they are the only zeros the report counts: 2 heads × 3 blocked cells.
  EXPECT_EQ(std::ranges::count(p.attention_weights.values(), 0.0), 6);
}

TEST(Ch30Invariants, EmptyBatchAndSingleTokenBoundaries) {
  const auto& p = evidence();
  EXPECT_EQ(p.empty_batch_weights, (Shape{0, 2, 3, 3}));
  EXPECT_EQ(p.empty_batch_output, (Shape{0, 3, 4}));
  EXPECT_EQ(p.single_token_weights, (Shape{1, 2, 1, 1}));
  EXPECT_EQ(p.input.shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(p.projected_query_heads.shape(), (Shape{1, 2, 3, 2}));
  EXPECT_EQ(p.rotated_query_heads.shape(), (Shape{1, 2, 3, 2}));
  EXPECT_EQ(p.attention_weights.shape(), (Shape{1, 2, 3, 3}));
  EXPECT_EQ(p.head_outputs.shape(), (Shape{1, 2, 3, 2}));
  EXPECT_EQ(p.merged.shape(), (Shape{1, 3, 4}));
  EXPECT_EQ(p.output_weight.shape(), (Shape{4, 4}));
  EXPECT_EQ(p.output.shape(), (Shape{1, 3, 4}));
}

TEST(Ch30Invariants, EveryRefusedConfigurationAndInputHasItsTypedError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"zero_model_width", "configuration: model width must be nonzero"},
      {"zero_heads", "configuration: head count must be nonzero"},
      {"nondivisible", "not divisible by head count (d_model 4, 3 heads)"},
      {"odd_head_width", "must be even for RoPE (d_model 4, 4 heads: d_h 1)"},
      {"input_rank", "input: input must have rank 3"},
      {"input_width", "input width differs from the model width (expected 4, got 5)"},
      {"empty_tokens", "at least one token is needed (got [1,0,4])"},
      {"offset_overflow", "position interval overflows"},
      {"position_range", "exceeds capacity (positions [4, 7) but capacity 6)"},
      {"released_input", "Q/K/V projection"}};
  const auto& errors = evidence().errors;
  ASSERT_EQ(errors.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [name, message] = errors[i];
    EXPECT_EQ(name, cases[i].first);
    EXPECT_TRUE(message.starts_with("multi-head attention, ")) << message;
    EXPECT_NE(message.find(cases[i].second), std::string::npos) << message;
  }
  EXPECT_NE(errors.back().second.find("released"), std::string::npos);
}

TEST(Ch30Invariants, NamedBiasFreeParametersInStableOrder) {
  const auto& p = evidence();
  EXPECT_EQ(
      p.parameter_names,
      (std::vector<std::string>{"attention.query.weight", "attention.key.weight",
                                "attention.value.weight", "attention.output.weight"}));
  EXPECT_EQ(p.parameter_shapes, (std::vector<Shape>(4, Shape{4, 4})));
  EXPECT_EQ(p.parameter_count, 64u);
  EXPECT_FALSE(p.output_bias);
}

TEST(Ch30History, OneContextOneFullWidthTableTwoHeadTables) {
  const auto& p = evidence();
  EXPECT_EQ(p.earlier_weighted_context[0], 0.25);
  EXPECT_EQ(p.earlier_weighted_context[1], 0.75);
  EXPECT_EQ(p.single_head_weights.shape(), (Shape{1, 3, 3}));
  // One table in the full-width head, two in the layer; every row of each sums to 1.
  for (const auto* table : {&p.single_head_weights, &p.attention_weights}) {
    for (std::size_t start = 0; start < table->size(); start += 3) {
      const auto row = table->values().subspan(start, 3);
      EXPECT_NEAR(row[0] + row[1] + row[2], 1.0, 1e-12) << start;
    }
  }
  EXPECT_EQ(p.single_head_weights.size() / 9, 1u);
  EXPECT_EQ(p.attention_weights.size() / 9, 2u);
  // Row 2 of the full-width table, by hand: scores X2·Xj/2 for j = 0, 1, 2.
  const auto x = ch30_test::fixture_values();
  std::array<double, 3> s{};
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t f = 0; f < 4; ++f)
      s[j] += x[8 + f] * x[j * 4 + f] / 2.0;
  const double top = std::max({s[0], s[1], s[2]});
  const double z = std::exp(s[0] - top) + std::exp(s[1] - top) + std::exp(s[2] - top);
  for (std::size_t j = 0; j < 3; ++j)
    EXPECT_NEAR(p.single_head_weights.values()[6 + j], std::exp(s[j] - top) / z, 1e-15);
}

}  // namespace

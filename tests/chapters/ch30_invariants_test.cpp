// Chapter 30's invariants, boundaries, typed errors and history contrast.

#include <bit>
#include <cmath>
#include <cstdint>

#include "chapters/ch30_support.hpp"

namespace {

using ch30_test::evidence;
using ch30_test::expect_close;
using llmfs::tensor::Shape;

TEST(Ch30Invariants, ReplacingTheLastRowChangesOnlyTheLastOutputRow) {
  const auto& p = evidence().primary;
  EXPECT_TRUE(p.prefix_zero_unchanged);
  EXPECT_TRUE(p.prefix_one_unchanged);
  EXPECT_TRUE(p.suffix_changed);
  auto x = ch30_test::fixture_values();
  std::copy(ch30::kPerturbedLastRow.begin(), ch30::kPerturbedLastRow.end(),
            x.begin() + 8);
  const auto naive = ch30_test::naive_layer(x, 0);
  expect_close(p.prefix_perturbed_output.values(), naive.output, 1e-12,
               "perturbed output");
  ch30_test::expect_printed(p.prefix_perturbed_output.values().subspan(8, 4),
                            {"-0.999983", "3.999952", "2.999321", "-1.999519"},
                            "row 2");
}

TEST(Ch30Invariants, NudgingHeadZerosLaneLeavesHeadOneUntouched) {
  EXPECT_TRUE(evidence().primary.head_isolation_before_output);
  // The same nudge in the plain-loop reference moves head 0's output and not head 1's.
  auto x = ch30_test::fixture_values();
  x[0] += ch30::kIsolationNudge;
  const auto nudged = ch30_test::naive_layer(x, 0);
  const auto base = ch30_test::naive_layer(ch30_test::fixture_values(), 0);
  for (std::size_t i = 6; i < 12; ++i)
    EXPECT_EQ(nudged.head_outputs[i], base.head_outputs[i]);
  EXPECT_NE(nudged.head_outputs[0], base.head_outputs[0]);
}

TEST(Ch30Invariants, SharedPositionOffsetPreservesWeights) {
  EXPECT_TRUE(evidence().primary.common_offset_weights_preserved);
  const auto shifted =
      ch30_test::naive_layer(ch30_test::fixture_values(), ch30::kSharedOffset);
  expect_close(evidence().primary.attention_weights.values(), shifted.weights, 1e-12,
               "offset 3");
}

TEST(Ch30Invariants, SplitThenMergeIsIdentityAndFutureWeightsAreExactZeros) {
  const auto& p = evidence().primary;
  EXPECT_TRUE(p.split_merge_bitwise);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t q = 0; q < 3; ++q)
      for (std::size_t k = q + 1; k < 3; ++k)
        EXPECT_EQ(std::bit_cast<std::uint64_t>(
                      p.attention_weights.values()[(h * 3 + q) * 3 + k]),
                  0u);
}

TEST(Ch30Invariants, EmptyBatchAndSingleTokenBoundaries) {
  const auto& s = evidence().shapes;
  EXPECT_EQ(s.empty_batch_weights, (Shape{0, 2, 3, 3}));
  EXPECT_EQ(s.empty_batch_output, (Shape{0, 3, 4}));
  EXPECT_TRUE(s.empty_batch_backward);
  EXPECT_EQ(s.single_token_weights, (Shape{1, 2, 1, 1}));
  EXPECT_EQ(s.input, (Shape{1, 3, 4}));
  EXPECT_EQ(s.split, (Shape{1, 2, 3, 2}));
  EXPECT_EQ(s.rotated, (Shape{1, 2, 3, 2}));
  EXPECT_EQ(s.weights, (Shape{1, 2, 3, 3}));
  EXPECT_EQ(s.head_output, (Shape{1, 2, 3, 2}));
  EXPECT_EQ(s.merged, (Shape{1, 3, 4}));
  EXPECT_EQ(s.output_weight, (Shape{4, 4}));
  EXPECT_EQ(s.output, (Shape{1, 3, 4}));
}

TEST(Ch30Invariants, EveryRefusedConfigurationAndInputHasItsTypedError) {
  const auto& e = evidence().errors;
  const std::pair<const ch30::RejectedCase*, const char*> cases[] = {
      {&e.zero_model_width, "model width"},
      {&e.zero_heads, "head"},
      {&e.nondivisible, "divisible"},
      {&e.odd_head_width, "even"},
      {&e.input_rank, "rank"},
      {&e.input_width, "width"},
      {&e.empty_tokens, "token"},
      {&e.offset_overflow, "overflow"},
      {&e.position_range, "capacity"},
      {&e.released_input, "released"}};
  for (auto [rejected, word] : cases) {
    EXPECT_TRUE(rejected->rejected) << rejected->message;
    EXPECT_NE(rejected->message.find("multi-head attention"), std::string::npos)
        << rejected->message;
    EXPECT_NE(rejected->message.find(word), std::string::npos) << rejected->message;
  }
  EXPECT_TRUE(e.rng_untouched);
}

TEST(Ch30Invariants, NamedBiasFreeParametersInStableOrder) {
  const auto& params = evidence().parameters;
  EXPECT_EQ(params.names, (std::vector<std::string>{
                              "attention.query.weight", "attention.key.weight",
                              "attention.value.weight", "attention.output.weight"}));
  EXPECT_EQ(params.shapes, (std::vector<Shape>(4, Shape{4, 4})));
  EXPECT_EQ(params.count, 64u);
  EXPECT_TRUE(params.bias_free);
  EXPECT_TRUE(params.node_distinct);
}

TEST(Ch30Invariants, ReplayIsBitwiseAndTheTapeIsFinite) {
  EXPECT_TRUE(evidence().replay_bitwise);
  EXPECT_TRUE(evidence().primary.tape_finite);
  // And a third, independent run agrees bit for bit too.
  auto again = ch30::gather_primary();
  ASSERT_TRUE(again.has_value()) << again.error();
  EXPECT_TRUE(ch30::same_bits(again->output, evidence().primary.output));
  EXPECT_TRUE(
      ch30::same_bits(again->input_gradient, evidence().primary.input_gradient));
}

TEST(Ch30History, OneContextOneFullWidthTableTwoHeadTables) {
  const auto& h = evidence().history;
  EXPECT_EQ(h.earlier_weighted_context[0], 0.25);
  EXPECT_EQ(h.earlier_weighted_context[1], 0.75);
  EXPECT_EQ(h.earlier_distributions_per_target, 1u);
  EXPECT_EQ(h.single_head_weights.shape(), (Shape{1, 3, 3}));
  EXPECT_EQ(h.multi_head_weight_shape, (Shape{1, 2, 3, 3}));
  EXPECT_EQ(h.single_head_tables, 1u);
  EXPECT_EQ(h.multi_head_tables, 2u);
  EXPECT_TRUE(h.all_rows_normalized);
  // Row 2 of the full-width table, by hand: scores X2·Xj/2 for j = 0, 1, 2.
  const auto x = ch30_test::fixture_values();
  std::array<double, 3> s{};
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t f = 0; f < 4; ++f)
      s[j] += x[8 + f] * x[j * 4 + f] / 2.0;
  const double top = std::max({s[0], s[1], s[2]});
  const double z = std::exp(s[0] - top) + std::exp(s[1] - top) + std::exp(s[2] - top);
  for (std::size_t j = 0; j < 3; ++j)
    EXPECT_NEAR(h.single_head_weights.values()[6 + j], std::exp(s[j] - top) / z, 1e-15);
}

}  // namespace

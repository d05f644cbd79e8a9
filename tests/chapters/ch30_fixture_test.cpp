// Chapter 30's fixture: the numbers the seed chapter prints (to six decimals), the
// chapter's hand derivations, and PyTorch float64
// (tests/reference/data/ch30_fixture.txt).

#include <cmath>

#include "chapters/ch30_support.hpp"
#include "support/reference_data.hpp"

namespace {

using ch30_test::evidence;
using ch30_test::expect_close;
using ch30_test::expect_printed;

const llmfs::testing::ReferenceData& torch_fixture() {
  static const auto data = llmfs::testing::load_reference_case("ch30_fixture");
  return data;
}

TEST(Ch30Fixture, ProjectedHeadsMatchTheSeed) {
  const auto& p = evidence();
  // Identity projections: head 0 holds input columns 0-1, head 1 columns 2-3.
  const std::vector<std::string> seed = {
      "1.000000", "0.000000", "0.540302", "-0.841471", "-0.416147", "-0.909297",
      "1.000000", "0.000000", "0.000000", "1.000000",  "1.000000",  "1.000000"};
  expect_printed(p.projected_query_heads.values(), seed, "projected Q");
  expect_printed(p.projected_key_heads.values(), seed, "projected K");
  expect_printed(p.projected_value_heads.values(), seed, "projected V");
  EXPECT_EQ(p.projected_query_heads.shape(), (llmfs::tensor::Shape{1, 2, 3, 2}));
}

TEST(Ch30Fixture, RopeCancelsTheCounterRotationInHeadZero) {
  const auto& p = evidence();
  const std::vector<std::string> seed = {
      "1.000000", "0.000000", "1.000000",  "0.000000", "1.000000",  "0.000000",
      "1.000000", "0.000000", "-0.841471", "0.540302", "-1.325444", "0.493151"};
  expect_printed(p.rotated_query_heads.values(), seed, "rotated Q");
  expect_printed(p.rotated_key_heads.values(), seed, "rotated K");
  // Hand derivation: R(t)R(-t)[1,0] = [1,0]; head 1 turns [0,1] by 1 rad and [1,1] by 2
  // rad.
  const std::vector<double> derived = {1,
                                       0,
                                       1,
                                       0,
                                       1,
                                       0,
                                       1,
                                       0,
                                       -std::sin(1.0),
                                       std::cos(1.0),
                                       std::cos(2.0) - std::sin(2.0),
                                       std::sin(2.0) + std::cos(2.0)};
  expect_close(p.rotated_query_heads.values(), derived, 1e-15, "rotated Q by hand");
}

TEST(Ch30Fixture, HeadZeroIsUniformAndHeadOneIsNot) {
  const auto& p = evidence();
  expect_printed(
      p.attention_weights.values(),
      {"1.000000", "0.000000", "0.000000", "0.500000", "0.500000", "0.000000",
       "0.333333", "0.333333", "0.333333", "1.000000", "0.000000", "0.000000",
       "0.213809", "0.786191", "0.000000", "0.054696", "0.370956", "0.574348"},
      "attention weights");
  // Head 0's rows are 1, 1/2, 1/3 on the visible keys; head 1's row 1 is not uniform
  // (also MultiHeadAttention.HeadZeroTableIsUniformAndHeadOneIsNot).
  for (std::size_t q = 0; q < 3; ++q)
    for (std::size_t k = 0; k <= q; ++k)
      EXPECT_NEAR(p.attention_weights.values()[q * 3 + k], 1.0 / double(q + 1), 1e-15);
  EXPECT_GT(std::abs(p.attention_weights.values()[12] - 0.5), 0.1);
}

TEST(Ch30Fixture, TokenOneWorkedThroughBothHeadsMatchesTheHandDerivation) {
  const auto& p = evidence();
  // Head 1, query 1: scores -sin(1)/sqrt(2) and 1/sqrt(2), masked score for key 2.
  const double s10 = -std::sin(1.0) / std::sqrt(2.0);
  const double s11 = 1.0 / std::sqrt(2.0);
  const std::size_t row = (1 * 3 + 1) * 3;
  EXPECT_EQ(llmfs::report::format_number(p.masked_scores.values()[row]), "-0.595010");
  EXPECT_EQ(llmfs::report::format_number(p.masked_scores.values()[row + 1]),
            "0.707107");
  EXPECT_EQ(p.masked_scores.values()[row + 2], -INFINITY);
  EXPECT_NEAR(p.masked_scores.values()[row], s10, 1e-15);
  EXPECT_NEAR(p.masked_scores.values()[row + 1], s11, 1e-15);
  const double a10 = 1.0 / (1.0 + std::exp(s11 - s10));
  EXPECT_NEAR(p.attention_weights.values()[row], a10, 1e-15);
  EXPECT_NEAR(p.attention_weights.values()[row + 1], 1.0 - a10, 1e-15);
  // Head 0 averages the unrotated value rows [1,0] and [cos 1, -sin 1].
  const std::vector<double> h0 = {0.5 * (1.0 + std::cos(1.0)), -0.5 * std::sin(1.0)};
  expect_close(p.head_outputs.values().subspan(2, 2), h0, 1e-15, "H0 token 1");
  // Head 1 copies its weights, because its value rows are [1,0] and [0,1].
  expect_close(p.head_outputs.values().subspan(8, 2),
               std::vector<double>{a10, 1.0 - a10}, 1e-15, "H1 token 1");
  expect_printed(p.merged.values().subspan(4, 4),
                 {"0.770151", "-0.420735", "0.213809", "0.786191"},
                 "concatenated token 1");
}

TEST(Ch30Fixture, HeadOutputsMergedRowsAndOutputMatchTheSeed) {
  const auto& p = evidence();
  expect_printed(
      p.head_outputs.values(),
      {"1.000000", "0.000000", "0.770151", "-0.420735", "0.374718", "-0.583589",
       "1.000000", "0.000000", "0.213809", "0.786191", "0.629044", "0.945304"},
      "head outputs");
  expect_printed(
      p.merged.values(),
      {"1.000000", "0.000000", "1.000000", "0.000000", "0.770151", "-0.420735",
       "0.213809", "0.786191", "0.374718", "-0.583589", "0.629044", "0.945304"},
      "merged");
  // W_O swaps the two blocks of every row.
  expect_printed(
      p.output.values(),
      {"1.000000", "0.000000", "1.000000", "0.000000", "0.213809", "0.786191",
       "0.770151", "-0.420735", "0.629044", "0.945304", "0.374718", "-0.583589"},
      "output");
  expect_printed(
      p.output_weight.values(),
      {"0.000000", "0.000000", "1.000000", "0.000000", "0.000000", "0.000000",
       "0.000000", "1.000000", "1.000000", "0.000000", "0.000000", "0.000000",
       "0.000000", "1.000000", "0.000000", "0.000000"},
      "W_O");
}

TEST(Ch30Fixture, EveryIntermediateMatchesPyTorchFloat64) {
  const auto& p = evidence();
  const auto& torch = torch_fixture();
  const std::pair<const llmfs::tensor::Tensor*, const char*> pairs[] = {
      {&p.input, "X"},
      {&p.projected_query_heads, "Q_heads"},
      {&p.projected_key_heads, "K_heads"},
      {&p.projected_value_heads, "V_heads"},
      {&p.rotated_query_heads, "Q_rotated"},
      {&p.rotated_key_heads, "K_rotated"},
      {&p.masked_scores, "masked_scores"},
      {&p.attention_weights, "weights"},
      {&p.head_outputs, "head_outputs"},
      {&p.merged, "merged"},
      {&p.output_weight, "W_O"},
      {&p.output, "output"},
      {&p.upstream, "upstream"},
  };
  for (auto [tensor, name] : pairs) {
    const auto& reference = torch.at(name);
    EXPECT_EQ(tensor->shape().as_vector(), reference.shape) << name;
    expect_close(tensor->values(), reference.values, 1e-12, name);
  }
  EXPECT_NEAR(p.loss, torch.scalar("loss"), 1e-12);
}

TEST(Ch30Fixture, PlainLoopReferenceAgreesWithTheLayer) {
  const auto naive = ch30_test::naive_layer(ch30_test::fixture_values(), 0);
  const auto& p = evidence();
  expect_close(p.attention_weights.values(), naive.weights, 1e-14, "weights");
  expect_close(p.head_outputs.values(), naive.head_outputs, 1e-14, "head outputs");
  expect_close(p.output.values(), naive.output, 1e-14, "output");
}

}  // namespace

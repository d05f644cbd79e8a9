// Chapter 42's fused causal attention refuses a row of scores exactly as chapter 28's
// composition does: the softmax's own row check, same code, stage and message.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/fused.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace {

namespace at = llmfs::attention;
using llmfs::autograd::Tape;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// Q, K = V [2, 6, 3]: query row `row` of lane `lane` is [x, 0, 0], every other entry of
// Q is 0.25, and the keys' first column is +1 for the keys in `positive` and −1 for the
// others (the rest of K is 0.5), so that row's scores are x·k_j0 (−∞, +∞ or NaN), the
// other rows' finite. Past the diagonal the row's scores are −∞ or NaN only: the
// composition adds the mask's −∞ to them (+∞ there would become NaN and be refused,
// where the fused kernel never computes those keys).
struct FusedRefusalCase {
  double x;
  std::size_t lane, row;
  std::vector<std::size_t> positive;
  std::string message;  // what the softmax says, hand-derived
};

TEST(FusedAttention, RefusesScoresWithTheSoftmaxsOwnErrors) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<FusedRefusalCase> refusals{
      {inf, 0, 0, {}, "fully masked row: [2,6,6] (row 0 is entirely -inf)"},
      {inf, 1, 4, {}, "fully masked row: [2,6,6] (row 10 is entirely -inf)"},
      {-inf,
       1,
       5,
       {0, 1, 2, 3, 4, 5},
       "fully masked row: [2,6,6] (row 11 is entirely -inf)"},
      {inf, 0, 2, {2}, "non-finite input: [2,6,6] (row 2 entry 2 is inf)"},
      {inf, 1, 5, {2}, "non-finite input: [2,6,6] (row 11 entry 2 is inf)"},
      {-inf, 0, 3, {4, 5}, "non-finite input: [2,6,6] (row 3 entry 0 is inf)"},
      {nan, 1, 4, {}, "non-finite input: [2,6,6] (row 10 entry 0 is nan)"},
  };
  for (const FusedRefusalCase& r : refusals) {
    Tensor query = Tensor::full(Shape{2, 6, 3}, 0.25);
    Tensor key = Tensor::full(Shape{2, 6, 3}, 0.5);
    for (std::size_t l = 0; l < 2; ++l)
      for (std::size_t j = 0; j < 6; ++j)
        key.mutable_values()[(l * 6 + j) * 3] =
            std::find(r.positive.begin(), r.positive.end(), j) != r.positive.end()
                ? 1.0
                : -1.0;
    const std::size_t at_row = (r.lane * 6 + r.row) * 3;
    query.mutable_values()[at_row] = r.x;
    query.mutable_values()[at_row + 1] = 0.0;
    query.mutable_values()[at_row + 2] = 0.0;
    Tape tape;
    auto q = tape.constant(query);
    auto k = tape.constant(key);
    auto expected = at::causal_self_attention(q, k, k);
    auto actual = at::fused_causal_attention(q, k, k, 0);
    ASSERT_FALSE(expected.has_value()) << r.message;
    ASSERT_FALSE(actual.has_value()) << r.message;
    EXPECT_EQ(actual.error().code, at::AttentionErrorCode::autograd);
    EXPECT_EQ(actual.error().code, expected.error().code);
    const std::string text = fmt::format("{}", actual.error());
    EXPECT_EQ(text, fmt::format("{}", expected.error()));
    EXPECT_NE(text.find("softmax_last_axis: " + r.message), std::string::npos) << text;
  }
}

}  // namespace

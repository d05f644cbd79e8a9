#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/softmax.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
constexpr double inf = std::numeric_limits<double>::infinity();

TEST(Softmax, LargeLogitsDoNotOverflow) {
  // softmax([1000,1001]) = [1/(1+e), e/(1+e)] = [sigmoid(-1), sigmoid(1)]
  // = [0.2689414213699951, 0.7310585786300049]. Without the max shift exp(1000) is
  // +inf.
  auto y =
      llmfs::tensor::softmax_last_axis(Tensor::from(Shape{2}, {1000, 1001}).value())
          .value();
  EXPECT_NEAR(y.values()[0], 0.2689414213699951, 1e-15);
  EXPECT_NEAR(y.values()[1], 0.7310585786300049, 1e-15);
}

TEST(Softmax, EqualLogitsGiveUniformRows) {
  // Three equal logits: each exp(0)/3 = 1/3; a single logit: exactly 1.
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2, 3}, {5, 5, 5, -2, -2, -2}).value())
               .value();
  for (double v : y.values())
    EXPECT_DOUBLE_EQ(v, 1.0 / 3.0);
  auto one = llmfs::tensor::softmax_last_axis(Tensor::from(Shape{1, 1}, {-7.5}).value())
                 .value();
  EXPECT_EQ(one.values()[0], 1.0);
}

TEST(Softmax, LogDifferenceGivesClosedFormRatio) {
  // logits [0, ln 3]: exp values 1 and 3 (after subtracting ln 3: 1/3 and 1) -> [1/4,
  // 3/4].
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2}, {0.0, std::log(3.0)}).value())
               .value();
  EXPECT_NEAR(y.values()[0], 0.25, 1e-15);
  EXPECT_NEAR(y.values()[1], 0.75, 1e-15);
}

TEST(Softmax, MaskedEntriesAreExactlyZero) {
  // Causal row [0, -inf, 0]: exp values 1, 0, 1 -> [0.5, 0, 0.5], all exact in binary.
  auto y = llmfs::tensor::softmax_last_axis(
               Tensor::from(Shape{2, 3}, {0, -inf, 0, 2, -inf, -inf}).value())
               .value();
  EXPECT_EQ(y.values()[0], 0.5);
  EXPECT_EQ(y.values()[1], 0.0);
  EXPECT_FALSE(std::signbit(y.values()[1]));
  EXPECT_EQ(y.values()[2], 0.5);
  EXPECT_EQ(y.values()[3], 1.0);
  EXPECT_EQ(y.values()[4], 0.0);
  EXPECT_EQ(y.values()[5], 0.0);
}

TEST(Softmax, RandomRowsSumToOneAndAreShiftInvariant) {
  auto x = llmfs::test::random_tensor(Shape{4, 7}, 5);
  auto y = llmfs::tensor::softmax_last_axis(x).value();
  for (std::size_t r = 0; r < 4; ++r) {
    double total = 0.0;
    for (std::size_t j = 0; j < 7; ++j)
      total += y.values()[r * 7 + j];
    EXPECT_NEAR(total, 1.0, 1e-15);
  }
  // Adding 3 to every logit changes nothing mathematically: softmax(x + c) =
  // softmax(x).
  Tensor shifted = x;
  for (double& v : shifted.mutable_values())
    v += 3.0;
  auto ys = llmfs::tensor::softmax_last_axis(shifted).value();
  for (std::size_t i = 0; i < y.size(); ++i)
    EXPECT_NEAR(ys.values()[i], y.values()[i], 1e-15);
}

TEST(Softmax, FullyMaskedRowIsTypedError) {
  auto r = llmfs::tensor::softmax_last_axis(
      Tensor::from(Shape{2, 2}, {0, 1, -inf, -inf}).value());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::fully_masked_row);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "softmax_last_axis: fully masked row: [2,2] (row 1 is entirely -inf)");
}

TEST(Softmax, NanOrPositiveInfinityIsTypedError) {
  auto nan = llmfs::tensor::softmax_last_axis(
      Tensor::from(Shape{2}, {0, std::numeric_limits<double>::quiet_NaN()}).value());
  ASSERT_FALSE(nan.has_value());
  EXPECT_EQ(nan.error().code, TensorErrorCode::non_finite_input);
  auto pos = llmfs::tensor::softmax_last_axis(Tensor::from(Shape{2}, {inf, 0}).value());
  ASSERT_FALSE(pos.has_value());
  EXPECT_EQ(pos.error().code, TensorErrorCode::non_finite_input);
}

TEST(Softmax, RankZeroIsErrorEmptyIsEmpty) {
  auto r = llmfs::tensor::softmax_last_axis(Tensor::scalar(1.0));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::rank_too_small);
  EXPECT_EQ(
      llmfs::tensor::softmax_last_axis(Tensor::zeros(Shape{0, 2, 3})).value().shape(),
      (Shape{0, 2, 3}));
  EXPECT_EQ(
      llmfs::tensor::softmax_last_axis(Tensor::zeros(Shape{3, 0})).value().shape(),
      (Shape{3, 0}));
}

// The exported row check by hand: the first NaN or +∞ entry is named whatever the
// masked-row policy, a masked row passes only when allowed, the row is named by the
// index the caller gives, and an empty row passes.
TEST(SoftmaxRowCheck, HandRowsGiveTheSoftmaxErrors) {
  using llmfs::tensor::check_logit_row;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Shape shape{4, 3};
  const std::vector<double> masked{-inf, -inf, -inf}, late_inf{-inf, 2, inf},
      with_nan{1, nan, inf}, fine{-inf, 0, -5};
  auto m = check_logit_row("op", shape, 2, masked, false);
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code, TensorErrorCode::fully_masked_row);
  EXPECT_EQ(fmt::format("{}", m.error()),
            "op: fully masked row: [4,3] (row 2 is entirely -inf)");
  EXPECT_TRUE(check_logit_row("op", shape, 2, masked, true).has_value());
  auto i = check_logit_row("op", shape, 3, late_inf, true);
  ASSERT_FALSE(i.has_value());
  EXPECT_EQ(i.error().code, TensorErrorCode::non_finite_input);
  EXPECT_EQ(fmt::format("{}", i.error()),
            "op: non-finite input: [4,3] (row 3 entry 2 is inf)");
  auto n = check_logit_row("op", shape, 0, with_nan, false);
  ASSERT_FALSE(n.has_value());
  EXPECT_EQ(fmt::format("{}", n.error()),
            "op: non-finite input: [4,3] (row 0 entry 1 is nan)");
  EXPECT_TRUE(check_logit_row("op", shape, 1, fine, false).has_value());
  EXPECT_TRUE(check_logit_row("op", Shape{0}, 0, {}, false).has_value());
}

// Seeded [5, 4] tensors, each row finite, fully masked, or holding one NaN or +∞ at a
// random entry: all three functions refuse the first bad row (a masked row only for the
// two that divide), with the message a naive scan predicts.
TEST(SoftmaxRowCheck, SeededTensorsAreRefusedAtTheirFirstBadRow) {
  std::mt19937_64 engine(12);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> values(20);
    std::vector<int> kind(5);
    std::vector<std::size_t> entry(5);
    for (std::size_t r = 0; r < 5; ++r) {
      kind[r] = static_cast<int>(engine() % 8);  // 0 masked, 1 NaN, 2 +∞, else finite
      entry[r] = engine() % 4;
      for (std::size_t j = 0; j < 4; ++j)
        values[r * 4 + j] = kind[r] == 0 ? -inf : static_cast<double>(engine() % 7) - 3;
      if (kind[r] == 1) values[r * 4 + entry[r]] = nan;
      if (kind[r] == 2) values[r * 4 + entry[r]] = inf;
    }
    const Tensor logits = Tensor::from(Shape{5, 4}, values).value();
    for (bool masked_allowed : {false, true}) {
      std::string expected;
      for (std::size_t r = 0; r < 5 && expected.empty(); ++r) {
        if (kind[r] == 1 || kind[r] == 2)
          expected = fmt::format("non-finite input: [5,4] (row {} entry {} is {})", r,
                                 entry[r], kind[r] == 1 ? "nan" : "inf");
        if (kind[r] == 0 && !masked_allowed)
          expected =
              fmt::format("fully masked row: [5,4] (row {} is entirely -inf)", r);
      }
      const auto error_text = [](const auto& result) {
        return result.has_value() ? std::string("accepted")
                                  : fmt::format("{}", result.error());
      };
      if (masked_allowed) {
        EXPECT_EQ(error_text(llmfs::tensor::logsumexp_last_axis(logits)),
                  expected.empty() ? "accepted" : "logsumexp_last_axis: " + expected)
            << "trial " << trial;
        continue;
      }
      EXPECT_EQ(error_text(llmfs::tensor::softmax_last_axis(logits)),
                expected.empty() ? "accepted" : "softmax_last_axis: " + expected)
          << "trial " << trial;
      EXPECT_EQ(error_text(llmfs::tensor::log_softmax_last_axis(logits)),
                expected.empty() ? "accepted" : "log_softmax_last_axis: " + expected)
          << "trial " << trial;
    }
  }
}

// The naive reference, in long double (64-bit significand, exponent range to e^11356):
// exp(x_j) / Σ exp(x_k) with no shift, exact enough for logits in [-30, 30].
std::vector<long double> naive_long_double_softmax(std::span<const double> row) {
  std::vector<long double> y;
  long double total = 0.0L;
  for (double x : row) {
    y.push_back(std::exp(static_cast<long double>(x)));
    total += y.back();
  }
  for (long double& v : y)
    v /= total;
  return y;
}

constexpr double kSoftmaxU = std::numeric_limits<double>::epsilon() / 2.0;

TEST(Softmax, SeededRandomRowsAgreeWithTheNaiveReference) {
  // 300 rows of 1..40 logits in [-30, 30): relative error of each probability at most
  // (n + 4)·u·(1 + |x_j − m|)·2: the exp of a rounded difference, n − 1 roundings in
  // the sum, one in the quotient (Chapter 12's derivation); sums within (2n − 1)·u.
  std::mt19937_64 engine(1212);
  std::uniform_real_distribution<double> value(-30.0, 30.0);
  for (int c = 0; c < 300; ++c) {
    const std::size_t n = 1 + engine() % 40;
    std::vector<double> row(n);
    for (double& x : row)
      x = value(engine);
    auto y =
        llmfs::tensor::softmax_last_axis(Tensor::from(Shape{n}, row).value()).value();
    const auto want = naive_long_double_softmax(row);
    double m = row[0];
    for (double x : row)
      m = std::fmax(m, x);
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const double bound = 2.0 * (static_cast<double>(n) + 4.0) * kSoftmaxU *
                           (1.0 + std::fabs(row[j] - m));
      EXPECT_LE(std::fabs(static_cast<long double>(y.values()[j]) - want[j]),
                bound * want[j])
          << "case " << c << " entry " << j;
      total += y.values()[j];
    }
    EXPECT_LE(std::fabs(total - 1.0), (2.0 * static_cast<double>(n) - 1.0) * kSoftmaxU);
  }
}

TEST(Softmax, SeededRandomRowsAreShiftInvariantBitForBit) {
  // Logits on a grid of 2^-20 and integer shifts below 2^20: x + c and (x + c) − (m +
  // c) are exact, so the shifted row must give the same bits.
  std::mt19937_64 engine(1213);
  for (int c = 0; c < 300; ++c) {
    const std::size_t n = 1 + engine() % 40;
    std::vector<double> row(n), moved(n);
    const double shift = static_cast<double>(
        static_cast<std::int64_t>(engine() % (1u << 21)) - (1 << 20));
    for (std::size_t j = 0; j < n; ++j) {
      row[j] = static_cast<double>(static_cast<std::int64_t>(engine() % (1u << 26)) -
                                   (1 << 25)) /
               1048576.0;
      moved[j] = row[j] + shift;
    }
    auto y =
        llmfs::tensor::softmax_last_axis(Tensor::from(Shape{n}, row).value()).value();
    auto ys =
        llmfs::tensor::softmax_last_axis(Tensor::from(Shape{n}, moved).value()).value();
    ASSERT_TRUE(std::equal(y.values().begin(), y.values().end(), ys.values().begin()))
        << "case " << c << " shift " << shift;
  }
}

TEST(LogSoftmax, HandValuesAndUnderflow) {
  // [1, 2, 3]: m = 3, ln(e^-2 + e^-1 + 1) = 0.40760596444438; y = x − 3 − 0.4076...
  auto y =
      llmfs::tensor::log_softmax_last_axis(Tensor::from(Shape{3}, {1, 2, 3}).value())
          .value();
  EXPECT_NEAR(y.values()[0], -2.40760596444438, 1e-14);
  EXPECT_NEAR(y.values()[1], -1.40760596444438, 1e-14);
  EXPECT_NEAR(y.values()[2], -0.40760596444438, 1e-14);
  // [0, −800]: ln(1 + exp(−800)) = ln 1 = 0 in doubles, so exactly [0, −800]; and a −∞
  // logit stays −∞.
  auto u = llmfs::tensor::log_softmax_last_axis(
               Tensor::from(Shape{2, 2}, {0, -800, -inf, 5}).value())
               .value();
  EXPECT_EQ(u.values()[0], 0.0);
  EXPECT_EQ(u.values()[1], -800.0);
  EXPECT_EQ(u.values()[2], -inf);
  EXPECT_EQ(u.values()[3], 0.0);
}

TEST(LogSoftmax, SeededRandomRowsAreTheLogOfSoftmaxWhereRepresentable) {
  // Where y_j is a normal double, |log_softmax_j − log(y_j)| ≤ 4u·(|x_j − m| + n + 2):
  // the rounding of x_j − m, of the log of the sum, and log's of y_j's relative error.
  std::mt19937_64 engine(1214);
  std::uniform_real_distribution<double> value(-50.0, 50.0);
  for (int c = 0; c < 300; ++c) {
    const std::size_t n = 1 + engine() % 40;
    std::vector<double> row(n);
    for (double& x : row)
      x = value(engine);
    const Tensor x = Tensor::from(Shape{n}, row).value();
    auto y = llmfs::tensor::softmax_last_axis(x).value();
    auto ly = llmfs::tensor::log_softmax_last_axis(x).value();
    double m = row[0];
    for (double v : row)
      m = std::fmax(m, v);
    for (std::size_t j = 0; j < n; ++j) {
      if (y.values()[j] < std::numeric_limits<double>::min()) continue;
      EXPECT_LE(
          std::fabs(ly.values()[j] - std::log(y.values()[j])),
          4.0 * kSoftmaxU * (std::fabs(row[j] - m) + static_cast<double>(n) + 2.0))
          << "case " << c << " entry " << j;
    }
  }
}

TEST(LogSoftmax, ErrorsNameTheirOp) {
  auto r = llmfs::tensor::log_softmax_last_axis(
      Tensor::from(Shape{2, 2}, {0, 1, -inf, -inf}).value());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(fmt::format("{}", r.error()),
            "log_softmax_last_axis: fully masked row: [2,2] (row 1 is entirely -inf)");
  EXPECT_EQ(
      llmfs::tensor::log_softmax_last_axis(Tensor::zeros(Shape{3, 0})).value().shape(),
      (Shape{3, 0}));
}

TEST(LogSumExp, ShapesHandValuesAndMinusInfinity) {
  // [[0, 0, 0, 0], [1000, 1000, −∞, −∞], [−∞, −∞, −∞, −∞]]: ln 4, 1000 + ln 2, and
  // ln 0 = −∞ (defined, unlike softmax there). The last axis is summed away.
  auto y = llmfs::tensor::logsumexp_last_axis(
               Tensor::from(Shape{3, 4}, {0, 0, 0, 0, 1000, 1000, -inf, -inf, -inf,
                                          -inf, -inf, -inf})
                   .value())
               .value();
  EXPECT_EQ(y.shape(), (Shape{3}));
  EXPECT_NEAR(y.values()[0], std::log(4.0), 4e-16);
  EXPECT_NEAR(y.values()[1], 1000.0 + std::log(2.0), 2.3e-13);
  EXPECT_EQ(y.values()[2], -inf);
  // Rank 1 gives rank 0; a row of length 0 is an empty sum, ln 0 = −∞; no rows, none.
  EXPECT_EQ(llmfs::tensor::logsumexp_last_axis(Tensor::from(Shape{2}, {0, 0}).value())
                .value()
                .shape(),
            (Shape{}));
  auto empty = llmfs::tensor::logsumexp_last_axis(Tensor::zeros(Shape{2, 0})).value();
  EXPECT_EQ(empty.shape(), (Shape{2}));
  EXPECT_EQ(empty.values()[0], -inf);
  EXPECT_EQ(
      llmfs::tensor::logsumexp_last_axis(Tensor::zeros(Shape{0, 3})).value().shape(),
      (Shape{0}));
}

TEST(LogSumExp, RefusesNanPositiveInfinityAndRankZero) {
  auto nan = llmfs::tensor::logsumexp_last_axis(
      Tensor::from(Shape{2}, {0, std::numeric_limits<double>::quiet_NaN()}).value());
  ASSERT_FALSE(nan.has_value());
  EXPECT_EQ(fmt::format("{}", nan.error()),
            "logsumexp_last_axis: non-finite input: [2] (row 0 entry 1 is nan)");
  auto pos =
      llmfs::tensor::logsumexp_last_axis(Tensor::from(Shape{2}, {inf, 0}).value());
  ASSERT_FALSE(pos.has_value());
  EXPECT_EQ(pos.error().code, TensorErrorCode::non_finite_input);
  auto r0 = llmfs::tensor::logsumexp_last_axis(Tensor::scalar(1.0));
  ASSERT_FALSE(r0.has_value());
  EXPECT_EQ(r0.error().code, TensorErrorCode::rank_too_small);
}

// [2^40, 2^40, 0]: every row is empty, and there would be 2^80 of them.
TEST(LogSumExp, RefusesARowCountThatDoesNotFit) {
  const std::size_t big = std::size_t{1} << 40;
  std::expected<Tensor, llmfs::tensor::TensorError> result;
  EXPECT_NO_THROW(
      result = llmfs::tensor::logsumexp_last_axis(Tensor::zeros(Shape{big, big, 0})));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(result.error().op, "logsumexp_last_axis");
  EXPECT_EQ(llmfs::tensor::logsumexp_last_axis(Tensor::zeros(Shape{2, 0})).value(),
            Tensor::full(Shape{2}, -std::numeric_limits<double>::infinity()));
}

}  // namespace

// Chapter 12: the chapter's claims. Expected values are derived by hand beside each
// assertion (the shift by the row maximum, the range of exp in doubles, the rounding
// bound of a sum), or read from the NumPy/PyTorch reference
// tests/reference/data/tensor/ch12_softmax.txt (make_softmax_reference.py), never taken
// from the code under test.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/softmax.hpp>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
constexpr double kCh12U = std::numeric_limits<double>::epsilon() / 2.0;

const ch12::Evidence& ch12_evidence() {
  static const ch12::Evidence e = [] {
    auto gathered = ch12::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch12::Evidence{});
  }();
  return e;
}

// `op` on the logits as one row [n], its values.
template <class Op>
std::vector<double> ch12_apply(Op op, const std::vector<double>& logits) {
  const auto out = op(Tensor::from(Shape{logits.size()}, logits).value());
  EXPECT_TRUE(out.has_value());
  return out ? std::vector<double>(out->values().begin(), out->values().end())
             : std::vector<double>(logits.size(), 0.0);
}

const ch12::RowResult& ch12_row(const std::string& name) {
  for (const auto& r : ch12_evidence().rows)
    if (r.name == name) return r;
  static const ch12::RowResult none;
  ADD_FAILURE() << "no row " << name;
  return none;
}

TEST(Ch12StableSoftmax, SmallRowMatchesHandDerivation) {
  // m = 3, x − m = [−2, −1, 0], exps [e⁻², e⁻¹, 1] = [0.1353352832, 0.3678794412, 1],
  // sum 1.5032147244; softmax = exps / sum; logsumexp = 3 + ln 1.5032147244.
  const auto& r = ch12_row("small");
  EXPECT_EQ(r.shifted, (std::vector<double>{-2.0, -1.0, 0.0}));
  EXPECT_NEAR(r.softmax[0], 0.09003057317038046, 2e-16);
  EXPECT_NEAR(r.softmax[1], 0.24472847105479764, 2e-16);
  EXPECT_NEAR(r.softmax[2], 0.6652409557748219, 2e-16);
  EXPECT_NEAR(r.logsumexp, 3.40760596444438, 1e-14);
  EXPECT_NEAR(r.log_softmax[0], -2.40760596444438, 1e-14);
  EXPECT_NEAR(r.log_softmax[2], -0.40760596444438, 1e-14);
}

TEST(Ch12StableSoftmax, LargeRowHasTheSmallRowsBits) {
  // 1000 − 1002 = −2 and 1001 − 1002 = −1 are exact, so the same exps, the same sum,
  // the same quotients. The naive formula: exp(1000) = +∞, ∞/∞ = NaN.
  const auto& large = ch12_row("large");
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(large.softmax, ch12_row("small").softmax));
  for (double v : large.naive)
    EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(large.naive_logsumexp, std::numeric_limits<double>::infinity());
  EXPECT_NEAR(large.logsumexp, 1002.40760596444438, 1e-12);
}

TEST(Ch12StableSoftmax, TinyMaskedAndUnderflowRows) {
  // [−10000, −10000]: x − m = 0, exps 1 and 1, exactly 0.5 each; naive 0/0 = NaN and
  // log 0 = −∞. logsumexp = −10000 + ln 2.
  const auto& tiny = ch12_row("tiny");
  EXPECT_EQ(tiny.softmax, (std::vector<double>{0.5, 0.5}));
  EXPECT_TRUE(std::isnan(tiny.naive[0]) && std::isnan(tiny.naive[1]));
  EXPECT_EQ(tiny.naive_logsumexp, -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(tiny.logsumexp, -10000.0 + std::log(2.0), 1e-12);
  // [0, −∞, 0]: exps 1, 0, 1 -> [0.5, +0.0, 0.5] exactly.
  const auto& masked = ch12_row("masked");
  EXPECT_EQ(masked.softmax, (std::vector<double>{0.5, 0.0, 0.5}));
  EXPECT_FALSE(std::signbit(masked.softmax[1]));
  EXPECT_EQ(masked.log_softmax[1], -std::numeric_limits<double>::infinity());
  // [0, −800]: exp(−800) underflows to 0, so softmax [1, 0] and log(softmax) [0, −∞];
  // log-softmax = x − m − ln(1 + 0) = [0, −800] exactly.
  const auto& u = ch12_row("underflow");
  EXPECT_EQ(u.softmax, (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(u.log_of_softmax[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(u.log_softmax, (std::vector<double>{0.0, -800.0}));
}

TEST(Ch12StableSoftmax, FullyMaskedRowIsRefusedAndItsLogSumExpIsMinusInfinity) {
  const auto& e = ch12_evidence();
  EXPECT_EQ(e.fully_masked_softmax,
            "softmax_last_axis: fully masked row: [1,2] (row 0 is entirely -inf)");
  EXPECT_EQ(e.fully_masked_log_softmax,
            "log_softmax_last_axis: fully masked row: [1,2] (row 0 is entirely -inf)");
  EXPECT_EQ(e.fully_masked_logsumexp, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(e.fully_masked_naive[0]));  // 0/0
}

TEST(Ch12StableSoftmax, RefusalsNameTheEntry) {
  const auto& errors = ch12_evidence().errors;
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0][1],
            "softmax_last_axis: non-finite input: [2,2] (row 1 entry 1 is nan)");
  EXPECT_EQ(errors[1][1],
            "softmax_last_axis: non-finite input: [2] (row 0 entry 0 is inf)");
  EXPECT_EQ(errors[2][1], "softmax_last_axis: rank too small: [] (needs rank >= 1)");
}

// region: random-rows-bounds
// The demo's random rows, one by one: |fl(Σ y) − 1| ≤ (2n − 1)·u (n − 1 roundings in
// the denominator's sum, one per quotient, n − 1 in this sum); softmax(x + c) has the
// bits of softmax(x) (x + c is exact on the 2⁻²⁰ grid); a −∞ logit gives exactly +0.0;
// and where y_j is a normal double, |log_softmax_j − log y_j| ≤ 4u·(|x_j − m| + n + 2).
TEST(Ch12StableSoftmax, EveryRandomRowMeetsTheDerivedBounds) {
  std::size_t masked = 0;
  for (const auto& row : ch12::random_rows(ch12::kSeed, ch12::kRandomRows)) {
    const std::size_t n = row.logits.size();
    std::vector<double> moved = row.logits;
    for (double& x : moved)
      x += row.shift;
    const auto y = ch12_apply(llmfs::tensor::softmax_last_axis, row.logits);
    const auto log_y = ch12_apply(llmfs::tensor::log_softmax_last_axis, row.logits);
    double sum = 0.0;
    for (double v : y)
      sum += v;
    EXPECT_LE(std::fabs(sum - 1.0), (2.0 * static_cast<double>(n) - 1.0) * kCh12U);
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(
        ch12_apply(llmfs::tensor::softmax_last_axis, moved), y));
    const double m = *std::max_element(row.logits.begin(), row.logits.end());
    for (std::size_t j = 0; j < n; ++j) {
      if (row.logits[j] == -std::numeric_limits<double>::infinity()) {
        ++masked;
        EXPECT_EQ(y[j], 0.0);
        EXPECT_FALSE(std::signbit(y[j]));
      } else if (y[j] >= std::numeric_limits<double>::min()) {
        EXPECT_LE(std::fabs(log_y[j] - std::log(y[j])),
                  4.0 * kCh12U *
                      (std::fabs(row.logits[j] - m) + static_cast<double>(n) + 2.0));
      }
    }
  }
  EXPECT_GT(masked, 0u);
}
// endregion: random-rows-bounds

TEST(Ch12StableSoftmax, MeasuredWorstCasesAreInsideTheBounds) {
  // The report's maxima: the widest row has kMaxWidth = 64 logits, bound 2·64 − 1 =
  // 127; |x − m| < 2·kSpread = 80, so the log gap is at most 4u·(80 + 64 + 2).
  const auto& p = ch12_evidence().properties;
  EXPECT_EQ(p.max_bound_in_u, 2.0 * ch12::kMaxWidth - 1.0);
  EXPECT_LE(p.max_sum_error_in_u, p.max_bound_in_u);
  EXPECT_GT(p.max_log_gap, 0.0);
  EXPECT_LE(p.max_log_gap, 4.0 * kCh12U * (80.0 + ch12::kMaxWidth + 2.0));
}

TEST(Ch12StableSoftmax, ExerciseAnswers) {
  const auto& x = ch12_evidence().exercises;
  // 1: exps 1, 2, 3 (up to the rounding of ln 2 and ln 3) over 6.
  EXPECT_NEAR(x.thirds[0], 1.0 / 6.0, 4 * kCh12U);
  EXPECT_NEAR(x.thirds[1], 1.0 / 3.0, 4 * kCh12U);
  EXPECT_NEAR(x.thirds[2], 0.5, 4 * kCh12U);
  // 2: ln(DBL_MAX) = 709.78, so exp(709) is finite and exp(710) = +∞; the smallest
  // subnormal 2⁻¹⁰⁷⁴ = e^−744.44, and exp(k) rounds to 0 below half of it, e^−745.13:
  // exp(−745) is 2⁻¹⁰⁷⁴ (the two halves still give 0.5), exp(−746) is 0.
  EXPECT_EQ(x.naive_overflow_k, 710);
  EXPECT_EQ(x.naive_underflow_k, -746);
  // 3: −log_softmax = 800 exactly; −log(0) = +∞.
  EXPECT_EQ(x.cross_entropy, 800.0);
  EXPECT_EQ(x.naive_cross_entropy, std::numeric_limits<double>::infinity());
}

// The reference's lines `KIND|row=r|values=...`.
std::map<std::string, std::vector<std::vector<double>>> ch12_reference() {
  std::map<std::string, std::vector<std::vector<double>>> out;
  std::ifstream file(LLMFS_SOURCE_DIR "/tests/reference/data/tensor/ch12_softmax.txt");
  EXPECT_TRUE(file) << "tests/reference/data/tensor/ch12_softmax.txt is missing";
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string kind = line.substr(0, line.find('|'));
    std::istringstream values(line.substr(line.rfind('=') + 1));
    std::vector<double> row;
    for (std::string v; std::getline(values, v, ',');)
      row.push_back(v == "-inf" ? -std::numeric_limits<double>::infinity()
                                : std::stod(v));
    out[kind].push_back(row);
  }
  return out;
}

TEST(Ch12StableSoftmax, RandomCaseMatchesNumPyAndTorch) {
  // Relative 4n·u: both sides round the n exps, the sum and the quotient, and the two
  // libraries' exp may each be off by one ulp. −∞ and exact zeros must match exactly.
  auto ref = ch12_reference();
  ASSERT_EQ(ref["LOGITS"].size(), 6u);
  std::vector<double> flat;
  for (const auto& row : ref["LOGITS"])
    flat.insert(flat.end(), row.begin(), row.end());
  const Tensor x = Tensor::from(Shape{6, 9}, flat).value();
  const auto p = llmfs::tensor::softmax_last_axis(x).value();
  const auto lp = llmfs::tensor::log_softmax_last_axis(x).value();
  const auto lse = llmfs::tensor::logsumexp_last_axis(x).value();
  ASSERT_EQ(lse.shape(), (Shape{6}));
  const double rel = 4.0 * 9.0 * kCh12U;
  std::size_t zeros = 0;
  for (std::size_t r = 0; r < 6; ++r) {
    for (std::size_t j = 0; j < 9; ++j) {
      const double want = ref["SOFTMAX"][r][j];
      const double got = p.values()[r * 9 + j];
      if (want == 0.0) {
        EXPECT_EQ(got, 0.0) << r << "," << j;
        ++zeros;
      } else {
        EXPECT_LE(std::fabs(got - want), rel * want) << r << "," << j;
      }
      const double lwant = ref["LOG_SOFTMAX"][r][j];
      const double lgot = lp.values()[r * 9 + j];
      if (std::isinf(lwant)) {
        EXPECT_EQ(lgot, lwant);
      } else {
        // x − m is exact or off by ulp(|x − m|) ≤ 2⁻⁴² here (|x − m| < 1200)
        EXPECT_LE(std::fabs(lgot - lwant), rel * std::fmax(1.0, std::fabs(lwant)));
      }
    }
    EXPECT_LE(std::fabs(lse.values()[r] - ref["LOGSUMEXP"][r][0]),
              rel * std::fabs(ref["LOGSUMEXP"][r][0]));
  }
  EXPECT_GE(zeros, 3u);  // the three masked entries of row 4, and underflows in row 5
}

}  // namespace

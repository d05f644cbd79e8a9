// Chapter 13: the chapter's claims. Expected values are derived by hand beside each
// assertion (Taylor's theorem and the spacing of doubles), or read from the NumPy
// reference tests/reference/data/autograd/ch13_gradcheck.txt
// (make_gradcheck_reference.py), never taken from the code under test.
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/records.hpp"

namespace {

const ch13::Evidence& ch13_evidence() {
  static const ch13::Evidence e = [] {
    auto gathered = ch13::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch13::Evidence{});
  }();
  return e;
}

// The reference's lines `KIND|key=value|...`, each as its kind and its fields.
using Ch13Record = llmfs::testing::KeyedRecord;

const std::vector<Ch13Record>& ch13_reference() {
  static const std::vector<Ch13Record> records = llmfs::testing::read_keyed_records(
      "tests/reference/data/autograd/ch13_gradcheck.txt");
  return records;
}

std::vector<Ch13Record> ch13_kind(const std::string& kind) {
  std::vector<Ch13Record> found;
  for (const auto& r : ch13_reference())
    if (r.kind == kind) found.push_back(r);
  return found;
}

const double kCh13E = 2.718281828459045;       // e, to the last digit of a double
const double kCh13Ulp = std::ldexp(1.0, -51);  // spacing of doubles in [2, 4)

// ----------------------------------------------------------------- prediction

TEST(Ch13Prediction, FixtureGradientIsTwelveAndNine) {
  // f = a²·b at (3, 2): ∂f/∂a = 2ab = 12, ∂f/∂b = a² = 9. The central difference is
  // exact for a quadratic in a and a line in b, up to rounding: ε·|f|/h ≈ 4e-9.
  const auto& e = ch13_evidence();
  EXPECT_NEAR(e.numeric[0], 12.0, 1e-8);
  EXPECT_NEAR(e.numeric[1], 9.0, 1e-8);
  EXPECT_TRUE(e.correct.passed());
  EXPECT_EQ(e.correct.coordinates(), 2u);
  EXPECT_EQ(e.calls, 4u);  // two probes per coordinate, two coordinates
}

TEST(Ch13Prediction, NoTruncationErrorIsNecessaryForExactnessNotSufficient) {
  // f is quadratic in a (f''' = 0) and linear in b (f'' = 0): no truncation error in
  // either. What is left is rounding, bounded by ε·|f|/(2h). At (3, 2) the quotient for
  // a happens to be exactly 12, but the one for b is off; at a = 3.1 the one for a is
  // off too. Each error is nonzero and within its bound: f = 18, h = 2e-6 for b; f
  // = 19.22, h = 3.1e-6 for a at 3.1.
  const auto& e = ch13_evidence();
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_EQ(e.numeric[0], 12.0);
  EXPECT_GT(std::abs(e.numeric[1] - 9.0), 1e-10);
  EXPECT_LE(std::abs(e.numeric[1] - 9.0), eps * 18.0 / (2 * 2e-6));
  const double shifted_error = std::abs(e.shifted_numeric - 2 * 3.1 * 2.0);
  EXPECT_GT(shifted_error, 1e-10);  // 4.6e-10
  EXPECT_LE(shifted_error, eps * 3.1 * 3.1 * 2.0 / (2 * 3.1e-6));
  EXPECT_NEAR(e.shifted_rounding_bound, eps * 19.22 / 6.2e-6, 1e-22);
}

TEST(Ch13Prediction, AWrongGradientFailsOnItsInputWithErrorOne) {
  // ∂f/∂b given as 8 instead of 9: |8 − 9| = 1 ≫ 1e-6 + 1e-6·9.
  const auto& r = ch13_evidence().wrong;
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.inputs.size(), 2u);
  EXPECT_TRUE(r.inputs[0].passed);
  EXPECT_FALSE(r.inputs[1].passed);
  EXPECT_EQ(r.inputs[1].failed, 1u);
  EXPECT_NEAR(r.max_abs_error(), 1.0, 1e-8);
}

TEST(Ch13Prediction, ANaNGradientFailsAndTheMaximumErrorIsNaN) {
  const auto& r = ch13_evidence().nan;
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(r.inputs[0].passed);
  EXPECT_TRUE(r.inputs[1].passed);
  EXPECT_TRUE(std::isnan(r.max_abs_error()));
}

// ----------------------------------------------------------------- the error table

TEST(Ch13Table, LargeStepsFollowTheTruncationTermHSquaredEOverSix) {
  // E(h) ≈ h²·f'''/6 = h²·e/6 when rounding (≤ ε·e/(2h)) is negligible: δ = 1e-1…1e-4.
  const auto& table = ch13_evidence().table;
  ASSERT_EQ(table.size(), 13u);
  for (std::size_t k = 0; k < 4; ++k) {
    const double h = table[k].step;
    EXPECT_NEAR(table[k].error / (h * h), kCh13E / 6.0, 0.01 * kCh13E / 6.0) << h;
  }
}

TEST(Ch13Table, TheErrorFallsToAboutOneInTenBillionThenRises) {
  // The smallest error lies between δ = 1e-5 and 1e-7, near the model's optimum
  // (3ε/2)^(1/3) = 6.93e-6, and is below 1e-10; from 1e-8 down it grows like ε·e/h.
  const auto& table = ch13_evidence().table;
  double best = 1.0;
  for (std::size_t k = 4; k <= 6; ++k)
    best = std::min(best, table[k].error);
  EXPECT_LT(best, 1e-10);
  for (std::size_t k = 0; k < table.size(); ++k)
    if (k < 4 || k > 6) {
      EXPECT_GT(table[k].error, 1e-9) << table[k].step;
    }
  EXPECT_GT(table[12].error, 1e-5);  // δ = 1e-13: worse than δ = 1e-2
  EXPECT_NEAR(ch13_evidence().optimum_step, 6.9318e-6, 1e-9);
}

TEST(Ch13Table, EveryErrorIsWithinTheModelsBound) {
  // |error| ≤ h²·e/6·(1 + h²) + ε·e/(2h)·2 (the rounding term for 1-ulp exp, with a
  // factor 2 for the rounding of the subtraction and the quotient).
  for (const auto& r : ch13_evidence().table) {
    const double h = r.step;
    const double bound = h * h * kCh13E / 6.0 * (1.0 + h * h) +
                         2.0 * std::numeric_limits<double>::epsilon() * kCh13E / h;
    EXPECT_LE(r.error, bound) << h;
  }
}

TEST(Ch13Table, MatchesTheNumPyReference) {
  // Same probes and the same quotient; NumPy's exp and the C library's may each be
  // off by up to one ulp (4.4e-16 near e), so the numerators may differ by 2 ulp and
  // the quotients by 2·ulp/run.
  const auto rows = ch13_kind("TABLE");
  const auto& table = ch13_evidence().table;
  ASSERT_EQ(rows.size(), table.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    EXPECT_EQ(fmt::format("{:.0e}", table[k].step), rows[k].fields.at("step"));
    const double tolerance = 2.0 * kCh13Ulp / table[k].run + 1e-15;
    EXPECT_NEAR(table[k].numeric, rows[k].number("numeric"), tolerance) << k;
    EXPECT_NEAR(table[k].error, rows[k].number("error"), tolerance) << k;
  }
}

TEST(Ch13Table, TheStepActuallyTakenDiffersFromTwoH) {
  // At h = 1e-12: doubles above 1 are 2^-52 apart and 1e-12 = 4503.6 of those, so
  // 1 + h rounds to 1 + 4504·2^-52; below 1 they are 2^-53 apart, 1e-12 = 9007.2 of
  // those, so 1 − h rounds to 1 − 9007·2^-53. The run is (9008 + 9007)·2^-53 =
  // 2.000067e-12: dividing by 2h instead would add 3.3e-5 relative error.
  const auto& table = ch13_evidence().table;
  EXPECT_EQ(table[11].run, 18015.0 * std::ldexp(1.0, -53));
  EXPECT_NEAR(table[0].run, 0.2, 1e-16);
}

// ----------------------------------------------------------------- reference fixture

TEST(Ch13Reference, FixtureAndScalesMatchTheNumPyReference) {
  // No transcendental function in these: the same operations on the same doubles give
  // the same bits; 1e-12 leaves room for a reordered product.
  const auto& e = ch13_evidence();
  const auto fixture = ch13_kind("FIXTURE");
  ASSERT_EQ(fixture.size(), 2u);
  EXPECT_NEAR(e.numeric[0], fixture[0].number("numeric"), 1e-12);
  EXPECT_NEAR(e.numeric[1], fixture[1].number("numeric"), 1e-12);
  EXPECT_NEAR(e.shifted_numeric, ch13_kind("SHIFTED").at(0).number("numeric"), 1e-12);
  const auto large = ch13_kind("LARGE").at(0);
  EXPECT_NEAR(e.scales.large_fixed, large.number("fixed"), 1e-12);
  EXPECT_NEAR(e.scales.large_checker, large.number("scaled"), 1e-12);
  const auto kinks = ch13_kind("KINK");
  ASSERT_EQ(kinks.size(), 2u);
  EXPECT_NEAR(e.kink.numeric, kinks[0].number("numeric"), 1e-12);
  EXPECT_NEAR(e.exercises.near_kink_numeric, kinks[1].number("numeric"), 1e-12);
  EXPECT_NEAR(e.exercises.cubic_numeric, ch13_kind("CUBIC").at(0).number("numeric"),
              1e-12);
  // exp at 30: ulp(e^30) = 2^-9; the errors may differ by 2 ulp over the run 6e-5,
  // plus one ulp of e^30 itself.
  const auto thirty = ch13_kind("EXP30").at(0);
  const double ulp30 = std::ldexp(1.0, -9);
  EXPECT_NEAR(e.scales.exp_thirty.max_abs_error(),
              std::abs(thirty.number("numeric") - thirty.number("exact")),
              2.0 * ulp30 / 6e-5 + ulp30);
  // Forward differences (exercise 1): the same tolerance as the table, run = h.
  const auto forward = ch13_kind("FORWARD");
  ASSERT_EQ(forward.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k)
    EXPECT_NEAR(e.exercises.forward_error[k], forward[k].number("error"),
                2.0 * kCh13Ulp / ch13::kForwardSteps[k] + 1e-15);
}

// ----------------------------------------------------------------- scales and kinks

TEST(Ch13Scales, FixedStepsFailWhereScaledStepsAreExact) {
  const auto& s = ch13_evidence().scales;
  // h = 1e-6·1e8 = 100, exactly representable: (1e8+100 − (1e8−100))/200 = 1.
  EXPECT_EQ(s.large_checker, 1.0);
  // Doubles near 1e8 are 2^-26 apart: 1e-6 = 67.1 spacings rounds to 67, so the fixed
  // quotient is 67·2^-26 / 1e-6 = 0.99837779998779297.
  EXPECT_DOUBLE_EQ(s.large_fixed, 67.0 * std::ldexp(1.0, -26) / 1e-6);
  // Doubles near 1e300 are ~1.5e284 apart: a fixed step of 1e-6 does not move x.
  EXPECT_FALSE(s.huge_fixed_moves);
  EXPECT_EQ(s.huge_h, 1e-6 * 1e300);
  EXPECT_TRUE(s.huge.passed());
  // exp at 30: an absolute error of ~1.6e3 that is 1.5e-10 relative; atol alone
  // rejects.
  EXPECT_TRUE(s.exp_thirty.passed());
  EXPECT_GT(s.exp_thirty.max_abs_error(), 1e3);
  EXPECT_LT(s.exp_thirty.max_abs_error() / std::exp(30.0), 1e-9);
  EXPECT_FALSE(s.exp_thirty_absolute_only);
}

TEST(Ch13Scales, ExpAtThirtyIsTruncationNotAsGoodAsAtOne) {
  // For exp, |f'''| / |f| = 1 at every x, so its best step stays near ε^(1/3) while the
  // scaled step grows to h = 3e-5 at x = 30: the truncation term h²/6 = 1.5e-10
  // relative, and the measured relative error is that, up to the rounding term ε/(2h)
  // ≈ 3.7e-12. At x = 1 the checker's relative error is the table's sixth row over e
  // (3.3e-11).
  const auto& e = ch13_evidence();
  const auto& s = e.scales;
  const double eps = std::numeric_limits<double>::epsilon();
  EXPECT_NEAR(s.exp_thirty_truncation, 1.5e-10, 1e-22);
  const double relative = s.exp_thirty.max_abs_error() / std::exp(30.0);
  EXPECT_NEAR(relative, 1.5e-10, eps / (2 * 3e-5));
  EXPECT_DOUBLE_EQ(s.exp_one_relative, e.table[5].error / kCh13E);
  EXPECT_LT(s.exp_one_relative, eps / (2 * 1e-6));  // within the rounding bound at 1
  // 1.5e-10 is more than the rounding bound at 1 allows, 1.1e-10: worse than x = 1.
  EXPECT_GT(relative, eps / (2 * 1e-6));
}

TEST(Ch13Kink, ReLUAtZeroGivesOneHalfAndBothSlopesFail) {
  // ((0 + h) − 0) / 2h = 1/2 exactly; 0 and 1 are both 1/2 away.
  const auto& k = ch13_evidence().kink;
  EXPECT_EQ(k.numeric, 0.5);
  EXPECT_FALSE(k.left_slope.passed());
  EXPECT_FALSE(k.right_slope.passed());
  EXPECT_EQ(k.left_slope.max_abs_error(), 0.5);
  EXPECT_EQ(k.right_slope.max_abs_error(), 0.5);
}

// ----------------------------------------------------------------- typed errors

TEST(Ch13Errors, EachRefusalNamesWhatWasWrong) {
  const std::map<std::string, std::string> expected{
      {"zero_step", "check_gradients: invalid step (step 0)"},
      {"nan_step", "check_gradients: invalid step (step nan)"},
      {"negative_tolerance",
       "check_gradients: invalid tolerance (absolute -1e-06 relative 1e-06)"},
      // 1 + 1e-17 == 1: the spacing of doubles above 1 is 2.2e-16.
      {"step_below_spacing",
       "check_gradients: perturbation does not change the input (input 0 coordinate "
       "0: 1 +/- 1e-17 rounds back to itself)"},
      // 1.797e308·(1 + 1e-6) exceeds the largest double.
      {"probe_overflows",
       "check_gradients: probe point is not finite (input 0 coordinate 0: "
       "1.7976931348623157e+308 +/- 1.7976931348623154e+302 overflows)"},
  };
  const auto& errors = ch13_evidence().errors;
  ASSERT_EQ(errors.size(), expected.size());
  for (const auto& [name, text] : errors)
    EXPECT_EQ(text, expected.at(name)) << name;
}

// ----------------------------------------------------------------- exercises

TEST(Ch13Exercises, AnswersMatchTheHandDerivations) {
  const auto& x = ch13_evidence().exercises;
  // 1. Forward difference: error ≈ h·e/2 (+ h²·e/6, + rounding ≤ ε·e/h): at 1e-5,
  //    1.3591e-5; at 1e-8 the two terms are 1.36e-8 and ≤ 6.0e-8.
  EXPECT_NEAR(x.forward_error[0], 1e-5 * kCh13E / 2.0, 1e-9);
  EXPECT_LT(x.forward_error[1], 1e-8 * kCh13E / 2.0 + 6.1e-8);
  // 2. ((1.1)³ − (0.9)³)/0.2 = (1.331 − 0.729)/0.2 = 3.01: f' + h²·f'''/6 = 3 + 0.01.
  EXPECT_NEAR(x.cubic_numeric, 3.01, 1e-12);
  // 3. ReLU at 1e-7, h = 1e-6: (1.1e-6 − 0)/(2e-6) = 0.55.
  EXPECT_NEAR(x.near_kink_numeric, 0.55, 1e-12);
}

}  // namespace

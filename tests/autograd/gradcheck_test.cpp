// The Chapter-13 gradient checker on plain functions of tensors (no tape): analytic
// gradients derived by hand, compared with central differences at every scale.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace {

using llmfs::autograd::central_difference;
using llmfs::autograd::check_gradients;
using llmfs::autograd::GradientCheckErrorCode;
using llmfs::autograd::GradientCheckOptions;
using llmfs::autograd::numeric_derivative;
using llmfs::autograd::probe_points;
using llmfs::autograd::within_tolerance;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorError;
using Result = std::expected<Tensor, TensorError>;
using Inputs = std::span<const Tensor>;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor vec(std::vector<double> values) {
  const std::size_t n = values.size();
  return Tensor::from(Shape{n}, std::move(values)).value();
}

// f(x) = x for a one-element input: f'(x) = 1 everywhere.
Result identity(Inputs x) {
  return Tensor::scalar(x[0].values()[0]);
}

// f(x) = exp(x) for a one-element input: f'(x) = exp(x).
Result exponential(Inputs x) {
  return Tensor::scalar(std::exp(x[0].values()[0]));
}

// f(x) = Σ w_k·x_k³ over one input: ∂f/∂x_k = 3·w_k·x_k².
struct WeightedCubes {
  std::vector<double> w;
  Result operator()(Inputs x) const {
    double total = 0.0;
    for (std::size_t k = 0; k < w.size(); ++k)
      total += w[k] * x[0].values()[k] * x[0].values()[k] * x[0].values()[k];
    return Tensor::scalar(total);
  }
  Tensor gradient(const Tensor& x) const {
    Tensor g = x;
    for (std::size_t k = 0; k < w.size(); ++k)
      g.mutable_values()[k] = 3.0 * w[k] * x.values()[k] * x.values()[k];
    return g;
  }
};

// ----------------------------------------------------------------- any scale

TEST(GradientCheckCore, IdentityAtOneHundredMillionPasses) {
  // h = 1e-6·1e8 = 100 is exact at this scale, so f(x±h) = x±h exactly and the
  // numeric derivative is exactly 1. The old checker (fixed h = 1e-6, divided by 2h)
  // gave 0.9984: x ± 1e-6 is rounded to the 1.5e-8 spacing of doubles near 1e8. Either
  // fix alone rescues f(x) = x; SquareAtOneHundredMillionPasses needs the scaled step.
  const std::vector<Tensor> x{Tensor::scalar(1e8)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto report = check_gradients(identity, x, analytic);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed());
  EXPECT_EQ(report->max_abs_error(), 0.0);
  EXPECT_EQ(report->coordinates(), 1u);
}

TEST(GradientCheckCore, SquareAtOneHundredMillionPasses) {
  // f(x) = x², f'(1e8) = 2e8. With h = 100, f(x±h) = 1e16 ± 2e10 + 1e4 are exact
  // doubles and the quotient is exactly 2e8. A fixed h = 1e-6 leaves a difference of
  // 400 between values of 1e16 whose spacing is 2: about 0.5% off.
  auto square = [](Inputs x) -> Result {
    return Tensor::scalar(x[0].values()[0] * x[0].values()[0]);
  };
  const std::vector<Tensor> x{Tensor::scalar(1e8)};
  const std::vector<Tensor> analytic{Tensor::scalar(2e8)};
  auto report = check_gradients(square, x, analytic);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
  EXPECT_EQ(report->max_abs_error(), 0.0);
}

TEST(GradientCheckCore, ExpAtThirtyPasses) {
  // d/dx exp(x) = exp(x) ≈ 1.07e13 at 30: the central difference is off by ~1.6e3 in
  // absolute terms (1.5e-10 relative), which only a relative tolerance accepts.
  const std::vector<Tensor> x{Tensor::scalar(30.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(std::exp(30.0))};
  auto report = check_gradients(exponential, x, analytic);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
  EXPECT_GT(report->max_abs_error(), 1.0);  // far above any absolute tolerance
  EXPECT_LT(report->max_abs_error(), 1e-8 * std::exp(30.0));
}

TEST(GradientCheckCore, DividesByTheStepActuallyTaken) {
  // At x = 1, (1+1e-6) − (1−1e-6) = 1.99999999995e-6, not 2e-6. For f(x) = x the
  // quotient by the step actually taken is exactly 1; the quotient by 2h is off by
  // 2.7e-11, which tolerances of zero reject.
  const std::vector<Tensor> x{Tensor::scalar(1.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto report = check_gradients(
      identity, x, analytic,
      {.step = 1e-6, .absolute_tolerance = 0.0, .relative_tolerance = 0.0});
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_EQ(report->max_abs_error(), 0.0);
  EXPECT_TRUE(report->passed());
}

TEST(GradientCheckCore, WeightedCubesPassAtEveryScale) {
  // Seeded random cases, x at scales 1e-3 … 1e12 (|f| up to ~1e36): with the defaults
  // (h = 1e-6·max(1,|x|), atol = rtol = 1e-6) the truncation error h²·|f'''|/6 is
  // ~δ²/3 of |f'| and the rounding error ~ε·n/δ of it, both ≪ 1e-6.
  std::mt19937_64 engine(13);
  std::uniform_real_distribution<double> exponent(-3.0, 12.0);
  std::uniform_real_distribution<double> magnitude(0.5, 1.0);
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  std::bernoulli_distribution negative(0.5);
  for (int trial = 0; trial < 200; ++trial) {
    const double scale = std::pow(10.0, exponent(engine));
    WeightedCubes f;
    std::vector<double> values;
    for (int k = 0; k < 4; ++k) {
      f.w.push_back(weight(engine));
      values.push_back((negative(engine) ? -1.0 : 1.0) * scale * magnitude(engine));
    }
    const std::vector<Tensor> x{vec(values)};
    const std::vector<Tensor> analytic{f.gradient(x[0])};
    auto report = check_gradients(f, x, analytic);
    ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
    EXPECT_TRUE(report->passed()) << "trial " << trial << " scale " << scale
                                  << " max error " << report->max_abs_error();
    EXPECT_EQ(report->coordinates(), 4u);
  }
}

TEST(GradientCheckCore, CallsTheFunctionTwicePerCoordinate) {
  std::size_t calls = 0;
  auto sum_of_squares = [&calls](Inputs x) -> Result {
    ++calls;
    double total = 0.0;
    for (const auto& tensor : x)
      for (double v : tensor.values())
        total += v * v;
    return Tensor::scalar(total);
  };
  const std::vector<Tensor> x{vec({1.0, -2.0, 3.0}), vec({0.5, 4.0})};
  const std::vector<Tensor> analytic{vec({2.0, -4.0, 6.0}), vec({1.0, 8.0})};
  auto report = check_gradients(sum_of_squares, x, analytic);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
  EXPECT_EQ(calls, 2u * 5u);
  ASSERT_EQ(report->inputs.size(), 2u);
  EXPECT_EQ(report->inputs[0].coordinates, 3u);
  EXPECT_EQ(report->inputs[1].coordinates, 2u);
}

// ----------------------------------------------------------------- wrong gradients

TEST(GradientCheckCore, AWrongGradientFailsAtEveryScale) {
  // 1% off exp(30): the error 0.01·exp(30) is far outside 1e-6 + 1e-6·exp(30).
  {
    const std::vector<Tensor> x{Tensor::scalar(30.0)};
    const std::vector<Tensor> analytic{Tensor::scalar(1.01 * std::exp(30.0))};
    auto report = check_gradients(exponential, x, analytic);
    ASSERT_TRUE(report.has_value());
    EXPECT_FALSE(report->passed());
    EXPECT_EQ(report->inputs[0].failed, 1u);
    EXPECT_NEAR(report->max_abs_error() / std::exp(30.0), 0.01, 1e-8);
  }
  // 1 + 1e-5 for f(x) = x at 1e8: outside 1e-6 + 1e-6·1.
  {
    const std::vector<Tensor> x{Tensor::scalar(1e8)};
    const std::vector<Tensor> analytic{Tensor::scalar(1.0 + 1e-5)};
    auto report = check_gradients(identity, x, analytic);
    ASSERT_TRUE(report.has_value());
    EXPECT_FALSE(report->passed());
    EXPECT_NEAR(report->max_abs_error(), 1e-5, 1e-15);
  }
}

TEST(GradientCheckCore, ReportsTheWorstCoordinateAndTheFailureCount) {
  // f = Σ x_k² at x = (1, 2, 3): true gradient (2, 4, 6); give (2, 4.5, 5) → errors
  // (0, 0.5, 1): two failures, worst at coordinate 2.
  auto squares = [](Inputs x) -> Result {
    double total = 0.0;
    for (double v : x[0].values())
      total += v * v;
    return Tensor::scalar(total);
  };
  const std::vector<Tensor> x{vec({1.0, 2.0, 3.0})};
  const std::vector<Tensor> analytic{vec({2.0, 4.5, 5.0})};
  auto report = check_gradients(squares, x, analytic);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  EXPECT_EQ(report->inputs[0].failed, 2u);
  EXPECT_EQ(report->inputs[0].worst_coordinate, 2u);
  EXPECT_NEAR(report->max_abs_error(), 1.0, 1e-8);
}

TEST(GradientCheckCore, ToleranceIsAbsolutePlusRelativeToTheNumericDerivative) {
  // atol 0.25, rtol 0.5 (binary fractions, so the bounds are exact).
  const GradientCheckOptions options{
      .step = 1e-6, .absolute_tolerance = 0.25, .relative_tolerance = 0.5};
  // numeric −2: allowed 0.25 + 0.5·2 = 1.25, so |a − n| = 1.25 passes and the next
  // double above 1.25 fails, on either side of n.
  EXPECT_TRUE(within_tolerance(-0.75, -2.0, options));
  EXPECT_TRUE(within_tolerance(-3.25, -2.0, options));
  EXPECT_FALSE(within_tolerance(-2.0 + std::nextafter(1.25, 2.0), -2.0, options));
  EXPECT_FALSE(within_tolerance(std::nextafter(-3.25, -4.0), -2.0, options));
  // Relative to |numeric|, not |analytic|: n = 1, a = 2.5 → error 1.5 > 0.25 + 0.5·1,
  // though 0.25 + 0.5·|a| = 1.5 would accept it.
  EXPECT_FALSE(within_tolerance(2.5, 1.0, options));
  // Zero tolerances: only equality passes.
  const GradientCheckOptions exact{
      .step = 1e-6, .absolute_tolerance = 0.0, .relative_tolerance = 0.0};
  EXPECT_TRUE(within_tolerance(3.0, 3.0, exact));
  EXPECT_FALSE(within_tolerance(3.0, std::nextafter(3.0, 4.0), exact));
}

// ----------------------------------------------------------------- NaN

TEST(GradientCheckCore, ANaNAnalyticGradientFailsAndTheMaximumErrorIsNaN) {
  // f = Σ x_k² on two inputs; input 1's coordinate 1 has a NaN analytic derivative,
  // and coordinates before and after it have finite errors (0.5 and 2).
  auto squares = [](Inputs x) -> Result {
    double total = 0.0;
    for (const auto& tensor : x)
      for (double v : tensor.values())
        total += v * v;
    return Tensor::scalar(total);
  };
  const std::vector<Tensor> x{vec({1.0, 2.0}), vec({3.0, 1.0, 0.5})};
  const std::vector<Tensor> analytic{vec({2.0, 4.0}), vec({6.5, kNaN, 3.0})};
  auto report = check_gradients(squares, x, analytic);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  EXPECT_TRUE(report->inputs[0].passed);
  EXPECT_FALSE(report->inputs[1].passed);
  EXPECT_EQ(report->inputs[1].failed, 3u);  // 0.5, NaN and 2 are all out of tolerance
  EXPECT_TRUE(std::isnan(report->inputs[1].max_abs_error));
  EXPECT_EQ(report->inputs[1].worst_coordinate, 1u);
  EXPECT_TRUE(std::isnan(report->max_abs_error()));
}

TEST(GradientCheckCore, ANaNGradientAloneFails) {
  // The only coordinate is NaN: no finite failure can hide a dropped NaN clause.
  const std::vector<Tensor> x{Tensor::scalar(2.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(kNaN)};
  auto report = check_gradients(identity, x, analytic);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  EXPECT_EQ(report->inputs[0].failed, 1u);
  EXPECT_TRUE(std::isnan(report->max_abs_error()));
}

TEST(GradientCheckCore, ANaNNumericDerivativeFails) {
  // f is NaN above x: the numeric derivative is NaN, the analytic one finite.
  auto broken = [](Inputs x) -> Result {
    const double v = x[0].values()[0];
    return Tensor::scalar(v > 2.0 ? kNaN : v);
  };
  const std::vector<Tensor> x{Tensor::scalar(2.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto report = check_gradients(broken, x, analytic);
  ASSERT_TRUE(report.has_value());
  EXPECT_FALSE(report->passed());
  EXPECT_TRUE(std::isnan(report->max_abs_error()));
}

TEST(GradientCheckCore, TheReportsMaximumIsNaNWhicheverInputHoldsIt) {
  // NaN in the first input, a larger finite error in the second.
  const std::vector<Tensor> x{Tensor::scalar(1.0), Tensor::scalar(1.0)};
  auto sum = [](Inputs v) -> Result {
    return Tensor::scalar(v[0].values()[0] + v[1].values()[0]);
  };
  const std::vector<Tensor> analytic{Tensor::scalar(kNaN), Tensor::scalar(100.0)};
  auto report = check_gradients(sum, x, analytic);
  ASSERT_TRUE(report.has_value());
  EXPECT_TRUE(std::isnan(report->max_abs_error()));
  EXPECT_NEAR(report->inputs[1].max_abs_error, 99.0, 1e-6);
}

// ----------------------------------------------------------------- typed errors

TEST(GradientCheckCore, RejectsNonPositiveOrNonFiniteStepBeforeCallingF) {
  std::size_t calls = 0;
  auto counted = [&calls](Inputs x) -> Result {
    ++calls;
    return identity(x);
  };
  const std::vector<Tensor> x{Tensor::scalar(0.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  for (const auto& [step, text] : std::vector<std::pair<double, std::string>>{
           {0.0, "0"}, {-1e-6, "-1e-06"}, {kNaN, "nan"}, {kInf, "inf"}}) {
    auto r = check_gradients(counted, x, analytic, {.step = step});
    ASSERT_FALSE(r.has_value()) << step;
    EXPECT_EQ(r.error().code, GradientCheckErrorCode::invalid_step);
    EXPECT_EQ(fmt::format("{}", r.error()),
              "check_gradients: invalid step (step " + text + ")");
  }
  EXPECT_EQ(calls, 0u);
}

TEST(GradientCheckCore, RejectsNegativeOrNonFiniteTolerances) {
  const std::vector<Tensor> x{Tensor::scalar(0.0)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto r = check_gradients(identity, x, analytic,
                           {.step = 1e-6, .absolute_tolerance = -1e-6});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: invalid tolerance (absolute -1e-06 relative 1e-06)");
  for (double bad : {-0.5, kNaN, kInf}) {
    auto s = check_gradients(identity, x, analytic,
                             {.step = 1e-6, .relative_tolerance = bad});
    ASSERT_FALSE(s.has_value()) << bad;
    EXPECT_EQ(s.error().code, GradientCheckErrorCode::invalid_tolerance) << bad;
  }
}

TEST(GradientCheckCore, RejectsAPerturbationThatRoundsAway) {
  // δ = 1e-17 at x = 1: 1 + 1e-17 == 1 (the spacing of doubles at 1 is 2.2e-16).
  const std::vector<Tensor> x{vec({0.5, 1.0})};
  const std::vector<Tensor> analytic{vec({1.0, 1.0})};
  auto sum = [](Inputs v) -> Result {
    return Tensor::scalar(v[0].values()[0] + v[0].values()[1]);
  };
  auto r = check_gradients(sum, x, analytic, {.step = 1e-17});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::ineffective_perturbation);
  // Coordinate 0 is 0.5, whose spacing is 1.1e-16: 0.5 − 1e-17 still rounds to 0.5.
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: perturbation does not change the input (input 0 "
            "coordinate 0: 0.5 +/- 1e-17 rounds back to itself)");
  // An infinite coordinate cannot be perturbed either.
  const std::vector<Tensor> y{vec({1.0, kInf})};
  auto s = check_gradients(sum, y, analytic);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().detail,
            "input 0 coordinate 1: inf +/- inf rounds back to itself");
}

TEST(GradientCheckCore, AcceptsLargeValuesThatAFixedStepCouldNotMove) {
  // 1e20 + 1e-6 == 1e20, but h = 1e-6·1e20 = 1e14 moves it.
  const std::vector<Tensor> x{Tensor::scalar(1e20)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto report = check_gradients(identity, x, analytic);
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_TRUE(report->passed());
  EXPECT_EQ(report->max_abs_error(), 0.0);
}

TEST(GradientCheckCore, RejectsANonScalarFunction) {
  auto twice = [](Inputs v) -> Result { return v[0]; };
  const std::vector<Tensor> x{vec({1.0, 2.0})};
  const std::vector<Tensor> analytic{vec({1.0, 1.0})};
  auto r = check_gradients(twice, x, analytic);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::loss_not_scalar);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: loss is not a scalar (loss shape [2])");
}

TEST(GradientCheckCore, RejectsAnalyticGradientsOfTheWrongCountOrShape) {
  const std::vector<Tensor> x{vec({1.0, 2.0})};
  const std::vector<Tensor> none{};
  auto r = check_gradients(identity, x, none);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(fmt::format("{}", r.error()),
            "check_gradients: analytic gradient count differs from input count (0 "
            "gradients for 1 inputs)");
  const std::vector<Tensor> wrong{vec({1.0, 2.0, 3.0})};
  auto s = check_gradients(identity, x, wrong);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(fmt::format("{}", s.error()),
            "check_gradients: analytic gradient shape differs from input shape (input "
            "0: gradient [3] for input [2])");
}

TEST(GradientCheckCore, WrapsTheFunctionsErrorWithTheProbe) {
  // A function that fails only when coordinate 1 is moved down: the error names the
  // probe and keeps the function's TensorError as its cause.
  auto fragile = [](Inputs v) -> Result {
    if (v[0].values()[1] < 2.0) return llmfs::tensor::matmul(v[0], v[0]);
    return Tensor::scalar(v[0].values()[0] + v[0].values()[1]);
  };
  const std::vector<Tensor> x{vec({1.0, 2.0})};
  const std::vector<Tensor> analytic{vec({1.0, 1.0})};
  auto r = check_gradients(fragile, x, analytic);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, GradientCheckErrorCode::evaluation_failed);
  EXPECT_EQ(r.error().stage, "f(x-h), input 0 coordinate 1");
  ASSERT_TRUE(r.error().cause.has_value());
  const Tensor bad = vec({1.0, 2.0 - 2e-6});
  EXPECT_EQ(*r.error().cause, llmfs::tensor::matmul(bad, bad).error());
  EXPECT_EQ(fmt::format("{}", r.error()),
            fmt::format("f(x-h), input 0 coordinate 1: evaluation failed: {}",
                        *r.error().cause));
}

// ----------------------------------------------------------------- the pieces

TEST(GradientCheckCore, ProbePointsAreXMinusAndPlusTheScaledStep) {
  // |x| ≤ 1: h = δ; |x| > 1: h = δ·|x|. Binary fractions and 1e8 ± 100 are exact.
  const auto small = probe_points(0.5, 0.25);
  EXPECT_EQ(small.below, 0.25);
  EXPECT_EQ(small.above, 0.75);
  const auto large = probe_points(-1e8, 1e-6);
  EXPECT_EQ(large.below, -1e8 - 100.0);
  EXPECT_EQ(large.above, -1e8 + 100.0);
}

TEST(GradientCheckCore, CentralDifferenceDividesByTheRunBetweenTheProbes) {
  // rise 3 − 1 = 2 over run 4 − 0 = 4: 0.5, whatever h was meant to be.
  EXPECT_EQ(central_difference(1.0, 3.0, {.below = 0.0, .above = 4.0}), 0.5);
  EXPECT_TRUE(std::isnan(central_difference(kNaN, 3.0, {.below = 0.0, .above = 4.0})));
}

TEST(GradientCheckCore, NumericDerivativePutsTheCoordinateBackEvenOnError) {
  // Fails on f(x−h) of coordinate 1: the point must still be (1, 2) afterwards.
  auto fragile = [](Inputs v) -> Result {
    if (v[0].values()[1] < 2.0) return llmfs::tensor::matmul(v[0], v[0]);
    return Tensor::scalar(v[0].values()[1]);
  };
  std::vector<Tensor> point{vec({1.0, 2.0})};
  auto r = numeric_derivative(fragile, point, 0, 1, 1e-6);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().stage, "f(x-h), input 0 coordinate 1");
  EXPECT_EQ(point[0].values()[1], 2.0);
  auto ok = numeric_derivative(fragile, point, 0, 0, 1e-6);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(*ok, 0.0);  // f does not depend on coordinate 0
  EXPECT_EQ(point[0].values()[0], 1.0);
}

TEST(GradientCheckCore, RejectsAProbeThatOverflows) {
  // ±DBL_MAX·(1 + 1e-6) is beyond the largest double: x ± h is ±inf, so the quotient
  // would be NaN and the check would blame a correct gradient.
  const double largest = std::numeric_limits<double>::max();
  for (const double x : {largest, -largest}) {
    const std::vector<Tensor> point{Tensor::scalar(x)};
    const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
    auto r = check_gradients(identity, point, analytic);
    ASSERT_FALSE(r.has_value()) << x;
    EXPECT_EQ(r.error().code, GradientCheckErrorCode::probe_not_finite);
  }
  // A NaN coordinate has NaN probes: refused, and named as NaN.
  const std::vector<Tensor> nan_point{Tensor::scalar(kNaN)};
  const std::vector<Tensor> one{Tensor::scalar(1.0)};
  auto n = check_gradients(identity, nan_point, one);
  ASSERT_FALSE(n.has_value());
  EXPECT_EQ(n.error().detail, "input 0 coordinate 0: nan +/- nan is NaN");
  // 1e300 is far from the edge: h = 1e294 and both probes are finite.
  const std::vector<Tensor> point{Tensor::scalar(1e300)};
  const std::vector<Tensor> analytic{Tensor::scalar(1.0)};
  auto ok = check_gradients(identity, point, analytic);
  ASSERT_TRUE(ok.has_value()) << fmt::format("{}", ok.error());
  EXPECT_TRUE(ok->passed());
}

}  // namespace

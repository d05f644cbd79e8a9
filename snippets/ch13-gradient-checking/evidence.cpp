// Chapter 13
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ch13 {

using llmfs::autograd::central_difference;
using llmfs::autograd::check_gradients;
using llmfs::autograd::GradientCheckOptions;
using llmfs::autograd::numeric_derivative;
using llmfs::autograd::perturbation;
using llmfs::autograd::probe_points;

namespace {

constexpr double kCh13NaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kCh13Epsilon = std::numeric_limits<double>::epsilon();

double only(Inputs x) {
  return x[0].values()[0];
}
[[nodiscard]] Value identity(Inputs x) {
  return Tensor::scalar(only(x));
}
[[nodiscard]] Value exponential(Inputs x) {
  return Tensor::scalar(std::exp(only(x)));
}
[[nodiscard]] Value relu(Inputs x) {
  return Tensor::scalar(std::max(0.0, only(x)));
}

std::vector<Tensor> scalars(std::span<const double> values) {
  std::vector<Tensor> tensors;
  for (const double v : values)
    tensors.push_back(Tensor::scalar(v));
  return tensors;
}

// Checks a function of one or more one-element inputs against analytic slopes.
template <class F>
[[nodiscard]] Step<GradientCheckReport> check_at(const F& f, std::span<const double> x,
                                                 std::span<const double> analytic,
                                                 GradientCheckOptions options = {}) {
  return LLMFS_TRY_AT("check gradients",
                      check_gradients(f, scalars(x), scalars(analytic), options));
}

}  // namespace

// region: check-fixture
// f(a, b) = a²·b: the numeric derivatives, then the checker on the hand-derived
// gradient, on one with a mistake, and on one with a NaN.
Value fixture_function(Inputs x) {
  return Tensor::scalar(x[0].values()[0] * x[0].values()[0] * x[1].values()[0]);
}

Step<Evidence> check_fixture() {
  Evidence e;
  const std::array<double, 2> point{kA, kB};
  std::vector<Tensor> probe = scalars(point);
  const double step = GradientCheckOptions{}.step;
  for (std::size_t i = 0; i < probe.size(); ++i)
    e.numeric[i] = LLMFS_TRY_AT(
        "numeric derivative", numeric_derivative(fixture_function, probe, i, 0, step));
  std::vector<Tensor> shifted = scalars(std::array{kShiftedA, kB});
  e.shifted_numeric = LLMFS_TRY_AT(
      "numeric derivative", numeric_derivative(fixture_function, shifted, 0, 0, step));
  auto counted = [&e](Inputs x) {
    ++e.calls;
    return fixture_function(x);
  };
  e.correct = LLMFS_TRY(check_at(counted, point, kGradient));
  e.wrong = LLMFS_TRY(check_at(fixture_function, point, kWrongGradient));
  const std::array<double, 2> nan_gradient{kCh13NaN, kGradient[1]};
  e.nan = LLMFS_TRY(check_at(fixture_function, point, nan_gradient));
  return e;
}
// endregion: check-fixture

// region: error-table
// exp at x = 1 for every step of kSteps, through the checker's own probe points and
// difference quotient, beside the two terms of the error model.
std::vector<StepRow> error_table() {
  const double e = std::exp(kTableX);  // f = f' = f''' at every x
  std::vector<StepRow> rows;
  for (const double step : kSteps) {
    const auto probes = probe_points(kTableX, step);
    const double numeric =
        central_difference(std::exp(probes.below), std::exp(probes.above), probes);
    const double h = perturbation(kTableX, step);
    rows.push_back({.step = step,
                    .run = probes.above - probes.below,
                    .numeric = numeric,
                    .error = std::abs(numeric - e),
                    .truncation = h * h * e / 6.0,
                    .rounding = kCh13Epsilon * e / (2.0 * h)});
  }
  return rows;
}
// endregion: error-table

// region: scales
// Why h grows with |x|: f(x) = x at 1e8 with a fixed and a scaled step, at 1e300 where
// a fixed step cannot move x at all; and exp at 30, where only rtol accepts the error
// (beside its truncation term h²/6 and the checker's relative error at 1).
Step<Scales> measure_scales() {
  Scales s;
  const std::array<double, 1> large{kLargeX}, huge{kHugeX}, thirty{kExpX};
  const std::array<double, 1> one{1.0}, exp_thirty{std::exp(kExpX)};
  std::vector<Tensor> probe = scalars(large);
  s.large_checker = LLMFS_TRY_AT(
      "numeric derivative",
      numeric_derivative(identity, probe, 0, 0, GradientCheckOptions{}.step));
  s.large_fixed = ((kLargeX + kFixedStep) - (kLargeX - kFixedStep)) / (2 * kFixedStep);
  s.huge_fixed_moves = kHugeX + kFixedStep != kHugeX;
  s.huge_h = perturbation(kHugeX, GradientCheckOptions{}.step);
  s.huge = LLMFS_TRY(check_at(identity, huge, one));
  s.exp_thirty = LLMFS_TRY(check_at(exponential, thirty, exp_thirty));
  const GradientCheckOptions absolute_only{.relative_tolerance = 0.0};
  s.exp_thirty_absolute_only =
      LLMFS_TRY(check_at(exponential, thirty, exp_thirty, absolute_only)).passed();
  const double h = perturbation(kExpX, GradientCheckOptions{}.step);
  s.exp_thirty_truncation = h * h / 6.0;  // |f'''| / |f| = 1 for exp
  const std::array<double, 1> at_one{1.0}, e{std::exp(1.0)};
  s.exp_one_relative =
      LLMFS_TRY(check_at(exponential, at_one, e)).max_abs_error() / std::exp(1.0);
  return s;
}
// endregion: scales

// region: kink
// ReLU at 0: the probes straddle the kink, so the quotient is the mean of the two
// slopes, and neither one-sided answer passes.
Step<Kink> check_kink() {
  Kink k;
  const std::array<double, 1> zero{0.0}, left{0.0}, right{1.0};
  std::vector<Tensor> probe = scalars(zero);
  k.numeric =
      LLMFS_TRY_AT("numeric derivative",
                   numeric_derivative(relu, probe, 0, 0, GradientCheckOptions{}.step));
  k.left_slope = LLMFS_TRY(check_at(relu, zero, left));
  k.right_slope = LLMFS_TRY(check_at(relu, zero, right));
  return k;
}
// endregion: kink

// region: refusals
// Points and options the checker refuses before it calls f: each error as text.
std::vector<std::array<std::string, 2>> refusals() {
  const std::vector<Tensor> one = scalars(std::array{1.0});
  const std::vector<Tensor> largest = scalars(std::array{kLargestDouble});
  auto refused = [](const std::vector<Tensor>& x, GradientCheckOptions options) {
    return snippets::error_text(check_gradients(identity, x, x, options));
  };
  const double nan = kCh13NaN;
  return {{"zero_step", refused(one, {.step = kZeroStep})},
          {"nan_step", refused(one, {.step = nan})},
          {"negative_tolerance", refused(one, {.absolute_tolerance = -1e-6})},
          {"step_below_spacing", refused(one, {.step = kTinyStep})},
          {"probe_overflows", refused(largest, {})}};
}
// endregion: refusals

// region: exercises
// 1: the forward difference of exp at 1; 2: x³ at 1 with δ = 0.1 (truncation h²);
// 3: ReLU at 1e-7, a tenth of a step from its kink.
Exercises solve_exercises() {
  Exercises x;
  for (std::size_t k = 0; k < kForwardSteps.size(); ++k) {
    const double h = kForwardSteps[k];
    const double forward = (std::exp(1.0 + h) - std::exp(1.0)) / ((1.0 + h) - 1.0);
    x.forward_error[k] = std::abs(forward - std::exp(1.0));
  }
  const auto cubic = probe_points(kCubicX, kCubicStep);
  auto cube = [](double v) { return v * v * v; };
  x.cubic_numeric = central_difference(cube(cubic.below), cube(cubic.above), cubic);
  const auto kink = probe_points(kNearKinkX, GradientCheckOptions{}.step);
  x.near_kink_numeric =
      central_difference(std::max(0.0, kink.below), std::max(0.0, kink.above), kink);
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e = LLMFS_TRY(check_fixture());
  const double shifted_h = perturbation(kShiftedA, GradientCheckOptions{}.step);
  e.shifted_rounding_bound =
      kCh13Epsilon * kShiftedA * kShiftedA * kB / (2 * shifted_h);
  e.table = error_table();
  e.optimum_step = std::cbrt(1.5 * kCh13Epsilon);
  e.scales = LLMFS_TRY(measure_scales());
  e.kink = LLMFS_TRY(check_kink());
  e.errors = refusals();
  e.exercises = solve_exercises();
  return e;
}

}  // namespace ch13

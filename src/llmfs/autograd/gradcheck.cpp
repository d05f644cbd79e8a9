// Chapter 13
#include <algorithm>
#include <cmath>
#include <limits>

#include <llmfs/autograd/gradcheck.hpp>

namespace llmfs::autograd {

namespace {

// The stage of every error the checker raises itself (its function's errors are
// wrapped with the probe's stage instead).
constexpr std::string_view kStage = "check_gradients";

GradientCheckRejection refuse(GradientCheckErrorCode code, std::string detail) {
  return reject(code, std::string(kStage), std::move(detail));
}

}  // namespace

std::string_view describe(GradientCheckErrorCode code) noexcept {
  switch (code) {
    case GradientCheckErrorCode::evaluation_failed: return "evaluation failed";
    case GradientCheckErrorCode::invalid_step: return "invalid step";
    case GradientCheckErrorCode::invalid_tolerance: return "invalid tolerance";
    case GradientCheckErrorCode::ineffective_perturbation:
      return "perturbation does not change the input";
    case GradientCheckErrorCode::probe_not_finite: return "probe point is not finite";
    case GradientCheckErrorCode::loss_not_scalar: return "loss is not a scalar";
    case GradientCheckErrorCode::gradient_count_mismatch:
      return "analytic gradient count differs from input count";
    case GradientCheckErrorCode::gradient_shape_mismatch:
      return "analytic gradient shape differs from input shape";
  }
  return "unknown gradient check error";
}

// region: report-totals
std::size_t GradientCheckReport::coordinates() const noexcept {
  std::size_t total = 0;
  for (const auto& input : inputs)
    total += input.coordinates;
  return total;
}

double GradientCheckReport::max_abs_error() const noexcept {
  double worst = 0.0;
  for (const auto& input : inputs) {
    if (std::isnan(input.max_abs_error)) return input.max_abs_error;
    worst = std::max(worst, input.max_abs_error);
  }
  return worst;
}

bool GradientCheckReport::passed() const noexcept {
  return std::all_of(inputs.begin(), inputs.end(),
                     [](const auto& input) { return input.passed; });
}
// endregion: report-totals

// region: central-difference
double perturbation(double x, double step) noexcept {
  // |x| first: std::max returns its first argument when the comparison is false, so a
  // NaN coordinate gets a NaN step (and is refused), never the finite step of x = 1.
  return step * std::max(std::abs(x), 1.0);
}

ProbePoints probe_points(double x, double step) noexcept {
  const double h = perturbation(x, step);
  return {.below = x - h, .above = x + h};
}

double central_difference(double f_below, double f_above, ProbePoints points) noexcept {
  // Divide by the distance between the probes as they were rounded, not by 2h: that
  // is the run of the chord whose rise f_above − f_below measures.
  return (f_above - f_below) / (points.above - points.below);
}
// endregion: central-difference

// region: tolerance
bool within_tolerance(double analytic, double numeric,
                      const GradientCheckOptions& options) noexcept {
  const double allowed =
      options.absolute_tolerance + options.relative_tolerance * std::abs(numeric);
  // Written so that a NaN on either side (error or allowance) fails.
  return std::abs(analytic - numeric) <= allowed;
}

void record_comparison(InputGradientCheck& check, std::size_t coordinate,
                       double analytic, double numeric,
                       const GradientCheckOptions& options) noexcept {
  const double error = std::abs(analytic - numeric);
  ++check.coordinates;
  if (!within_tolerance(analytic, numeric, options)) ++check.failed;
  check.passed = check.failed == 0;
  if (std::isnan(check.max_abs_error)) return;  // the first NaN stays the worst
  if (std::isnan(error) || error > check.max_abs_error) {
    check.max_abs_error = error;
    check.worst_coordinate = coordinate;
  }
}
// endregion: tolerance

// region: gradient-check-checks
std::expected<void, GradientCheckRejection> validate_gradient_check(
    std::span<const tensor::Tensor> inputs, const GradientCheckOptions& options) {
  const double step = options.step;
  if (!(step > 0.0) || !std::isfinite(step))
    return refuse(GradientCheckErrorCode::invalid_step, fmt::format("step {}", step));
  for (const double tolerance :
       {options.absolute_tolerance, options.relative_tolerance}) {
    if (!(tolerance >= 0.0) || !std::isfinite(tolerance)) {
      return refuse(GradientCheckErrorCode::invalid_tolerance,
                    fmt::format("absolute {} relative {}", options.absolute_tolerance,
                                options.relative_tolerance));
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto values = inputs[i].values();
    for (std::size_t c = 0; c < values.size(); ++c) {
      const double x = values[c];
      const ProbePoints p = probe_points(x, step);
      auto where = [&] {
        return fmt::format("input {} coordinate {}: {} +/- {}", i, c, x,
                           perturbation(x, step));
      };
      if (p.above == x || p.below == x)
        return refuse(GradientCheckErrorCode::ineffective_perturbation,
                      where() + " rounds back to itself");
      if (!std::isfinite(p.above) || !std::isfinite(p.below))
        return refuse(GradientCheckErrorCode::probe_not_finite,
                      where() + (std::isnan(x) ? " is NaN" : " overflows"));
    }
  }
  return {};
}
// endregion: gradient-check-checks

// region: analytic-checks
std::expected<void, GradientCheckRejection> validate_analytic(
    std::span<const tensor::Tensor> inputs, std::span<const tensor::Tensor> analytic) {
  if (analytic.size() != inputs.size()) {
    return refuse(
        GradientCheckErrorCode::gradient_count_mismatch,
        fmt::format("{} gradients for {} inputs", analytic.size(), inputs.size()));
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (analytic[i].shape() != inputs[i].shape()) {
      return refuse(GradientCheckErrorCode::gradient_shape_mismatch,
                    fmt::format("input {}: gradient {} for input {}", i,
                                analytic[i].shape(), inputs[i].shape()));
    }
  }
  return {};
}

std::expected<void, GradientCheckRejection> require_scalar_loss(
    const tensor::Shape& shape) {
  if (shape.element_count() != 1)
    return refuse(GradientCheckErrorCode::loss_not_scalar,
                  fmt::format("loss shape {}", shape));
  return {};
}

std::expected<double, GradientCheckRejection> scalar_loss(const tensor::Tensor& loss) {
  LLMFS_TRY(require_scalar_loss(loss.shape()));
  return loss.values()[0];
}
// endregion: analytic-checks

}  // namespace llmfs::autograd

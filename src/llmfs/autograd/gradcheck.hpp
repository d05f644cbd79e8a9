// Chapter 13
#pragma once
/// \file
/// \brief Gradient checking by central differences: an analytic gradient of a scalar
/// function of tensors against numeric derivatives (Chapter 13). Needs only the tensor
/// chapters (8–12); the tape-aware form that takes its analytic gradient from
/// backward() is `autograd/tape_gradcheck.hpp` (Chapter 15).

#include <cstddef>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::autograd {

// region: gradcheck-errors
/// What can go wrong in a gradient check.
enum class GradientCheckErrorCode {
  evaluation_failed,  ///< the checked function (or the tape behind it) failed; `cause`
                      ///< holds its error
  invalid_step,       ///< the step δ is ≤ 0, NaN or infinite
  invalid_tolerance,  ///< a tolerance is negative, NaN or infinite
  ineffective_perturbation,  ///< x+h or x−h equals x in floating point
  probe_not_finite,          ///< x+h or x−h is not finite (overflow, or x is NaN)
  loss_not_scalar,          ///< the function's value has more or fewer than one element
  gradient_count_mismatch,  ///< analytic gradients and inputs differ in number
  gradient_shape_mismatch,  ///< an analytic gradient's shape differs from its input's
};

/// The fixed description of a code, e.g. `"invalid step"`.
[[nodiscard]] std::string_view describe(GradientCheckErrorCode code) noexcept;

/// The error of a gradient check whose function fails with `Cause` (a
/// tensor::TensorError for a function of tensors, an AutogradError for a taped loss).
/// Formats as `check_gradients: invalid step (step 0)`, or for a failed evaluation
/// `f(x+h), input 0 coordinate 3: evaluation failed: <cause>`.
template <class Cause>
using GradientCheckError = StageError<GradientCheckErrorCode,
                                      GradientCheckErrorCode::evaluation_failed, Cause>;

/// A gradient-check error that does not yet know the function's error type; it converts
/// to every GradientCheckError<Cause>, as a rejection of the shared error idiom does.
using GradientCheckRejection = Rejection<GradientCheckErrorCode, std::string>;
// endregion: gradcheck-errors

// region: gradcheck-options
/// The step and the accepted error of a gradient check.
///
/// Coordinate x is moved to x ± h with h = step·max(1, |x|), so the step is relative
/// for |x| > 1 and absolute below. The numeric derivative divides by the step actually
/// taken, (x+h) − (x−h) as computed in floating point, not by 2h. A coordinate passes
/// when |analytic − numeric| ≤ absolute_tolerance + relative_tolerance·|numeric|; a NaN
/// on either side fails.
///
/// The defaults suit functions that are smooth at the scale of h: with step 1e-6 the
/// central difference's truncation error is about h²·|f'''|/6 and its rounding error
/// about ε·|f|/h (ε = 2.2e-16), both far below 1e-6 relative for such functions.
struct GradientCheckOptions {
  double step = 1e-6;  ///< δ (dimensionless); h = δ·max(1, |x|); finite and > 0
  double absolute_tolerance = 1e-6;  ///< atol, in the gradient's units (units of f per
                                     ///< unit of x); finite and ≥ 0
  double relative_tolerance = 1e-6;  ///< rtol, a fraction of |numeric|; finite, ≥ 0
};
// endregion: gradcheck-options

// region: gradcheck-report
/// The outcome for one input tensor.
struct InputGradientCheck {
  std::size_t coordinates = 0;  ///< coordinates probed (the input's element count)
  std::size_t failed = 0;  ///< coordinates outside the tolerance (NaN counts as failed)
  double max_abs_error = 0.0;  ///< largest |analytic − numeric|, in the gradient's
                               ///< units; NaN if any coordinate's error is NaN
  std::size_t worst_coordinate = 0;  ///< row-major index of max_abs_error (the first
                                     ///< NaN, if there is one)
  bool passed = true;                ///< failed == 0
};

/// The outcome for all inputs, in input order.
struct GradientCheckReport {
  std::vector<InputGradientCheck> inputs;  ///< one entry per input tensor
  /// Total coordinates probed over every input.
  [[nodiscard]] std::size_t coordinates() const noexcept;
  /// Largest |analytic − numeric| over every input: 0 if there are none, NaN if any
  /// input's is NaN.
  [[nodiscard]] double max_abs_error() const noexcept;
  /// True when every input passed.
  [[nodiscard]] bool passed() const noexcept;
};
// endregion: gradcheck-report

/// The half-width h = step·max(1, |x|) of the probe around coordinate value `x` (units
/// of x). \param x the coordinate's value. \param step δ of GradientCheckOptions.
/// \return h; NaN if x is NaN.
[[nodiscard]] double perturbation(double x, double step) noexcept;

/// The two points of a central difference around x: x − h and x + h, h =
/// perturbation(x, step), each rounded to a double.
struct ProbePoints {
  double below = 0.0;  ///< x − h as computed (units of x)
  double above = 0.0;  ///< x + h as computed (units of x)
};

/// The probe points around `x`. \param x the coordinate's value. \param step δ of
/// GradientCheckOptions. \return x − h and x + h, h = perturbation(x, step).
[[nodiscard]] ProbePoints probe_points(double x, double step) noexcept;

/// The central difference (f_above − f_below) / (above − below): the slope of the
/// chord through the two probes, divided by the step actually taken rather than by 2h.
/// \param f_below f(x − h). \param f_above f(x + h). \param points the probes.
/// \return the numeric derivative (units of f per unit of x); NaN if either value is.
[[nodiscard]] double central_difference(double f_below, double f_above,
                                        ProbePoints points) noexcept;

/// Whether one coordinate passes: |analytic − numeric| ≤ atol + rtol·|numeric|, false
/// if either is NaN. \param analytic the derivative under test. \param numeric the
/// central difference. \param options the tolerances. \return true when within
/// tolerance.
[[nodiscard]] bool within_tolerance(double analytic, double numeric,
                                    const GradientCheckOptions& options) noexcept;

/// Folds one coordinate's comparison into `check` (counts, failures, worst error).
/// \param check the input's running outcome. \param coordinate the row-major index.
/// \param analytic the derivative under test. \param numeric the central difference.
/// \param options the tolerances.
void record_comparison(InputGradientCheck& check, std::size_t coordinate,
                       double analytic, double numeric,
                       const GradientCheckOptions& options) noexcept;

/// Checks the options and every probe point before anything is evaluated: the step
/// first, then the tolerances, then each coordinate of each input in order.
/// \param inputs the point where the gradient is checked. \param options the step and
/// tolerances. \return GradientCheckErrorCode::invalid_step,
/// GradientCheckErrorCode::invalid_tolerance,
/// GradientCheckErrorCode::ineffective_perturbation with detail `input i coordinate c:
/// x +/- h rounds back to itself`, or GradientCheckErrorCode::probe_not_finite with
/// detail `input i coordinate c: x +/- h overflows` (or `is NaN`).
[[nodiscard]] std::expected<void, GradientCheckRejection> validate_gradient_check(
    std::span<const tensor::Tensor> inputs, const GradientCheckOptions& options);

/// Checks that there is one analytic gradient per input, each of its input's shape.
/// \param inputs the point. \param analytic the gradients under test. \return
/// GradientCheckErrorCode::gradient_count_mismatch or
/// GradientCheckErrorCode::gradient_shape_mismatch naming the input and both shapes.
[[nodiscard]] std::expected<void, GradientCheckRejection> validate_analytic(
    std::span<const tensor::Tensor> inputs, std::span<const tensor::Tensor> analytic);

/// Checks that a loss of this shape has exactly one element (any rank).
/// \param shape the loss shape. \return GradientCheckErrorCode::loss_not_scalar with
/// detail `loss shape [..]`.
[[nodiscard]] std::expected<void, GradientCheckRejection> require_scalar_loss(
    const tensor::Shape& shape);

/// The single value of a loss tensor. \param loss a tensor of one element (any rank).
/// \return its value, or GradientCheckErrorCode::loss_not_scalar.
[[nodiscard]] std::expected<double, GradientCheckRejection> scalar_loss(
    const tensor::Tensor& loss);

/// The error type of a checked function `F`: it is called with the inputs as
/// `std::span<const tensor::Tensor>` and returns `std::expected<tensor::Tensor, E>`.
template <class F>
using function_error_t =
    typename std::invoke_result_t<const F&,
                                  std::span<const tensor::Tensor>>::error_type;

// region: probe-coordinate
/// The central difference of `f` in coordinate `c` of input `i` of `point`: the
/// coordinate is moved to x + h, then x − h, and put back. \param f the function.
/// \param point the inputs, changed only during the call. \param i the input. \param
/// c the coordinate (row-major). \param step δ. \return the numeric derivative, or
/// f's error wrapped with the probe's stage, or
/// GradientCheckErrorCode::loss_not_scalar.
template <class F>
[[nodiscard]] std::expected<double, GradientCheckError<function_error_t<F>>>
numeric_derivative(const F& f, std::vector<tensor::Tensor>& point, std::size_t i,
                   std::size_t c, double step) {
  const std::span<const tensor::Tensor> inputs(point);
  double& coordinate = point[i].mutable_values()[c];
  // Put the coordinate back on every path out, the error paths included.
  struct Restore {
    double& slot;
    double value;
    ~Restore() { slot = value; }
  } restore{coordinate, coordinate};
  const ProbePoints probes = probe_points(restore.value, step);
  coordinate = probes.above;
  const auto above =
      LLMFS_TRY_AT(fmt::format("f(x+h), input {} coordinate {}", i, c), f(inputs));
  coordinate = probes.below;
  const auto below =
      LLMFS_TRY_AT(fmt::format("f(x-h), input {} coordinate {}", i, c), f(inputs));
  const double up = LLMFS_TRY(scalar_loss(above));
  const double down = LLMFS_TRY(scalar_loss(below));
  return central_difference(down, up, probes);
}
// endregion: probe-coordinate

// region: check-gradients
/// Compares `analytic` (one tensor per input, of its input's shape) with the central
/// difference (f(x+h) − f(x−h)) / ((x+h) − (x−h)) on every coordinate of every input,
/// h = step·max(1, |x|); a coordinate passes when |analytic − numeric| ≤
/// absolute_tolerance + relative_tolerance·|numeric| (GradientCheckOptions). `f` maps
/// the inputs (any count and shapes) to a one-element tensor; it is called 2·N times
/// for N coordinates, each time with one coordinate moved. \param f the scalar
/// function, `std::span<const tensor::Tensor> -> std::expected<tensor::Tensor, E>`.
/// \param inputs the point. \param analytic the gradient under test, ∂f/∂inputs. \param
/// options the step and tolerances. \return the report, or GradientCheckError<E>: the
/// errors of validate_gradient_check() and validate_analytic() (in that order, before f
/// is called), GradientCheckErrorCode::loss_not_scalar, or
/// GradientCheckErrorCode::evaluation_failed whose stage names the probe (`f(x+h),
/// input i coordinate c`) and whose cause is f's error. Source: Chapter 13.
template <class F>
[[nodiscard]] std::expected<GradientCheckReport,
                            GradientCheckError<function_error_t<F>>>
check_gradients(const F& f, std::span<const tensor::Tensor> inputs,
                std::span<const tensor::Tensor> analytic,
                GradientCheckOptions options = {}) {
  LLMFS_TRY(validate_gradient_check(inputs, options));
  LLMFS_TRY(validate_analytic(inputs, analytic));
  std::vector<tensor::Tensor> point(inputs.begin(), inputs.end());
  GradientCheckReport report;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    InputGradientCheck check;
    for (std::size_t c = 0; c < inputs[i].size(); ++c) {
      const double numeric =
          LLMFS_TRY(numeric_derivative(f, point, i, c, options.step));
      record_comparison(check, c, analytic[i].values()[c], numeric, options);
    }
    report.inputs.push_back(check);
  }
  return report;
}
// endregion: check-gradients

}  // namespace llmfs::autograd

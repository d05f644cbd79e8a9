// Chapter 13
#pragma once
/// \file
/// \brief Gradient checking by central differences (Chapter 13).

#include <cstddef>
#include <expected>
#include <functional>
#include <span>
#include <vector>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::autograd {

/// Builds a scalar loss on `tape` from `inputs` (one TensorValue per input tensor, in
/// order). The loss must have exactly one element (any rank).
using LossBuilder = std::function<std::expected<TensorValue, AutogradError>(
    Tape& tape, std::span<const TensorValue> inputs)>;

/// The step and the accepted error of a gradient check.
struct GradientCheckOptions {
  double step = 1e-6;  ///< δ in (f(x+δ) − f(x−δ)) / 2δ; must be finite and > 0
  double tolerance = 1e-6;  ///< largest accepted |analytic − numeric| per coordinate
};

/// The outcome for one input tensor.
struct InputGradientCheck {
  std::size_t coordinates = 0;       ///< coordinates probed (the input's element count)
  double max_abs_error = 0.0;        ///< largest |analytic − numeric| over them
  std::size_t worst_coordinate = 0;  ///< row-major index where max_abs_error occurred
  bool passed = true;                ///< max_abs_error ≤ tolerance
};

/// The outcome for all inputs, in input order.
struct GradientCheckReport {
  std::vector<InputGradientCheck> inputs;  ///< one entry per input tensor
  /// Total coordinates probed over every input.
  [[nodiscard]] std::size_t coordinates() const noexcept;
  /// Largest error over every input (0 if there are none).
  [[nodiscard]] double max_abs_error() const noexcept;
  /// True when every input passed.
  [[nodiscard]] bool passed() const noexcept;
};

/// Compares the tape's analytic gradient of `loss` with the central difference
/// `(f(x+δ) − f(x−δ)) / 2δ` on every coordinate of every input. The analytic gradient
/// comes from one backward pass with seed 1 on a tape where every input is a parameter;
/// each of the 2·N perturbed evaluations runs on its own fresh tape. Comparison is
/// absolute. \return AutogradErrorCode::invalid_step for δ ≤ 0 or non-finite (checked
/// first),
///         AutogradErrorCode::ineffective_perturbation naming input and coordinate if
///         x+δ == x or x−δ == x, AutogradErrorCode::loss_not_scalar, or the loss
///         builder's own error.
[[nodiscard]] std::expected<GradientCheckReport, AutogradError> check_gradients(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs,
    GradientCheckOptions options = {});

}  // namespace llmfs::autograd

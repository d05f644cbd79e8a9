// Chapter 15
#pragma once
/// \file
/// \brief Gradient checking of the tape: the analytic gradient comes from one
/// backward() pass, the numeric one from the Chapter-13 checker
/// (`autograd/gradcheck.hpp`) run on the same loss rebuilt on a fresh tape per probe
/// (Chapter 15).

#include <expected>
#include <functional>
#include <span>
#include <vector>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::autograd {

/// Builds a scalar loss on `tape` from `inputs` (one TensorValue per input tensor, in
/// order). The loss must have exactly one element (any rank).
using LossBuilder = std::function<std::expected<TensorValue, AutogradError>(
    Tape& tape, std::span<const TensorValue> inputs)>;

/// The error of a tape gradient check: a GradientCheckError whose wrapped cause is the
/// tape's (or the loss builder's) AutogradError.
using TapeGradientCheckError = GradientCheckError<AutogradError>;

/// The loss as a plain function of tensors: records `loss` on a fresh tape with every
/// input a parameter and returns the loss's value (the tape is dropped).
/// \param loss the loss builder. \param inputs the point, one tensor per builder input.
/// \return the loss value (any shape; the checker requires one element), or the
/// builder's own error.
[[nodiscard]] std::expected<tensor::Tensor, AutogradError> evaluate_loss(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs);

/// The analytic gradient of `loss` at `inputs`: records the loss on a fresh tape with
/// every input a parameter, runs one backward() pass seeded with 1 and reads every
/// input's gradient. \param loss the loss builder. \param inputs the point.
/// \return one gradient per input, each of its input's shape;
/// GradientCheckErrorCode::loss_not_scalar; or
/// GradientCheckErrorCode::evaluation_failed with stage `loss`, `backward` or
/// `gradient` wrapping the AutogradError.
[[nodiscard]] std::expected<std::vector<tensor::Tensor>, TapeGradientCheckError>
tape_gradients(const LossBuilder& loss, std::span<const tensor::Tensor> inputs);

/// Checks the tape's gradient of `loss` against central differences: tape_gradients()
/// compared by check_gradients() (Chapter 13) with evaluate_loss() as the function,
/// so each of the 2·N probes runs on its own fresh tape. Step, tolerance and report are
/// those of GradientCheckOptions: h = step·max(1, |x|), pass when |analytic − numeric|
/// ≤ absolute_tolerance + relative_tolerance·|numeric|. \param loss the loss builder.
/// \param inputs the point, one tensor per builder input. \param options the step and
/// tolerances. \return the report, or: the errors of validate_gradient_check() (checked
/// first, before the loss is built), those of tape_gradients(), then
/// GradientCheckErrorCode::loss_not_scalar or
/// GradientCheckErrorCode::evaluation_failed for a probe (stage `f(x+h), input i
/// coordinate c`). Source: Chapters 13 and 15.
[[nodiscard]] std::expected<GradientCheckReport, TapeGradientCheckError>
check_tape_gradients(const LossBuilder& loss, std::span<const tensor::Tensor> inputs,
                     GradientCheckOptions options = {});

}  // namespace llmfs::autograd

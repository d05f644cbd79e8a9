// Chapter 15
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::autograd {

namespace {

// Every input as a parameter of `tape`, in order.
std::vector<TensorValue> parameters_on(Tape& tape,
                                       std::span<const tensor::Tensor> inputs) {
  std::vector<TensorValue> parameters;
  parameters.reserve(inputs.size());
  for (const auto& input : inputs)
    parameters.push_back(tape.parameter(input));
  return parameters;
}

}  // namespace

std::expected<tensor::Tensor, AutogradError> evaluate_loss(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs) {
  Tape tape;
  const auto parameters = parameters_on(tape, inputs);
  const TensorValue value = LLMFS_TRY(loss(tape, parameters));
  return value.value();
}

// region: tape-gradient-check
std::expected<std::vector<tensor::Tensor>, TapeGradientCheckError> tape_gradients(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs) {
  Tape tape;
  const auto parameters = parameters_on(tape, inputs);
  const TensorValue value = LLMFS_TRY_AT("loss", loss(tape, parameters));
  LLMFS_TRY(require_scalar_loss(value.shape()));
  LLMFS_TRY_AT("backward", backward(value, tensor::Tensor::full(value.shape(), 1.0)));
  std::vector<tensor::Tensor> gradients;
  gradients.reserve(parameters.size());
  for (const auto& parameter : parameters)
    gradients.push_back(LLMFS_TRY_AT("gradient", parameter.gradient()));
  return gradients;
}

std::expected<GradientCheckReport, TapeGradientCheckError> check_tape_gradients(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs,
    GradientCheckOptions options) {
  LLMFS_TRY(validate_gradient_check(inputs, options));
  const auto analytic = LLMFS_TRY(tape_gradients(loss, inputs));
  auto f = [&loss](std::span<const tensor::Tensor> x) {
    return evaluate_loss(loss, x);
  };
  return check_gradients(f, inputs, analytic, options);
}
// endregion: tape-gradient-check

}  // namespace llmfs::autograd

// Chapter 13
#include <algorithm>
#include <cmath>

#include <llmfs/autograd/gradcheck.hpp>

namespace llmfs::autograd {

std::size_t GradientCheckReport::coordinates() const noexcept {
  std::size_t total = 0;
  for (const auto& input : inputs)
    total += input.coordinates;
  return total;
}

double GradientCheckReport::max_abs_error() const noexcept {
  double worst = 0.0;
  for (const auto& input : inputs)
    worst = std::max(worst, input.max_abs_error);
  return worst;
}

bool GradientCheckReport::passed() const noexcept {
  return std::all_of(inputs.begin(), inputs.end(),
                     [](const auto& input) { return input.passed; });
}

namespace {

// Evaluates the loss on a fresh tape; returns its single value.
std::expected<double, AutogradError> evaluate(const LossBuilder& loss,
                                              std::span<const tensor::Tensor> inputs) {
  Tape tape;
  std::vector<TensorValue> values;
  values.reserve(inputs.size());
  for (const auto& input : inputs)
    values.push_back(tape.parameter(input));
  auto result = loss(tape, values);
  if (!result) return std::unexpected(result.error());
  auto value = result->value();
  if (!value) return std::unexpected(value.error());
  if (value->size() != 1) {
    return std::unexpected(AutogradError{AutogradErrorCode::loss_not_scalar,
                                         "check_gradients",
                                         fmt::format("loss shape {}", value->shape()),
                                         {}});
  }
  return value->values()[0];
}

}  // namespace

std::expected<GradientCheckReport, AutogradError> check_gradients(
    const LossBuilder& loss, std::span<const tensor::Tensor> inputs,
    GradientCheckOptions options) {
  const double step = options.step;
  // Validate the step, then every perturbation, before evaluating anything.
  if (!(step > 0.0) || !std::isfinite(step)) {
    return std::unexpected(AutogradError{AutogradErrorCode::invalid_step,
                                         "check_gradients",
                                         fmt::format("step {}", step),
                                         {}});
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto values = inputs[i].values();
    for (std::size_t c = 0; c < values.size(); ++c) {
      if (values[c] + step == values[c] || values[c] - step == values[c]) {
        return std::unexpected(AutogradError{
            AutogradErrorCode::ineffective_perturbation,
            "check_gradients",
            fmt::format("input {} coordinate {}: {} +/- {} rounds back to itself", i, c,
                        values[c], step),
            {}});
      }
    }
  }

  // Analytic gradients: one backward pass with seed 1.
  Tape tape;
  std::vector<TensorValue> params;
  for (const auto& input : inputs)
    params.push_back(tape.parameter(input));
  auto result = loss(tape, params);
  if (!result) return std::unexpected(result.error());
  if (result->shape().element_count() != 1) {
    return std::unexpected(AutogradError{AutogradErrorCode::loss_not_scalar,
                                         "check_gradients",
                                         fmt::format("loss shape {}", result->shape()),
                                         {}});
  }
  auto pass = backward(*result, tensor::Tensor::full(result->shape(), 1.0));
  if (!pass) return std::unexpected(pass.error());

  // Central differences, coordinate by coordinate.
  GradientCheckReport report;
  std::vector<tensor::Tensor> probe(inputs.begin(), inputs.end());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto analytic = params[i].gradient();
    if (!analytic) return std::unexpected(analytic.error());
    InputGradientCheck check;
    check.coordinates = inputs[i].size();
    for (std::size_t c = 0; c < inputs[i].size(); ++c) {
      const double x = inputs[i].values()[c];
      probe[i].mutable_values()[c] = x + step;
      auto plus = evaluate(loss, probe);
      probe[i].mutable_values()[c] = x - step;
      auto minus = evaluate(loss, probe);
      probe[i].mutable_values()[c] = x;
      if (!plus) return std::unexpected(plus.error());
      if (!minus) return std::unexpected(minus.error());
      const double numeric = (*plus - *minus) / (2.0 * step);
      const double error = std::abs(analytic->values()[c] - numeric);
      if (error > check.max_abs_error || std::isnan(error)) {
        check.max_abs_error = error;  // a NaN error sticks and fails the check
        check.worst_coordinate = c;
      }
    }
    check.passed = check.max_abs_error <= options.tolerance;
    report.inputs.push_back(check);
  }
  return report;
}

}  // namespace llmfs::autograd

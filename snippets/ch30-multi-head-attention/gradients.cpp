// Chapter 30
// Central differences on all 12 + 4·16 = 76 coordinates of the fixture's loss
// L = Σ MHA(X) ⊙ U, at step δ = 1e-6 and tolerance 8e-6.

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::autograd::AutogradError;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Tensor;

namespace {

// The loss as a function of its five inputs (X, W_Q, W_K, W_V, W_O), built on `tape`.
std::expected<TensorValue, AutogradError> fixture_loss(
    Tape& tape, std::span<const TensorValue> inputs) {
  auto as_autograd = [](const auto& error) {
    return AutogradError{AutogradErrorCode::invalid_argument, "chapter 30 loss",
                         fmt::format("{}", error), std::nullopt};
  };
  auto name = [](std::string_view role) {
    return fmt::format("{}.{}.weight", kParameterPrefix, role);
  };
  auto layer = MultiHeadAttention::from_parameters(
      {name("query"), inputs[1]}, {name("key"), inputs[2]}, {name("value"), inputs[3]},
      {name("output"), inputs[4]}, kHeads, kMaxPositions, kRopeBase);
  if (!layer) return std::unexpected(as_autograd(layer.error()));
  auto forward = layer->forward(inputs[0], kOffset);
  if (!forward) return std::unexpected(as_autograd(forward.error()));
  auto upstream = Tensor::from({kBatch, kTokens, kModelWidth},
                               {kUpstream.begin(), kUpstream.end()});
  if (!upstream) return llmfs::at_stage("chapter 30 loss", upstream.error());
  auto product = llmfs::autograd::multiply(forward->output, tape.constant(*upstream));
  if (!product) return std::unexpected(product.error());
  return llmfs::autograd::sum(*product);
}

}  // namespace

std::expected<GradientEvidence, Failure> gather_gradients() {
  const std::array<Tensor, 5> inputs = {fixture_input(), identity(kModelWidth),
                                        identity(kModelWidth), identity(kModelWidth),
                                        fixture_output_weight()};
  auto report = need(
      llmfs::autograd::check_tape_gradients(fixture_loss, inputs,
                                            {.step = kGradientStep,
                                             .absolute_tolerance = kGradientTolerance,
                                             .relative_tolerance = 0.0}),
      "check the gradients by central differences");
  if (!report) return std::unexpected(report.error());
  const auto& checks = report->inputs;
  return GradientEvidence{.input_checks = checks[0].coordinates,
                          .query_checks = checks[1].coordinates,
                          .key_checks = checks[2].coordinates,
                          .value_checks = checks[3].coordinates,
                          .output_checks = checks[4].coordinates,
                          .max_abs_error = report->max_abs_error(),
                          .passed = report->passed()};
}

}  // namespace ch30

// Chapter 33
#include <string>
#include <utility>

#include <fmt/format.h>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/training/decoder_loss.hpp>

namespace llmfs::training {

namespace {

/// The formatted text of a lower error, as the trainer keeps it.
template <class E>
std::unexpected<ModelFailure> failed(const E& error) {
  return std::unexpected(ModelFailure{fmt::format("{}", error)});
}

// region: decoder-loss-body
/// One call of the decoder's LossFunction: a model on a fresh tape holding `values`,
/// the batch's mean loss, and when asked the backward pass and every gradient.
[[nodiscard]] std::expected<LossAndGradients, ModelFailure> decoder_pass(
    const models::DecoderConfig& config, std::span<const tensor::Tensor> values,
    const Batch& batch, bool with_gradients) {
  auto model = models::DecoderModel::from_values(
      config, std::vector<tensor::Tensor>(values.begin(), values.end()));
  if (!model) return failed(model.error());
  const auto loss = model->loss(batch.inputs, batch.targets);
  if (!loss) return failed(loss.error());
  const auto value = loss->value();
  if (!value) return failed(value.error());
  LossAndGradients out{value->values()[0], {}};
  if (!with_gradients) return out;
  // ∂loss/∂loss = 1 seeds the backward pass over the whole tape
  const auto back = autograd::backward(*loss, tensor::Tensor::scalar(1.0));
  if (!back) return failed(back.error());
  auto gradients = model->gradients();  // in the model's parameter order
  if (!gradients) return failed(gradients.error());
  out.gradients = std::move(*gradients);
  return out;
}
// endregion: decoder-loss-body

}  // namespace

LossFunction decoder_loss(const models::DecoderConfig& config) {
  return [config](std::span<const tensor::Tensor> values, const Batch& batch,
                  bool with_gradients) {
    return decoder_pass(config, values, batch, with_gradients);
  };
}

std::vector<ParameterGroup> decoder_groups(const models::DecoderConfig& config,
                                           double weight_decay) {
  std::vector<ParameterGroup> groups;
  for (models::ParameterSpec& spec : models::decoder_parameter_specs(config)) {
    const double decay = spec.shape.rank() >= 2 ? weight_decay : 0.0;
    groups.push_back({spec.name, decay, {{spec.name, std::move(spec.shape)}}});
  }
  return groups;
}

}  // namespace llmfs::training

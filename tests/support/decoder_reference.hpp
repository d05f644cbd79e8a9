#pragma once
// A chapter-32 decoder read from a PyTorch reference case (tests/reference/data/): its
// configuration from the case's scalars, its parameters by name in the model's order.
// One reader for every test that rebuilds the reference decoder (chapters 32 and 38,
// and the models unit tests).

#include <cstddef>
#include <vector>

#include <llmfs/models/decoder.hpp>

#include "support/reference_data.hpp"

namespace llmfs::testing {

/// The configuration the case was drawn with (its seed is not needed: the values are).
[[nodiscard]] inline models::DecoderConfig decoder_config_of(const ReferenceData& r) {
  auto size = [&](const char* key) { return static_cast<std::size_t>(r.scalar(key)); };
  return models::DecoderConfig{.vocab_size = size("vocab_size"),
                               .model_width = size("model_width"),
                               .heads = size("heads"),
                               .layers = size("layers"),
                               .hidden_width = size("hidden_width"),
                               .context_length = size("context_length"),
                               .rope_base = r.scalar("rope_base"),
                               .epsilon = r.scalar("epsilon"),
                               .seed = 0};
}

/// The case's parameter values, one per decoder_parameter_specs() entry, in that order.
[[nodiscard]] inline std::vector<tensor::Tensor> decoder_values_of(
    const ReferenceData& r, const models::DecoderConfig& config) {
  std::vector<tensor::Tensor> values;
  for (const auto& spec : models::decoder_parameter_specs(config))
    values.push_back(tensor::Tensor::from(spec.shape, r.at(spec.name).values).value());
  return values;
}

}  // namespace llmfs::testing

// Chapter 33
#pragma once
/// \file
/// \brief Chapter 32's decoder as the trainer's model: a LossFunction that builds the
/// model from the values on a fresh tape, records the mean next-token cross-entropy of
/// a batch, and, when asked, runs the backward pass and reads every gradient.

#include <llmfs/models/decoder.hpp>
#include <llmfs/training/trainer.hpp>

namespace llmfs::training {

// region: decoder-loss-api
/// The decoder with `config` (V, d, h, N, d_ff, T_max, RoPE base, ε) as a
/// LossFunction. The values are the decoder's parameters in the order of
/// models::decoder_parameter_specs(). A refusal of the model (a bad value shape, a
/// token outside the vocabulary, a batch longer than T_max) comes back as a
/// ModelFailure holding the formatted DecoderError.
[[nodiscard]] LossFunction decoder_loss(const models::DecoderConfig& config);

/// The optimizer's groups for the decoder: one group per parameter, named after it, in
/// the model's order (so the values keep the order of decoder_parameter_specs()), with
/// Chapter 22's rule for λ: `weight_decay` for a matrix, 0 for a gain.
/// Precondition: models::validate(config).
[[nodiscard]] std::vector<ParameterGroup> decoder_groups(
    const models::DecoderConfig& config, double weight_decay);
// endregion: decoder-loss-api

}  // namespace llmfs::training

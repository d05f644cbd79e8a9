// Chapter 38
#pragma once
// Chapter 38's frozen fixtures, defined once for its program and its tests
// (tests/chapters/ch38_*). The Predict model is Chapter 32's (E = 2I, both branches
// off, T_max = 4), continued greedily from the one-token prompts [2] and [0]. The demo
// model: Chapter 32's demo sizes with a context of 256, drawn by DecoderModel::create,
// prompted with 8 seeded tokens per row, B = 2, 200 new tokens drawn by Chapter 36's
// sampler.

#include <cstddef>
#include <cstdint>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/models/decoder.hpp>

#include "../ch32-decoder-model/fixture.hpp"

namespace ch38 {

// region: predict-fixture
/// Chapter 32's Predict model: V = 4, d = 4, h = 2, N = 1, T_max = 4, E = 2I.
inline constexpr llmfs::models::DecoderConfig kFixtureConfig = ch32::kFixtureConfig;
/// Two rows, one prompt token each: [2] and [0].
inline llmfs::autograd::TokenGrid fixture_prompt() {
  return {2, 1, {2, 0}};
}
/// New tokens per row: the prompt and these fill the context exactly.
inline constexpr std::size_t kFixtureNewTokens = 3;
// endregion: predict-fixture

/// The demo model: V = 32, d = 16, h = 2, N = 2, d_ff = 48, T_max = 256.
inline constexpr llmfs::models::DecoderConfig kDemoConfig{.vocab_size = 32,
                                                          .model_width = 16,
                                                          .heads = 2,
                                                          .layers = 2,
                                                          .hidden_width = 48,
                                                          .context_length = 256,
                                                          .rope_base = 10000.0,
                                                          .epsilon = 1e-6,
                                                          .seed = 38};
inline constexpr std::size_t kDemoBatch = 2;
inline constexpr std::size_t kDemoPrompt = 8;
inline constexpr std::size_t kDemoNewTokens = 200;
inline constexpr std::uint64_t kDemoPromptSeed = 3838;
/// The demo's chooser: Chapter 36's sampler at τ = 1, no top-k cut, seeded.
inline constexpr std::uint64_t kDemoSamplingSeed = 36;
inline constexpr double kDemoTemperature = 1.0;

}  // namespace ch38

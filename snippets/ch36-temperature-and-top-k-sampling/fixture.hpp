// Chapter 36
#pragma once
// Chapter 36's frozen fixture, shared by the demo and tests/chapters/ch36_*: five
// logits whose tempered probabilities are small fractions, a tie at the top-k boundary
// and one masked token; and the untrained decoder of Chapter 32 the demo samples from.

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <llmfs/generation/sampling.hpp>
#include <llmfs/models/decoder.hpp>

namespace ch36 {

// region: fixture
/// Five logits z = (ln 2, ln 4, 0, ln 2, −∞): e^z = (2, 4, 1, 2, 0). Tokens 0 and 3
/// tie; token 4 is masked.
inline const std::vector<double> kLogits = {std::log(2.0), std::log(4.0), 0.0,
                                            std::log(2.0),
                                            -std::numeric_limits<double>::infinity()};
/// The Predict's settings: τ = 1/2 (square every e^z), keep the top k = 2.
inline const llmfs::generation::SamplingConfig kConfig{.temperature = 0.5, .top_k = 2};
/// The generator of the draw: SplitMix64(36), whose first uniform is 0.912889.
inline constexpr std::uint64_t kSeed = 36;
// endregion: fixture

/// Draws for the frequency experiment at τ = 1, no cut: p = (2, 4, 1, 2, 0)/9, so the
/// expected counts are 4000, 8000, 2000, 4000 and 0.
inline constexpr std::size_t kDraws = 18000;

/// The untrained decoder the demo samples from (Chapter 32's demo sizes, seed 36).
inline constexpr llmfs::models::DecoderConfig kDecoderConfig{.vocab_size = 32,
                                                             .model_width = 16,
                                                             .heads = 2,
                                                             .layers = 2,
                                                             .hidden_width = 48,
                                                             .context_length = 16,
                                                             .rope_base = 10000.0,
                                                             .epsilon = 1e-6,
                                                             .seed = 36};
/// The prompt, and how many tokens each setting generates after it.
inline const std::vector<llmfs::text::TokenId> kPrompt = {1, 2, 3};
inline constexpr std::size_t kGenerated = 10;

}  // namespace ch36

// Chapter 35
#pragma once
// Chapter 35's frozen fixture, defined once for its program and its tests
// (tests/chapters/ch35_*): the tiny file of the Predict (one tensor [2] = (1, −2)), the
// special doubles, and the training run: a decoder of Chapter 32 (V = 260, d_model = 8,
// h = 2, N = 1, d_ff = 16, T_max = 16) over a tokenizer of two hand-made merges, AdamW
// (η = 0.01, λ = 0.1 on matrices), batches of B = 2 windows of T = 8 tokens drawn at
// random starts by SplitMix64(35), eight steps, a checkpoint after step four.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <llmfs/models/decoder.hpp>
#include <llmfs/text/merges.hpp>
#include <llmfs/training/adamw.hpp>

namespace ch35 {

/// The Predict's file: one tensor `w` of shape [2] holding 1 and −2, no metadata.
inline constexpr std::array<double, 2> kTinyValues = {1.0, -2.0};

/// The doubles the issue names, and both infinities.
inline const std::array<double, 8> kSpecial = {
    0.1,
    -0.0,
    5e-324,
    1.7976931348623157e308,
    std::bit_cast<double>(0x7FF8000000000123ULL),
    std::bit_cast<double>(0xFFF0000000000001ULL),
    std::bit_cast<double>(0x7FF0000000000000ULL),
    std::bit_cast<double>(0xFFF0000000000000ULL)};

// region: fixture
/// The training text (Genesis 1:1–2, King James Version).
inline constexpr std::string_view kText =
    "In the beginning God created the heaven and the earth. And the earth was without "
    "form, and void; and darkness was upon the face of the deep.";
/// The prompt whose logits the Python reader reproduces.
inline constexpr std::string_view kPrompt = "In the beginning";

/// Two merges: t h -> 256 ("th"), 256 e -> 257 ("the"). V = 256 + 2 + BOS + EOS = 260.
inline llmfs::text::MergeTable merges() {
  return {{{116, 104}, {256, 101}}};
}

/// The decoder's sizes.
inline constexpr llmfs::models::DecoderConfig kConfig{.vocab_size = 260,
                                                      .model_width = 8,
                                                      .heads = 2,
                                                      .layers = 1,
                                                      .hidden_width = 16,
                                                      .context_length = 16,
                                                      .rope_base = 10000.0,
                                                      .epsilon = 1e-6,
                                                      .seed = 35};

inline constexpr llmfs::training::AdamWHyper kHyper{0.01, 0.9, 0.999, 1e-8};
inline constexpr double kWeightDecay = 0.1;
inline constexpr std::size_t kBatch = 2;        ///< B: windows per batch
inline constexpr std::size_t kTokens = 8;       ///< T: tokens per window
inline constexpr std::uint64_t kDataSeed = 35;  ///< SplitMix64 seed of the batch draws
inline constexpr std::size_t kSteps = 8;        ///< steps of the whole run
inline constexpr std::size_t kSaveAfter =
    4;  ///< the checkpoint is taken after this step
// endregion: fixture

}  // namespace ch35

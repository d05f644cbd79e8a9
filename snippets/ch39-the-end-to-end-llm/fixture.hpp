// Chapter 39
#pragma once
// Chapter 39's settings, shared by the demo, the long run (`make train`), generation
// (`make generate`) and tests/chapters/ch39_*_test.cpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <llmfs/generation/sampling.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/training/adamw.hpp>

namespace ch39 {

// region: long-run
/// The model of the long run: V = 4096 (the course tokenizer), d = 96, h = 4, N = 2,
/// d_ff = 256, T_max = 64: 614,880 parameters, 393,216 of them the tied table.
inline constexpr llmfs::models::DecoderConfig kModel{4096, 96,      4,    2, 256,
                                                     64,   10000.0, 1e-6, 39};
/// Windows of T = 64 tokens every 64; B = 16, so 1,024 predicted tokens per step;
/// S = 2,000 steps, validated on every window of the validation partition at step 0
/// and every 200 steps.
inline constexpr std::size_t kContext = 64, kBatch = 16, kSteps = 2000, kEvery = 200;
/// η rises to 4·10⁻³ over 100 steps, then falls along a cosine to 4·10⁻⁴; gradients
/// clipped to norm 1; weight decay 0.1 on matrices only; β = (0.9, 0.95).
inline constexpr double kPeak = 4e-3, kFloor = 4e-4, kClip = 1.0, kWeightDecay = 0.1;
inline constexpr std::size_t kWarmup = 100;
inline constexpr llmfs::training::AdamWHyper kHyper{kPeak, 0.9, 0.95, 1e-8};
/// The seed of every epoch's order.
inline constexpr std::uint64_t kSeed = 39;
// endregion: long-run

// region: demo-run
/// The demo: the same pipeline at toy size, fast enough for a golden. d = 32, h = 2,
/// N = 1, d_ff = 64, T = 32 on the first two training documents; 20 steps of B = 8;
/// validated on the first validation document every 10 steps; tested on the first
/// test document.
inline constexpr llmfs::models::DecoderConfig kDemoModel{4096, 32,      2,    1, 64,
                                                         32,   10000.0, 1e-6, 39};
inline constexpr std::size_t kDemoContext = 32, kDemoBatch = 8, kDemoSteps = 20,
                             kDemoEvery = 10, kDemoWarmup = 4, kDemoDocuments = 2;
inline constexpr double kDemoPeak = 1e-2, kDemoFloor = 1e-3;
// endregion: demo-run

// region: samples
/// The prompts the chapter's samples continue, and how long.
inline constexpr std::array<std::string_view, 3> kPrompts = {
    "In the beginning", "And the LORD said unto Moses,", "Blessed are the"};
inline constexpr std::size_t kSampleTokens = 48;
/// The decoding settings of the samples: greedy, then (τ, k) pairs.
inline const std::array<llmfs::generation::SamplingConfig, 4> kSettings = {{
    {1.0, std::nullopt, llmfs::generation::Decoding::greedy},
    {0.7, 40, llmfs::generation::Decoding::sample},
    {1.0, 40, llmfs::generation::Decoding::sample},
    {1.0, std::nullopt, llmfs::generation::Decoding::sample},
}};
/// The seed of the samples' draws.
inline constexpr std::uint64_t kSampleSeed = 39;
// endregion: samples

}  // namespace ch39

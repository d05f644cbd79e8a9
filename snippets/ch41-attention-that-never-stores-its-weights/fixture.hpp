// Chapter 41
#pragma once
// Chapter 41's frozen fixtures, defined once for its program and its tests
// (tests/chapters/ch41_*). The Predict row: one query's scores [1, 3, 2, 5, 0] folded
// two keys at a time. The Predict head: d_k = 1, every query 1 and the keys equal to
// those scores, so query 4's row of scores is exactly the Predict row.

#include <array>
#include <cstddef>
#include <cstdint>

#include <llmfs/models/decoder.hpp>

namespace ch41 {

// region: predict-fixture
/// The Predict row of scores and its block size.
inline constexpr std::array<double, 5> kScores{1.0, 3.0, 2.0, 5.0, 0.0};
inline constexpr std::size_t kBlock = 2;
/// The Predict head, `[1, 1, T=5, ·]`: Q = 1 everywhere, K = the scores, d_k = 1 (so
/// 1/√d_k = 1), and V's rows two-dimensional.
inline constexpr std::array<double, 5> kQuery{1.0, 1.0, 1.0, 1.0, 1.0};
inline constexpr std::array<double, 10> kValue{1, 0, 0, 1, 1, 1, 2, 0, 0, 2};
// endregion: predict-fixture

/// The property sweep: Q, K, V `[1, 2, 7, 4]` drawn from this seed, every block 1..7.
inline constexpr std::size_t kSweepTokens = 7;
inline constexpr std::uint64_t kSweepSeed = 4141;

/// The tape-size table: one multi-head layer, d_model = 16, h = 2, at these T (none of
/// them 16 or 8, so no [T, d] value is mistaken for a [T, T] table).
inline constexpr std::array<std::size_t, 4> kTapeTokens{24, 48, 96, 192};
inline constexpr std::size_t kTapeBlock = 8;

/// The training comparison: chapter 32's demo model sizes, a fixed batch, AdamW.
inline constexpr llmfs::models::DecoderConfig kTrainConfig{.vocab_size = 32,
                                                           .model_width = 16,
                                                           .heads = 2,
                                                           .layers = 2,
                                                           .hidden_width = 48,
                                                           .context_length = 16,
                                                           .rope_base = 10000.0,
                                                           .epsilon = 1e-6,
                                                           .seed = 41};
inline constexpr std::size_t kTrainBatch = 2;
inline constexpr std::size_t kTrainTokens = 11;  ///< not a multiple of the block
inline constexpr std::size_t kTrainBlock = 4;
inline constexpr std::size_t kDemoSteps = 5;  ///< the demo's; the test runs 20

/// The benchmark's sizes (its numbers are measured: bench/results/ch41-attention.txt).
inline constexpr std::size_t kBenchHeads = 8;
inline constexpr std::array<std::size_t, 6> kBenchTokens{512,  1024, 2048,
                                                         4096, 8192, 16384};

}  // namespace ch41

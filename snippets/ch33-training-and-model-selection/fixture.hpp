// Chapter 33
#pragma once
// Chapter 33's frozen fixtures and run settings, shared by the demo and
// tests/chapters/ch33_*_test.cpp.

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <llmfs/models/decoder.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/schedule.hpp>

namespace ch33 {

// region: fixture
/// η_max = 0.01, η_min = 0.001, W = 2 warmup steps, S = 6 steps.
inline constexpr llmfs::training::LearningRateSchedule kSchedule{0.01, 0.001, 2, 6};
/// Two gradients whose global norm is 5 (a 3-4-5 triangle), clipped to c = 1.
inline const std::vector<std::vector<double>> kGradients = {{3.0}, {0.0, 4.0}};
inline constexpr double kMaxNorm = 1.0;
/// A validation curve, (step, loss): lowest at step 20, tied at step 40.
inline constexpr std::array<std::pair<std::size_t, double>, 5> kCurve = {
    {{0, 3.0}, {10, 2.5}, {20, 2.25}, {30, 2.5}, {40, 2.25}}};
// endregion: fixture

// region: corpus-run
/// The demo's decoder over bytes (V = 258): d = 32, h = 2, N = 1, d_ff = 64, T_max
/// = 32.
inline constexpr llmfs::models::DecoderConfig kDemoModel{258, 32,      2,    1, 64,
                                                         32,  10000.0, 1e-6, 33};
/// Windows of T = 32 bytes every 32; B = 8; 40 steps, validated every 10 steps on
/// the first kDemoValidation examples of the validation partition.
inline constexpr std::size_t kDemoContext = 32, kDemoBatch = 8, kDemoSteps = 40,
                             kDemoEvery = 10, kDemoValidation = 64;
/// The demo trains on the first kDemoDocuments documents of the training partition.
inline constexpr std::size_t kDemoDocuments = 2;
/// η from 3·10⁻³ down to 3·10⁻⁴ after 4 warmup steps; c = 1; λ = 0.1 on matrices.
inline constexpr llmfs::training::AdamWHyper kHyper{3e-3, 0.9, 0.95, 1e-8};
inline constexpr double kPeak = 3e-3, kFloor = 3e-4, kMaxGradientNorm = 1.0,
                        kWeightDecay = 0.1;
inline constexpr std::size_t kWarmup = 4;
/// The seed of every epoch's order.
inline constexpr std::uint64_t kSeed = 33;
// endregion: corpus-run

/// The long run (`make train-decoder`): d = 64, h = 4, N = 2, d_ff = 172, T = 64, on
/// the whole training partition, B = 16, 2,000 steps, validated every 200 steps on
/// the first 512 validation examples.
inline constexpr llmfs::models::DecoderConfig kLongModel{258, 64,      4,    2, 172,
                                                         64,  10000.0, 1e-6, 33};
inline constexpr std::size_t kLongContext = 64, kLongBatch = 16, kLongSteps = 2000,
                             kLongEvery = 200, kLongValidation = 512, kLongWarmup = 100;

}  // namespace ch33

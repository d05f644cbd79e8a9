// Chapter 23
#pragma once
// Chapter 23's frozen fixture and training settings, shared by the demo and
// tests/chapters/ch23_*_test.cpp.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <llmfs/models/ngram_mlp.hpp>

namespace ch23 {

// region: fixture
/// Four tokens: a = 0, b = 1, BOS = 2, EOS = 3; two tokens of context, widths d = h
/// = 1.
inline constexpr llmfs::models::NgramConfig kFixtureConfig{4, 2, 1, 1};
inline constexpr llmfs::text::TokenId kBos = 2, kEos = 3;
/// One document, "a b".
inline const std::vector<std::vector<llmfs::text::TokenId>> kDocuments = {{0, 1}};
/// E (a = ½, b = −½, BOS = EOS = 0), W₁ = [1, 1]ᵀ, b₁ = 0, W₂ = 0, b₂ = [ln 2, 0, 0,
/// 0]: with W₂ = 0 every logit row is b₂, so p = [2/5, 1/5, 1/5, 1/5] at every
/// position.
inline const std::vector<std::vector<double>> kValues = {
    {0.5, -0.5, 0.0, 0.0},
    {1.0, 1.0},
    {0.0},
    {0.0, 0.0, 0.0, 0.0},
    {std::log(2.0), 0.0, 0.0, 0.0}};
/// The gradient check's point: the same with W₂ = [1, −1, ½, 0], so every parameter
/// receives a gradient.
inline const std::vector<double> kCheckedOutputWeight = {1.0, -1.0, 0.5, 0.0};
// endregion: fixture

// region: corpus-settings
/// The corpus model: n = 3 previous tokens, d = 32, h = 128 (V from the tokenizer).
inline constexpr std::size_t kContext = 3, kEmbedding = 32, kHidden = 128;
/// AdamW with η = 10⁻², PyTorch's β and ε; λ = 0.01 on the matrices (Chapter 22).
inline constexpr llmfs::training::AdamWHyper kHyper{1e-2, 0.9, 0.999, 1e-8};
inline constexpr double kWeightDecay = 0.01;
/// The seed of the initial values and of every epoch's order (Chapter 21).
inline constexpr std::uint64_t kSeed = 23;
/// The demo: B = 32, 80 steps, the curve at every 20th, scored on the first
/// kSubsetDocuments validation documents.
inline constexpr std::size_t kBatch = 32, kSteps = 80, kEvery = 20;
inline constexpr std::size_t kSubsetDocuments = 1;
/// The long run: B = 128, 3,000 steps, the whole validation partition every 500.
inline constexpr std::size_t kLongBatch = 128, kLongSteps = 10000, kLongEvery = 1000;
// endregion: corpus-settings

}  // namespace ch23

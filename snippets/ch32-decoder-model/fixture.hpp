// Chapter 32
#pragma once
// Chapter 32's frozen fixtures, defined once for its program and its tests
// (tests/chapters/ch32_*). The Predict model: V = 4, d_model = 4, h = 2, N = 1,
// d_ff = 4, E = 2·I, W_Q = W_K = W_V = W₁ = W₃ = I, W_O = W₂ = 0 (both branches off),
// every gain 1, on ids [0,1,2] with targets [1,2,3]. The demo model: a random model
// drawn by DecoderModel::create from kDemoConfig, on a batch cut from one seeded
// stream.

#include <cstddef>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch32 {

/// The Predict model's sizes.
inline constexpr llmfs::models::DecoderConfig kFixtureConfig{.vocab_size = 4,
                                                             .model_width = 4,
                                                             .heads = 2,
                                                             .layers = 1,
                                                             .hidden_width = 4,
                                                             .context_length = 4,
                                                             .rope_base = 100.0,
                                                             .epsilon = 1e-6,
                                                             .seed = 0};

/// The demo model: V = 32, d = 16, h = 2, N = 2, d_ff = 48 (Chapter 20's rule for 16).
inline constexpr llmfs::models::DecoderConfig kDemoConfig{.vocab_size = 32,
                                                          .model_width = 16,
                                                          .heads = 2,
                                                          .layers = 2,
                                                          .hidden_width = 48,
                                                          .context_length = 16,
                                                          .rope_base = 10000.0,
                                                          .epsilon = 1e-6,
                                                          .seed = 32};
inline constexpr std::size_t kDemoBatch = 2;
inline constexpr std::size_t kDemoTokens = 8;
inline constexpr std::uint64_t kDemoStreamSeed = 3232;

// region: predict-fixture
/// The Predict model's eleven values in decoder_parameter_specs() order.
inline std::vector<llmfs::tensor::Tensor> fixture_values() {
  using llmfs::tensor::Tensor;
  Tensor identity = Tensor::zeros({4, 4});
  for (std::size_t i = 0; i < 4; ++i)
    identity.mutable_values()[i * 4 + i] = 1.0;
  Tensor table = Tensor::zeros({4, 4});
  for (std::size_t i = 0; i < 4; ++i)
    table.mutable_values()[i * 4 + i] = 2.0;
  const Tensor ones = Tensor::full({4}, 1.0);
  const Tensor zero = Tensor::zeros({4, 4});
  return {table, ones,     identity, identity, identity, zero,
          ones,  identity, identity, zero,     ones};
}

/// ids [1,3] = [0,1,2].
inline llmfs::autograd::TokenGrid fixture_ids() {
  return {1, 3, {0, 1, 2}};
}
/// targets [1,3] = [1,2,3]: each position's next token.
inline llmfs::autograd::TokenGrid fixture_targets() {
  return {1, 3, {1, 2, 3}};
}
// endregion: predict-fixture

}  // namespace ch32

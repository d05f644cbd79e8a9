#pragma once
// The benchmark's configurations (B, T, d_model, h), shared by every benchmark in this
// folder and mirrored by bench/torch_reference.py.

#include <array>
#include <cstddef>

namespace llmfs::bench {

struct AttentionShape {
  std::size_t batch;        // B
  std::size_t tokens;       // T
  std::size_t model_width;  // d_model
  std::size_t heads;        // h
  [[nodiscard]] constexpr std::size_t head_width() const { return model_width / heads; }
};

inline constexpr std::array<AttentionShape, 2> kShapes{
    {{4, 128, 128, 4}, {8, 256, 256, 8}}};

/// A decoder model and batch (Chapter 32), mirrored by DECODER_SHAPES in
/// torch_reference.py.
struct DecoderShape {
  std::size_t vocab;         // V
  std::size_t model_width;   // d_model
  std::size_t heads;         // h
  std::size_t layers;        // N
  std::size_t hidden_width;  // d_ff (Chapter 20's rule for d_model)
  std::size_t batch;         // B
  std::size_t tokens;        // T, also the context length
};

inline constexpr std::array<DecoderShape, 1> kDecoderShapes{
    {{512, 128, 4, 2, 344, 4, 128}}};

}  // namespace llmfs::bench

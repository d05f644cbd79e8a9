// Chapter 29
#pragma once
// Rotary position embedding: the frozen fixture, shared by the chapter's
// program and its tests.

#include <array>
#include <cstddef>
#include <vector>

#include <llmfs/attention/rope.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch29 {

// region: fixture
/// One row of content at three positions: width 4, base 100, capacity 6.
/// Every query and key row is `content`; value row t is e_t, so an
/// output row spells out its attention weights. Offset 3 is the
/// largest that fits three tokens into six positions.
struct Fixture {
  static constexpr std::size_t width = 4;     // d: pairs (x0,x1) and (x2,x3)
  static constexpr std::size_t tokens = 3;    // T
  static constexpr std::size_t capacity = 6;  // P: positions 0..5
  static constexpr double base = 100.0;       // θ_0 = 1, θ_1 = 100^(-1/2) = 0.1
  static constexpr std::array<std::size_t, 2> offsets{0, 3};
  static constexpr std::array<double, width> content{1.0, 0.0, 1.0, 0.0};
  static constexpr std::array<double, tokens * width> values{
      1.0, 0.0, 0.0, 0.0,  // v_0
      0.0, 1.0, 0.0, 0.0,  // v_1
      0.0, 0.0, 1.0, 0.0,  // v_2
  };
};
// endregion: fixture

/// The fixture's layer.
[[nodiscard]] inline auto fixture_rope() {
  return llmfs::attention::RotaryEmbedding::create(Fixture::width, Fixture::capacity,
                                                   Fixture::base);
}

/// `tokens` rows of `content`: the queries and keys, `[1, T, d]`.
[[nodiscard]] inline llmfs::tensor::Tensor fixture_content_rows() {
  std::vector<double> rows;
  for (std::size_t t = 0; t < Fixture::tokens; ++t)
    rows.insert(rows.end(), Fixture::content.begin(), Fixture::content.end());
  return *llmfs::tensor::Tensor::from({1, Fixture::tokens, Fixture::width}, rows);
}

/// The value rows e_t, `[1, T, d]`.
[[nodiscard]] inline llmfs::tensor::Tensor fixture_value_rows() {
  return *llmfs::tensor::Tensor::from(
      {1, Fixture::tokens, Fixture::width},
      std::vector<double>(Fixture::values.begin(), Fixture::values.end()));
}

}  // namespace ch29

#pragma once
// The chapter-30 fixture and helpers shared by the multi-head attention test files.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace llmfs::testing::multi_head {

using llmfs::attention::HeadLayoutErrorCode;
using llmfs::attention::merge_heads;
using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadErrorCode;
using llmfs::attention::MultiHeadForward;
using llmfs::attention::MultiHeadStage;
using llmfs::attention::NoPositions;
using llmfs::attention::PositionEncoding;
using llmfs::attention::RotaryPositions;
using llmfs::attention::split_heads;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::NamedParameter;
using llmfs::nn::SplitMix64;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::gradient_of;
using llmfs::testing::make;
using llmfs::testing::value_of;

// the chapter-30 fixture (seed 000)
// B=1, T=3, d_model=4, h=2 (d_h=2), W_Q=W_K=W_V=I, W_O swaps the two 2×2 blocks,
// capacity 6, RoPE base 100, offset 0.

inline constexpr std::size_t kCapacity = 6;
inline constexpr double kBase = 100.0;

inline Tensor fixture_input() {
  return make(Shape{1, 3, 4}, {1, 0, 1, 0,                           //
                               std::cos(1.0), -std::sin(1.0), 0, 1,  //
                               std::cos(2.0), -std::sin(2.0), 1, 1});
}
inline Tensor identity() {
  return make(Shape{4, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
}
inline Tensor block_swap() {
  return make(Shape{4, 4}, {0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0});
}
inline Tensor fixture_upstream() {
  return make(Shape{1, 3, 4},
              {1, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9});
}

// One run of a layer on its own tape: the input and all four matrices are parameters,
// so backward() fills every gradient.
struct Run {
  Tape tape;
  TensorValue input;
  std::optional<MultiHeadAttention> layer;
  MultiHeadForward forward;
};

inline std::unique_ptr<Run> run_layer(
    const Tensor& input, const std::vector<Tensor>& weights, std::size_t offset = 0,
    PositionEncoding positions = RotaryPositions{kCapacity, kBase},
    std::size_t heads = 2) {
  auto run = std::make_unique<Run>();
  run->input = run->tape.parameter(input);
  auto layer = MultiHeadAttention::from_parameters(
      {"attention.query.weight", run->tape.parameter(weights[0])},
      {"attention.key.weight", run->tape.parameter(weights[1])},
      {"attention.value.weight", run->tape.parameter(weights[2])},
      {"attention.output.weight", run->tape.parameter(weights[3])}, heads, positions);
  EXPECT_TRUE(layer.has_value()) << fmt::format("{}", layer.error());
  if (!layer) return run;
  run->layer = std::move(*layer);
  auto forward = run->layer->forward(run->input, offset);
  EXPECT_TRUE(forward.has_value()) << fmt::format("{}", forward.error());
  if (forward) run->forward = std::move(*forward);
  return run;
}

inline std::unique_ptr<Run> run_fixture(const Tensor& input = fixture_input(),
                                        std::size_t offset = 0) {
  return run_layer(input, {identity(), identity(), identity(), block_swap()}, offset);
}

inline std::vector<Tensor> stages(const MultiHeadForward& f) {
  return {value_of(f.projected_query_heads),
          value_of(f.projected_key_heads),
          value_of(f.projected_value_heads),
          value_of(f.rotated_query_heads),
          value_of(f.rotated_key_heads),
          value_of(f.attention_weights),
          value_of(f.head_outputs),
          value_of(f.merged),
          value_of(f.output)};
}

inline std::vector<Tensor> gradients(const Run& run) {
  std::vector<Tensor> list{gradient_of(run.input)};
  for (const auto& parameter : run.layer->parameters())
    list.push_back(gradient_of(parameter.value));
  return list;
}

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace llmfs::testing::multi_head

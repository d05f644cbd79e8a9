#pragma once
// Helpers shared by the multi-head attention test files.

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

#include "../../snippets/ch30-multi-head-attention/fixture.hpp"
#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace llmfs::testing::multi_head {

using llmfs::SplitMix64;
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
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::gradient_of;
using llmfs::testing::make;
using llmfs::testing::value_of;

// The chapter-30 fixture (seed 000) is defined once, in the chapter's snippet folder.
using ch30::block_swap;
using ch30::fixture_input;
using ch30::fixture_upstream;
using ch30::identity;
using ch30::kMaxPositions;
using ch30::kRopeBase;

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
    PositionEncoding positions = RotaryPositions{kMaxPositions, kRopeBase},
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

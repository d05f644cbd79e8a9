// Chapter 31
// The exercise answers, each computed by running the library.

#include <algorithm>
#include <cmath>

#include <llmfs/nn/swiglu.hpp>

#include "evidence.hpp"

namespace ch31 {

namespace {

// max |a − b| over every coordinate.
double max_change(const Tensor& a, const Tensor& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a.values()[i] - b.values()[i]));
  return worst;
}

}  // namespace

Step<Exercises> answer_exercises(const Evidence& evidence) {
  Exercises e;
  // region: exercise-wide-block
  // 1. A block of a 512-wide model: its d_ff by Chapter 20's rule, then build it.
  e.wide_model_width = 512;
  e.wide_heads = 8;
  e.wide_hidden = LLMFS_TRY_AT("hidden width",
                               llmfs::nn::swiglu_hidden_width(e.wide_model_width, 8));
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(31);
  const llmfs::models::DecoderBlockShape shape{.model_width = e.wide_model_width,
                                               .heads = e.wide_heads,
                                               .hidden_width = e.wide_hidden,
                                               .max_positions = 16,
                                               .rope_base = 10000.0,
                                               .epsilon = kEpsilon};
  const auto wide = LLMFS_TRY_AT(
      "wide block", llmfs::models::DecoderBlock::create(tape, "wide", shape, rng));
  e.wide_parameters = wide.parameter_count();
  // endregion: exercise-wide-block
  // 2. Which intermediates move when X is scaled by 10.
  const Stages& a = evidence.fixture;
  const Stages& b = evidence.scaled;
  e.scale_changes = {
      {"attention_input", max_change(a.attention_input, b.attention_input)},
      {"attention_output", max_change(a.attention_output, b.attention_output)},
      {"hidden", max_change(a.hidden, b.hidden)},
      {"ffn_input", max_change(a.ffn_input, b.ffn_input)},
      {"ffn_output", max_change(a.ffn_output, b.ffn_output)},
      {"output", max_change(a.output, b.output)}};
  // A drawn block of the fixture's sizes, for exercise 3.
  llmfs::autograd::Tape other;
  llmfs::SplitMix64 draw(32);
  const llmfs::models::DecoderBlockShape fixture_shape{
      kModelWidth, kHeads, kHiddenWidth, kMaxPositions, kRopeBase, kEpsilon};
  const auto block = LLMFS_TRY_AT("drawn block", llmfs::models::DecoderBlock::create(
                                                     other, "b", fixture_shape, draw));
  // region: exercise-x-readers
  // 3. How many recorded ops read x itself (each sends a gradient back into x).
  const auto x = other.parameter(fixture_input());
  LLMFS_TRY_AT("drawn forward", block.forward(x, 0));
  for (const auto& node : other.nodes()) {
    e.x_gradient_paths +=
        static_cast<std::size_t>(std::ranges::count(node.parents, x.node_id()));
  }
  // endregion: exercise-x-readers
  return e;
}

}  // namespace ch31

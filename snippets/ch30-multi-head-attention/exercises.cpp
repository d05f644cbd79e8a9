// Chapter 30
// Answers to chapter 30's exercises, each computed by running the library.

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadErrorCode;
using llmfs::autograd::Tape;

namespace {

// Exercise 1: which head counts does a width-6 layer accept?
std::vector<HeadChoice> classify_width_six() {
  std::vector<HeadChoice> choices;
  for (std::size_t heads : {1, 2, 3, 4, 6}) {
    Tape tape;
    llmfs::SplitMix64 rng(6);
    auto layer = MultiHeadAttention::create(tape, kParameterPrefix, 6, heads,
                                            kMaxPositions, kRopeBase, rng);
    HeadChoice choice{.heads = heads,
                      .verdict = "accepted",
                      .head_width = 6 % heads == 0 ? 6 / heads : 0};
    if (!layer && layer.error().code == MultiHeadErrorCode::odd_head_width)
      choice.verdict = "odd_head_width";
    else if (!layer && layer.error().code == MultiHeadErrorCode::width_not_divisible)
      choice.verdict = "not_divisible";
    else if (!layer)
      choice.verdict = fmt::format("{}", layer.error());
    choices.push_back(choice);
  }
  return choices;
}

// Exercise 2: the shapes of a real run at B=2, T=5, d_model=12, h=3.
[[nodiscard]] Step<std::vector<std::pair<std::string, Shape>>> trace_shapes() {
  constexpr std::size_t batch = 2, tokens = 5, width = 12, heads = 3;
  Tape tape;
  llmfs::SplitMix64 rng(2);
  auto layer = LLMFS_TRY_AT("create the exercise-2 layer",
                            MultiHeadAttention::create(tape, kParameterPrefix, width,
                                                       heads, tokens, kRopeBase, rng));
  std::vector<double> values(batch * tokens * width);
  for (double& v : values)
    v = rng.next_unit() - 0.5;
  auto x = tape.constant(LLMFS_TRY_AT(
      "the exercise-2 input", Tensor::from({batch, tokens, width}, std::move(values))));
  auto projected = LLMFS_TRY_AT("project the exercise-2 input", layer.qkv().forward(x));
  auto f = LLMFS_TRY_AT("run the exercise-2 layer", layer.forward(x, 0));
  const Shape& weights = f.attention_weights.shape();
  return std::vector<std::pair<std::string, Shape>>{
      {"input", x.shape()},
      {"qkv", projected.query.shape()},
      {"split", f.projected_query_heads.shape()},
      {"rotated", f.rotated_query_heads.shape()},
      {"weights_per_head", Shape{weights[0], weights[2], weights[3]}},
      {"weights", weights},
      {"head_outputs", f.head_outputs.shape()},
      {"merged", f.merged.shape()},
      {"output", f.output.shape()}};
}

// Exercise 5: a, b, c, d through merge_heads, the fixture's W_O, and I with
// (W_O)[0][2]=1.
[[nodiscard]] Step<void> route_symbols(Exercises& out) {
  Tape tape;
  // Head rows [a,b] and [c,d] for one token, laid out [B=1, h=2, T=1, d_h=2].
  auto heads = tape.constant(LLMFS_TRY_AT(
      "the symbols", Tensor::from({1, 2, 1, 2}, {1.0, 10.0, 100.0, 1000.0})));
  auto merged = LLMFS_TRY_AT("concatenate", llmfs::attention::merge_heads(heads));
  Tensor off_block = identity();
  off_block.mutable_values()[0 * kModelWidth + 2] = 1.0;  // coordinate 0 feeds y_2
  auto swapped = LLMFS_TRY_AT(
      "swap", llmfs::autograd::matmul(merged, tape.constant(block_swap())));
  auto mixed =
      LLMFS_TRY_AT("mix", llmfs::autograd::matmul(merged, tape.constant(off_block)));
  out.concatenated = LLMFS_TRY(value_of(merged));
  out.swapped = LLMFS_TRY(value_of(swapped));
  out.off_block = LLMFS_TRY(value_of(mixed));
  return {};
}

}  // namespace

Step<Exercises> answer_exercises(const Evidence& evidence) {
  Exercises out;
  out.width_six = classify_width_six();
  out.shape_trace = LLMFS_TRY(trace_shapes());

  // Exercise 3: a key is visible where the causal mask adds 0 instead of −∞.
  auto mask = LLMFS_TRY_AT("the causal mask", llmfs::attention::causal_mask(kTokens));
  for (std::size_t q = 0; q < kTokens; ++q) {
    const auto row = mask.values().subspan(q * kTokens, kTokens);
    for (auto& head : out.visible_keys)
      head.push_back(std::ranges::count(row, 0.0));
  }

  LLMFS_TRY(route_symbols(out));

  // Exercise 7: one off-block entry of W_Q lets head 0 read input feature 3.
  Tensor query_weight = identity();
  query_weight.mutable_values()[3 * kModelWidth + 0] = 1.0;  // (W_Q)[3][0]
  auto dense = LLMFS_TRY(run_fixture(evidence.input, kOffset, query_weight));
  out.dense_query_heads = LLMFS_TRY(value_of(dense.forward.projected_query_heads));

  // Exercise 8: a real layer at d_model = 128 (four heads of width 32).
  Tape tape;
  llmfs::SplitMix64 rng(128);
  auto wide = LLMFS_TRY_AT("create the d_model=128 layer",
                           MultiHeadAttention::create(tape, kParameterPrefix, 128, 4,
                                                      kMaxPositions, kRopeBase, rng));
  out.wide_model_width = wide.model_width();
  out.wide_heads = wide.heads();
  out.wide_parameters = wide.parameter_count();
  return out;
}

}  // namespace ch30

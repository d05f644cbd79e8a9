// Chapter 30
// Answers to chapter 30's exercises, each computed by running the library.

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/splitmix64.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadErrorCode;
using llmfs::autograd::Tape;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

namespace {

// Exercise 1: which head counts does a width-6 layer accept?
std::vector<HeadChoice> classify_width_six() {
  std::vector<HeadChoice> choices;
  for (std::size_t heads : {1, 2, 3, 4, 6}) {
    Tape tape;
    llmfs::nn::SplitMix64 rng(6);
    auto layer = MultiHeadAttention::create(tape, kParameterPrefix, 6, heads,
                                            kMaxPositions, kRopeBase, rng);
    HeadChoice choice{.heads = heads,
                      .verdict = "accepted",
                      .head_width = 6 % heads == 0 ? 6 / heads : 0};
    if (!layer) {
      switch (layer.error().code) {
        case MultiHeadErrorCode::odd_head_width:
          choice.verdict = "odd_head_width";
          break;
        case MultiHeadErrorCode::width_not_divisible:
          choice.verdict = "not_divisible";
          break;
        default: choice.verdict = fmt::format("{}", layer.error()); break;
      }
    }
    choices.push_back(choice);
  }
  return choices;
}

// Exercise 2: the shapes of a real run at B=2, T=5, d_model=12, h=3.
std::expected<std::vector<std::pair<std::string, Shape>>, Failure> trace_shapes() {
  constexpr std::size_t batch = 2, tokens = 5, width = 12, heads = 3;
  Tape tape;
  llmfs::nn::SplitMix64 rng(2);
  auto layer = need(MultiHeadAttention::create(tape, kParameterPrefix, width, heads,
                                               tokens, kRopeBase, rng),
                    "create the exercise-2 layer");
  if (!layer) return std::unexpected(layer.error());
  std::vector<double> values(batch * tokens * width);
  for (double& v : values)
    v = rng.next_unit() - 0.5;
  auto x = tape.constant(*Tensor::from({batch, tokens, width}, std::move(values)));
  auto projected = need(layer->qkv().forward(x), "project the exercise-2 input");
  if (!projected) return std::unexpected(projected.error());
  auto forward = need(layer->forward(x, 0), "run the exercise-2 layer");
  if (!forward) return std::unexpected(forward.error());
  const Shape& weights = forward->attention_weights.shape();
  return std::vector<std::pair<std::string, Shape>>{
      {"input", x.shape()},
      {"qkv", projected->query.shape()},
      {"split", forward->projected_query_heads.shape()},
      {"rotated", forward->rotated_query_heads.shape()},
      {"weights_per_head", Shape{weights[0], weights[2], weights[3]}},
      {"weights", weights},
      {"head_outputs", forward->head_outputs.shape()},
      {"merged", forward->merged.shape()},
      {"output", forward->output.shape()}};
}

// Exercise 5: a, b, c, d through merge_heads and two output matrices.
std::expected<void, Failure> route_symbols(ExerciseAnswers& out) {
  out.symbolic = {1.0, 10.0, 100.0, 1000.0};
  Tape tape;
  // Head rows [a,b] and [c,d] for one token, laid out [B=1, h=2, T=1, d_h=2].
  auto heads = tape.constant(
      *Tensor::from({1, 2, 1, 2}, {out.symbolic.begin(), out.symbolic.end()}));
  auto merged = need(llmfs::attention::merge_heads(heads), "concatenate a,b,c,d");
  if (!merged) return std::unexpected(merged.error());
  Tensor off_block = identity(kModelWidth);
  off_block.mutable_values()[0 * kModelWidth + 2] =
      1.0;  // (W_O)[0][2]: coordinate 0 feeds y_2
  auto swapped =
      need(llmfs::autograd::matmul(*merged, tape.constant(fixture_output_weight())),
           "apply the swapping W_O");
  auto mixed = need(llmfs::autograd::matmul(*merged, tape.constant(off_block)),
                    "apply the off-block W_O");
  if (!swapped) return std::unexpected(swapped.error());
  if (!mixed) return std::unexpected(mixed.error());
  const std::pair<const llmfs::autograd::TensorValue*, Tensor*> reads[] = {
      {&*merged, &out.concatenated},
      {&*swapped, &out.swapped},
      {&*mixed, &out.off_block}};
  for (auto [node, target] : reads) {
    auto value = value_of(*node, "an exercise-5 row");
    if (!value) return std::unexpected(value.error());
    *target = std::move(*value);
  }
  return {};
}

// Exercise 7: one off-block entry of W_Q lets head 0 read input feature 3.
std::expected<void, Failure> dense_projection(const PrimaryEvidence& primary,
                                              ExerciseAnswers& out) {
  Tensor query_weight = identity(kModelWidth);
  query_weight.mutable_values()[3 * kModelWidth + 0] = 1.0;  // (W_Q)[3][0]
  auto run = run_fixture(primary.input, kOffset, query_weight);
  if (!run) return std::unexpected(run.error());
  auto heads =
      value_of(run->forward.projected_query_heads, "the dense-projection query heads");
  if (!heads) return std::unexpected(heads.error());
  // Head 0, token 1 sits at [0,0,1,:] of [1,2,3,2].
  const std::size_t at = 1 * kHeadWidth;
  out.dense_query_identity = {primary.projected_query_heads.values()[at],
                              primary.projected_query_heads.values()[at + 1]};
  out.dense_query_mixed = {heads->values()[at], heads->values()[at + 1]};
  return {};
}

}  // namespace

std::expected<ExerciseAnswers, Failure> answer_exercises(
    const PrimaryEvidence& primary, const HistoryEvidence& history) {
  ExerciseAnswers out;
  out.width_six = classify_width_six();

  auto shapes = trace_shapes();
  if (!shapes) return std::unexpected(shapes.error());
  out.shape_trace = std::move(*shapes);

  // Exercise 3: the visibility triangle comes from the causal mask; the fixture's
  // weights must be exactly zero where it blocks.
  auto mask = need(llmfs::attention::causal_mask(kTokens), "build the causal mask");
  if (!mask) return std::unexpected(mask.error());
  const Tensor& w = primary.attention_weights;
  out.blocked_exact_zero = true;
  out.allowed_probabilities_equal = true;
  for (std::size_t h = 0; h < kHeads; ++h) {
    for (std::size_t q = 0; q < kTokens; ++q) {
      std::size_t visible = 0;
      for (std::size_t k = 0; k < kTokens; ++k) {
        const double p = w.values()[(h * kTokens + q) * kTokens + k];
        if (mask->values()[q * kTokens + k] == 0.0) {
          ++visible;
          if (h == 1 && p != w.values()[q * kTokens + k])
            out.allowed_probabilities_equal = false;
        } else if (p != 0.0) {
          out.blocked_exact_zero = false;
        }
      }
      out.visible_keys[h].push_back(visible);
    }
  }
  out.triangles_equal = out.visible_keys[0] == out.visible_keys[1];

  // Exercise 4: row 1 of the full-width table against row 1 of each head.
  const auto& single = history.single_head_weights.values();
  out.single_head_row_one = {single[kTokens], single[kTokens + 1]};
  out.head_zero_row_one = {w.values()[kTokens], w.values()[kTokens + 1]};
  const std::size_t head_one = kTokens * kTokens + kTokens;
  out.head_one_row_one = {w.values()[head_one], w.values()[head_one + 1]};

  if (auto done = route_symbols(out); !done) return std::unexpected(done.error());
  if (auto done = dense_projection(primary, out); !done)
    return std::unexpected(done.error());

  // Exercise 8: a real layer at d_model = 128 (four heads of width 32).
  Tape tape;
  llmfs::nn::SplitMix64 rng(128);
  auto wide = need(MultiHeadAttention::create(tape, kParameterPrefix, 128, 4,
                                              kMaxPositions, kRopeBase, rng),
                   "create the d_model=128 layer");
  if (!wide) return std::unexpected(wide.error());
  out.wide_model_width = wide->model_width();
  out.wide_heads = wide->heads();
  out.wide_parameter_count = 0;
  for (const auto& parameter : wide->parameters())
    out.wide_parameter_count += *parameter.value.shape().element_count();
  return out;
}

}  // namespace ch30

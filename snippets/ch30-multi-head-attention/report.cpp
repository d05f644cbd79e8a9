// Chapter 30
// Chapter 30's report: one `key=...` line per fact, in the seed chapter's key order,
// then the exercise answers.

#include <algorithm>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

// Two values of a tensor, from `start`.
std::string pair_at(const Tensor& t, std::size_t start) {
  return format_values(t.values().subspan(start, 2));
}

// How many [T,T] tables a tensor of attention weights holds.
std::size_t tables(const Tensor& weights) {
  return weights.size() / (kTokens * kTokens);
}

std::vector<std::string> exercise_lines(const Evidence& p) {
  const Exercises& e = p.exercises;
  std::string heads = "exercise_1=d_model:6";
  for (const auto& choice : e.width_six) {
    heads += fmt::format(" heads_{}:{}", choice.heads, choice.verdict);
    if (choice.head_width != 0) heads += fmt::format("(d_h:{})", choice.head_width);
  }
  std::string shapes = "exercise_2=B:2 T:5 d_model:12 h:3";
  for (const auto& [stage, shape] : e.shape_trace)
    shapes += fmt::format(" {}:{}", stage, shape);
  return {
      heads,
      shapes,
      fmt::format("exercise_3=head_0_visible_keys:[{}] head_1_visible_keys:[{}]",
                  fmt::join(e.visible_keys[0], ","), fmt::join(e.visible_keys[1], ",")),
      fmt::format(
          "exercise_4=single_head_tables:{} head_tables:{} row_1_single_head:{} "
          "row_1_head_0:{} row_1_head_1:{}",
          tables(p.single_head_weights), tables(p.attention_weights),
          pair_at(p.single_head_weights, kTokens),
          pair_at(p.attention_weights, kTokens),
          pair_at(p.attention_weights, kTokens * kTokens + kTokens)),
      fmt::format(
          "exercise_5=a,b,c,d:[1.000000,10.000000,100.000000,1000.000000] "
          "concatenated:{} swapped:{} identity_plus_0_2:{} y_2:{}",
          format_values(e.concatenated.values()), format_values(e.swapped.values()),
          format_values(e.off_block.values()), format_number(e.off_block.values()[2])),
      fmt::format("exercise_6=changed_token:2 changed_coordinates_per_row:[{}]",
                  fmt::join(changed_per_row(p.prefix_perturbed_output, p.output), ",")),
      fmt::format("exercise_7=w_q_entry:(3,0) head_0_query_token_1_identity:{} "
                  "head_0_query_token_1_dense:{}",
                  pair_at(p.projected_query_heads, kHeadWidth),
                  pair_at(e.dense_query_heads, kHeadWidth)),
      fmt::format("exercise_8=d_model:{} heads:{} parameters:{}", e.wide_model_width,
                  e.wide_heads, e.wide_parameters)};
}

// The loss, the five gradients and the central-difference check.
std::vector<std::string> gradient_lines(const Evidence& p) {
  const auto& checks = p.gradcheck.inputs;
  return {fmt::format("upstream={} loss:{}", format_values(p.upstream.values()),
                      format_number(p.loss)),
          "input_gradient=" + format_values(p.input_gradient.values()),
          "query_weight_gradient=" + format_values(p.parameter_gradients[0].values()),
          "key_weight_gradient=" + format_values(p.parameter_gradients[1].values()),
          "value_weight_gradient=" + format_values(p.parameter_gradients[2].values()),
          "output_weight_gradient=" + format_values(p.parameter_gradients[3].values()),
          fmt::format("gradcheck=input:{} query:{} key:{} value:{} output:{} total:{} "
                      "tolerance:{} passed:{}",
                      checks[0].coordinates, checks[1].coordinates,
                      checks[2].coordinates, checks[3].coordinates,
                      checks[4].coordinates, p.gradcheck.coordinates(),
                      format_number(kGradientTolerance), p.gradcheck.passed())};
}

// Measured facts: exact zeros, what the prefix edit changed, the parameters.
std::vector<std::string> fact_lines(const Evidence& p) {
  return {
      fmt::format("heads=tables:{} exact_zero_probabilities:{}",
                  tables(p.attention_weights),
                  std::ranges::count(p.attention_weights.values(), 0.0)),
      fmt::format("prefix_perturbed_output={} changed_coordinates_per_row:[{}]",
                  format_values(p.prefix_perturbed_output.values()),
                  fmt::join(changed_per_row(p.prefix_perturbed_output, p.output), ",")),
      fmt::format("parameters=names:[{}] shapes:[{}] count:{}",
                  fmt::join(p.parameter_names, ","), fmt::join(p.parameter_shapes, ","),
                  p.parameter_count)};
}

// Every stage's shape, the library's message for each refusal, the history, the
// handoff.
std::vector<std::string> closing_lines(const Evidence& p) {
  std::vector<std::string> lines = {fmt::format(
      "shapes=input:{} split:{} rotated:{} weights:{} head_output:{} merged:{} "
      "output_weight:{} output:{} empty_batch_weights:{} empty_batch_output:{} "
      "single_token_weights:{}",
      p.input.shape(), p.projected_query_heads.shape(), p.rotated_query_heads.shape(),
      p.attention_weights.shape(), p.head_outputs.shape(), p.merged.shape(),
      p.output_weight.shape(), p.output.shape(), p.empty_batch_weights,
      p.empty_batch_output, p.single_token_weights)};
  for (const auto& [name, message] : p.errors)
    lines.push_back(fmt::format("error_{}={}", name, message));
  lines.push_back(fmt::format(
      "history=earlier_weighted_context:{} earlier_distributions_per_target:1 "
      "single_head_shape:{} multi_head_shape:{} single_head_tables:{} "
      "multi_head_tables:{} mixing:after-concatenation "
      "modern_example:llama-causal-heads-plus-rope weight_api:dense-teaching-evidence",
      format_values(p.earlier_weighted_context), p.single_head_weights.shape(),
      p.attention_weights.shape(), tables(p.single_head_weights),
      tables(p.attention_weights)));
  lines.push_back(
      "next=place this layer on the first pre-normalized residual path of a decoder "
      "block");
  return lines;
}

}  // namespace

std::string render_report(const Evidence& p) {
  std::vector<std::string> lines = {
      "chapter=30-multi-head-attention",
      "prediction=projections feed two learned feature lanes; every lane normalizes "
      "its "
      "own causal rows; only W_O can learn to mix the concatenated lanes",
      fmt::format("config=batch:{} tokens:{} d_model:{} heads:{} d_h:{} offset:{} "
                  "capacity:{} rope_base:{} bias:{}",
                  kBatch, kTokens, kModelWidth, kHeads, kHeadWidth, kOffset,
                  kMaxPositions, format_number(kRopeBase), p.output_bias)};
  // Every intermediate of the forward record, in the order the data flows.
  for (auto [key, tensor] : {std::pair{"input", &p.input},
                             {"projected_query_heads", &p.projected_query_heads},
                             {"projected_key_heads", &p.projected_key_heads},
                             {"projected_value_heads", &p.projected_value_heads},
                             {"rotated_query_heads", &p.rotated_query_heads},
                             {"rotated_key_heads", &p.rotated_key_heads},
                             {"attention_weights", &p.attention_weights},
                             {"head_outputs", &p.head_outputs},
                             {"merged", &p.merged},
                             {"output_weight", &p.output_weight},
                             {"output", &p.output}})
    lines.push_back(fmt::format("{}={}", key, format_tensor(*tensor)));
  // Then what was measured on it, its gradients, the refusals and the exercises.
  for (auto&& part :
       {fact_lines(p), gradient_lines(p), closing_lines(p), exercise_lines(p)})
    lines.insert(lines.end(), part.begin(), part.end());
  return snippets::join_lines(lines);
}

}  // namespace ch30

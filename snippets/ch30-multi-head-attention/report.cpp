// Chapter 30
// The report: one `key=...` line per fact, in the seed chapter's key order,
// then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

std::string flag(bool value) {
  return value ? "true" : "false";
}

std::string join(const std::vector<std::string>& items) {
  return fmt::format("[{}]", fmt::join(items, ","));
}

std::string shapes_list(const std::vector<llmfs::tensor::Shape>& shapes) {
  std::vector<std::string> items;
  for (const auto& shape : shapes)
    items.push_back(fmt::format("{}", shape));
  return join(items);
}

std::vector<std::string> exercise_lines(const ExerciseAnswers& e,
                                        const PrimaryEvidence& p,
                                        const HistoryEvidence& h) {
  std::vector<std::string> lines;
  std::string heads = "exercise_1=d_model:6";
  for (const auto& choice : e.width_six) {
    heads += fmt::format(" heads_{}:{}", choice.heads, choice.verdict);
    if (choice.head_width != 0) heads += fmt::format("(d_h:{})", choice.head_width);
  }
  lines.push_back(heads);
  std::string shapes = "exercise_2=B:2 T:5 d_model:12 h:3";
  for (const auto& [stage, shape] : e.shape_trace)
    shapes += fmt::format(" {}:{}", stage, shape);
  lines.push_back(shapes);
  lines.push_back(fmt::format(
      "exercise_3=head_0_visible_keys:[{}] head_1_visible_keys:[{}] triangles_equal:{} "
      "blocked_exact_zero:{} allowed_probabilities_equal:{}",
      fmt::join(e.visible_keys[0], ","), fmt::join(e.visible_keys[1], ","),
      flag(e.triangles_equal), flag(e.blocked_exact_zero),
      flag(e.allowed_probabilities_equal)));
  lines.push_back(fmt::format(
      "exercise_4=single_head_tables:{} head_tables:{} row_1_single_head:{} "
      "row_1_head_0:{} row_1_head_1:{}",
      h.single_head_tables, h.multi_head_tables, format_values(e.single_head_row_one),
      format_values(e.head_zero_row_one), format_values(e.head_one_row_one)));
  lines.push_back(fmt::format(
      "exercise_5=a,b,c,d:{} concatenated:{} swapped:{} identity_plus_0_2:{} y_2:{}",
      format_values(e.symbolic), format_values(e.concatenated.values()),
      format_values(e.swapped.values()), format_values(e.off_block.values()),
      format_number(e.off_block.values()[2])));
  lines.push_back(
      fmt::format("exercise_6=changed_token:2 row_0_unchanged:{} row_1_unchanged:{} "
                  "row_2_changed:{}",
                  flag(p.prefix_zero_unchanged), flag(p.prefix_one_unchanged),
                  flag(p.suffix_changed)));
  lines.push_back(fmt::format(
      "exercise_7=w_q_entry:(3,0) head_0_query_token_1_identity:{} "
      "head_0_query_token_1_dense:{}",
      format_values(e.dense_query_identity), format_values(e.dense_query_mixed)));
  lines.push_back(fmt::format("exercise_8=d_model:{} heads:{} parameters:{}",
                              e.wide_model_width, e.wide_heads,
                              e.wide_parameter_count));
  return lines;
}

}  // namespace

// region: report-lines
std::string render_report(const Evidence& evidence) {
  const PrimaryEvidence& p = evidence.primary;
  const ParameterEvidence& params = evidence.parameters;
  const GradientEvidence& g = evidence.gradients;
  const ShapeEvidence& s = evidence.shapes;
  const ErrorEvidence& e = evidence.errors;
  const HistoryEvidence& h = evidence.history;
  std::vector<std::string> lines = {
      "chapter=30-multi-head-attention",
      "prediction=projections feed two learned feature lanes; every lane normalizes "
      "its own "
      "causal rows; only W_O can learn to mix the concatenated lanes",
      fmt::format(
          "config=batch:{} tokens:{} d_model:{} heads:{} d_h:{} offset:{} capacity:{} "
          "rope_base:{} bias:{}",
          kBatch, kTokens, kModelWidth, kHeads, kHeadWidth, kOffset, kMaxPositions,
          format_number(kRopeBase), flag(!params.bias_free)),
      "input=" + format_tensor(p.input),
      "projected_query_heads=" + format_tensor(p.projected_query_heads),
      "projected_key_heads=" + format_tensor(p.projected_key_heads),
      "projected_value_heads=" + format_tensor(p.projected_value_heads),
      "rotated_query_heads=" + format_tensor(p.rotated_query_heads),
      "rotated_key_heads=" + format_tensor(p.rotated_key_heads),
      "attention_weights=" + format_tensor(p.attention_weights),
      "head_outputs=" + format_tensor(p.head_outputs),
      "merged=" + format_tensor(p.merged),
      "output_weight=" + format_tensor(p.output_weight),
      "output=" + format_tensor(p.output),
      fmt::format(
          "heads=head_0_uniform:{} head_1_distinct:{} future_probabilities_zero:{}",
          flag(p.uniform_head_zero), flag(p.distinct_head_weights),
          flag(p.future_probabilities_zero)),
      fmt::format(
          "prefix_perturbed_output={} position_0_unchanged:{} position_1_unchanged:{} "
          "position_2_changed:{}",
          format_values(p.prefix_perturbed_output.values()),
          flag(p.prefix_zero_unchanged), flag(p.prefix_one_unchanged),
          flag(p.suffix_changed)),
      fmt::format("layout=split_merge_bitwise:{} head_isolation_before_output:{} "
                  "common_offset_weights_preserved:{} tolerance:{:.12f}",
                  flag(p.split_merge_bitwise), flag(p.head_isolation_before_output),
                  flag(p.common_offset_weights_preserved), kInvariantTolerance),
      fmt::format(
          "parameters=names:{} shapes:{} count:{} bias_free:{} node_distinct:{}",
          join(params.names), shapes_list(params.shapes), params.count,
          flag(params.bias_free), flag(params.node_distinct)),
      fmt::format("upstream={} loss:{}", format_values(p.upstream.values()),
                  format_number(p.loss)),
      "input_gradient=" + format_values(p.input_gradient.values()),
      "query_weight_gradient=" + format_values(p.parameter_gradients[0].values()),
      "key_weight_gradient=" + format_values(p.parameter_gradients[1].values()),
      "value_weight_gradient=" + format_values(p.parameter_gradients[2].values()),
      "output_weight_gradient=" + format_values(p.parameter_gradients[3].values()),
      fmt::format(
          "gradcheck=input:{} query:{} key:{} value:{} output:{} total:{} tolerance:{} "
          "passed:{}",
          g.input_checks, g.query_checks, g.key_checks, g.value_checks, g.output_checks,
          g.total(), format_number(kGradientTolerance), flag(g.passed)),
      fmt::format(
          "shapes=input:{} split:{} rotated:{} weights:{} head_output:{} merged:{} "
          "output_weight:{} output:{} empty_batch_weights:{} empty_batch_output:{} "
          "single_token_weights:{}",
          s.input, s.split, s.rotated, s.weights, s.head_output, s.merged,
          s.output_weight, s.output, s.empty_batch_weights, s.empty_batch_output,
          s.single_token_weights),
      fmt::format(
          "errors=zero_model_width:{} zero_heads:{} nondivisible:{} odd_head_width:{} "
          "input_rank:{} input_width:{} empty_tokens:{} offset_overflow:{} "
          "position_range:{} released_input:{}",
          flag(e.zero_model_width.rejected), flag(e.zero_heads.rejected),
          flag(e.nondivisible.rejected), flag(e.odd_head_width.rejected),
          flag(e.input_rank.rejected), flag(e.input_width.rejected),
          flag(e.empty_tokens.rejected), flag(e.offset_overflow.rejected),
          flag(e.position_range.rejected), flag(e.released_input.rejected)),
      fmt::format(
          "history=earlier_weighted_context:{} earlier_distributions_per_target:{} "
          "single_head_shape:{} multi_head_shape:{} single_head_tables:{} "
          "multi_head_tables:{} rows_normalized:{} mixing:after-concatenation "
          "modern_example:llama-causal-heads-plus-rope "
          "weight_api:dense-teaching-evidence",
          format_values(h.earlier_weighted_context), h.earlier_distributions_per_target,
          h.single_head_weights.shape(), h.multi_head_weight_shape,
          h.single_head_tables, h.multi_head_tables, flag(h.all_rows_normalized)),
      fmt::format(
          "proof=tape_finite:{} replay:{} heads_distinct:{} causal:{} split_merge:{} "
          "gradients:{}",
          flag(p.tape_finite), evidence.replay_bitwise ? "bitwise" : "mismatch",
          flag(p.distinct_head_weights), flag(p.future_probabilities_zero),
          flag(p.split_merge_bitwise), flag(g.passed)),
      "next=place this layer on the first pre-normalized residual path of a decoder "
      "block",
  };
  for (std::string& line : exercise_lines(evidence.exercises, p, h))
    lines.push_back(std::move(line));
  return fmt::format("{}\n", fmt::join(lines, "\n"));
}
// endregion: report-lines

}  // namespace ch30

// Chapter 31
// Chapter 31's report: one `key=...` line per fact, then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch31 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

std::string token_row(const Tensor& t, std::size_t token) {
  return format_values(llmfs::report::row(t, token, kModelWidth));
}

std::vector<std::string> stage_lines(const Stages& s) {
  return {"input=" + format_tensor(s.input),
          "attention_input=" + format_tensor(s.attention_input),
          "attention_weights=" + format_tensor(s.attention_weights),
          "attention_output=" + format_tensor(s.attention_output),
          "hidden=" + format_tensor(s.hidden),
          "ffn_input=" + format_tensor(s.ffn_input),
          "ffn_output=" + format_tensor(s.ffn_output),
          "output=" + format_tensor(s.output)};
}

std::vector<std::string> exercise_lines(const Exercises& e) {
  std::string changes = "exercise_2=scale:10";
  for (const auto& [stage, change] : e.scale_changes)
    changes += fmt::format(" {}:{}", stage, format_number(change));
  return {
      fmt::format("exercise_1=d_model:{} heads:{} d_ff:{} parameters:{}",
                  e.wide_model_width, e.wide_heads, e.wide_hidden, e.wide_parameters),
      changes, fmt::format("exercise_3=ops_reading_x:{}", e.x_gradient_paths)};
}

}  // namespace

std::string render_report(const Evidence& p) {
  std::vector<std::string> lines = {
      "chapter=31-decoder-block",
      "prediction=token 0 attends only to itself, so both branches see [1,1,1,1] and "
      "the "
      "stream gains 1 then silu(1); scaling X by 10 leaves the branch inputs "
      "unchanged; "
      "zero branches make the block the identity",
      fmt::format("config=batch:{} tokens:{} d_model:{} heads:{} d_h:{} d_ff:{} "
                  "epsilon:{} capacity:{} rope_base:{} matrices:identity gains:1",
                  kBatch, kTokens, kModelWidth, kHeads, kModelWidth / kHeads,
                  kHiddenWidth, kEpsilon, kMaxPositions, format_number(kRopeBase))};
  for (auto& line : stage_lines(p.fixture))
    lines.push_back(std::move(line));
  const Stages& f = p.fixture;
  lines.push_back(fmt::format(
      "token_0=attention_input:{} attention_output:{} hidden:{} ffn_input:{} "
      "ffn_output:{} output:{}",
      token_row(f.attention_input, 0), token_row(f.attention_output, 0),
      token_row(f.hidden, 0), token_row(f.ffn_input, 0), token_row(f.ffn_output, 0),
      token_row(f.output, 0)));
  const Stages& s = p.scaled;
  lines.push_back(fmt::format(
      "scaled_x10=attention_input_token_0:{} hidden_token_0:{} ffn_output_token_0:{} "
      "output_token_0:{}",
      token_row(s.attention_input, 0), token_row(s.hidden, 0),
      token_row(s.ffn_output, 0), token_row(s.output, 0)));
  lines.push_back(fmt::format(
      "zero_branches=attention_output_token_0:{} ffn_output_token_0:{} "
      "coordinates_where_output_differs_from_input:{} post_norm_output_token_0:{}",
      token_row(p.zero_branches.attention_output, 0),
      token_row(p.zero_branches.ffn_output, 0), p.identity_mismatches,
      token_row(p.post_norm_zero, 0)));
  std::vector<std::string> shapes;
  for (const auto& shape : p.parameter_shapes)
    shapes.push_back(fmt::format("{}", shape));
  lines.push_back(fmt::format("parameters=names:[{}] shapes:[{}] count:{} formula:{}",
                              fmt::join(p.parameter_names, ","), fmt::join(shapes, ","),
                              p.parameter_count, p.formula_count));
  lines.push_back(
      fmt::format("causality=last_token_changed changed_coordinates_per_row:[{}]",
                  fmt::join(p.changed_per_row, ",")));
  for (const auto& [name, text] : p.errors)
    lines.push_back("error_" + name + "=" + text);
  lines.push_back(
      "next=stack N blocks between a token embedding and a tied output layer: the "
      "decoder model");
  for (auto& line : exercise_lines(p.exercises))
    lines.push_back(std::move(line));
  return snippets::join_lines(lines);
}

}  // namespace ch31

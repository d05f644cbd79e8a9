// Chapter 32
// Chapter 32's report: one `key=...` line per fact, then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch32 {

using llmfs::report::format_number;
using llmfs::report::format_values;

namespace {

std::vector<std::string> exercise_lines(const Exercises& e) {
  std::string configs = "exercise_3=d_model:12";
  for (const auto& [name, verdict] : e.configs)
    configs += fmt::format(" {}:{}", name, verdict);
  return {fmt::format("exercise_1=V:50257 d_model:768 heads:12 layers:12 d_ff:2048 "
                      "tied:{} untied_extra:{} untied:{}",
                      e.gpt_sized_tied, e.gpt_sized_untied_extra,
                      e.gpt_sized_tied + e.gpt_sized_untied_extra),
          fmt::format("exercise_2=demo_embedding_share:{} gpt_sized_embedding_share:{}",
                      format_number(e.demo_embedding_share),
                      format_number(e.gpt_embedding_share)),
          configs,
          fmt::format("exercise_4=loss_minus_ln_V:{}",
                      format_number(e.loss_minus_log_vocab))};
}

}  // namespace

std::string render_report(const Evidence& p) {
  const auto& c = kDemoConfig;
  std::vector<std::string> lines = {
      "chapter=32-decoder-model",
      "prediction=with both branches off every block is the identity, so position t's "
      "logits are 2e_id·2Eᵀ = 4 on its own token and 0 elsewhere: the model predicts "
      "the "
      "token it just read, and the loss is ln(e⁴+3) at every position",
      fmt::format("fixture_logits={}", llmfs::report::format_tensor(p.fixture_logits)),
      fmt::format("fixture_predicted=[{}] targets:[1,2,3] loss:{} parameters:{}",
                  fmt::join(p.fixture_predicted, ","), format_number(p.fixture_loss),
                  p.fixture_parameters),
      fmt::format("config=V:{} d_model:{} heads:{} layers:{} d_ff:{} context:{} "
                  "rope_base:{} epsilon:{} seed:{}",
                  c.vocab_size, c.model_width, c.heads, c.layers, c.hidden_width,
                  c.context_length, format_number(c.rope_base), c.epsilon, c.seed)};
  std::vector<std::string> specs;
  for (const auto& s : p.specs)
    specs.push_back(fmt::format("{}{}", s.name, s.shape));
  lines.push_back(fmt::format("parameters=[{}]", fmt::join(specs, ",")));
  std::vector<std::string> parts;
  for (const auto& [name, count] : p.components)
    parts.push_back(fmt::format("{}:{}", name, count));
  lines.push_back(fmt::format("parameter_count=model:{} formula:{} components:[{}]",
                              p.parameter_count, p.formula_count,
                              fmt::join(parts, ",")));
  lines.push_back(fmt::format("batch=inputs:[{}] targets:[{}]",
                              fmt::join(p.inputs.ids, ","),
                              fmt::join(p.targets.ids, ",")));
  lines.push_back(
      fmt::format("logits=shape:{} position_0:{}", p.logits.shape(),
                  format_values(p.logits.values().subspan(0, c.vocab_size))));
  lines.push_back(fmt::format("loss=initial:{} ln_V:{}", format_number(p.loss),
                              format_number(p.log_vocab)));
  std::vector<std::string> stream;
  for (const auto& s : p.stream)
    stream.push_back(fmt::format("{}:{}", s.stage, format_number(s.stream_rms)));
  lines.push_back(fmt::format("stream_rms=[{}]", fmt::join(stream, ",")));
  lines.push_back(fmt::format(
      "tied_gradient=total_norm:{} output_path_norm:{} input_path_norm:{} "
      "rows_read_by_inputs:{} rows_with_input_path_gradient:{}",
      format_number(p.table_gradient_norm), format_number(p.output_path_norm),
      format_number(p.input_path_norm), p.rows_read, p.rows_with_gradient));
  lines.push_back(
      fmt::format("causality=row_0_last_token_changed changed_logits_per_position:[{}]",
                  fmt::join(p.changed_per_position, ",")));
  lines.push_back(fmt::format("reset_tape=logits_differing_after_values_round_trip:{}",
                              p.reset_mismatches));
  lines.push_back(
      fmt::format("gradcheck=parameters:{} coordinates:{} max_error:{:.1e} passed:{}",
                  p.gradcheck.inputs.size(), p.gradcheck.coordinates(),
                  p.gradcheck.max_abs_error(), p.gradcheck.passed()));
  for (const auto& [name, text] : p.errors)
    lines.push_back("error_" + name + "=" + text);
  lines.push_back(
      "next=train it: batches from the corpus, AdamW, and a validation loss to "
      "choose the step to keep");
  for (auto& line : exercise_lines(p.exercises))
    lines.push_back(std::move(line));
  return snippets::join_lines(lines);
}

}  // namespace ch32

// Chapter 20
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch20 {

namespace {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::record;

}  // namespace

std::string render_report(const Evidence& e) {
  const Pass& p = e.pass;
  std::vector<std::string> lines = {
      fmt::format("fixture_gate_input={}", format_tensor(p.gate_input)),
      fmt::format("fixture_gate={}", format_tensor(p.gate)),
      fmt::format("fixture_up={}", format_tensor(p.up)),
      fmt::format("fixture_hidden={}", format_tensor(p.hidden)),
      fmt::format("fixture_output={}", format_tensor(p.output)),
      fmt::format("fixture_loss={}", format_number(p.loss)),
      fmt::format("fixture_gate_input_gradient={}",
                  format_tensor(p.gate_input_gradient)),
      fmt::format("fixture_up_gradient={}", format_tensor(p.up_gradient))};
  const char* names[] = {"input", "gate_weight", "up_weight", "down_weight"};
  for (std::size_t i = 0; i < 4; ++i)
    lines.push_back(
        fmt::format("fixture_{}_gradient={}", names[i], format_tensor(p.gradients[i])));
  lines.push_back(fmt::format("fixture_parameters={}", p.parameters));
  lines.push_back(fmt::format("fixture_check=check_max_abs_error:{:.3e} passed:{}",
                              p.check.max_abs_error(), p.check.passed()));
  for (const Width& w : e.widths)
    lines.push_back(fmt::format("width_{}=d_ff:{} parameters:{} classic_8d2:{}",
                                w.model_width, w.hidden_width, w.parameters,
                                w.classic));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=created_parameters:{}", x.created_parameters));
  lines.push_back(
      fmt::format("exercise_2=closed_gates:{} zero_in_dW3:{} zero_in_dW1:{}",
                  x.closed_gates, x.zero_up_gradients, x.zero_gate_gradients));
  lines.push_back(
      fmt::format("exercise_3=d_model_4096_multiple_256:{}", x.llama_hidden_width));
  lines.push_back(fmt::format("misconception=d_ff_256:{} d_ff_176:{} classic:{}",
                              e.ungated_parameters, e.widths[2].parameters,
                              e.widths[2].classic));
  return snippets::join_lines(lines);
}

// region: trace-records
// One UNIT record per token and hidden unit (a, SiLU(a), u, h and the gradients at a
// and u), one TOKEN record per output row and one WIDTH record per d_model of the rule.
// The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  const Pass& p = e.pass;
  std::vector<std::string> records = {record("FIXTURE", "tokens", 2, "model_width", 2,
                                             "hidden_width", 3, "parameters",
                                             p.parameters, "loss", p.loss)};
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t j = 0; j < 3; ++j) {
      const std::size_t i = t * 3 + j;
      records.push_back(record("UNIT", "t", t, "j", j, "a", p.gate_input.values()[i],
                               "silu", p.gate.values()[i], "u", p.up.values()[i], "h",
                               p.hidden.values()[i], "grad_a",
                               p.gate_input_gradient.values()[i], "grad_u",
                               p.up_gradient.values()[i]));
    }
    records.push_back(
        record("TOKEN", "t", t, "output", p.output.values().subspan(2 * t, 2)));
  }
  for (const Width& w : e.widths)
    records.push_back(record("WIDTH", "model_width", w.model_width, "multiple",
                             w.multiple, "hidden_width", w.hidden_width, "parameters",
                             w.parameters, "classic", w.classic));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch20

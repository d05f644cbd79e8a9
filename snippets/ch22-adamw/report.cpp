// Chapter 22
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch22 {

namespace {

std::string list(const std::vector<double>& v) {
  return fmt::format("[{:.6f}]", fmt::join(v, ","));
}

}  // namespace

// The fixture, the variants, the groups, the replay and every refusal.
void add_lines(const Evidence& e, std::vector<std::string>& lines) {
  for (std::size_t t = 0; t < e.fixture.weight.size(); ++t)
    lines.push_back(fmt::format("fixture_step_{}=weight:{} gain:{}", t + 1,
                                list(e.fixture.weight[t]), list(e.fixture.gain[t])));
  for (std::size_t k = 0; k < kVariants.size(); ++k)
    lines.push_back(
        fmt::format("variant_{}={}", name(kVariants[k]), list(e.variants[k])));
  const Replay& r = e.replay;
  lines.push_back(fmt::format("torch_problem=parameters:{} elements:{} steps:{}",
                              r.parameters, r.elements, r.steps));
  lines.push_back(
      fmt::format("torch_step_1=max_relative_difference:{:.1e}", r.step1_max_relative));
  lines.push_back(fmt::format(
      "torch_step_100=max_abs_difference:{:.1e} its_bound:{:.1e} bitwise_equal:{}/{}",
      r.step100_max_abs, r.step100_bound, r.bitwise_equal, r.elements));
  lines.push_back(fmt::format(
      "torch_bound_margin=smallest_bound_over_difference:{:.1f}", r.smallest_margin));
  lines.push_back(fmt::format("torch_moments_step_100=max_relative_difference:{:.1e}",
                              r.moments_max_relative));
  lines.push_back(
      fmt::format("refused_step_changed_nothing={}", e.refused_changed_nothing));
  lines.push_back(
      fmt::format("restored_state_continues_bit_for_bit={}", e.restore_bit_for_bit));
  for (const auto& [n, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", n, text));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_lines(e, lines);
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=adamw_lambda_0_vs_adam max_difference:{:.1e}",
                              x.adam_vs_lambda_zero));
  lines.push_back(
      fmt::format("exercise_2=zero_gradient lr:0.001 lambda:0.1 steps_to_halve:{}",
                  x.halving_steps));
  lines.push_back(fmt::format("exercise_3=first_step_size g=1e-9,1e-3,1,1e3:[{:.6f}]",
                              fmt::join(x.first_step, ",")));
  lines.push_back(
      fmt::format("misconception=step_1 adam:{:.6f} adam_l2:{:.6f} adamw:{:.6f}",
                  e.variants[4][0], e.variants[2][0], e.variants[0][0]));
  return snippets::join_lines(lines);
}

// region: trace-records
// FIXTURE per step of the two-group fixture, then STEP per variant and step with θ and
// its distances from AdamW's θ and from plain Adam's. The diagram reads these and
// recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (std::size_t t = 0; t < e.fixture.weight.size(); ++t)
    records.push_back(fmt::format("FIXTURE|t={}|weight={}|gain={}", t + 1,
                                  list(e.fixture.weight[t]), list(e.fixture.gain[t])));
  for (std::size_t k = 0; k < kVariants.size(); ++k)
    for (std::size_t t = 0; t < e.variants[k].size(); ++t)
      records.push_back(fmt::format(
          "STEP|variant={}|t={}|theta={:.6f}|minus_adamw={:.6f}|minus_adam={:.6f}",
          name(kVariants[k]), t + 1, e.variants[k][t],
          e.variants[k][t] - e.variants[0][t], e.variants[k][t] - e.variants[4][t]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch22

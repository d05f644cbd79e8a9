// Chapter 37
// Chapter 37's report: one `key=...` line per fact, then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch37 {

using llmfs::report::format_number;
using llmfs::report::format_values;

namespace {

std::string step_line(const std::string& key, const StepRecord& s) {
  return fmt::format(
      "{}=positions:{}..{} slots:{}..{} tokens:{} length_after:{} "
      "max_difference:{:.1e}",
      key, s.first_position, s.first_position + s.tokens - 1, s.first_position,
      s.first_position + s.tokens - 1, s.tokens, s.length_after, s.max_difference);
}

}  // namespace

std::string render_report(const Evidence& p) {
  std::vector<std::string> lines = {
      "chapter=37-incremental-attention",
      "prediction=the prefill fills slots 0 and 1; each later token takes slot = "
      "position = the old length; slot s keeps x_s rotated by s radians as its key and "
      "x_s as its value; a fifth token is refused and the cache keeps its 4 slots"};
  for (std::size_t i = 0; i < p.fixture_steps.size(); ++i)
    lines.push_back(step_line(fmt::format("fixture_step_{}", i), p.fixture_steps[i]));
  for (const auto& s : p.fixture_slots)
    lines.push_back(
        fmt::format("fixture_slot_{}=position:{} key_before_rope:{} key:{} "
                    "value:{}",
                    s.position, s.position, format_values(s.unrotated_key),
                    format_values(s.key), format_values(s.value)));
  const auto& last = p.fixture_steps.back();
  lines.push_back(fmt::format("fixture_last_weights={}",
                              format_values(last.last_weights.values())));
  lines.push_back(
      fmt::format("fixture_last_output={}", format_values(last.output.values())));
  lines.push_back(fmt::format("fixture_refusal={} length_after:{}", p.fixture_refusal,
                              p.fixture_length_after_refusal));
  lines.push_back(fmt::format("fixture_memory=doubles:{} bytes_measured:{}",
                              p.fixture_doubles, p.fixture_bytes));
  lines.push_back(fmt::format(
      "demo=d_model:{} heads:{} T_max:{} B:{} prompt:{} seed:{}", kDemoWidth,
      kDemoHeads, kDemoCapacity, kDemoBatch, kDemoPrompt, kDemoSeed));
  double worst = 0.0;
  for (std::size_t i = 0; i < p.demo_steps.size(); ++i) {
    lines.push_back(step_line(fmt::format("demo_step_{}", i), p.demo_steps[i]));
    worst = std::max(worst, p.demo_steps[i].max_difference);
  }
  lines.push_back(fmt::format("demo_against_full=max_difference:{:.1e} steps:{}", worst,
                              p.demo_steps.size()));
  lines.push_back(fmt::format("demo_prompt_slots_changed={}", p.old_slots_changed));
  lines.push_back(fmt::format("demo_memory=doubles:{} bytes_measured:{}",
                              p.demo_doubles, p.demo_bytes));
  for (const auto& [name, text] : p.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const auto& e = p.exercises;
  lines.push_back(fmt::format("exercise_1=B:1 h:12 d_h:64 T_max:1024 doubles:{} MiB:{}",
                              e.gpt_layer_doubles,
                              format_number(e.gpt_layer_doubles * 8.0 / 1048576.0)));
  lines.push_back(fmt::format("exercise_2=decode_steps_accepted:{} then:{}",
                              e.decode_steps_accepted, e.refusal));
  lines.push_back(fmt::format("exercise_3=rows_cached:{} rows_recomputed:{}",
                              e.rows_cached, e.rows_recomputed));
  lines.push_back(fmt::format("exercise_4=chunk_vs_single_max_difference:{:.1e}",
                              e.chunk_vs_single));
  return snippets::join_lines(lines);
}

}  // namespace ch37

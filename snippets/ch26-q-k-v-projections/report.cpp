// Chapter 26
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch26 {

namespace {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::record;

void ch26_pass(std::vector<std::string>& lines, std::string_view layout,
               const Pass& p) {
  const char* names[] = {"query", "key", "value"};
  for (std::size_t i = 0; i < 3; ++i)
    lines.push_back(
        fmt::format("{}_{}={}", layout, names[i], format_tensor(p.outputs[i])));
  lines.push_back(fmt::format("{}_loss={}", layout, format_number(p.loss)));
  for (std::size_t i = 0; i < p.weight_gradients.size(); ++i) {
    const std::string name = p.weight_gradients.size() == 1 ? "in_proj" : names[i];
    lines.push_back(fmt::format("{}_gradient_{}={}", layout, name,
                                format_tensor(p.weight_gradients[i])));
  }
  lines.push_back(
      fmt::format("{}_gradient_input={}", layout, format_tensor(p.input_gradient)));
  lines.push_back(fmt::format("{}_parameters={}", layout, p.parameters));
  lines.push_back(fmt::format("{}_check=check_max_abs_error:{:.3e} passed:{}", layout,
                              p.check.max_abs_error(), p.check.passed()));
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  auto put = [&lines](std::string_view key, const auto& value) {
    lines.push_back(fmt::format("{}={}", key, value));
  };
  ch26_pass(lines, "separate", e.separate);
  ch26_pass(lines, "fused", e.fused);
  const Fusion& f = e.fusion;
  put("fused_in_projection", format_tensor(e.fused.point[1]));
  put("torch_in_proj_weight", format_tensor(f.torch_in_proj));
  put("torch_round_trip_exact", f.torch_round_trip);
  put("layouts_fixture_differing_entries", f.fixture_differing);
  put("layouts_gradient_differing_entries", f.gradient_differing);
  for (const auto& [name, text] : e.errors)
    put("error_" + name, text);
  const Exercises& x = e.exercises;
  put("exercise_1", fmt::format("d64:{} d768:{} d768_with_biases:{}", x.small, x.gpt2,
                                x.gpt2_biases));
  put("exercise_2",
      fmt::format("distinct_max_asymmetry:{} shared_max_asymmetry:{}",
                  format_number(x.asymmetry), format_number(x.asymmetry_shared)));
  return snippets::join_lines(lines);
}

// region: trace-records
// One MATRIX record per operand and output of the fixture, with its layout, and one
// LAYOUTS record: the entries where the fused layout differs. The diagram reads these
// records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  auto matrix = [](std::string_view layout, std::string_view name, const Tensor& t) {
    return record("MATRIX", "layout", layout, "name", name, "shape", t.shape(),
                  "values", t.values());
  };
  const Pass& s = e.separate;
  std::vector<std::string> lines = {
      record("FIXTURE", "tokens", 2, "d_model", 2, "parameters", s.parameters),
      matrix("input", "X", s.point[0])};
  const char* names[] = {"W_Q", "W_K", "W_V", "Q", "K", "V"};
  for (std::size_t i = 0; i < 6; ++i)
    lines.push_back(
        matrix("separate", names[i], i < 3 ? s.point[i + 1] : s.outputs[i - 3]));
  lines.push_back(matrix("fused", "W_in", e.fused.point[1]));
  lines.push_back(matrix("torch", "in_proj_weight", e.fusion.torch_in_proj));
  const Fusion& f = e.fusion;
  lines.push_back(record("LAYOUTS", "fixture_differing", f.fixture_differing,
                         "gradient_differing", f.gradient_differing));
  return snippets::join_lines(lines);
}
// endregion: trace-records

}  // namespace ch26

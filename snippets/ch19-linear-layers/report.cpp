// Chapter 19
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch19 {

namespace {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::record;

std::string ch19_check(const GradientCheckReport& r) {
  return fmt::format("check_max_abs_error:{:.3e} passed:{}", r.max_abs_error(),
                     r.passed());
}

}  // namespace

std::string render_report(const Evidence& e) {
  const Pass& p = e.pass;
  std::vector<std::string> lines = {
      fmt::format("fixture_output={}", format_tensor(p.output)),
      fmt::format("fixture_loss={}", format_number(p.loss)),
      fmt::format("fixture_weight_gradient={}", format_tensor(p.weight_gradient)),
      fmt::format("fixture_bias_gradient={}", format_tensor(p.bias_gradient)),
      fmt::format("fixture_input_gradient={}", format_tensor(p.input_gradient)),
      fmt::format("fixture_parameters={}", p.parameters),
      fmt::format("fixture_check={}", ch19_check(p.check)),
      fmt::format("trap_right_layout={}", format_tensor(e.trap.right)),
      fmt::format("trap_wrong_layout={}", format_tensor(e.trap.wrong)),
      fmt::format("trap_non_square={}", e.trap.non_square)};
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=with_bias:{} without_bias:{}",
                              x.wide_with_bias, x.wide_without_bias));
  lines.push_back(fmt::format("exercise_2=probe_e2:{}", format_tensor(x.probe)));
  lines.push_back(fmt::format("exercise_3=symmetric_max_difference:{}",
                              format_number(x.symmetric_difference)));
  return snippets::join_lines(lines);
}

// region: trace-records
// One MATRIX record per operand and gradient of the fixture, with the role it plays,
// and one TRAP record per layout of the square weight. The diagram reads these records
// and recomputes nothing.
std::string render_trace(const Evidence& e) {
  const Pass& p = e.pass;
  auto matrix = [](std::string_view name, std::string_view role, const Tensor& t) {
    return record("MATRIX", "name", name, "role", role, "shape", t.shape(), "values",
                  t.values());
  };
  const Tensor& x = p.operands[0];
  const Tensor& w = p.operands[1];
  return snippets::join_lines(
      {record("FIXTURE", "tokens", 2, "in", 3, "out", 2, "loss", p.loss),
       matrix("X", "input", x), matrix("W", "weight [in,out]", w),
       matrix("b", "bias", p.operands[2]), matrix("Y", "output X·W+b", p.output),
       matrix("G", "upstream ∂L/∂Y", p.operands[3]),
       matrix("dW", "Xᵀ·G", p.weight_gradient),
       matrix("db", "column sums of G", p.bias_gradient),
       matrix("dX", "G·Wᵀ", p.input_gradient),
       record("TRAP", "layout", "in_out", "weight",
              std::span<const double>(kSquareWeight), "output", e.trap.right.values()),
       record("TRAP", "layout", "out_in_taken_as_in_out", "weight",
              std::span<const double>(kSquareTorchWeight), "output",
              e.trap.wrong.values())});
}
// endregion: trace-records

}  // namespace ch19

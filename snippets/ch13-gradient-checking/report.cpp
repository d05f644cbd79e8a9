// Chapter 13
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch13 {

namespace {

// `[1]` for the inputs of a report that failed.
std::string failed_inputs(const GradientCheckReport& report) {
  std::vector<std::size_t> failed;
  for (std::size_t i = 0; i < report.inputs.size(); ++i)
    if (!report.inputs[i].passed) failed.push_back(i);
  return fmt::format("[{}]", fmt::join(failed, ","));
}

std::string outcome(const GradientCheckReport& report) {
  return fmt::format("failed_inputs:{} max_abs_error:{:.6e} passed:{}",
                     failed_inputs(report), report.max_abs_error(), report.passed());
}

// The row of the table with the smallest error.
const StepRow& best_row(const std::vector<StepRow>& table) {
  return *std::min_element(
      table.begin(), table.end(),
      [](const auto& a, const auto& b) { return a.error < b.error; });
}

}  // namespace

// The prediction, the error table and the optimum the model predicts.
void add_prediction_lines(const Evidence& e, std::vector<std::string>& lines) {
  lines.push_back(fmt::format("predict_gradient=analytic:[{}] numeric:[{}] calls:{} {}",
                              fmt::join(kGradient, ","), fmt::join(e.numeric, ","),
                              e.calls, outcome(e.correct)));
  lines.push_back(fmt::format("predict_wrong=analytic:[{}] {}",
                              fmt::join(kWrongGradient, ","), outcome(e.wrong)));
  lines.push_back(
      fmt::format("predict_nan=analytic:[nan,{}] {}", kGradient[1], outcome(e.nan)));
  lines.push_back(fmt::format(
      "quadratic_shifted=a:{} analytic:{} numeric:{} error:{:.3e} "
      "rounding_bound:{:.3e}",
      kShiftedA, 2 * kShiftedA * kB, e.shifted_numeric,
      std::abs(e.shifted_numeric - 2 * kShiftedA * kB), e.shifted_rounding_bound));
  for (std::size_t k = 0; k < e.table.size(); ++k) {
    const StepRow& r = e.table[k];
    lines.push_back(fmt::format(
        "table_{:02}=step:{:.0e} run:{:.6e} numeric:{:.16f} error:{:.3e} "
        "truncation:{:.3e} rounding:{:.3e}",
        k + 1, r.step, r.run, r.numeric, r.error, r.truncation, r.rounding));
  }
  const StepRow& best = best_row(e.table);
  lines.push_back(
      fmt::format("table_best=step:{:.0e} error:{:.3e}", best.step, best.error));
  lines.push_back(fmt::format("optimum=step:{:.3e}", e.optimum_step));
}

// Then the scales, the kink, the refusals and the exercises; the report is the
// prediction's lines followed by these.
void add_measured_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Scales& s = e.scales;
  lines.push_back(fmt::format("scale_large=x:1e8 checker:{} fixed_step_over_2h:{}",
                              s.large_checker, s.large_fixed));
  lines.push_back(fmt::format("scale_huge=x:1e300 fixed_step_moves_x:{} h:{} {}",
                              s.huge_fixed_moves, s.huge_h, outcome(s.huge)));
  lines.push_back(fmt::format(
      "scale_exp_30=analytic:{:.6e} relative_error:{:.3e} truncation:{:.3e} "
      "relative_error_at_1:{:.3e} {} absolute_only_passed:{}",
      std::exp(kExpX), s.exp_thirty.max_abs_error() / std::exp(kExpX),
      s.exp_thirty_truncation, s.exp_one_relative, outcome(s.exp_thirty),
      s.exp_thirty_absolute_only));
  lines.push_back(fmt::format("kink_relu_0=numeric:{} analytic_0:{} analytic_1:{}",
                              e.kink.numeric, outcome(e.kink.left_slope),
                              outcome(e.kink.right_slope)));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=forward_error_1e-05:{:.4e} forward_error_1e-08:{:.4e}",
                  x.forward_error[0], x.forward_error[1]));
  lines.push_back(fmt::format("exercise_2=cubic_numeric:{:.12f}", x.cubic_numeric));
  lines.push_back(
      fmt::format("exercise_3=relu_numeric_at_1e-07:{:.12f}", x.near_kink_numeric));
  lines.push_back(fmt::format(
      "misconception=error_at_1e-13:{:.3e} error_at_{:.0e}:{:.3e}",
      e.table.back().error, best_row(e.table).step, best_row(e.table).error));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_prediction_lines(e, lines);
  add_measured_lines(e, lines);
  return snippets::join_lines(lines);
}

// region: trace-records
// STEP per row of the error table (measured error and the model's two terms), BEST for
// the smallest measured error, OPTIMUM for the model's best step. The diagram reads
// these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const StepRow& r : e.table)
    records.push_back(
        fmt::format("STEP|step={:.6e}|error={:.6e}|truncation={:.6e}|rounding={:.6e}",
                    r.step, r.error, r.truncation, r.rounding));
  const StepRow& best = best_row(e.table);
  records.push_back(
      fmt::format("BEST|step={:.6e}|error={:.6e}", best.step, best.error));
  records.push_back(
      fmt::format("OPTIMUM|step={:.6e}|bound={:.6e}", e.optimum_step,
                  e.optimum_step * e.optimum_step * std::exp(kTableX) / 2.0));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch13

// Chapter 16
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <cmath>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch16 {

namespace {

// `[a,b]` with 6 decimals.
std::string ch16_list(const std::vector<double>& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

std::string ch16_check(const GradientCheckReport& r) {
  return fmt::format("check_max_abs_error:{:.3e} passed:{}", r.max_abs_error(),
                     r.passed());
}

}  // namespace

// The fixture's pass, each op's check, the extreme logits and every refusal.
void add_pass_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Pass& p = e.pass;
  lines.push_back(fmt::format("fixture_hidden={}", ch16_list(p.hidden)));
  lines.push_back(fmt::format("fixture_logits={}", ch16_list(p.logits)));
  lines.push_back(fmt::format("fixture_loss={:.6f}", p.loss));
  lines.push_back(
      fmt::format("fixture_logit_gradient={}", ch16_list(p.logit_gradient)));
  lines.push_back(
      fmt::format("fixture_table_gradient={}", ch16_list(p.table_gradient)));
  lines.push_back(
      fmt::format("fixture_output_gradient={}", ch16_list(p.output_gradient)));
  lines.push_back(fmt::format("fixture_check={}", ch16_check(p.check)));
  for (const OpCheck& c : e.checks)
    lines.push_back(fmt::format("op_{}={}", c.op, ch16_check(c.check)));
  lines.push_back(fmt::format("extreme_loss={:.6f} gradient:{}", e.extreme_loss,
                              ch16_list(e.extreme_gradient)));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
}

// Then the exercises and the misconception.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_pass_lines(e, lines);
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=ids:[1,1] table_gradient:{}",
                              ch16_list(x.repeated_table_gradient)));
  lines.push_back(fmt::format("exercise_2=silu(0):{:.6f} slope:{:.6f}", x.silu_at_zero,
                              x.silu_slope_at_zero));
  lines.push_back(fmt::format("exercise_3=zero_logits_loss:{:.6f}", x.uniform_loss));
  // fabs: the NaN's sign bit is the platform's choice, not a fact of the chapter.
  lines.push_back(fmt::format("misconception=log_of_softmax:{} finite:{} fused:{:.6f}",
                              std::fabs(e.naive_extreme_loss),
                              std::isfinite(e.naive_extreme_loss), e.extreme_loss));
  return snippets::join_lines(lines);
}

// region: trace-records
// POS per position of the fixture (token, row, logits, target, ∂L/∂z) and ROW per
// table row (its gradient and how many positions used it). The diagram reads these
// records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  const Pass& p = e.pass;
  records.push_back(
      fmt::format("FIXTURE|vocab=3|width=2|positions=2|loss={:.6f}", p.loss));
  for (std::size_t t = 0; t < 2; ++t) {
    const auto at = [](const std::vector<double>& v, std::size_t start, std::size_t n) {
      return std::vector<double>(v.begin() + start, v.begin() + start + n);
    };
    records.push_back(
        fmt::format("POS|t={}|token={}|hidden={}|logits={}|target={}|logit_gradient={}",
                    t, kInputs.ids[t], ch16_list(at(p.hidden, 2 * t, 2)),
                    ch16_list(at(p.logits, 3 * t, 3)), kTargets.ids[t],
                    ch16_list(at(p.logit_gradient, 3 * t, 3))));
  }
  for (std::size_t r = 0; r < 3; ++r) {
    std::size_t uses = 0;
    for (const auto id : kInputs.ids)
      uses += static_cast<std::size_t>(id) == r ? 1 : 0;
    records.push_back(
        fmt::format("ROW|row={}|uses={}|gradient={}", r, uses,
                    ch16_list({p.table_gradient[2 * r], p.table_gradient[2 * r + 1]})));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch16

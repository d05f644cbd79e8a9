// Chapter 25
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>
#include <cmath>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch25 {

namespace {

template <class Values>
std::string ch25_list(const Values& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  const Pass& p = e.pass;
  lines.push_back(fmt::format("fixture_rms=[{:.9f}]", fmt::join(p.rms, ",")));
  lines.push_back(fmt::format("fixture_output={}", ch25_list(p.output)));
  lines.push_back(
      fmt::format("fixture_input_gradient={}", ch25_list(p.input_gradient)));
  lines.push_back(fmt::format("fixture_gain_gradient={}", ch25_list(p.gain_gradient)));
  lines.push_back(fmt::format("fixture_check=check_max_abs_error:{:.3e} passed:{}",
                              p.check.max_abs_error(), p.check.passed()));
  for (const VariantRow& v : e.variants)
    for (std::size_t k = 0; k < 4; ++k)
      lines.push_back(fmt::format("variant_{}_{}={}", v.input, kVariantNames[k],
                                  ch25_list(v.values[k])));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  lines.push_back(fmt::format("exercise_1=times_10:{} times_1e-4:{}",
                              ch25_list(e.scaled[0]), ch25_list(e.scaled[1])));
  lines.push_back(
      fmt::format("exercise_2=x_dot_input_gradient:{:.6e}", e.radial_gradient));
  lines.push_back(fmt::format(
      "misconception=small_first_element eps_inside:{:.6f} eps_outside:{:.6f}",
      e.variants[1].values[0][0], e.variants[1].values[1][0]));
  return snippets::join_lines(lines);
}

// region: trace-records
// VARIANT per (input, variant): the four normalized values and the largest gap from
// RMSNorm's. The diagram reads these
// records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  records.push_back(fmt::format(
      "FIXTURE|rows=2|width=4|epsilon={:.0e}|zero_row_gradient={}", kEpsilon,
      ch25_list(std::vector<double>(e.pass.input_gradient.begin() + 4,
                                    e.pass.input_gradient.end()))));
  for (const VariantRow& v : e.variants)
    for (std::size_t k = 0; k < 4; ++k) {
      double gap = 0.0;  // max |variant − RMSNorm| over the row
      for (std::size_t j = 0; j < 4; ++j)
        gap = std::max(gap, std::abs(v.values[k][j] - v.values[0][j]));
      records.push_back(fmt::format("VARIANT|input={}|variant={}|values={}|gap={:.1e}",
                                    v.input, kVariantNames[k], ch25_list(v.values[k]),
                                    gap));
    }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch25

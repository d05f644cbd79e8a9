// Chapter 24
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch24 {

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (const bool identity : {false, true}) {
    const Pass& p = e.fixture[identity];
    lines.push_back(fmt::format(
        "fixture_{}=output:[{:.6f}] input_gradient:[{:.6f}] check_max_abs_error:{:.3e} "
        "passed:{}",
        identity ? "residual" : "plain", fmt::join(p.output, ","),
        fmt::join(p.input_gradient, ","), p.check.max_abs_error(), p.check.passed()));
  }
  for (const DepthRow& r : e.table)
    lines.push_back(fmt::format(
        "depth_{}=input_gradient plain:{:.3e} residual:{:.3e} bottom_block_gradient "
        "plain:{:.3e} residual:{:.3e} output_rms plain:{:.3e} residual:{:.3e}",
        r.depth, r.input_norm[0], r.input_norm[1], r.bottom_norm[0], r.bottom_norm[1],
        r.output_rms[0], r.output_rms[1]));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const DepthRow &first = e.table.front(), &last = e.table.back();
  lines.push_back(fmt::format("exercise_1=weight:-I input_gradient:[{:.6f}]",
                              fmt::join(e.cancelled_gradient, ",")));
  lines.push_back(
      fmt::format("exercise_2=plain_depth_below_1e-6:{}", e.plain_depth_below));
  lines.push_back(fmt::format(
      "exercise_3=residual_output_rms depth_0:{:.6f} depth_{}:{:.6f} ratio:{:.3f}",
      first.output_rms[1], last.depth, last.output_rms[1],
      last.output_rms[1] / first.output_rms[1]));
  lines.push_back(fmt::format(
      "misconception=depth_{} residual_input_gradient:{:.6f} loss_gradient:{:.6f}",
      last.depth, last.input_norm[1], first.input_norm[1]));
  return snippets::join_lines(lines);
}

// region: trace-records
// FIXTURE per stack kind and DEPTH per measured depth (both stacks' input-gradient
// norms and output RMS). The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const bool identity : {false, true})
    records.push_back(fmt::format("FIXTURE|stack={}|depth={}|input_gradient=[{:.6f}]",
                                  identity ? "residual" : "plain", kDepth,
                                  fmt::join(e.fixture[identity].input_gradient, ",")));
  for (const DepthRow& r : e.table)
    records.push_back(fmt::format(
        "DEPTH|depth={}|plain={:.6e}|residual={:.6e}|plain_rms={:.6e}|residual_rms={:."
        "6e}",
        r.depth, r.input_norm[0], r.input_norm[1], r.output_rms[0], r.output_rms[1]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch24

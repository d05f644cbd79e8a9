// Chapter 24
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch24 {

namespace {

std::string ch24_list(const std::vector<double>& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (const bool identity : {false, true}) {
    const Pass& p = e.fixture[identity];
    lines.push_back(fmt::format("fixture_{}=output:{} input_gradient:{} check_max_abs_error:{:.3e} passed:{}",
                                identity ? "residual" : "plain", ch24_list(p.output),
                                ch24_list(p.input_gradient), p.check.max_abs_error(), p.check.passed()));
  }
  for (const DepthRow& r : e.table)
    lines.push_back(fmt::format("depth_{}=input_gradient plain:{:.3e} residual:{:.3e} "
                                "bottom_weight_gradient plain:{:.3e} residual:{:.3e} "
                                "output_rms plain:{:.3e} residual:{:.3e}",
                                r.depth, r.input_norm[0], r.input_norm[1], r.weight_norm[0],
                                r.weight_norm[1], r.output_rms[0], r.output_rms[1]));
  for (const auto& [name, text] : e.errors) lines.push_back(fmt::format("error_{}={}", name, text));
  lines.push_back(fmt::format("exercise_1=weight:-I input_gradient:{}", ch24_list(e.cancelled_gradient)));
  lines.push_back(fmt::format("exercise_2=plain_depth_below_1e-6:{}", e.plain_depth_below));
  const DepthRow& top = e.table.back();
  lines.push_back(fmt::format("exercise_3=residual_output_rms depth_0:{:.6f} depth_{}:{:.6f} ratio:{:.3f}",
                              e.table.front().output_rms[1], top.depth, top.output_rms[1],
                              top.output_rms[1] / e.table.front().output_rms[1]));
  lines.push_back(fmt::format("misconception=depth_{} residual_input_gradient:{:.6f} loss_gradient:{:.6f}",
                              top.depth, top.input_norm[1], e.table.front().input_norm[1]));
  return snippets::join_lines(lines);
}

// region: trace-records
// FIXTURE per stack kind (its input gradient) and DEPTH per measured depth (both stacks'
// gradient norms and output RMS). The diagram reads these records, recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const bool identity : {false, true})
    records.push_back(fmt::format("FIXTURE|stack={}|depth={}|input_gradient={}",
                                  identity ? "residual" : "plain", kDepth,
                                  ch24_list(e.fixture[identity].input_gradient)));
  for (const DepthRow& r : e.table)
    records.push_back(fmt::format("DEPTH|depth={}|plain={:.6e}|residual={:.6e}|plain_rms={:.6e}|residual_rms={:.6e}",
                                  r.depth, r.input_norm[0], r.input_norm[1], r.output_rms[0], r.output_rms[1]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch24

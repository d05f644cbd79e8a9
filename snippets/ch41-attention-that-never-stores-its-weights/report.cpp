// Chapter 41
// Chapter 41's report: one `key=...` line per fact, then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch41 {

using llmfs::report::format_number;
using llmfs::report::format_values;

namespace {

std::string steps_text(const std::vector<llmfs::attention::OnlineSoftmaxStep>& steps) {
  std::vector<std::string> parts;
  for (const auto& s : steps)
    parts.push_back(fmt::format(
        "keys:{}-{} block_max:{} rescale:{} m:{} l:{}", s.first_key,
        s.first_key + s.keys - 1, format_number(s.block_max), format_number(s.rescale),
        format_number(s.after.max), format_number(s.after.sum)));
  return fmt::format("{}", fmt::join(parts, " | "));
}

std::vector<std::string> exercise_lines(const Exercises& x) {
  return {fmt::format("exercise_1={}", steps_text(x.steps)),
          fmt::format("exercise_2={} naive_sum_exp:{}", steps_text(x.shifted),
                      x.naive_total),
          fmt::format("exercise_3=tiles_visited:{} of:{} share:{}", x.tiles_visited,
                      x.tiles_total,
                      format_number(static_cast<double>(x.tiles_visited) /
                                    static_cast<double>(x.tiles_total))),
          fmt::format("exercise_4=table_bytes:{} statistics_bytes:{} ratio:{}",
                      x.table_bytes, x.statistics_bytes,
                      x.table_bytes / x.statistics_bytes)};
}

}  // namespace

std::string render_report(const Evidence& p) {
  std::vector<std::string> lines = {
      "chapter=41-attention-that-never-stores-its-weights",
      "prediction=each block raises the running maximum m or not; when it does, the "
      "sum so "
      "far is multiplied by exp(m_old - m_new); at the end l is the softmax "
      "denominator "
      "measured from the final maximum, and m + ln l is the row's log-sum-exp",
      fmt::format("predict_row=scores:{} block:{}",
                  format_values(std::vector<double>(kScores.begin(), kScores.end())),
                  kBlock),
      fmt::format("online_softmax={}", steps_text(p.steps)),
      fmt::format("one_pass=m:{} l:{} log_sum_exp:{}",
                  format_number(p.steps.back().after.max), format_number(p.direct_sum),
                  format_number(p.steps.back().after.max + std::log(p.direct_sum))),
      fmt::format("predict_head_log_sum_exp={}", format_values(p.log_sum_exp.values())),
      fmt::format(
          "predict_head_row_4=streaming:{} stored:{} relative_difference:{:.1e}",
          format_values(llmfs::report::row(p.streaming_output, 4, 2)),
          format_values(llmfs::report::row(p.stored_output, 4, 2)),
          relative_difference(p.streaming_output, p.stored_output))};
  std::vector<std::string> tiles;
  for (const auto& t : p.tiles)
    tiles.push_back(fmt::format("{}{}:{}", t.query_block, t.key_block, t.kind));
  lines.push_back(fmt::format("tiles=T:5 block:2 [{}]", fmt::join(tiles, ",")));
  lines.push_back(fmt::format(
      "block_sweep=T:{} blocks:1-{} max_relative_difference output:{:.1e} dQ:{:.1e} "
      "dK:{:.1e} dV:{:.1e}",
      kSweepTokens, kSweepTokens, p.sweep_output, p.sweep_query, p.sweep_key,
      p.sweep_value));
  for (const auto& t : p.tape)
    lines.push_back(
        fmt::format("tape_bytes=T:{} stored:{} streaming:{} ratio:{} tables_stored:{} "
                    "tables_streaming:{}",
                    t.tokens, t.stored_bytes, t.streaming_bytes,
                    format_number(static_cast<double>(t.stored_bytes) /
                                  static_cast<double>(t.streaming_bytes)),
                    t.stored_tables, t.streaming_tables));
  double worst = 0.0;
  for (std::size_t s = 0; s < p.stored_losses.size(); ++s)
    worst = std::max(worst, std::abs(p.stored_losses[s] - p.streaming_losses[s]));
  lines.push_back(
      fmt::format("training=steps:{} stored:{} streaming:{} max_difference:{:.1e}",
                  p.stored_losses.size(), format_values(p.stored_losses),
                  format_values(p.streaming_losses), worst));
  for (const auto& [name, text] : p.errors)
    lines.push_back("error_" + name + "=" + text);
  lines.push_back(
      "next=chapter 42: the same arithmetic, made fast - a matmul near the machine's "
      "limit, and the real training run");
  for (auto& line : exercise_lines(p.exercises))
    lines.push_back(std::move(line));
  return snippets::join_lines(lines);
}

}  // namespace ch41

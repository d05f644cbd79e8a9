// Chapter 28
// The report (one `key=value` line per fact, tensors as `shape:[..] values:[..]`) and
// the trace (the records behind docs/_ext/diagrams/ch28.py).
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch28 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;
using llmfs::report::record;
using llmfs::report::row;

std::string render_report(const Evidence& e) {
  const CausalPass& f = e.fixture;
  const Exercises& x = e.exercises;
  return snippets::join_lines({
      "chapter=28-causal-masking",
      snippets::config_line() + " mask:additive",
      "mask=" + format_tensor(f.mask),
      "scores=" + format_tensor(f.scores),
      "masked_scores=" + format_tensor(f.masked_scores),
      "weights=" + format_tensor(f.weights),
      "output=" + format_tensor(f.output),
      fmt::format("prefix=replaced_token:{} replacement:{} changed_output:{}",
                  kTokens - 1, format_values(kReplacement),
                  format_values(e.changed.output.values())),
      "error_empty_tokens=" + e.error_empty_tokens,
      "error_token_mismatch=" + e.error_token_mismatch,
      "error_fully_masked_row=" + e.error_fully_masked_row,
      fmt::format(
          "exercise_1=t4_allowed:{} t4_blocked:{} t1024_allowed:{} t1024_total:{}",
          x.allowed_4, 4 * 4 - x.allowed_4, x.allowed_1024, 1024 * 1024),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.blind.weights.values()),
                  format_values(x.blind.output.values())),
      "exercise_3=token_1_changed_output:" +
          format_values(x.token_1_changed_output.values()),
      "exercise_4=unmasked_row_2_weights:" +
          format_values(row(x.unmasked_weights, kTokens - 1, kTokens)),
      fmt::format("exercise_5=finite_mask:{} row_0_future_weight:{} row_0_before:{} "
                  "row_0_after_token_2_change:{} prefix_invariance:{}",
                  format_number(kFiniteMask), format_number(x.future_weight),
                  format_values(x.finite_before.values().first(kWidth)),
                  format_values(x.finite_after.values().first(kWidth)),
                  same_row(x.finite_before, x.finite_after, 0) ? "holds" : "broken"),
      "next=rotate queries and keys by position so scores see distance: 29-rope",
  });
}

// region: trace-records
std::string render_trace(const Evidence& e) {
  const CausalPass& f = e.fixture;
  std::vector<std::string> out{record("CONFIG", "batch", kBatch, "tokens", kTokens,
                                      "d_k", kWidth, "scale", 1.0 / std::sqrt(2.0),
                                      "mask", "additive causal")};
  // Every query/key pair: visibility, score, mask entry, masked score, weight
  for (std::size_t i = 0; i < kTokens; ++i) {
    for (std::size_t j = 0, at = i * kTokens; j < kTokens; ++j, ++at)
      out.push_back(record("CELL", "query", i, "key", j, "visibility",
                           j <= i ? "allowed" : "blocked", "diagonal", i == j, "score",
                           f.scores.values()[at], "mask", f.mask.values()[at],
                           "masked_score", f.masked_scores.values()[at], "weight",
                           f.weights.values()[at]));
  }
  // Each row's sum and value mixture
  for (std::size_t i = 0; i < kTokens; ++i)
    out.push_back(record("MIX", "query", i, "allowed_keys", i + 1, "row_sum",
                         e.row_sums.values()[i], "output", row(f.output, i, kWidth)));
  // The prefix check: the last token replaced, every output row compared bit for bit
  for (std::size_t i = 0; i < kTokens; ++i) {
    const bool same = same_row(f.output, e.changed.output, i);
    out.push_back(record("PREFIX", "token", i, "before", row(f.output, i, kWidth),
                         "after", row(e.changed.output, i, kWidth), "status",
                         same ? "bitwise-unchanged" : "changed", "replaced",
                         kTokens - 1, "replacement", kReplacement));
  }
  // A finite mask leaks: exercise 5
  const Exercises& x = e.exercises;
  const bool holds = same_row(x.finite_before, x.finite_after, 0);
  out.push_back(record("LEAK", "mask", kFiniteMask, "future_weight", x.future_weight,
                       "row0_before", row(x.finite_before, 0, kWidth), "row0_after",
                       row(x.finite_after, 0, kWidth), "prefix",
                       holds ? "holds" : "broken"));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch28

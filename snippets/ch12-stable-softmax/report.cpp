// Chapter 12
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <numeric>

#include <fmt/ranges.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch12 {

using llmfs::report::format_number;
using llmfs::report::format_values;

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (const RowResult& r : e.rows)
    if (r.name != "underflow")
      lines.push_back(fmt::format(
          "predict_{}=logits:{} shifted:{} exp:{} softmax:{} logsumexp:{} naive:{} "
          "naive_logsumexp:{}",
          r.name, format_values(r.logits), format_values(r.shifted),
          format_values(r.exps), format_values(r.softmax), format_number(r.logsumexp),
          format_values(r.naive), format_number(r.naive_logsumexp)));
  const RowResult &s = e.rows.front(), &u = e.rows.back();
  const Properties& p = e.properties;
  const Exercises& x = e.exercises;
  lines.insert(
      lines.end(),
      {fmt::format("fully_masked_softmax={}", e.fully_masked_softmax),
       fmt::format("fully_masked_log_softmax={}", e.fully_masked_log_softmax),
       fmt::format("fully_masked_logsumexp={} naive:{}",
                   format_number(e.fully_masked_logsumexp),
                   format_values(e.fully_masked_naive)),
       fmt::format(
           "log_underflow=logits:{} softmax:{} log_of_softmax:{} log_softmax:{}",
           format_values(u.logits), format_values(u.softmax),
           format_values(u.log_of_softmax), format_values(u.log_softmax)),
       fmt::format("log_small=log_softmax:{} log_of_softmax:{}",
                   format_values(s.log_softmax), format_values(s.log_of_softmax)),
       fmt::format("property_sum=max_error_in_u:{:.3f} widest_bound_in_u:{:.0f}",
                   p.max_sum_error_in_u, p.max_bound_in_u),
       fmt::format("property_log=max_gap:{:.3e}", p.max_log_gap)});
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  lines.insert(lines.end(),
               {fmt::format("exercise_1=softmax:[{:.17g}]", fmt::join(x.thirds, ",")),
                fmt::format("exercise_2=naive_breaks_at_k:{} and k:{}",
                            x.naive_overflow_k, x.naive_underflow_k),
                fmt::format("exercise_3=cross_entropy:{} from_log_of_softmax:{}",
                            format_number(x.cross_entropy), x.naive_cross_entropy)});
  return snippets::join_lines(lines);
}

// region: trace-records
// ENTRY per logit of each fixture row (the logit, x − m, exp(x − m), the stable and
// the naive probability), ROW per row (its stable and naive sums). The diagram reads
// these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const RowResult& r : e.rows) {
    for (std::size_t j = 0; j < r.logits.size(); ++j)
      records.push_back(fmt::format(
          "ENTRY|row={}|j={}|logit={}|shifted={}|exp={}|softmax={}|naive={}", r.name, j,
          format_number(r.logits[j]), format_number(r.shifted[j]),
          format_number(r.exps[j]), format_number(r.softmax[j]),
          format_number(r.naive[j])));
    records.push_back(fmt::format(
        "ROW|row={}|sum={}|naive_sum={}", r.name,
        format_number(std::accumulate(r.softmax.begin(), r.softmax.end(), 0.0)),
        format_number(std::accumulate(r.naive.begin(), r.naive.end(), 0.0))));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch12

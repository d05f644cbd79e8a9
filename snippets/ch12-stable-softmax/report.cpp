// Chapter 12
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <cmath>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch12 {

namespace {

// One value with six decimals; inf and -inf as such, and every NaN as `nan` (the sign
// of a NaN from ∞/∞ or 0/0 is the processor's choice, not a fact about softmax).
std::string six(double value) {
  return std::isnan(value) ? std::string("nan") : fmt::format("{:.6f}", value);
}

// `[0.090031,0.244728,0.665241]`.
std::string six(const std::vector<double>& values) {
  std::vector<std::string> texts;
  for (double v : values)
    texts.push_back(six(v));
  return fmt::format("[{}]", fmt::join(texts, ","));
}

// Every fact about one fixture row, stable and naive side by side.
std::string row_line(const RowResult& r) {
  return fmt::format(
      "predict_{}=logits:{} shifted:{} exp:{} softmax:{} logsumexp:{:.6f} naive:{} "
      "naive_logsumexp:{:.6f}",
      r.name, six(r.logits), six(r.shifted), six(r.exps), six(r.softmax), r.logsumexp,
      six(r.naive), r.naive_logsumexp);
}

}  // namespace

// region: report-lines
// The prediction's rows, the bit-for-bit shift, the fully masked row and the log.
void add_prediction_lines(const Evidence& e, std::vector<std::string>& lines) {
  for (const RowResult& r : e.rows)
    if (r.name != "underflow") lines.push_back(row_line(r));
  lines.push_back(fmt::format("predict_same_bits=softmax(large)==softmax(small):{}",
                              e.large_is_small_bitwise));
  lines.push_back(fmt::format("fully_masked_softmax={}", e.fully_masked_softmax));
  lines.push_back(
      fmt::format("fully_masked_log_softmax={}", e.fully_masked_log_softmax));
  lines.push_back(fmt::format("fully_masked_logsumexp={:.6f} naive:{}",
                              e.fully_masked_logsumexp, six(e.fully_masked_naive)));
  const RowResult& u = e.rows.back();
  lines.push_back(fmt::format(
      "log_underflow=logits:{} softmax:{} log_of_softmax:{} "
      "log_softmax:{}",
      six(u.logits), six(u.softmax), six(u.log_of_softmax), six(u.log_softmax)));
  const RowResult& s = e.rows.front();
  lines.push_back(fmt::format("log_small=log_softmax:{} log_of_softmax:{}",
                              six(s.log_softmax), six(s.log_of_softmax)));
}
// endregion: report-lines

// region: report-measured-lines
// Then the random rows, the refusals, the exercises and the misconception.
void add_measured_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Properties& p = e.properties;
  lines.push_back(fmt::format("property_rows=rows:{} entries:{} masked:{}", p.rows,
                              p.entries, p.masked));
  lines.push_back(fmt::format(
      "property_sum=max_error_in_u:{:.3f} widest_bound_in_u:{:.0f} within_bound:{}/{}",
      p.max_sum_error_in_u, p.max_bound_in_u, p.sum_within_bound, p.rows));
  lines.push_back(
      fmt::format("property_shift=bitwise_equal:{}/{}", p.shift_bitwise, p.rows));
  lines.push_back(
      fmt::format("property_masked=exact_zero:{}/{}", p.masked_exact_zero, p.masked));
  lines.push_back(fmt::format("property_log=entries:{} max_gap:{:.3e}", p.log_checked,
                              p.max_log_gap));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=softmax:[{:.17g}]", fmt::join(x.thirds, ",")));
  lines.push_back(fmt::format("exercise_2=naive_breaks_at_k:{} and k:{}",
                              x.naive_overflow_k, x.naive_underflow_k));
  lines.push_back(fmt::format("exercise_3=cross_entropy:{:.6f} from_log_of_softmax:{}",
                              x.cross_entropy, x.naive_cross_entropy));
  lines.push_back(fmt::format("misconception=naive_large:{} stable_large:{}",
                              six(e.rows[1].naive), six(e.rows[1].softmax)));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_prediction_lines(e, lines);
  add_measured_lines(e, lines);
  return snippets::join_lines(lines);
}
// endregion: report-measured-lines

// region: trace-records
// ENTRY per logit of each fixture row (the logit, x − m, exp(x − m), the stable and
// the naive probability), ROW per row (its stable and naive sums). The diagram reads
// these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const RowResult& r : e.rows) {
    double stable = 0.0;
    double naive = 0.0;
    for (std::size_t j = 0; j < r.logits.size(); ++j) {
      records.push_back(fmt::format(
          "ENTRY|row={}|j={}|logit={}|shifted={}|exp={}|softmax={}|naive={}", r.name, j,
          six(r.logits[j]), six(r.shifted[j]), six(r.exps[j]), six(r.softmax[j]),
          six(r.naive[j])));
      stable += r.softmax[j];
      naive += r.naive[j];
    }
    records.push_back(
        fmt::format("ROW|row={}|sum={}|naive_sum={}", r.name, six(stable), six(naive)));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch12
